// Encoder: one encoding function per language term. Turns the rules that apply to a property's
// path and method, and the property's condition, into SMT-LIB constraints over a symbolic request.
// Constructs it cannot encode exactly become unconstrained values and are recorded as
// abstractions: a proof still holds for every value they could take, and a witness that depends
// on them is only shown when the evaluator confirms it.
import Diagnostics
import Foundation
import RulesLanguage

/// A construct encoded as "any value" instead of exactly, with where it is.
struct Abstraction: Hashable {
    var construct: String
    var location: String
}

/// A lookup of one document (`get`, `exists`, …) at a symbolic path.
struct LookupSlot {
    var segments: [String]
    var key: String
    var after: Bool
    var exists: String
    var data: SymMap
}

/// A symbolic request and the constraints the rules put on it.
final class Encoder {
    /// The rules being encoded (a diff encodes two files over one request: see ``allowed(by:)``).
    private(set) var program: Program
    let method: RequestMethod
    let service: ServiceKind
    private(set) var declarations: [String] = []
    private(set) var assertions: [String] = []
    private(set) var abstractions: [Abstraction] = []
    private(set) var maps: [SymMap] = []
    private(set) var slots: [LookupSlot] = []
    private var counter = 0
    /// Slot indices by the text of their path terms (see ``makeSlot``).
    private var slotsByPath: [String: Int] = [:]
    private var usedKeys: Set<String> = []

    // MARK: The symbolic request
    var pathSegments: [String] = []
    var pathConcrete: [String?] = []
    /// The paths encoded, and (for a long shape) where the gap of one or more segments is.
    private(set) var shape = PathShape(fixed: [], restName: nil, rest: .none)
    private(set) var gapIndex: Int?
    var authNull = "true"
    var uid = ""
    var token: SymMap!
    var time = ""
    var resourceExists = "false"
    var resourceData: SymMap!
    var requestData: SymMap?
    var queryPresent = "false"
    var query: SymMap?

    /// Map equalities and diffs to align and define after encoding: (a, b, eqVar).
    private var relations: [(SymMap, SymMap, String)] = []
    private var relationIndex: [String: String] = [:]
    /// Definitions that need every map's final keys (sizes, `hasOnly`, key sets).
    private var deferred: [() -> Void] = []
    /// Uninterpreted functions declared so far (`lower`, `upper`).
    private var functions: Set<String> = []

    // Evaluation state.
    private var bindings: [(String, SymValue)] = []
    private var frame: [(String, SymValue)] = []
    private var scope: FunctionScope
    private var callDepth = 0
    private var source: SourceFile
    private(set) var serviceScope: FunctionScope

    init(program: Program, method: RequestMethod) {
        self.program = program
        self.method = method
        self.service = program.service
        self.source = program.source
        let scopes = FunctionScope.service(of: program.file)
        self.serviceScope = scopes
        self.scope = scopes
    }

    // MARK: - Declarations

    func declare(_ name: String, _ sort: String) -> String {
        let symbol = "|\(name)|"
        declarations.append("(declare-const \(symbol) \(sort))")
        valueSymbols.append(symbol)
        return symbol
    }

    /// Every declared constant, for reading a model back.
    private(set) var valueSymbols: [String] = []
    /// `lower`/`upper` applications: (function, constant equal to the argument).
    private(set) var caseMappings: [(String, String)] = []

    /// A name for a long term, so terms that reuse it stay small (the text would otherwise grow
    /// exponentially with nesting: every `&&` mentions both sides' truth and error terms).
    func share(_ term: String, _ sort: String = "Bool") -> String {
        guard term.utf8.count > 48 else { return term }
        if let existing = shared[term] { return existing }
        counter += 1
        let symbol = "|t!\(counter)|"
        declarations.append("(define-fun \(symbol) () \(sort) \(term))")
        shared[term] = symbol
        return symbol
    }
    private var shared: [String: String] = [:]

    func fresh(_ prefix: String, _ sort: String) -> String {
        counter += 1
        return declare("\(prefix)!\(counter)", sort)
    }

    func assert(_ term: String) {
        if term != "true" { assertions.append("(assert \(term))") }
    }

    func makeMap(_ name: String) -> SymMap {
        let map = SymMap(name: name, encoder: self)
        maps.append(map)
        return map
    }

    func noteKey(_ key: String) { usedKeys.insert(key) }
    var keysInUse: Set<String> { usedKeys }

    static func timestampRange(_ t: String) -> String {
        // Years 1 to 9999 (Timestamp.validSeconds), in nanoseconds.
        "(and (<= (- 62135596800000000000) \(t)) (<= \(t) 253402300799999999999))"
    }

    func abstract(_ construct: String, _ span: SourceSpan) {
        let location = source.location(of: span.start)
        abstractions.append(Abstraction(construct: construct, location: "\(source.name):\(location.line):\(location.column)"))
    }

    /// The name of a construct on the gap of a long shape.
    func gapConstruct(_ what: String) -> String {
        "\(what) `{\(shape.restName ?? "")=**}` (\(pathSegments.count - shape.fixed.count) or more segments)"
    }

    /// Any value at all, or an error: the encoding of a construct it cannot model.
    func anyValue(_ construct: String, _ span: SourceSpan) -> SymValue {
        abstract(construct, span)
        counter += 1
        let leaf = Leaf(name: "abs!\(counter)", encoder: self)
        var value = leaf.value
        value.err = fresh("abs.err", "Bool")
        abstractionErrors.append(value.err)
        value.alts = value.alts.map { .init(guard_: SMT.and([SMT.not(value.err), $0.guard_]), payload: $0.payload) }
        return value
    }

    // MARK: - The request

    /// Declares the symbolic request for the paths of `shape`.
    func setUpRequest(shape: PathShape) {
        self.shape = shape
        for (index, segment) in shape.fixed.enumerated() {
            switch segment {
            case .literal(let text):
                pathSegments.append(SMT.string(text))
                pathConcrete.append(text)
            case .variable(let name):
                addSegment("seg\(index).\(name)")
            }
        }
        let name = shape.restName ?? ""
        switch shape.rest {
        case .none: break
        case .segments(let count):
            for offset in 0..<count { addSegment("seg\(pathSegments.count).\(name)\(offset)") }
        case .long(let head, let tail):
            for offset in 0..<head { addSegment("seg\(pathSegments.count).\(name)\(offset)") }
            // One or more non-empty segments joined by `/`.
            let gap = declare("seg\(pathSegments.count).\(name).gap", "String")
            assert("(and (< 0 (str.len \(gap))) (not (str.prefixof \"/\" \(gap))) (not (str.suffixof \"/\" \(gap))) (not (str.contains \(gap) \"//\")))")
            gapIndex = pathSegments.count
            pathSegments.append(gap)
            pathConcrete.append(nil)
            for offset in 0..<tail { addSegment("seg\(pathSegments.count).\(name)\(head + offset + 1)") }
        }
        authNull = declare("auth.null", "Bool")
        uid = declare("auth.uid", "String")
        assert("(< 0 (str.len \(uid)))")
        token = makeMap("auth.token")
        let sub = token.entry("sub")
        assert(sub.present)
        time = declare("request.time", "Int")
        assert(Encoder.timestampRange(time))
        resourceExists = declare("resource.exists", "Bool")
        resourceData = makeMap("resource")
        if method == .create || method == .update {
            requestData = makeMap("request.resource")
        }
        if method == .list {
            queryPresent = declare("query.present", "Bool")
            query = makeMap("query")
        }
        if service == .firestore {
            slots.append(LookupSlot(segments: pathSegments, key: joinedPath(pathSegments), after: false,
                                    exists: resourceExists, data: resourceData))
        }
    }

    /// A symbolic path segment: non-empty, without `/`.
    private func addSegment(_ name: String) {
        let term = declare(name, "String")
        assert("(and (< 0 (str.len \(term))) (not (str.contains \(term) \"/\")))")
        pathSegments.append(term)
        pathConcrete.append(nil)
    }

    /// The gap of a long shape: its term, when `segments` holds it.
    func gap(in segments: [String]) -> Int? {
        guard let gapIndex else { return nil }
        return segments.firstIndex(of: pathSegments[gapIndex])
    }

    func joinedPath(_ segments: [String]) -> String {
        segments.isEmpty ? "\"\"" : "(str.++ " + segments.map { "\"/\" \($0)" }.joined(separator: " ") + ")"
    }

    private func documentValue(_ data: SymMap, segments: [String]) -> SymValue {
        SymValue(.map(.literal([
            ("data", SymValue(.map(.symbolic(data)))),
            ("id", SymValue(.string(segments.last ?? "\"\""))),
            ("__name__", SymValue(.path(segments))),
        ])))
    }

    private func storageObject(_ data: SymMap) -> SymValue {
        let name: String? = pathSegments.count > 3 ? "(str.++ " + pathSegments[3...].enumerated().map { $0.offset == 0 ? $0.element : "\"/\" \($0.element)" }.joined(separator: " ") + " \"\")" : nil
        let bucket: String? = pathSegments.count > 1 ? pathSegments[1] : nil
        return SymValue(.map(.storage(data, name: name, bucket: bucket)))
    }

    var authValue: SymValue {
        SymValue(err: "false", alts: [
            .init(guard_: authNull, payload: .null),
            .init(guard_: SMT.not(authNull), payload: .map(.literal([
                ("uid", SymValue(.string(uid))),
                ("token", SymValue(.map(.symbolic(token)))),
            ]))),
        ])
    }

    var requestValue: SymValue {
        var fields: [(String, SymValue)] = [
            ("auth", authValue),
            ("method", SymValue(.string(SMT.string(method.rawValue)))),
            ("path", SymValue(.path(pathSegments))),
            ("time", SymValue(.timestamp(time))),
            ("params", SymValue(.map(.literal([])))),
        ]
        if let requestData {
            fields.append(("resource", service == .firestore ? documentValue(requestData, segments: pathSegments) : storageObject(requestData)))
        }
        if let query {
            // `request.query` exists only when the witness has one.
            fields.append(("query", SymValue(err: SMT.not(queryPresent), alts: [.init(guard_: queryPresent, payload: .map(.symbolic(query)))])))
        }
        return SymValue(.map(.literal(fields)))
    }

    var resourceValue: SymValue {
        let present = service == .firestore ? documentValue(resourceData, segments: pathSegments) : storageObject(resourceData)
        return SymValue(err: "false", alts: [
            .init(guard_: SMT.not(resourceExists), payload: .null),
        ] + present.alts.map { .init(guard_: SMT.and([resourceExists, $0.guard_]), payload: $0.payload) })
    }

    // MARK: - Rules

    /// The condition under which `other` (rules of the same service) allows the same symbolic
    /// request, lookups and all: one database, one request, two rule sets. The encoder keeps
    /// encoding `other` afterwards.
    func allowed(by other: Program) -> String {
        select(other)
        return allowed()
    }

    /// When the request path matches `pattern`, a full match pattern of `other`'s rules (Bool
    /// term). Where the pattern reaches into the gap of a long shape, the answer is "maybe"
    /// (a fresh Bool): the region may be larger, never smaller.
    func pathMatches(_ pattern: [PatternSegment], in other: Program) -> String {
        select(other)
        var hits: [String] = []
        matchPattern(pattern[...], 0, "true", []) { end, g, _ in
            if end == pathSegments.count { hits.append(g) }
        } onGap: { g, _ in
            hits.append(SMT.and([g, fresh("gap.region", "Bool")]))
        }
        return SMT.or(hits)
    }

    /// Encodes `other` from now on. Inlined calls are remembered per program: two files may
    /// declare different functions at the same offset.
    private func select(_ other: Program) {
        guard other.source.name != program.source.name || other.source.text != program.source.text else { return }
        program = other
        source = other.source
        serviceScope = FunctionScope.service(of: other.file)
        scope = serviceScope
        callMemo = [:]
    }

    /// The condition under which the rules allow the request (Bool term).
    func allowed() -> String {
        source = program.source
        var grants: [String] = []
        match(program.file.services.first?.matches ?? [], from: 0, guard_: "true", bindings: [], scope: serviceScope, grants: &grants)
        return SMT.or(grants)
    }

    private func match(_ blocks: [MatchBlock], from start: Int, guard_: String, bindings: [(String, SymValue)],
                       scope: FunctionScope, grants: inout [String]) {
        for block in blocks {
            let blockScope = scope.child(block.functions, wildcards: bindings.count + block.pattern.filter { $0.variable != nil }.count)
            matchPattern(block.pattern[...], start, guard_, bindings) { end, g, b in
                if end == pathSegments.count {
                    for allow in block.allows where allow.methods.contains(where: { $0.covers(method) }) {
                        guard let condition = allow.condition else { grants.append(g); continue }
                        self.bindings = b
                        self.frame = []
                        self.scope = blockScope
                        self.source = program.source
                        let value = encode(condition)
                        grants.append(SMT.and([g, truth(value).isTrue]))
                    }
                }
                if !block.matches.isEmpty {
                    match(block.matches, from: end, guard_: g, bindings: b, scope: blockScope, grants: &grants)
                }
            } onGap: { g, remaining in
                // Whether and how the pattern matches depends on segments inside the gap, which
                // the encoding does not spell out: any allow in or below the block may grant,
                // unless no chain from here can consume what is left of the path.
                guard grantsAny(block), mayConsumeRestOfLongPath(remaining, block.matches) else { return }
                abstract("a match pattern that reaches into the segments of `{\(shape.restName ?? "")=**}`", block.patternSpan)
                grants.append(SMT.and([g, fresh("gap.match", "Bool")]))
            }
        }
    }

    /// Whether the block or a nested one has an allow for the method.
    private func grantsAny(_ block: MatchBlock) -> Bool {
        block.allows.contains { $0.methods.contains { $0.covers(method) } } || block.matches.contains(where: grantsAny)
    }

    /// Whether `pattern`, then a chain of nested blocks, can consume the rest of a long path from
    /// the gap on (at least one gap segment and the tail): always with a `{y=**}`, otherwise when
    /// its literal and `{y}` segments are enough.
    private func mayConsumeRestOfLongPath(_ pattern: ArraySlice<PatternSegment>, _ nested: [MatchBlock]) -> Bool {
        guard case .long(_, let tail) = shape.rest else { return true }
        func longest(_ pattern: ArraySlice<PatternSegment>, _ nested: [MatchBlock]) -> Int {
            if pattern.contains(where: { if case .recursive = $0 { true } else { false } }) { return Int.max }
            let below = nested.map { longest($0.pattern[...], $0.matches) }.max() ?? 0
            return below == Int.max ? Int.max : pattern.count + below
        }
        return longest(pattern, nested) >= 1 + tail
    }

    /// A match position between two segments of the gap of a long shape.
    private static let insideGap = -1

    private func matchPattern(_ pattern: ArraySlice<PatternSegment>, _ start: Int, _ g: String, _ b: [(String, SymValue)],
                              _ onMatch: (Int, String, [(String, SymValue)]) -> Void,
                              onGap: (String, ArraySlice<PatternSegment>) -> Void) {
        guard let first = pattern.first else { return onMatch(start, g, b) }
        let rest = pattern.dropFirst()
        // A segment pattern at the gap, or anything after a `{y=**}` that ended inside it.
        if start == Self.insideGap { return onGap(g, pattern) }
        if start == gapIndex { if case .recursive = first {} else { return onGap(g, pattern) } }
        switch first {
        case .literal(let text):
            guard start < pathSegments.count else { return }
            if let concrete = pathConcrete[start] {
                if concrete == text { matchPattern(rest, start + 1, g, b, onMatch, onGap: onGap) }
            } else {
                matchPattern(rest, start + 1, SMT.and([g, SMT.eq(pathSegments[start], SMT.string(text))]), b, onMatch, onGap: onGap)
            }
        case .single(let name):
            guard start < pathSegments.count else { return }
            matchPattern(rest, start + 1, g, b + [(name, SymValue(.string(pathSegments[start])))], onMatch, onGap: onGap)
        case .recursive(let name):
            let minimum = program.file.isVersion2 ? 0 : 1
            guard pathSegments.count - start >= minimum else { return }
            for end in (start + minimum)...pathSegments.count {
                matchPattern(rest, end, g, b + [(name, SymValue(.path(Array(pathSegments[start..<end]))))], onMatch, onGap: onGap)
            }
            // It can also end between two segments of the gap (no allow applies there, only
            // what follows, which reaches into the gap).
            if let gapIndex, start <= gapIndex {
                matchPattern(rest, Self.insideGap, g, b + [(name, .error)], onMatch, onGap: onGap)
            }
        }
    }

    /// Encodes a property condition with the path variables bound.
    func encodeCondition(_ expr: Expr, source: SourceFile, variables: [(String, SymValue)]) -> SymValue {
        self.bindings = variables
        self.frame = []
        // Conditions see no rules functions: they are replayed as standalone expressions.
        self.scope = FunctionScope()
        self.source = source
        return encode(expr)
    }

    /// The path variables of a property path: `{x}` a string, `{x=**}` a path.
    func pathVariables() -> [(String, SymValue)] {
        var variables: [(String, SymValue)] = shape.fixed.enumerated().compactMap { index, segment in
            if case .variable(let name) = segment { return (name, SymValue(.string(pathSegments[index]))) }
            return nil
        }
        if let name = shape.restName { variables.append((name, SymValue(.path(Array(pathSegments[shape.fixed.count...]))))) }
        return variables
    }

    // MARK: - Truth

    /// When a value is `true`, `false`, or neither (an error or not a bool).
    func truth(_ v: SymValue) -> (isTrue: String, isFalse: String) {
        // A value made by `boolValue` (possibly returned through a call) is true exactly when
        // its `isTrue` is, and false when its `isFalse` is and its `isTrue` is not: the same
        // terms as below, without repeating both inside each other at every `&&` and `||`
        // (which nests exponentially once Z3 expands the names).
        if v.alts.count == 1, case .bool(let b) = v.alts[0].payload, let known = boolTruths[v.err + "|" + b],
           v.alts[0].guard_ == known.guard_ || v.alts[0].guard_ == SMT.and([SMT.not(v.err), known.guard_]) {
            return (b, share(SMT.and([known.isFalse, SMT.not(b)])))
        }
        var t: [String] = []
        var f: [String] = []
        for alt in v.alts {
            if case .bool(let b) = alt.payload {
                t.append(SMT.and([alt.guard_, b]))
                f.append(SMT.and([alt.guard_, SMT.not(b)]))
            }
        }
        return (share(SMT.and([SMT.not(v.err), SMT.or(t)])), share(SMT.and([SMT.not(v.err), SMT.or(f)])))
    }

    private func boolValue(isTrue: String, isFalse: String) -> SymValue {
        let isTrue = share(isTrue), isFalse = share(isFalse)
        let err = share(SMT.not(SMT.or([isTrue, isFalse])))
        let guard_ = SMT.or([isTrue, isFalse])
        boolTruths[err + "|" + isTrue] = (isFalse, guard_)
        return SymValue(err: err, alts: [.init(guard_: guard_, payload: .bool(isTrue))])
    }

    /// What `boolValue` made, by its error and `isTrue` terms (see ``truth(_:)``).
    private var boolTruths: [String: (isFalse: String, guard_: String)] = [:]

    private func plainBool(_ term: String, err: String = "false") -> SymValue {
        let err = share(err)
        return SymValue(err: err, alts: [.init(guard_: SMT.not(err), payload: .bool(share(term)))])
    }

    /// Applies `body` to every alternative; `body` returns a value for that alternative (whose
    /// own error adds to the result's).
    private func map(_ v: SymValue, _ body: (Payload) -> SymValue) -> SymValue {
        guard spend(v.alts.count) else { return .error }
        var err = [v.err]
        var alts: [SymValue.Alternative] = []
        for alt in v.alts {
            let r = body(alt.payload)
            err.append(SMT.and([alt.guard_, r.err]))
            for inner in r.alts { alts.append(.init(guard_: share(SMT.and([alt.guard_, SMT.not(r.err), inner.guard_])), payload: inner.payload)) }
        }
        return SymValue(err: share(SMT.or(err)), alts: alts.filter { $0.guard_ != "false" })
    }

    private func map2(_ a: SymValue, _ b: SymValue, _ body: (Payload, Payload) -> SymValue) -> SymValue {
        map(a) { pa in map(b) { pb in body(pa, pb) } }
    }

    // MARK: - Expressions

    func encode(_ expr: Expr) -> SymValue {
        // Past the budget or the deadline, every term is an error: the caller gives up on the
        // property (``stopped``), so these values are never used for a verdict.
        guard spend(1) else { return .error }
        switch expr.kind {
        case .null: return SymValue(.null)
        case .bool(let value): return SymValue(.bool(value ? "true" : "false"))
        case .int(let value): return SymValue(.int(SMT.int(value)))
        case .float(let value):
            guard value.isFinite else { return anyValue("a non-finite float", expr.span) }
            return SymValue(.float(SMT.real(value)))
        case .string(let value): return SymValue(.string(SMT.string(value)))
        case .bytes: return anyValue("a bytes literal", expr.span)
        case .list(let items):
            let values = items.map(encode)
            let err = SMT.or(values.map(\.err))
            return SymValue(err: err, alts: [.init(guard_: SMT.not(err), payload: .list(values))])
        case .map(let entries):
            var fields: [(String, SymValue)] = []
            for entry in entries {
                fields.removeAll { $0.0 == entry.key }
                fields.append((entry.key, encode(entry.value)))
            }
            let err = SMT.or(fields.map(\.1.err))
            return SymValue(err: err, alts: [.init(guard_: SMT.not(err), payload: .map(.literal(fields)))])
        case .path(let segments):
            return encodePath(segments, expr.span)
        case .identifier(let name):
            return variable(name, expr.span)
        case .member(let base, let name):
            return member(encode(base), name, expr.span)
        case .index(let base, let index):
            let b = encode(base)
            let i = encode(index)
            return map2(b, i) { pb, pi in
                switch (pb, pi) {
                case (.map, .string(let key)):
                    if let concrete = SMT.concreteString(key) { return member(SymValue(pb), concrete, expr.span) }
                    return anyValue("a map read with a computed key", expr.span)
                case (.list(let items), .int(let k)):
                    var alts: [SymValue.Alternative] = []
                    var errs: [String] = []
                    for (n, item) in items.enumerated() {
                        let hit = SMT.eq(k, String(n))
                        errs.append(SMT.and([hit, item.err]))
                        alts += item.alts.map { .init(guard_: SMT.and([hit, $0.guard_]), payload: $0.payload) }
                    }
                    let inRange = "(and (<= 0 \(k)) (< \(k) \(items.count)))"
                    return SymValue(err: SMT.or([SMT.not(inRange)] + errs), alts: alts)
                case (.path(let segs), .int(let k)):
                    if let gapAt = gap(in: segs) {
                        // A literal index before the gap reads a spelled-out segment.
                        if let n = Int(k), n < gapAt { return SymValue(.string(segs[n])) }
                        return anyValue(gapConstruct("indexing a path that holds the segments of"), expr.span)
                    }
                    let inRange = "(and (<= 0 \(k)) (< \(k) \(segs.count)))"
                    var alts: [SymValue.Alternative] = []
                    for (n, seg) in segs.enumerated() { alts.append(.init(guard_: SMT.eq(k, String(n)), payload: .string(seg))) }
                    return SymValue(err: SMT.not(inRange), alts: alts)
                case (.null, _): return .error
                case (.opaque("list", _), .int), (.string, .int): return anyValue("indexing a \(pb.typeName)", expr.span)
                default: return .error
                }
            }
        case .range:
            return anyValue("a slice `[i:j]`", expr.span)
        case .call(let receiver, let name, let arguments):
            return call(receiver, name, arguments, expr.span)
        case .unary(.not, let operand):
            let (t, f) = truth(encode(operand))
            return boolValue(isTrue: f, isFalse: t)
        case .unary(.negate, let operand):
            return map(encode(operand)) { p in
                switch p {
                case .int(let x): return SymValue(err: "(= \(x) \(SMT.int(Int64.min)))", alts: [.init(guard_: "(not (= \(x) \(SMT.int(Int64.min))))", payload: .int("(- \(x))"))])
                case .float(let x): return SymValue(.float("(- \(x))"))
                case .duration(let x): return SymValue(.duration("(- \(x))"))
                default: return .error
                }
            }
        case .binary(.and, let lhs, let rhs):
            let l = truth(encode(lhs))
            let r = truth(encode(rhs))
            return boolValue(isTrue: SMT.and([l.isTrue, r.isTrue]), isFalse: SMT.or([l.isFalse, r.isFalse]))
        case .binary(.or, let lhs, let rhs):
            let l = truth(encode(lhs))
            let r = truth(encode(rhs))
            return boolValue(isTrue: SMT.or([l.isTrue, r.isTrue]), isFalse: SMT.and([l.isFalse, r.isFalse]))
        case .binary(let op, let lhs, let rhs):
            return binary(op, encode(lhs), encode(rhs), expr.span)
        case .isType(let operand, let typeName):
            let v = encode(operand)
            let hits = v.alts.filter { typeName == "number" ? ($0.payload.typeName == "int" || $0.payload.typeName == "float") : $0.payload.typeName == typeName }
            return plainBool(SMT.or(hits.map(\.guard_)), err: v.err)
        case .ternary(let condition, let then, let otherwise):
            let (t, f) = truth(encode(condition))
            let a = encode(then)
            let b = encode(otherwise)
            let err = SMT.or([SMT.not(SMT.or([t, f])), SMT.and([t, a.err]), SMT.and([f, b.err])])
            let alts = a.alts.map { SymValue.Alternative(guard_: SMT.and([t, SMT.not(a.err), $0.guard_]), payload: $0.payload) }
                + b.alts.map { SymValue.Alternative(guard_: SMT.and([f, SMT.not(b.err), $0.guard_]), payload: $0.payload) }
            return SymValue(err: err, alts: alts)
        }
    }

    private func variable(_ name: String, _ span: SourceSpan) -> SymValue {
        for (key, value) in frame.reversed() where key == name { return value }
        for (key, value) in bindings.reversed() where key == name { return value }
        switch name {
        case "request": return requestValue
        case "resource": return resourceValue
        default: return .error
        }
    }

    private func encodePath(_ segments: [PathLiteralSegment], _ span: SourceSpan) -> SymValue {
        var parts: [[String]] = [[]]
        var err: [String] = []
        var guards: [[String]] = [[]]
        for segment in segments {
            switch segment {
            case .literal(let text):
                parts = parts.map { $0 + [SMT.string(text)] }
            case .placeholder(let name):
                parts = parts.map { $0 + [SMT.string("{\(name)}")] }
            case .interpolation(let inner):
                let v = encode(inner)
                err.append(v.err)
                var newParts: [[String]] = []
                var newGuards: [[String]] = []
                var accepted: [String] = []
                for alt in v.alts {
                    let piece: [String]
                    switch alt.payload {
                    case .string(let s): piece = [s]
                    case .int(let i): piece = ["(ite (<= 0 \(i)) (str.from_int \(i)) (str.++ \"-\" (str.from_int (- \(i)))))"]
                    case .bool(let b): piece = ["(ite \(b) \"true\" \"false\")"]
                    case .path(let p): piece = p
                    default: continue
                    }
                    accepted.append(alt.guard_)
                    for (index, part) in parts.enumerated() {
                        newParts.append(part + piece)
                        newGuards.append(guards[index] + [alt.guard_])
                    }
                }
                err.append(SMT.and([SMT.not(v.err), SMT.not(SMT.or(accepted))]))
                parts = newParts
                guards = newGuards
            }
        }
        let e = SMT.or(err)
        return SymValue(err: e, alts: zip(parts, guards).map { .init(guard_: SMT.and([SMT.not(e)] + $0.1), payload: .path($0.0)) })
    }

    // MARK: - Members

    func member(_ base: SymValue, _ name: String, _ span: SourceSpan) -> SymValue {
        map(base) { p in
            switch p {
            case .map(let ref): return field(ref, name)
            default: return .error
            }
        }
    }

    /// `m.name` / `m['name']`: the value, or an error when the key is missing.
    func field(_ ref: MapRef, _ name: String) -> SymValue {
        switch ref {
        case .literal(let fields):
            return fields.last(where: { $0.0 == name })?.1 ?? .error
        case .symbolic(let m):
            let e = m.entry(name)
            var v = e.leaf.value
            v.err = SMT.not(e.present)
            v.alts = v.alts.map { .init(guard_: SMT.and([e.present, $0.guard_]), payload: $0.payload) }
            return v
        case .storage(let m, let nameTerm, let bucketTerm):
            // A stored object's `name` is its path after `/o/` and its `bucket` the bucket
            // segment; witnesses state both (`WitnessBuilder`).
            if name == "name", let nameTerm { return SymValue(.string(nameTerm)) }
            if name == "bucket", let bucketTerm { return SymValue(.string(bucketTerm)) }
            let e = m.entry(name)
            var v = e.leaf.value
            v.alts = v.alts.map { .init(guard_: SMT.and([e.present, $0.guard_]), payload: $0.payload) }
            v.err = SMT.not(e.present)
            return v
        }
    }

    /// `key in map`.
    private func hasKey(_ ref: MapRef, _ key: String) -> String {
        switch ref {
        case .literal(let fields): return fields.contains { $0.0 == key } ? "true" : "false"
        case .symbolic(let m): return m.entry(key).present
        case .storage(let m, let name, let bucket):
            return (key == "name" && name != nil) || (key == "bucket" && bucket != nil) ? "true" : m.entry(key).present
        }
    }

    // MARK: - Operators

    private func binary(_ op: BinaryOperator, _ a: SymValue, _ b: SymValue, _ span: SourceSpan) -> SymValue {
        switch op {
        case .equal, .notEqual:
            let eq = valueEqual(a, b, span)
            let err = SMT.or([a.err, b.err])
            return plainBool(op == .equal ? eq : SMT.not(eq), err: err)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            let symbol = ["<": "<", "<=": "<=", ">": ">", ">=": ">="][op.rawValue] ?? "<"
            return map2(a, b) { pa, pb in
                switch (pa, pb) {
                case (.int(let x), .int(let y)), (.timestamp(let x), .timestamp(let y)), (.duration(let x), .duration(let y)), (.float(let x), .float(let y)):
                    return SymValue(.bool("(\(symbol) \(x) \(y))"))
                case (.int(let x), .float(let y)): return SymValue(.bool("(\(symbol) (to_real \(x)) \(y))"))
                case (.float(let x), .int(let y)): return SymValue(.bool("(\(symbol) \(x) (to_real \(y)))"))
                case (.string(let x), .string(let y)):
                    // Code-point order equals UTF-8 byte order.
                    let lt = "(str.< \(x) \(y))", le = "(str.<= \(x) \(y))"
                    switch op {
                    case .less: return SymValue(.bool(lt))
                    case .lessOrEqual: return SymValue(.bool(le))
                    case .greater: return SymValue(.bool(SMT.not(le)))
                    default: return SymValue(.bool(SMT.not(lt)))
                    }
                default:
                    if pa.typeName == "bytes" && pb.typeName == "bytes" { return anyValue("comparing bytes", span) }
                    return .error
                }
            }
        case .in:
            return map(b) { container in
                switch container {
                case .list(let items):
                    return plainBool(SMT.or(items.map { valueEqual(a, $0, span) }), err: a.err)
                case .keySet(let set):
                    return map(a) { item in
                        guard case .string(let key) = item else { return SymValue(.bool("false")) }
                        guard let concrete = SMT.concreteString(key) else { return anyValue("`in` on a key set with a computed key", span) }
                        return SymValue(.bool(member(of: set, concrete)))
                    }
                case .map(let ref):
                    return map(a) { item in
                        guard case .string(let key) = item else { return SymValue(.bool("false")) }
                        guard let concrete = SMT.concreteString(key) else { return anyValue("`in` on a map with a computed key", span) }
                        return SymValue(.bool(hasKey(ref, concrete)))
                    }
                case .null: return .error
                case .opaque(let type, _) where type == "list": return anyValue("`in` on a list from data", span)
                default: return .error
                }
            }
        case .add, .subtract, .multiply, .divide, .remainder:
            return map2(a, b) { pa, pb in arithmetic(op, pa, pb, span) }
        case .and, .or:
            return .error
        }
    }

    private func arithmetic(_ op: BinaryOperator, _ pa: Payload, _ pb: Payload, _ span: SourceSpan) -> SymValue {
        let inRange = { (x: String) in "(and (<= \(SMT.int(Int64.min)) \(x)) (<= \(x) \(SMT.int(Int64.max))))" }
        switch (pa, pb) {
        case (.int(let x), .int(let y)):
            let r: String
            var err = "false"
            switch op {
            case .add: r = "(+ \(x) \(y))"
            case .subtract: r = "(- \(x) \(y))"
            case .multiply: r = "(* \(x) \(y))"
            case .divide:
                // Truncating division, as Swift's `/`.
                r = "(ite (>= (* \(x) \(y)) 0) (div (abs \(x)) (abs \(y))) (- (div (abs \(x)) (abs \(y)))))"
                err = "(= \(y) 0)"
            default:
                r = "(ite (>= \(x) 0) (mod (abs \(x)) (abs \(y))) (- (mod (abs \(x)) (abs \(y)))))"
                err = "(= \(y) 0)"
            }
            let e = SMT.or([err, SMT.and([SMT.not(err), SMT.not(inRange(r))])])
            return SymValue(err: e, alts: [.init(guard_: SMT.not(e), payload: .int(r))])
        case (.string(let x), .string(let y)) where op == .add:
            return SymValue(.string("(str.++ \(x) \(y))"))
        case (.timestamp(let t), .duration(let d)) where op == .add || op == .subtract:
            let r = op == .add ? "(+ \(t) \(d))" : "(- \(t) \(d))"
            let ok = Encoder.timestampRange(r)
            return SymValue(err: SMT.not(ok), alts: [.init(guard_: ok, payload: .timestamp(r))])
        case (.duration(let d), .timestamp(let t)) where op == .add:
            let r = "(+ \(t) \(d))"
            let ok = Encoder.timestampRange(r)
            return SymValue(err: SMT.not(ok), alts: [.init(guard_: ok, payload: .timestamp(r))])
        case (.timestamp(let x), .timestamp(let y)) where op == .subtract:
            return SymValue(.duration("(- \(x) \(y))"))
        case (.duration(let x), .duration(let y)) where op == .add || op == .subtract:
            return SymValue(.duration(op == .add ? "(+ \(x) \(y))" : "(- \(x) \(y))"))
        case (.int, .float), (.float, .int), (.float, .float):
            return anyValue("float arithmetic", span)
        case (.list, .list) where op == .add:
            return anyValue("list concatenation", span)
        case (.opaque, _), (_, .opaque), (.list, _), (_, .list):
            let listy = ["list"].contains(pa.typeName) && ["list"].contains(pb.typeName)
            if op == .add && (listy || (pa.typeName == "bytes" && pb.typeName == "bytes")) {
                return anyValue("\(pa.typeName) concatenation", span)
            }
            return .error
        default:
            return .error
        }
    }

    // MARK: - Equality

    /// Language equality of two values' alternatives (errors are accounted for by the caller).
    func valueEqual(_ a: SymValue, _ b: SymValue, _ span: SourceSpan) -> String {
        var cases: [String] = []
        for x in a.alts {
            for y in b.alts {
                let eq = payloadEqual(x.payload, y.payload, span)
                if eq != "false" { cases.append(SMT.and([x.guard_, y.guard_, eq])) }
            }
        }
        return SMT.or(cases)
    }

    private func payloadEqual(_ a: Payload, _ b: Payload, _ span: SourceSpan) -> String {
        switch (a, b) {
        case (.null, .null): return "true"
        case (.bool(let x), .bool(let y)), (.int(let x), .int(let y)), (.float(let x), .float(let y)), (.string(let x), .string(let y)),
             (.timestamp(let x), .timestamp(let y)), (.duration(let x), .duration(let y)):
            return SMT.eq(x, y)
        case (.int(let x), .float(let y)): return "(= (to_real \(x)) \(y))"
        case (.float(let x), .int(let y)): return "(= \(x) (to_real \(y)))"
        case (.opaque(let t1, let x), .opaque(let t2, let y)): return t1 == t2 ? SMT.eq(x, y) : "false"
        case (.path(let x), .path(let y)):
            switch (gap(in: x), gap(in: y)) {
            case (nil, nil): break
            case (let i?, let j?):
                // The same gap at the same place: equal when the other segments are.
                guard i == j, x.count == y.count else {
                    abstract(gapConstruct("comparing two paths that hold the segments of"), span)
                    return fresh("abs.eq", "Bool")
                }
            case (let i?, nil): return gapPathEqual(x, gapAt: i, y)
            case (nil, let j?): return gapPathEqual(y, gapAt: j, x)
            }
            guard x.count == y.count else { return "false" }
            return SMT.and(zip(x, y).map { SMT.eq($0, $1) })
        case (.list(let x), .list(let y)):
            guard x.count == y.count else { return "false" }
            return SMT.and(zip(x, y).map { valueEqual($0, $1, span) })
        case (.map(let x), .map(let y)):
            return mapEqual(x, y, span)
        case (.keySet, .keySet), (.mapDiff, .mapDiff), (.list, .opaque), (.opaque, .list):
            abstract("equality of \(a.typeName) values", span)
            return fresh("abs.eq", "Bool")
        default:
            return "false"
        }
    }

    /// `x == y` where `x` holds the gap (one or more segments) at `i` and `y` is spelled out:
    /// the segments around the gap agree, and the gap is the middle of `y`, joined by `/`.
    private func gapPathEqual(_ x: [String], gapAt i: Int, _ y: [String]) -> String {
        let extra = y.count - x.count
        guard extra >= 0 else { return "false" }
        let middle = Array(y[i...(i + extra)])
        let joined = middle.count == 1 ? middle[0] : "(str.++ " + middle.enumerated().map { $0.offset == 0 ? $0.element : "\"/\" \($0.element)" }.joined(separator: " ") + ")"
        return SMT.and(zip(x[..<i], y[..<i]).map { SMT.eq($0, $1) }
            + zip(x[(i + 1)...], y[(i + extra + 1)...]).map { SMT.eq($0, $1) }
            + middle.map { "(and (< 0 (str.len \($0))) (not (str.contains \($0) \"/\")))" }
            + [SMT.eq(x[i], joined)])
    }

    private func mapEqual(_ a: MapRef, _ b: MapRef, _ span: SourceSpan) -> String {
        switch (a, b) {
        case (.symbolic(let x), .symbolic(let y)):
            return relate(x, y)
        case (.literal(let x), .literal(let y)):
            guard Set(x.map(\.0)) == Set(y.map(\.0)) else { return "false" }
            return SMT.and(x.map { key, value in valueEqual(value, field(.literal(y), key), span) })
        case (.literal(let fields), .symbolic(let m)), (.symbolic(let m), .literal(let fields)):
            // Every listed key present and equal, nothing else.
            var parts = fields.map { key, value in
                let e = m.entry(key)
                return SMT.and([e.present, valueEqual(value, e.leaf.value, span)])
            }
            let v = fresh("eq.only", "Bool")
            let keys = Set(fields.map(\.0))
            deferred.append { [unowned self] in
                let others = m.keys.filter { !keys.contains($0) }.map { SMT.not(m.entries[$0]!.present) }
                self.assert(SMT.eq(v, SMT.and(others + ["(= \(m.restCount) 0)"])))
            }
            parts.append(v)
            return SMT.and(parts)
        default:
            abstract("equality of Storage metadata maps", span)
            return fresh("abs.eq", "Bool")
        }
    }

    /// A Bool term for `a == b` on input maps, defined after encoding (keys aligned).
    func relate(_ a: SymMap, _ b: SymMap) -> String {
        if a === b { return "true" }
        let key = "\(a.name)|\(b.name)"
        if let existing = relationIndex[key] { return existing }
        let v = fresh("mapeq", "Bool")
        relationIndex[key] = v
        relationIndex["\(b.name)|\(a.name)"] = v
        relations.append((a, b, v))
        return v
    }

    /// Leaf equality with nested maps related (used after keys are aligned).
    private func leafEqual(_ x: Leaf, _ y: Leaf) -> String {
        var cases = [
            SMT.and([x.isType("null")]),
            SMT.and([x.isType("bool"), SMT.eq(x.b, y.b)]),
            SMT.and([x.isType("int"), SMT.eq(x.i, y.i)]),
            SMT.and([x.isType("float"), SMT.eq(x.f, y.f)]),
            SMT.and([x.isType("string"), SMT.eq(x.s, y.s)]),
            SMT.and([x.isType("list"), SMT.eq(x.o, y.o)]),
            SMT.and([x.isType("timestamp"), SMT.eq(x.t, y.t)]),
            SMT.and([x.isType("duration"), SMT.eq(x.d, y.d)]),
            SMT.and([x.isType("bytes"), SMT.eq(x.o, y.o)]),
        ]
        cases.append(SMT.and([x.isType("map"), relate(x.map, y.map)]))
        let sameType = SMT.eq(x.tag, y.tag)
        let numeric = SMT.or([
            SMT.and([x.isType("int"), y.isType("float"), "(= (to_real \(x.i)) \(y.f))"]),
            SMT.and([x.isType("float"), y.isType("int"), "(= \(x.f) (to_real \(y.i)))"]),
        ])
        return SMT.or([SMT.and([sameType, SMT.or(cases)]), numeric])
    }

    // MARK: - Key sets

    /// Whether `key` is in the set (defined after encoding).
    func member(of set: KeySet, _ key: String) -> String {
        switch set.source {
        case .keys(let m):
            return m.entry(key).present
        case .diff(let kind, let a, let b):
            _ = relate(a, b)
            let pa = a.entry(key).present
            let pb = b.entry(key).present
            let v = fresh("diff.\(kind)", "Bool")
            deferred.append { [unowned self] in
                let ea = a.entries[key]!, eb = b.entries[key]!
                self.assert(SMT.eq(v, self.diffMembership(kind, pa, pb, self.leafEqual(ea.leaf, eb.leaf))))
            }
            return v
        }
    }

    private func diffMembership(_ kind: String, _ pa: String, _ pb: String, _ eq: String) -> String {
        let added = SMT.and([pa, SMT.not(pb)])
        let removed = SMT.and([pb, SMT.not(pa)])
        let changed = SMT.and([pa, pb, SMT.not(eq)])
        switch kind {
        case "addedKeys": return added
        case "removedKeys": return removed
        case "changedKeys": return changed
        case "unchangedKeys": return SMT.and([pa, pb, eq])
        default: return SMT.or([added, removed, changed])
        }
    }

    /// True when the set has a member outside `keys` (defined after encoding).
    private func hasMemberOutside(_ set: KeySet, _ keys: Set<String>) -> String {
        let v = fresh("outside", "Bool")
        if case .diff(_, let a, let b) = set.source { _ = relate(a, b) }
        deferred.append { [unowned self] in
            switch set.source {
            case .keys(let m):
                let inside = m.keys.filter { !keys.contains($0) }.map { m.entries[$0]!.present }
                self.assert(SMT.eq(v, SMT.or(inside + ["(< 0 \(m.restCount))"])))
            case .diff(let kind, let a, let b):
                var parts: [String] = []
                for key in a.keys where !keys.contains(key) {
                    let ea = a.entry(key), eb = b.entry(key)
                    parts.append(self.diffMembership(kind, ea.present, eb.present, self.leafEqual(ea.leaf, eb.leaf)))
                }
                // Keys outside the mentioned ones: the rests differ (or one side has some).
                let rest: String
                switch kind {
                case "addedKeys": rest = "(and (< 0 \(a.restCount)) (not (= \(a.restId) \(b.restId))))"
                case "removedKeys": rest = "(and (< 0 \(b.restCount)) (not (= \(a.restId) \(b.restId))))"
                case "changedKeys": rest = "false"
                case "unchangedKeys": rest = "(and (< 0 \(a.restCount)) (= \(a.restId) \(b.restId)))"
                default: rest = "(not (= \(a.restId) \(b.restId)))"
                }
                parts.append(rest)
                self.assert(SMT.eq(v, SMT.or(parts)))
            }
        }
        return v
    }

    private func setSize(_ set: KeySet) -> String {
        let v = fresh("size", "Int")
        deferred.append { [unowned self] in
            switch set.source {
            case .keys(let m):
                let parts = m.keys.map { "(ite \(m.entries[$0]!.present) 1 0)" }
                self.assert("(= \(v) (+ 0 \(parts.joined(separator: " ")) \(m.restCount)))")
            case .diff:
                self.assert("(<= 0 \(v))")
                self.abstractions.append(Abstraction(construct: "size() of a map diff's key set", location: "\(self.source.name)"))
            }
        }
        return v
    }

    // MARK: - Calls

    private func call(_ receiver: Expr?, _ name: String, _ arguments: [Expr], _ span: SourceSpan) -> SymValue {
        if let receiver, case .identifier(let ns) = receiver.kind, !isBound(ns) {
            switch ns {
            case "math", "hashing", "latlng":
                return anyValue("`\(ns).\(name)()`", span)
            case "timestamp":
                return timestampFunction(name, arguments.map(encode), span)
            case "duration":
                return durationFunction(name, arguments.map(encode), span)
            case "firestore" where service == .storage:
                let args = arguments.map(encode)
                // Any other `firestore.` function is not found: an error, as in the evaluator.
                guard args.count == 1, name == "get" || name == "exists" else { return .error }
                return lookup(name, args[0], span, storage: true)
            default: break
            }
        }
        if let receiver {
            let value = encode(receiver)
            let args = arguments.map(encode)
            return method(value, name, args, span)
        }
        if let function = scope.functions[name] {
            return callUser(function, arguments, span)
        }
        let args = arguments.map(encode)
        if name == "debug", args.count == 1 { return args[0] }
        if ["get", "exists", "getAfter", "existsAfter"].contains(name), service == .firestore {
            guard args.count == 1 else { return .error }
            return lookup(name, args[0], span, storage: false)
        }
        switch name {
        case "path" where args.count == 1:
            // `path('/b/x/o/a')` splits a literal exactly, as the evaluator does; only strings convert.
            return map(args[0]) { p in
                guard case .string(let text) = p else { return .error }
                guard let concrete = SMT.concreteString(text) else { return anyValue("`path()` of a computed string", span) }
                return SymValue(.path(PathValue(concrete).segments.map(SMT.string)))
            }
        case "string", "int", "float", "path":
            return anyValue("`\(name)()`", span)
        default:
            return .error
        }
    }

    private func isBound(_ name: String) -> Bool {
        frame.contains { $0.0 == name } || bindings.contains { $0.0 == name }
    }

    private func callUser(_ function: FunctionEntry, _ arguments: [Expr], _ span: SourceSpan) -> SymValue {
        let declaration = function.declaration
        guard arguments.count == declaration.parameters.count else { return .error }
        let args = arguments.map(encode)
        guard callDepth < program.limits.maxCallDepth else {
            abstract("a call deeper than \(program.limits.maxCallDepth) (`\(declaration.name)`)", span)
            return .error
        }
        // The same function with the same arguments, wildcards and call depth encodes to the
        // same value (evaluation is deterministic): each distinct call is inlined once, so nine
        // functions that each call the next ten times cost nine bodies, not a billion.
        var key = "\(declaration.nameSpan.start)|\(callDepth)"
        for arg in args { key += "|"; Self.signature(arg, into: &key) }
        for (name, value) in bindings.prefix(function.visibleBindings) { key += "|" + name + "="; Self.signature(value, into: &key) }
        if let known = callMemo[key] { return known }
        let result = inline(function, args)
        if stopped == nil { callMemo[key] = result }
        return result
    }

    /// Calls already inlined, by function, depth, arguments and wildcards (see ``callUser``).
    private var callMemo: [String: SymValue] = [:]

    private func inline(_ function: FunctionEntry, _ args: [SymValue]) -> SymValue {
        let declaration = function.declaration
        let savedFrame = frame, savedScope = scope, savedBindings = bindings
        callDepth += 1
        defer {
            frame = savedFrame
            scope = savedScope
            bindings = savedBindings
            callDepth -= 1
        }
        // Arguments are evaluated before the call: an error in one is the call's error.
        let argErr = SMT.or(args.map(\.err))
        frame = Array(zip(declaration.parameters, args.map { SymValue(err: "false", alts: $0.alts) }))
        scope = function.scope
        bindings = Array(bindings.prefix(function.visibleBindings))
        var letErr: [String] = []
        for binding in declaration.lets {
            let v = encode(binding.value)
            letErr.append(v.err)
            frame.append((binding.name, SymValue(err: "false", alts: v.alts)))
        }
        let body = encode(declaration.body)
        let err = SMT.or([argErr] + letErr + [body.err])
        return SymValue(err: err, alts: body.alts.map { .init(guard_: SMT.and([SMT.not(err), $0.guard_]), payload: $0.payload) })
    }

    /// A text that is equal for equal symbolic values: their terms, and the identity of the
    /// input maps they read.
    static func signature(_ value: SymValue, into out: inout String) {
        out += value.err
        for alt in value.alts {
            out += "?" + alt.guard_ + ":"
            signature(alt.payload, into: &out)
        }
    }

    private static func signature(_ payload: Payload, into out: inout String) {
        func map(_ m: SymMap) { out += "#\(UInt(bitPattern: ObjectIdentifier(m).hashValue))" }
        switch payload {
        case .null: out += "n"
        case .bool(let t): out += "b(" + t + ")"
        case .int(let t): out += "i(" + t + ")"
        case .float(let t): out += "f(" + t + ")"
        case .string(let t): out += "s(" + t + ")"
        case .timestamp(let t): out += "t(" + t + ")"
        case .duration(let t): out += "d(" + t + ")"
        case .map(.symbolic(let m)): out += "m"; map(m)
        case .map(.literal(let fields)):
            out += "{"
            for (key, field) in fields { out += SMT.string(key) + "="; signature(field, into: &out); out += "," }
            out += "}"
        case .map(.storage(let m, let name, let bucket)): out += "o"; map(m); out += "(" + (name ?? "-") + "," + (bucket ?? "-") + ")"
        case .list(let items):
            out += "["
            for item in items { signature(item, into: &out); out += "," }
            out += "]"
        case .keySet(let set):
            switch set.source {
            case .keys(let m): out += "k"; map(m)
            case .diff(let kind, let a, let b): out += "k" + kind; map(a); map(b)
            }
        case .path(let segments): out += "p(" + segments.joined(separator: ",") + ")"
        case .mapDiff(let a, let b): out += "D"; map(a); map(b)
        case .opaque(let type, let id): out += "O" + type + "(" + id + ")"
        }
    }

    // MARK: - Lookups

    private func lookup(_ name: String, _ pathValue: SymValue, _ span: SourceSpan, storage: Bool) -> SymValue {
        map(pathValue) { p in
            let segments: [String]
            switch p {
            case .path(let s): segments = s
            case .string: return anyValue("a lookup by a string path", span)
            default: return .error
            }
            if gap(in: segments) != nil { return anyValue(gapConstruct("a lookup of a path that holds the segments of"), span) }
            guard segments.count >= 5, (segments.count - 3) % 2 == 0 else { return .error }
            var ok = [SMT.eq(segments[0], "\"databases\""), SMT.eq(segments[2], "\"documents\"")]
            if storage { ok.append(SMT.eq(segments[1], "\"(default)\"")) }
            let valid = SMT.and(ok)
            let after = name == "getAfter" || name == "existsAfter"
            let slot = makeSlot(segments, after: after)
            var existsTerm = slot.exists
            var document = documentValue(slot.data, segments: segments)
            if after && service == .firestore {
                // The request's own write: `getAfter` of the request path sees `request.resource`.
                // With a gap of any length, compare the path text; the evaluator compares
                // segments, which agree when the looked-up ones have no `/`.
                let own = gapIndex != nil
                    ? SMT.and([SMT.eq(joinedPath(pathSegments), joinedPath(segments))] + segments.map { "(not (str.contains \($0) \"/\"))" })
                    : pathSegments.count == segments.count ? SMT.and(zip(pathSegments, segments).map { SMT.eq($0, $1) }) : "false"
                if own != "false" {
                    let ownExists = method == .delete ? "false" : (requestData == nil ? slot.exists : "true")
                    existsTerm = SMT.ite(own, ownExists, slot.exists)
                    if let requestData {
                        let ownDoc = documentValue(requestData, segments: segments)
                        document = SymValue(err: "false", alts:
                            ownDoc.alts.map { .init(guard_: SMT.and([own, $0.guard_]), payload: $0.payload) }
                            + document.alts.map { .init(guard_: SMT.and([SMT.not(own), $0.guard_]), payload: $0.payload) })
                    }
                }
            }
            if name.hasPrefix("exists") {
                return SymValue(err: SMT.not(valid), alts: [.init(guard_: valid, payload: .bool(existsTerm))])
            }
            return SymValue(err: SMT.not(valid), alts:
                [.init(guard_: SMT.and([valid, SMT.not(existsTerm)]), payload: .null)]
                + document.alts.map { .init(guard_: SMT.and([valid, existsTerm, $0.guard_]), payload: $0.payload) })
        }
    }

    private func makeSlot(_ segments: [String], after: Bool) -> LookupSlot {
        // The same path terms are the same document: reuse its slot (two rule sets of a diff
        // that look up the same path then read the same symbols).
        let rawKey = (after ? "after|" : "before|") + joinedPath(segments)
        if let known = slotsByPath[rawKey] { return slots[known] }
        slotsByPath[rawKey] = slots.count
        let index = slots.count
        // Name computed segments, so the witness can read the path back from the model.
        let segments = segments.enumerated().map { offset, term -> String in
            if SMT.concreteString(term) != nil || (term.hasPrefix("|") && term.hasSuffix("|")) { return term }
            let named = declare("doc\(index).seg\(offset)", "String")
            assert(SMT.eq(named, term))
            return named
        }
        let slot = LookupSlot(segments: segments, key: joinedPath(segments), after: after,
                              exists: declare("doc\(index).exists", "Bool"), data: makeMap("doc\(index)"))
        // The same path always gives the same document (before, and after, separately).
        for other in slots where other.after == after {
            let same = SMT.eq(other.key, slot.key)
            assert(SMT.implies(same, SMT.and([SMT.eq(other.exists, slot.exists), SMT.implies(slot.exists, relate(other.data, slot.data))])))
        }
        slots.append(slot)
        return slot
    }

    // MARK: - Methods

    private func method(_ receiver: SymValue, _ name: String, _ args: [SymValue], _ span: SourceSpan) -> SymValue {
        let argErr = SMT.or(args.map(\.err))
        let result = map(receiver) { p in
            switch p {
            case .string(let s): return stringMethod(s, name, args, span)
            case .map(let ref):
                switch (name, args.count) {
                case ("keys", 0):
                    guard case .symbolic(let m) = ref else { return anyValue("keys() of a literal or Storage map", span) }
                    return SymValue(.keySet(KeySet(source: .keys(m))))
                case ("size", 0):
                    guard case .symbolic(let m) = ref else {
                        if case .literal(let fields) = ref { return SymValue(.int(String(Set(fields.map(\.0)).count))) }
                        return anyValue("size() of Storage metadata", span)
                    }
                    return SymValue(.int(setSize(KeySet(source: .keys(m)))))
                case ("diff", 1):
                    guard case .symbolic(let m) = ref else { return anyValue("diff() of a literal map", span) }
                    return map(args[0]) { other in
                        guard case .map(let otherRef) = other else { return .error }
                        guard case .symbolic(let o) = otherRef else { return anyValue("diff() with a literal map", span) }
                        return SymValue(.mapDiff(m, o))
                    }
                case ("get", 2):
                    return map(args[0]) { keyPayload in
                        guard case .string(let key) = keyPayload, let concrete = SMT.concreteString(key) else {
                            return anyValue("map.get() with a computed or list key", span)
                        }
                        let present = hasKey(ref, concrete)
                        let found = field(ref, concrete)
                        return SymValue(err: SMT.and([present, found.err]), alts:
                            found.alts.map { .init(guard_: SMT.and([present, $0.guard_]), payload: $0.payload) }
                            + args[1].alts.map { .init(guard_: SMT.and([SMT.not(present), $0.guard_]), payload: $0.payload) })
                    }
                case ("values", 0): return anyValue("map.values()", span)
                default: return .error
                }
            case .mapDiff(let a, let b):
                guard args.isEmpty, ["addedKeys", "removedKeys", "changedKeys", "unchangedKeys", "affectedKeys"].contains(name) else { return .error }
                return SymValue(.keySet(KeySet(source: .diff(name, a, b))))
            case .keySet(let set):
                return keySetMethod(set, name, args, span)
            case .list(let items):
                return listMethod(items, name, args, span)
            case .timestamp(let t):
                return timestampMethod(t, name, args, span)
            case .duration(let d):
                switch (name, args.count) {
                case ("seconds", 0): return SymValue(.int("(ite (>= \(d) 0) (div \(d) 1000000000) (- (div (- \(d)) 1000000000)))"))
                case ("nanos", 0): return SymValue(.int("(- \(d) (* 1000000000 (ite (>= \(d) 0) (div \(d) 1000000000) (- (div (- \(d)) 1000000000)))))"))
                default: return .error
                }
            case .path:
                return name == "bind" && args.count == 1 ? anyValue("path.bind()", span) : .error
            case .opaque(let type, _):
                let known: Set<String> = type == "list"
                    ? ["size", "concat", "hasAll", "hasAny", "hasOnly", "removeAll", "toSet", "join"]
                    : ["size", "toBase64", "toHexString"]
                return known.contains(name) ? anyValue("\(type).\(name)() on data", span) : .error
            default: return .error
            }
        }
        return SymValue(err: SMT.or([argErr, result.err]), alts: result.alts.map { .init(guard_: SMT.and([SMT.not(argErr), $0.guard_]), payload: $0.payload) })
    }

    private func stringMethod(_ s: String, _ name: String, _ args: [SymValue], _ span: SourceSpan) -> SymValue {
        switch (name, args.count) {
        case ("size", 0): return SymValue(.int("(str.len \(s))"))
        case ("lower", 0), ("upper", 0):
            return SymValue(.string(caseMapping(name, s, span)))
        case ("matches", 1):
            return map(args[0]) { p in
                guard case .string(let pattern) = p else { return .error }
                guard let concrete = SMT.concreteString(pattern) else { return anyValue("matches() with a computed pattern", span) }
                switch RegexTranslator.translateMembership(concrete) {
                case .success(let translation):
                    return SymValue(.bool(membership(s, translation.combined)))
                case .failure(let problem): return anyValue("matches('\(concrete)'): \(problem.message)", span)
                }
            }
        case ("replace", 2), ("split", 1), ("trim", 0), ("toUtf8", 0):
            return anyValue("string.\(name)()", span)
        default:
            return .error
        }
    }

    /// `lower()`/`upper()`: an uninterpreted function, exact on the strings it is applied to in a
    /// witness (the witness is replayed), with axioms true of Unicode case mapping on ASCII.
    private func caseMapping(_ name: String, _ s: String, _ span: SourceSpan) -> String {
        if let concrete = SMT.concreteString(s) {
            return SMT.string(name == "lower" ? concrete.lowercased() : concrete.uppercased())
        }
        if !functions.contains(name) {
            functions.insert(name)
            declarations.append("(declare-fun |\(name)| (String) String)")
        }
        abstract("\(name)() beyond ASCII", span)
        let argument = fresh("\(name).arg", "String")
        assert(SMT.eq(argument, s))
        caseMappings.append((name, argument))
        let result = "(|\(name)| \(s))"
        let unchanged = name == "lower"
            ? "(re.* (re.union (re.range \"\\u{0}\" \"\\u{40}\") (re.range \"\\u{5b}\" \"\\u{7f}\")))"
            : "(re.* (re.union (re.range \"\\u{0}\" \"\\u{60}\") (re.range \"\\u{7b}\" \"\\u{7f}\")))"
        // ASCII without letters of the other case is unchanged; ASCII maps to ASCII of the same
        // length with no letters of the other case.
        // ASCII without letters of the other case is unchanged. (More axioms, such as "ASCII maps
        // to ASCII of the same length", made Z3 4.8 an order of magnitude slower; models are
        // refined with the real values instead.)
        assert("(=> \(membership(s, unchanged)) (= \(result) \(s)))")
        return result
    }

    private func keySetMethod(_ set: KeySet, _ name: String, _ args: [SymValue], _ span: SourceSpan) -> SymValue {
        if name == "size", args.isEmpty { return SymValue(.int(setSize(set))) }
        if ["difference", "intersection", "union"].contains(name), args.count == 1 { return anyValue("set.\(name)()", span) }
        guard ["hasAll", "hasAny", "hasOnly"].contains(name), args.count == 1 else { return .error }
        return map(args[0]) { p in
            guard case .list(let items) = p else { return anyValue("set.\(name)() with a \(p.typeName)", span) }
            // Only lists of literal strings are encoded exactly.
            var keys: [String] = []
            for item in items {
                guard item.alts.count == 1, case .string(let k) = item.alts[0].payload, let concrete = SMT.concreteString(k) else {
                    return anyValue("set.\(name)() with non-literal elements", span)
                }
                keys.append(concrete)
            }
            switch name {
            case "hasAll": return SymValue(.bool(SMT.and(keys.map { member(of: set, $0) })))
            case "hasAny": return SymValue(.bool(SMT.or(keys.map { member(of: set, $0) })))
            default:
                for key in keys { _ = member(of: set, key) }
                return SymValue(.bool(SMT.not(hasMemberOutside(set, Set(keys)))))
            }
        }
    }

    private func listMethod(_ items: [SymValue], _ name: String, _ args: [SymValue], _ span: SourceSpan) -> SymValue {
        switch (name, args.count) {
        case ("size", 0): return SymValue(.int(String(items.count)))
        case ("hasAny", 1), ("hasAll", 1), ("hasOnly", 1):
            return map(args[0]) { p in
                guard case .list(let other) = p else { return anyValue("list.\(name)() with a \(p.typeName)", span) }
                let inOther = { (x: SymValue) in SMT.or(other.map { self.valueEqual(x, $0, span) }) }
                let inSelf = { (x: SymValue) in SMT.or(items.map { self.valueEqual(x, $0, span) }) }
                switch name {
                case "hasAny": return SymValue(.bool(SMT.or(other.map(inSelf))))
                case "hasAll": return SymValue(.bool(SMT.and(other.map(inSelf))))
                default: return SymValue(.bool(SMT.and(items.map(inOther))))
                }
            }
        case ("concat", 1), ("removeAll", 1), ("toSet", 0), ("join", 1):
            return anyValue("list.\(name)()", span)
        default: return .error
        }
    }

    private func timestampMethod(_ t: String, _ name: String, _ args: [SymValue], _ span: SourceSpan) -> SymValue {
        switch (name, args.count) {
        case ("toMillis", 0): return SymValue(.int("(div \(t) 1000000)"))
        case ("nanos", 0): return SymValue(.int("(mod \(t) 1000000000)"))
        case ("seconds", 0): return SymValue(.int("(div (mod \(t) 60000000000) 1000000000)"))
        case ("minutes", 0): return SymValue(.int("(div (mod \(t) 3600000000000) 60000000000)"))
        case ("hours", 0): return SymValue(.int("(div (mod \(t) 86400000000000) 3600000000000)"))
        case ("date", 0): return SymValue(.timestamp("(* (div \(t) 86400000000000) 86400000000000)"))
        case ("time", 0): return SymValue(.duration("(mod \(t) 86400000000000)"))
        case ("year", 0), ("month", 0), ("day", 0), ("dayOfWeek", 0), ("dayOfYear", 0): return anyValue("timestamp.\(name)()", span)
        default: return .error
        }
    }

    private func timestampFunction(_ name: String, _ args: [SymValue], _ span: SourceSpan) -> SymValue {
        if name == "date", args.count == 3,
           let y = concreteInt(args[0]), let m = concreteInt(args[1]), let d = concreteInt(args[2]),
           (1...9999).contains(y), (1...12).contains(m), (1...31).contains(d) {
            let days = CivilDays.days(year: y, month: m, day: d)
            return SymValue(.timestamp(SMT.int(days * 86_400 * 1_000_000_000)))
        }
        return anyValue("timestamp.\(name)() with computed arguments", span)
    }

    private func durationFunction(_ name: String, _ args: [SymValue], _ span: SourceSpan) -> SymValue {
        if name == "value", args.count == 2, let n = concreteInt(args[0]), args[1].alts.count == 1,
           case .string(let unitTerm) = args[1].alts[0].payload, let unit = SMT.concreteString(unitTerm) {
            let scale: [String: Int64] = ["w": 604_800_000_000_000, "d": 86_400_000_000_000, "h": 3_600_000_000_000,
                                          "m": 60_000_000_000, "s": 1_000_000_000, "ms": 1_000_000, "ns": 1]
            if let factor = scale[unit] {
                let (product, overflow) = n.multipliedReportingOverflow(by: factor)
                if !overflow { return SymValue(.duration(SMT.int(product))) }
            }
        }
        return anyValue("duration.\(name)() with computed arguments", span)
    }

    private func concreteInt(_ v: SymValue) -> Int64? {
        guard v.err == "false", v.alts.count == 1, case .int(let term) = v.alts[0].payload else { return nil }
        if let n = Int64(term) { return n }
        return SExpr.parse(term).first?.integer
    }

    /// `subject ∈ regex` as a Bool constant, defined in ``finish()`` together with every other
    /// membership of the same subject: Z3 4.8 decides one membership of an intersection quickly but
    /// not several memberships of one string.
    func membership(_ subject: String, _ regex: String) -> String {
        let key = subject + "\u{0}" + regex
        if let existing = membershipIndex[key] { return existing }
        let atom = fresh("re", "Bool")
        membershipIndex[key] = atom
        memberships.append((subject, regex, atom))
        return atom
    }
    private var memberships: [(subject: String, regex: String, atom: String)] = []
    private var membershipIndex: [String: String] = [:]

    /// Defines the membership atoms: for each subject, one implication per combination of its
    /// atoms' truth values, each a single membership of an intersection.
    private func defineMemberships() {
        var order: [String] = []
        var groups: [String: [(regex: String, atom: String)]] = [:]
        for m in memberships {
            if groups[m.subject] == nil { order.append(m.subject) }
            groups[m.subject, default: []].append((m.regex, m.atom))
        }
        for subject in order {
            let group = groups[subject] ?? []
            guard group.count > 1, group.count <= 5 else {
                for (regex, atom) in group { assert(SMT.eq(atom, "(str.in_re \(subject) \(regex))")) }
                continue
            }
            for combination in 0..<(1 << group.count) {
                var guards: [String] = []
                var parts: [String] = []
                for (index, (regex, atom)) in group.enumerated() {
                    let on = combination & (1 << index) != 0
                    guards.append(on ? atom : SMT.not(atom))
                    parts.append(on ? regex : "(re.comp \(regex))")
                }
                assert("(=> \(SMT.and(guards)) (str.in_re \(subject) (re.inter \(parts.joined(separator: " ")))))")
            }
        }
    }

    // MARK: - Finishing

    /// Aligns the keys of related maps and defines every deferred term. Call once, after encoding.
    ///
    /// Terms about a map's "rest" (sizes, `hasOnly`, equality) mean "the keys not materialized",
    /// so every key is materialized first, and nothing is materialized afterwards.
    func finish() {
        var changed = true
        while changed {
            changed = false
            var index = 0
            while index < relations.count {
                let (a, b, _) = relations[index]
                // Related maps mention the same keys, so their equality covers every mentioned key.
                for key in a.keys where b.entries[key] == nil { _ = b.entry(key); changed = true }
                for key in b.keys where a.entries[key] == nil { _ = a.entry(key); changed = true }
                // Nested maps under the same key of related maps are related.
                for key in a.keys {
                    let la = a.entries[key]!.leaf, lb = b.entries[key]!.leaf
                    let before = relations.count
                    _ = relate(la.map, lb.map)
                    if relations.count > before { changed = true }
                }
                index += 1
            }
        }
        defineMemberships()
        let keyCounts = maps.map(\.keys.count)
        let relationCount = relations.count
        var done = 0
        while done < deferred.count {
            let pending = deferred[done...]
            done = deferred.count
            for body in pending { body() }
        }
        for (a, b, v) in relations {
            var parts: [String] = []
            for key in a.keys {
                let ea = a.entries[key]!, eb = b.entry(key)
                parts.append(SMT.eq(ea.present, eb.present))
                parts.append(SMT.implies(ea.present, leafEqual(ea.leaf, eb.leaf)))
            }
            parts.append(SMT.eq(a.restId, b.restId))
            parts.append(SMT.eq(a.restCount, b.restCount))
            assert(SMT.eq(v, SMT.and(parts)))
            // Equal rest content has equal size.
            assert(SMT.implies(SMT.eq(a.restId, b.restId), SMT.eq(a.restCount, b.restCount)))
        }
        // INVARIANT: no key or relation appeared after the alignment above.
        complete = relations.count == relationCount && maps.prefix(keyCounts.count).map(\.keys.count) == keyCounts
    }

    /// Preferences for a readable witness, strongest first: no unmentioned map keys, the
    /// `(default)` database, `sub` equal to the uid, and the case files' default request time.
    /// Each only narrows the model, so a model found with them is still a model.
    /// The error terms of unconstrained values (see ``anyValue(_:_:)``).
    private(set) var abstractionErrors: [String] = []

    func preferences() -> [[String]] {
        var plain: [String] = maps.map { "(= \($0.restCount) 0)" }
        for (index, concrete) in pathConcrete.enumerated() where concrete == nil && index == 1 && service == .firestore {
            plain.append("(= \(pathSegments[index]) \"(default)\")")
        }
        if let sub = token.entries["sub"] {
            plain.append("(and \(sub.leaf.isType("string")) (= \(sub.leaf.s) \(uid)))")
        }
        let time = "(= \(self.time) 1767225600000000000)"
        // lower()/upper() arguments without letters of the other case, where the axiom makes
        // the uninterpreted function exact.
        let exactCase = caseMappings.map { name, argument in
            let unchanged = name == "lower"
                ? "(re.* (re.union (re.range \"\\u{0}\" \"\\u{40}\") (re.range \"\\u{5b}\" \"\\u{7f}\")))"
                : "(re.* (re.union (re.range \"\\u{0}\" \"\\u{60}\") (re.range \"\\u{7b}\" \"\\u{7f}\")))"
            return "(str.in_re \(argument) \(unchanged))"
        }
        // A model where every unmodelled construct errors does not depend on what it returns.
        let unused = abstractionErrors
        var tiers: [[String]] = []
        for tier in [plain + [time] + exactCase + unused, plain + [time] + unused, plain + unused, plain + [time] + exactCase,
                     plain + exactCase, plain + [time], plain, unused] where !tiers.contains(tier) && !tier.isEmpty {
            tiers.append(tier)
        }
        return tiers
    }

    /// The preferences worth trying before the plain query when a witness is the goal
    /// (`possible`): the ones that make `lower()`/`upper()` exact.
    func eagerPreferences() -> [[String]] {
        guard !caseMappings.isEmpty else { return [] }
        return preferences().filter { tier in tier.contains { $0.hasPrefix("(str.in_re |lower.arg") || $0.hasPrefix("(str.in_re |upper.arg") } }
    }

    /// False when ``finish()`` found its invariant broken; the verdict is then `unknown`.
    private(set) var complete = true

    // MARK: - Budget

    /// Most units of encoding work for one query: one per expression encoded (each call site
    /// encodes its function's body again) and one per alternative of a value combined.
    /// RulesKit's own bound, far above what the evaluator's 1,000 expressions per request
    /// (`RL3012`) can use; past it the property is `unknown` with a `VF2001` reason.
    static let encodingWorkLimit = 200_000
    /// The budget of this encoder (``encodingWorkLimit`` unless a test sets a smaller one).
    var workLimit = Encoder.encodingWorkLimit
    /// Units of work spent so far.
    private(set) var work = 0
    /// When encoding must stop: the property's deadline (`--timeout`), checked every 256 units.
    var deadline: Date?
    /// Why encoding stopped early (the budget or the deadline), or nil.
    private(set) var stopped: String?
    private var nextDeadlineCheck = 0

    /// Counts `units` of work; false once the budget or the deadline is exceeded.
    func spend(_ units: Int) -> Bool {
        guard stopped == nil else { return false }
        work += units
        if work > workLimit {
            stopped = "VF2001 encoding needs more than \(workLimit) units of work (each call inlines its function's body)"
            return false
        }
        if work >= nextDeadlineCheck, let deadline {
            nextDeadlineCheck = work + 256
            if Date() >= deadline {
                stopped = "timeout"
                return false
            }
        }
        return true
    }
}

/// Functions visible in one scope, with the scope their bodies resolve names in.
final class FunctionScope {
    var functions: [String: FunctionEntry] = [:]

    static func service(of file: RulesFile) -> FunctionScope {
        let global = FunctionScope()
        global.add(file.functions, wildcards: 0)
        let service = global.child(file.services.first?.functions ?? [], wildcards: 0)
        return service
    }

    func child(_ declarations: [FunctionDecl], wildcards: Int) -> FunctionScope {
        let scope = FunctionScope()
        scope.functions = functions
        scope.add(declarations, wildcards: wildcards)
        return scope
    }

    private func add(_ declarations: [FunctionDecl], wildcards: Int) {
        for declaration in declarations {
            functions[declaration.name] = FunctionEntry(declaration: declaration, scope: self, visibleBindings: wildcards)
        }
    }
}

/// A user function and where its body resolves names.
struct FunctionEntry {
    let declaration: FunctionDecl
    let scope: FunctionScope
    let visibleBindings: Int
}

/// Days since 1970-01-01 of a civil date (proleptic Gregorian; Howard Hinnant's algorithm).
enum CivilDays {
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}

extension SMT {
    /// The text of a string literal term, or nil for any other term.
    static func concreteString(_ term: String) -> String? {
        guard term.hasPrefix("\""), term.hasSuffix("\""), term.count >= 2 else { return nil }
        let parsed = SExpr.parse(term)
        guard parsed.count == 1, case .string(let text) = parsed[0] else { return nil }
        return text
    }
}
