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
    /// Nesting of `eval` (and of explanations) right now, bounded by `maxEvaluationDepth`.
    var evaluationDepth = 0
    var steps = 0
    /// The work of the built-ins for this request (`RL3024`) and the size of what they build (`RL3025`).
    var meter: WorkMeter
    /// While explaining, `debug()` output and coverage are not recorded again.
    var explaining = false
    var debugOutput: [DebugEntry] = []
    /// Lookups made for this request: each distinct (path, before/after) counts once.
    var lookupCache: [LookupKey: LookupResult] = [:]

    struct LookupKey: Hashable {
        let path: String
        let afterWrite: Bool
    }
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
        self.meter = WorkMeter(limits: program.limits)
    }

    // MARK: - Deciding

    struct PendingCandidate {
        let allow: AllowRule
        let block: CompiledBlock
        let bindings: [(String, Value)]
    }

    func decide() -> Decision {
        var decision = Decision(allowed: false, grantedBy: nil, candidates: [], debugOutput: [], requestError: nil, lookupCount: 0, completeMatches: [])
        defer { coverage?.requestCount += 1 }
        guard request.service == program.service else {
            decision.requestError = EvaluationError(
                code: RulesLanguageCodes.serviceMismatch.id, message: "request is for \(request.service.rawValue) but the rules are for \(program.service.rawValue)")
            return decision
        }
        if program.service == .storage && request.method == .list && !program.file.isVersion2 {
            decision.requestError = EvaluationError(code: RulesLanguageCodes.storageListDenied.id, message: "list is only allowed with rules_version = '2'")
            return decision
        }
        // An empty segment (`a//b`, a trailing `/`) names no document or object; collapsing it
        // would decide a different path than the one requested, so fail closed.
        let slash = UInt8(ascii: "/")
        let pathBody = request.path.utf8.first == slash ? request.path.utf8.dropFirst() : request.path.utf8[...]
        if pathBody.split(separator: slash, omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            decision.requestError = EvaluationError(code: RulesLanguageCodes.emptyPathSegment.id, message: "request path `\(request.path)` has an empty segment")
            return decision
        }
        let segments = requestPath.segments
        var pending: [PendingCandidate] = []
        collect(program.roots, segments, from: 0, into: &pending)
        if matchSteps > Evaluator.matchStepLimit {
            decision.requestError = EvaluationError(
                code: RulesLanguageCodes.pathMatchingLimit.id, message: "matching the path against the rules took more than \(Evaluator.matchStepLimit) steps", isLimit: true)
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
            // Explaining re-evaluates parts of the condition (quadratic along a blame path), so it
            // gets its own, larger budget; the request's step count is restored afterwards.
            // The built-ins' work gets a fresh budget of the same size for the explanation.
            let savedSteps = steps
            let savedWork = meter.fresh()
            steps = -99 * program.limits.evaluationStepLimit
            explaining = true
            let why = explain(condition)
            explaining = false
            steps = savedSteps
            meter.restore(savedWork)
            decision.candidates.append(Candidate(allow: reference, verdict: .denied(why)))
            coverage?.recordAllow(candidate.allow.span, .denied)
        }
        if decision.requestError != nil { decision.allowed = false; decision.grantedBy = nil }
        if pending.isEmpty { decision.completeMatches = completeMatches(segments) }
        decision.debugOutput = debugOutput
        decision.lookupCount = lookupCache.count
        decision.workUnits = meter.used
        return decision
    }

    private func grant(_ decision: inout Decision, _ reference: AllowReference) {
        decision.allowed = true
        decision.grantedBy = reference
        decision.candidates.append(Candidate(allow: reference, verdict: .granted))
        coverage?.recordAllow(reference.span, .granted)
    }

    // MARK: - Expressions

    func eval(_ expr: Expr) throws(EvaluationError) -> Value {
        steps += 1
        if steps > program.limits.evaluationStepLimit {
            throw EvaluationError(code: RulesLanguageCodes.tooManySteps.id, message: "more than \(program.limits.evaluationStepLimit) expressions evaluated for one request",
                                  span: expr.span, isLimit: true)
        }
        evaluationDepth += 1
        defer { evaluationDepth -= 1 }
        if evaluationDepth > program.limits.maxEvaluationDepth {
            throw EvaluationError(code: RulesLanguageCodes.evaluationTooDeep.id,
                                  message: "expressions nest more than \(program.limits.maxEvaluationDepth) deep across function calls",
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
            try meter.charge(items.count, expr.span)
            var values: [Value] = []
            values.reserveCapacity(items.count)
            for item in items { values.append(try eval(item)) }
            return .list(values)
        case .map(let entries):
            try meter.charge(entries.count, expr.span)
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
                    case .string(let text):
                        try meter.charge(text.utf8.count, inner.span)
                        parts.append(text)
                    case .int, .float, .bool: parts.append(value.description)
                    case .path(let p):
                        // `$(p)` splices a path: `/a/$(p)/$(p)` doubles it, so the size is checked.
                        try meter.build(parts.count + p.segments.count, "segments", by: "`$(…)` in a path", inner.span)
                        parts += p.segments
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
            return try Builtins.index(value, key, expr.span, &meter)
        case .range(let base, let from, let to):
            let value = try eval(base)
            return try Builtins.range(value, try eval(from), try eval(to), expr.span, &meter)
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
            return try Builtins.binary(op, a, b, expr.span, &meter)
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
        default: throw EvaluationError(code: RulesLanguageCodes.unboundVariable.id, message: "unknown variable `\(name)`", span: span)
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
        let value = request.resource.map { wrapResource($0, existing: true) } ?? .null
        resourceValueCache = value
        return value
    }

    /// Firestore: `{data, id, __name__}`. Storage: the metadata as given for the existing object
    /// (`resource`), so reading an absent `name` or `bucket` is an error, as in the rules test
    /// API; for the object being written (`request.resource`) they default from the path.
    func wrapResource(_ data: Value, existing: Bool = false) -> Value {
        let path = requestPath
        switch program.service {
        case .firestore:
            return .map(["data": data, "id": .string(path.segments.last ?? ""), "__name__": .path(path)])
        case .storage:
            guard !existing, case .map(var metadata) = data else { return data }
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

    func call(_ receiver: Expr?, _ name: String, _ arguments: [Expr], _ span: SourceSpan) throws(EvaluationError) -> Value {
        if let namespace = namespace(of: receiver) {
            let args = try evalArguments(arguments)
            if namespace == "firestore" {
                guard name == "get" || name == "exists" else { throw .functionNotFound("firestore.\(name)", span) }
                return try documentLookup(name, args, span, storage: true)
            }
            return try Builtins.namespaced(namespace, name, args, span, &meter)
        }
        if let receiver {
            let value = try eval(receiver)
            let args = try evalArguments(arguments)
            return try Builtins.method(value, name, args, regex: program.regex, span, &meter)
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
        return try Builtins.global(name, args, span, &meter)
    }

    /// The wildcard bindings a function's body sees: those of the blocks around its declaration.
    func lexicalBindings(_ function: CompiledFunction) -> [(String, Value)] {
        // INVARIANT: the function is visible where it is called, so the blocks around its
        // declaration enclose the matched block and their bindings are a prefix of `bindings`.
        Array(bindings.prefix(function.visibleBindings))
    }

    func evalArguments(_ arguments: [Expr]) throws(EvaluationError) -> [Value] {
        var values: [Value] = []
        values.reserveCapacity(arguments.count)
        for argument in arguments { values.append(try eval(argument)) }
        return values
    }

    func callUser(_ function: CompiledFunction, _ arguments: [Expr], _ span: SourceSpan) throws(EvaluationError) -> Value {
        let declaration = function.declaration
        guard arguments.count == declaration.parameters.count else {
            throw EvaluationError(code: RulesLanguageCodes.argumentCount.id,
                                  message: "`\(declaration.name)` takes \(declaration.parameters.count) arguments, got \(arguments.count)", span: span)
        }
        let args = try evalArguments(arguments)
        guard callDepth < program.limits.maxCallDepth else {
            throw EvaluationError(code: RulesLanguageCodes.callDepth.id, message: "function call depth exceeds \(program.limits.maxCallDepth)", span: span, isLimit: true)
        }
        let savedFrame = frame
        let savedScope = scope
        let savedBindings = bindings
        callDepth += 1
        defer {
            frame = savedFrame
            scope = savedScope
            bindings = savedBindings
            callDepth -= 1
        }
        frame = Array(zip(declaration.parameters, args))
        scope = function.scope
        bindings = lexicalBindings(function)
        for binding in declaration.lets {
            frame.append((binding.name, try eval(binding.value)))
        }
        return try eval(declaration.body)
    }

}
