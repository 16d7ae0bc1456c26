// Evaluator: decides one request against a Program. Matches the path, evaluates every candidate
// `allow` with CEL-style error absorption, enforces the runtime limits, and explains denials.
// One Evaluator per request; it is never shared between threads.
import Diagnostics

final class Evaluator {
    let program: Program
    let request: RulesRequest
    let lookup: any DocumentLookup
    let coverage: CoverageCollector?

    /// Wildcard bindings of the matched blocks (outermost first).
    var bindings: [(String, Value)] = []
    /// Parameters and `let`s of the function being evaluated.
    var frame: [(String, Value)] = []
    /// Which function scope names resolve in.
    var scope = 1
    var callDepth = 0
    var steps = 0
    /// While explaining, `debug()` output and coverage are not recorded again.
    var explaining = false
    var debugOutput: [DebugEntry] = []
    var lookupCache: [String: LookupResult] = [:]
    /// Pattern-segment comparisons made while matching the path (bounded: nested `=**`
    /// wildcards could otherwise try exponentially many splits).
    var matchSteps = 0
    static let matchStepLimit = 100_000

    private var requestValueCache: Value?
    private var resourceValueCache: Value?
    private var authValueCache: Value?
    /// The request path, split once.
    private(set) lazy var requestPath = PathValue(request.path)

    init(program: Program, request: RulesRequest, lookup: any DocumentLookup, coverage: CoverageCollector?) {
        self.program = program
        self.request = request
        self.lookup = lookup
        self.coverage = coverage
    }

    // MARK: - Deciding

    struct PendingCandidate {
        let allow: AllowRule
        let block: CompiledBlock
        let bindings: [(String, Value)]
    }

    func decide() -> Decision {
        var decision = Decision(allowed: false, grantedBy: nil, candidates: [], debugOutput: [], requestError: nil, lookupCount: 0)
        defer { coverage?.requestCount += 1 }
        guard request.service == program.service else {
            decision.requestError = EvaluationError(
                code: "RL3015", message: "request is for \(request.service.rawValue) but the rules are for \(program.service.rawValue)")
            return decision
        }
        if program.service == .storage && request.method == .list && !program.file.isVersion2 {
            decision.requestError = EvaluationError(code: "RL3016", message: "list is only allowed with rules_version = '2'")
            return decision
        }
        // An empty segment (`a//b`, a trailing `/`) names no document or object; collapsing it
        // would decide a different path than the one requested, so fail closed.
        let slash = UInt8(ascii: "/")
        let pathBody = request.path.utf8.first == slash ? request.path.utf8.dropFirst() : request.path.utf8[...]
        if pathBody.split(separator: slash, omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            decision.requestError = EvaluationError(code: "RL3023", message: "request path `\(request.path)` has an empty segment")
            return decision
        }
        let segments = requestPath.segments
        var pending: [PendingCandidate] = []
        collect(program.roots, segments, from: 0, into: &pending)
        if matchSteps > Evaluator.matchStepLimit {
            decision.requestError = EvaluationError(
                code: "RL3018", message: "matching the path against the rules took more than \(Evaluator.matchStepLimit) steps", isLimit: true)
            return decision
        }

        for candidate in pending {
            let reference = AllowReference(span: candidate.allow.span, methods: candidate.allow.methods, matchPattern: candidate.block.fullPattern)
            if decision.allowed || decision.requestError != nil {
                decision.candidates.append(Candidate(allow: reference, verdict: .notEvaluated))
                coverage?.recordAllow(candidate.allow.span, .notEvaluated)
                continue
            }
            guard let condition = candidate.allow.condition else {
                grant(&decision, reference)
                continue
            }
            bindings = candidate.bindings
            frame = []
            scope = candidate.block.scope
            do {
                let value = try eval(condition)
                if case .bool(true) = value {
                    grant(&decision, reference)
                    continue
                }
            } catch where error.isLimit {
                decision.requestError = error
                decision.candidates.append(Candidate(allow: reference, verdict: .denied(blame(for: error, at: condition))))
                coverage?.recordAllow(candidate.allow.span, .denied)
                continue
            } catch {}
            let savedSteps = steps
            explaining = true
            let why = explain(condition)
            explaining = false
            steps = savedSteps
            decision.candidates.append(Candidate(allow: reference, verdict: .denied(why)))
            coverage?.recordAllow(candidate.allow.span, .denied)
        }
        if decision.requestError != nil { decision.allowed = false; decision.grantedBy = nil }
        decision.debugOutput = debugOutput
        decision.lookupCount = lookupCache.count
        return decision
    }

    private func grant(_ decision: inout Decision, _ reference: AllowReference) {
        decision.allowed = true
        decision.grantedBy = reference
        decision.candidates.append(Candidate(allow: reference, verdict: .granted))
        coverage?.recordAllow(reference.span, .granted)
    }

    /// Finds every `allow` in a completely matching block whose methods cover the request.
    private func collect(_ blocks: [CompiledBlock], _ segments: [String], from start: Int, into pending: inout [PendingCandidate]) {
        for block in blocks {
            let base = bindings.count
            if block.hasRecursiveSegment {
                matchPattern(block.pattern[...], segments, start) { end in visit(block, segments, end, &pending) }
            } else if let end = matchFixed(block.pattern, segments, start) {
                // Fast path: without `=**` a pattern matches at most one way.
                visit(block, segments, end, &pending)
            }
            // INVARIANT: every binding pushed while matching this block is popped here.
            if bindings.count > base { bindings.removeSubrange(base...) }
        }
    }

    /// Records the block's applicable `allow`s on a complete match, then tries its children.
    private func visit(_ block: CompiledBlock, _ segments: [String], _ end: Int, _ pending: inout [PendingCandidate]) {
        if end == segments.count {
            for allow in block.allows where allow.methods.contains(where: { $0.covers(request.method) }) {
                pending.append(PendingCandidate(allow: allow, block: block, bindings: bindings))
            }
        }
        if !block.children.isEmpty {
            collect(block.children, segments, from: end, into: &pending)
        }
    }

    /// Matches a pattern without `=**` at `start`, pushing its bindings; returns the end index.
    private func matchFixed(_ pattern: [PatternSegment], _ segments: [String], _ start: Int) -> Int? {
        matchSteps += 1
        let end = start + pattern.count
        guard end <= segments.count, matchSteps <= Evaluator.matchStepLimit else { return nil }
        var index = start
        for segment in pattern {
            switch segment {
            case .literal(let text):
                guard segments[index] == text else { return nil }
            case .single(let name):
                bindings.append((name, .string(segments[index])))
            case .recursive:
                return nil
            }
            index += 1
        }
        return end
    }

    /// Calls `onMatch(end)` for every way `pattern` matches `segments[start..<end]`, with the
    /// wildcards bound in `bindings` during the call.
    private func matchPattern(_ pattern: ArraySlice<PatternSegment>, _ segments: [String], _ start: Int, _ onMatch: (Int) -> Void) {
        matchSteps += 1
        guard matchSteps <= Evaluator.matchStepLimit else { return }
        guard let first = pattern.first else { return onMatch(start) }
        let rest = pattern.dropFirst()
        switch first {
        case .literal(let text):
            if start < segments.count && segments[start] == text { matchPattern(rest, segments, start + 1, onMatch) }
        case .single(let name):
            guard start < segments.count else { return }
            bindings.append((name, .string(segments[start])))
            matchPattern(rest, segments, start + 1, onMatch)
            bindings.removeLast()
        case .recursive(let name):
            let minimum = program.file.isVersion2 ? 0 : 1
            guard segments.count - start >= minimum else { return }
            for end in (start + minimum)...segments.count {
                bindings.append((name, .path(PathValue(segments: Array(segments[start..<end])))))
                matchPattern(rest, segments, end, onMatch)
                bindings.removeLast()
            }
        }
    }

    // MARK: - Expressions

    func eval(_ expr: Expr) throws(EvaluationError) -> Value {
        steps += 1
        if steps > program.limits.evaluationStepLimit {
            throw EvaluationError(code: "RL3012", message: "more than \(program.limits.evaluationStepLimit) expressions evaluated for one request",
                                  span: expr.span, isLimit: true)
        }
        guard let coverage, !explaining else { return try evalNode(expr) }
        do {
            let value = try evalNode(expr)
            coverage.record(expr.span, value)
            return value
        } catch {
            coverage.record(expr.span, error)
            throw error
        }
    }

    func evalNode(_ expr: Expr) throws(EvaluationError) -> Value {
        switch expr.kind {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .int(let value): return .int(value)
        case .float(let value): return .float(value)
        case .string(let value): return .string(value)
        case .bytes(let value): return .bytes(value)
        case .list(let items):
            var values: [Value] = []
            values.reserveCapacity(items.count)
            for item in items { values.append(try eval(item)) }
            return .list(values)
        case .map(let entries):
            var map: [String: Value] = [:]
            for entry in entries { map[entry.key] = try eval(entry.value) }
            return .map(map)
        case .path(let segments):
            var parts: [String] = []
            for segment in segments {
                switch segment {
                case .literal(let text): parts.append(text)
                case .placeholder(let name): parts.append("{\(name)}")
                case .interpolation(let inner):
                    let value = try eval(inner)
                    switch value {
                    case .string(let text): parts.append(text)
                    case .int, .float, .bool: parts.append(value.description)
                    case .path(let p): parts += p.segments
                    default: throw .unsupported("\(value.typeName) in a path segment", inner.span)
                    }
                }
            }
            return .path(PathValue(segments: parts))
        case .identifier(let name):
            return try variable(name, expr.span)
        case .member(let base, let name):
            // Fast path: `request.x` without building the whole request map (not while
            // collecting coverage, which must see the `request` node itself).
            if coverage == nil, case .identifier("request") = base.kind, !isBound("request") {
                steps += 1
                return try requestField(name, expr.span)
            }
            // `request.auth.uid`, the most common idiom, without materializing `request.auth`.
            if coverage == nil, name == "uid", case .member(let inner, "auth") = base.kind,
               case .identifier("request") = inner.kind, !isBound("request") {
                steps += 2
                guard let auth = request.auth else { throw .nullValue("cannot read `uid` of null", expr.span) }
                return .string(auth.uid)
            }
            let value = try eval(base)
            if case .path(let p) = value { return try pathField(p, name, expr.span) }
            return try Builtins.member(value, name, expr.span)
        case .index(let base, let index):
            let value = try eval(base)
            let key = try eval(index)
            if case .path(let p) = value, case .string(let name) = key { return try pathField(p, name, expr.span) }
            return try Builtins.index(value, key, expr.span)
        case .range(let base, let from, let to):
            let value = try eval(base)
            return try Builtins.range(value, try eval(from), try eval(to), expr.span)
        case .call(let receiver, let name, let arguments):
            return try call(receiver, name, arguments, expr.span)
        case .unary(.not, let operand):
            let value = try eval(operand)
            guard case .bool(let b) = value else { throw .unsupported("!\(value.typeName)", expr.span) }
            return .bool(!b)
        case .unary(.negate, let operand):
            return try Builtins.negate(try eval(operand), expr.span)
        case .binary(.and, let lhs, let rhs):
            return try logical(lhs, rhs, decisive: false)
        case .binary(.or, let lhs, let rhs):
            return try logical(lhs, rhs, decisive: true)
        case .binary(let op, let lhs, let rhs):
            // `request.auth == null` / `!= null` without materializing `request.auth`.
            if coverage == nil, op == .equal || op == .notEqual, case .null = rhs.kind, case .member(let base, "auth") = lhs.kind,
               case .identifier("request") = base.kind, !isBound("request") {
                steps += 3
                return .bool((request.auth == nil) == (op == .equal))
            }
            let a = try eval(lhs)
            let b = try eval(rhs)
            return try Builtins.binary(op, a, b, expr.span)
        case .isType(let operand, let typeName):
            return .bool(Builtins.isType(try eval(operand), typeName))
        case .ternary(let condition, let then, let otherwise):
            let value = try eval(condition)
            guard case .bool(let b) = value else { throw .notBoolean(value, condition.span) }
            return try eval(b ? then : otherwise)
        }
    }

    /// `&&` (decisive value false) and `||` (decisive value true), absorbing errors CEL-style:
    /// a decisive value on either side wins; otherwise the left error, then the right error.
    private func logical(_ lhs: Expr, _ rhs: Expr, decisive: Bool) throws(EvaluationError) -> Value {
        var leftError: EvaluationError?
        do {
            let left = try eval(lhs)
            if case .bool(let b) = left {
                if b == decisive { return .bool(decisive) }
            } else {
                leftError = .notBoolean(left, lhs.span)
            }
        } catch where error.isLimit {
            throw error
        } catch {
            leftError = error
        }
        let right: Value
        do {
            right = try eval(rhs)
        } catch where error.isLimit {
            throw error
        } catch {
            throw leftError ?? error
        }
        guard case .bool(let b) = right else { throw leftError ?? .notBoolean(right, rhs.span) }
        if b == decisive { return .bool(decisive) }
        if let leftError { throw leftError }
        return .bool(!decisive)
    }

    // MARK: - Names

    func variable(_ name: String, _ span: SourceSpan) throws(EvaluationError) -> Value {
        for (key, value) in frame.reversed() where key == name { return value }
        for (key, value) in bindings.reversed() where key == name { return value }
        switch name {
        case "request": return requestValue
        case "resource": return resourceValue
        default: throw EvaluationError(code: "RL3014", message: "unknown variable `\(name)`", span: span)
        }
    }

    func isBound(_ name: String) -> Bool {
        frame.contains { $0.0 == name } || bindings.contains { $0.0 == name }
    }

    /// `path.name` / `path['name']`: paths expose no fields beyond their segments.
    private func pathField(_ p: PathValue, _ name: String, _ span: SourceSpan) throws(EvaluationError) -> Value {
        throw .undefinedProperty(name, span)
    }

    var authValue: Value {
        if let cached = authValueCache { return cached }
        let value = request.auth?.value ?? .null
        authValueCache = value
        return value
    }

    /// One field of `request`, equal to reading it from ``requestValue``.
    func requestField(_ name: String, _ span: SourceSpan) throws(EvaluationError) -> Value {
        switch name {
        case "auth": return authValue
        case "method": return .string(request.method.rawValue)
        case "path": return .path(requestPath)
        case "time": return .timestamp(request.time)
        case "params": return .map(request.params)
        case "resource":
            guard let data = request.requestResource else { throw .undefinedProperty(name, span) }
            return wrapResource(data)
        case "query":
            guard let query = request.query else { throw .undefinedProperty(name, span) }
            return .map(query)
        default: throw .undefinedProperty(name, span)
        }
    }

    var requestValue: Value {
        if let cached = requestValueCache { return cached }
        var map: [String: Value] = [
            "auth": authValue,
            "method": .string(request.method.rawValue),
            "path": .path(requestPath),
            "time": .timestamp(request.time),
            "params": .map(request.params),
        ]
        if let data = request.requestResource { map["resource"] = wrapResource(data) }
        if let query = request.query { map["query"] = .map(query) }
        let value = Value.map(map)
        requestValueCache = value
        return value
    }

    var resourceValue: Value {
        if let cached = resourceValueCache { return cached }
        let value = request.resource.map(wrapResource) ?? .null
        resourceValueCache = value
        return value
    }

    /// Firestore: `{data, id, __name__}`; Storage: the metadata with `name`/`bucket` defaulted from the path.
    func wrapResource(_ data: Value) -> Value {
        let path = requestPath
        switch program.service {
        case .firestore:
            return .map(["data": data, "id": .string(path.segments.last ?? ""), "__name__": .path(path)])
        case .storage:
            guard case .map(var metadata) = data else { return data }
            if metadata["name"] == nil, path.segments.count > 3 { metadata["name"] = .string(path.segments[3...].joined(separator: "/")) }
            if metadata["bucket"] == nil, path.segments.count > 1 { metadata["bucket"] = .string(path.segments[1]) }
            return .map(metadata)
        }
    }

    // MARK: - Calls

    static let lookupFunctions: Set<String> = ["get", "exists", "getAfter", "existsAfter"]

    func namespace(of receiver: Expr?) -> String? {
        guard let receiver, case .identifier(let name) = receiver.kind, !isBound(name) else { return nil }
        if BuiltinCatalogue.namespaces[name] != nil { return name }
        if name == "firestore" && program.service == .storage { return name }
        return nil
    }

    private func call(_ receiver: Expr?, _ name: String, _ arguments: [Expr], _ span: SourceSpan) throws(EvaluationError) -> Value {
        if let namespace = namespace(of: receiver) {
            let args = try evalArguments(arguments)
            if namespace == "firestore" {
                return try documentLookup(name == "exists" ? "exists" : (name == "get" ? "get" : name), args, span, storage: true)
            }
            return try Builtins.namespaced(namespace, name, args, span)
        }
        if let receiver {
            let value = try eval(receiver)
            let args = try evalArguments(arguments)
            return try Builtins.method(value, name, args, regex: program.regex, span)
        }
        if let index = program.scopes[scope][name] {
            return try callUser(program.functions[index], arguments, span)
        }
        let args = try evalArguments(arguments)
        if name == "debug", args.count == 1 {
            if !explaining { debugOutput.append(DebugEntry(span: span, value: args[0])) }
            return args[0]
        }
        if Evaluator.lookupFunctions.contains(name) && program.service == .firestore {
            return try documentLookup(name, args, span, storage: false)
        }
        return try Builtins.global(name, args, span)
    }

    private func evalArguments(_ arguments: [Expr]) throws(EvaluationError) -> [Value] {
        var values: [Value] = []
        values.reserveCapacity(arguments.count)
        for argument in arguments { values.append(try eval(argument)) }
        return values
    }

    func callUser(_ function: CompiledFunction, _ arguments: [Expr], _ span: SourceSpan) throws(EvaluationError) -> Value {
        let declaration = function.declaration
        guard arguments.count == declaration.parameters.count else {
            throw EvaluationError(code: "RL3017", message: "`\(declaration.name)` takes \(declaration.parameters.count) arguments, got \(arguments.count)", span: span)
        }
        let args = try evalArguments(arguments)
        guard callDepth < program.limits.maxCallDepth else {
            throw EvaluationError(code: "RL3010", message: "function call depth exceeds \(program.limits.maxCallDepth)", span: span, isLimit: true)
        }
        let savedFrame = frame
        let savedScope = scope
        callDepth += 1
        defer {
            frame = savedFrame
            scope = savedScope
            callDepth -= 1
        }
        frame = Array(zip(declaration.parameters, args))
        scope = function.scope
        for binding in declaration.lets {
            frame.append((binding.name, try eval(binding.value)))
        }
        return try eval(declaration.body)
    }

    // MARK: - Document lookups

    private func documentLookup(_ name: String, _ args: [Value], _ span: SourceSpan, storage: Bool) throws(EvaluationError) -> Value {
        let qualified = storage ? "firestore.\(name)" : name
        guard args.count == 1 else { throw .functionNotFound(qualified, span) }
        let path: PathValue
        switch args[0] {
        case .path(let p): path = p
        case .string(let s): path = PathValue(s)
        default: throw .unsupported("\(qualified)(\(args[0].typeName)), expected a path", span)
        }
        let s = path.segments
        guard s.count >= 5, s[0] == "databases", s[2] == "documents", (s.count - 3) % 2 == 0 else {
            throw .invalidArgument("`\(qualified)` needs a full document path like /databases/$(database)/documents/users/$(uid), got `\(path)`", span)
        }
        if storage && s[1] != "(default)" {
            throw .invalidArgument("Storage rules can only read the (default) Firestore database", span)
        }
        let after = name == "getAfter" || name == "existsAfter"
        let key = (after ? "after:" : "before:") + path.description
        let result: LookupResult
        if let cached = lookupCache[key] {
            result = cached
        } else {
            let limit = request.isBatched ? program.limits.maxBatchedLookups : program.limits.maxLookups
            guard lookupCache.count < limit else {
                throw EvaluationError(code: "RL3011", message: "more than \(limit) document lookups for one request", span: span, isLimit: true)
            }
            if after && program.service == .firestore && path == requestPath {
                if request.method == .delete {
                    result = .missing
                } else if case .map(let data) = request.requestResource ?? .null {
                    result = .document(data)
                } else {
                    result = lookup.lookup(path: path.description, afterWrite: true)
                }
            } else {
                result = lookup.lookup(path: path.description, afterWrite: after)
            }
            lookupCache[key] = result
        }
        switch result {
        case .failure(let message):
            throw EvaluationError(code: "RL3013", message: "lookup of `\(path)` failed: \(message)", span: span)
        case .missing:
            return name.hasPrefix("exists") ? .bool(false) : .null
        case .document(let data):
            if name.hasPrefix("exists") { return .bool(true) }
            return .map(["data": .map(data), "id": .string(s.last ?? ""), "__name__": .path(path)])
        }
    }

    // MARK: - Explaining

    private func result(_ expr: Expr) -> Result<Value, EvaluationError> {
        do { return .success(try eval(expr)) } catch { return .failure(error) }
    }

    func text(_ expr: Expr) -> String {
        let bytes = program.source.bytes
        guard expr.span.start >= 0, expr.span.end <= bytes.count, expr.span.start < expr.span.end else { return RulesPrinter.print(expr) }
        return String(decoding: bytes[expr.span.start..<expr.span.end], as: UTF8.self)
    }

    func blame(for error: EvaluationError, at expr: Expr) -> Blame {
        Blame(span: error.span ?? expr.span, expression: error.span == nil ? text(expr) : "", message: error.message, error: error, values: [])
    }

    static func shorten(_ text: String) -> String {
        text.count > 200 ? String(text.prefix(197)) + "…" : text
    }

    /// Finds the first false or erroring sub-expression of a condition that did not grant.
    func explain(_ expr: Expr) -> Blame {
        switch expr.kind {
        case .binary(.and, let lhs, let rhs):
            switch result(lhs) {
            case .success(.bool(true)): return explain(rhs)
            case .success(.bool(false)): return explain(lhs)
            default:
                if case .success(.bool(false)) = result(rhs) { return explain(rhs) }
                return explain(lhs)
            }
        case .binary(.or, let lhs, _):
            return explain(lhs)
        case .ternary(let condition, let then, let otherwise):
            switch result(condition) {
            case .success(.bool(let b)): return explain(b ? then : otherwise)
            default: return explain(condition)
            }
        case .call(nil, let name, let arguments) where program.scopes[scope][name] != nil:
            for argument in arguments {
                if case .failure = result(argument) { return explain(argument) }
            }
            guard let index = program.scopes[scope][name], callDepth < program.limits.maxCallDepth else { return describe(expr) }
            let function = program.functions[index]
            let declaration = function.declaration
            var args: [Value] = []
            for argument in arguments {
                guard case .success(let value) = result(argument) else { return describe(expr) }
                args.append(value)
            }
            let savedFrame = frame, savedScope = scope
            callDepth += 1
            defer { frame = savedFrame; scope = savedScope; callDepth -= 1 }
            frame = Array(zip(declaration.parameters, args))
            scope = function.scope
            for binding in declaration.lets {
                switch result(binding.value) {
                case .success(let value): frame.append((binding.name, value))
                case .failure: return explain(binding.value)
                }
            }
            return explain(declaration.body)
        default:
            let skipReceiver = namespace(of: { if case .call(let r, _, _) = expr.kind { r } else { nil } }()) != nil
            for (offset, child) in expr.children.enumerated() where !(skipReceiver && offset == 0) {
                if case .failure = result(child) { return explain(child) }
            }
            return describe(expr)
        }
    }

    /// Blames `expr` itself, listing the values of its operands.
    private func describe(_ expr: Expr) -> Blame {
        let source = text(expr)
        var operands: [Blame.Operand] = []
        let skipReceiver = namespace(of: { if case .call(let r, _, _) = expr.kind { r } else { nil } }()) != nil
        for (offset, child) in expr.children.enumerated() where !(skipReceiver && offset == 0) {
            if case .success(let value) = result(child) {
                operands.append(Blame.Operand(label: text(child), value: Evaluator.shorten(value.description)))
            }
        }
        switch result(expr) {
        case .failure(let error):
            return Blame(span: error.span ?? expr.span, expression: source, message: error.message, error: error, values: operands)
        case .success(let value):
            let message: String
            if case .bool(false) = value {
                message = "`\(Evaluator.shorten(source))` is false"
            } else {
                message = "`\(Evaluator.shorten(source))` is \(value.typeName) `\(Evaluator.shorten(value.description))`, not bool"
            }
            return Blame(span: expr.span, expression: source, message: message, error: nil, values: operands)
        }
    }
}
