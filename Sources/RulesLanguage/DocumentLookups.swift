// DocumentLookups: `get`, `exists`, `getAfter`, `existsAfter` and Storage's `firestore.*` —
// path validation, the per-request budget and cache, and the request's own write for `…After`.

import Diagnostics

extension Evaluator {
    func documentLookup(_ name: String, _ args: [Value], _ span: SourceSpan, storage: Bool) throws(EvaluationError) -> Value {
        let qualified = storage ? "firestore.\(name)" : name
        guard args.count == 1 else { throw .functionNotFound(qualified, span) }
        let path: PathValue
        switch args[0] {
        case .path(let p): path = p
        case .string(let s): path = PathValue(s)
        default: throw .unsupported("\(qualified)(\(args[0].typeName)), expected a path", span)
        }
        try meter.charge(path.segments.count + path.segments.reduce(0) { $0 + $1.utf8.count }, span)
        let s = path.segments
        guard s.count >= 5, s[0] == "databases", s[2] == "documents", (s.count - 3) % 2 == 0 else {
            throw .invalidArgument("`\(qualified)` needs a full document path like /databases/$(database)/documents/users/$(uid), got `\(path)`", span)
        }
        if storage && s[1] != "(default)" {
            throw .invalidArgument("Storage rules can only read the (default) Firestore database", span)
        }
        let after = name == "getAfter" || name == "existsAfter"
        let pathText = path.description
        let key = LookupKey(path: pathText, afterWrite: after)
        let result: LookupResult
        if let cached = lookupCache[key] {
            result = cached
        } else {
            let limit = request.isBatched ? program.limits.maxBatchedLookups : program.limits.maxLookups
            guard lookupCache.count < limit else {
                throw EvaluationError(code: RulesLanguageCodes.tooManyLookups.id, message: "more than \(limit) document lookups for one request", span: span, isLimit: true)
            }
            if after && program.service == .firestore && path == requestPath {
                if request.method == .delete {
                    result = .missing
                } else if case .map(let data) = request.requestResource ?? .null {
                    result = .document(data)
                } else {
                    result = lookup.lookup(path: pathText, afterWrite: true)
                }
            } else {
                result = lookup.lookup(path: pathText, afterWrite: after)
            }
            lookupCache[key] = result
        }
        switch result {
        case .failure(let message):
            throw EvaluationError(code: RulesLanguageCodes.lookupFailed.id, message: "lookup of `\(path)` failed: \(message)", span: span)
        case .missing:
            return name.hasPrefix("exists") ? .bool(false) : .null
        case .document(let data):
            if name.hasPrefix("exists") { return .bool(true) }
            return .map(["data": .map(data), "id": .string(s.last ?? ""), "__name__": .path(path)])
        }
    }

}
