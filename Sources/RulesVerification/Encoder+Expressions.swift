// Encoder+Expressions: the truth of a value, combinators over alternatives, and one encoding
// function per expression term (literals, variables, indexing, operators, calls).
import Diagnostics
import RulesLanguage

extension Encoder {
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


    func plainBool(_ term: String, err: String = "false") -> SymValue {
        let err = share(err)
        return SymValue(err: err, alts: [.init(guard_: SMT.not(err), payload: .bool(share(term)))])
    }

    /// Applies `body` to every alternative; `body` returns a value for that alternative (whose
    /// own error adds to the result's).
    func map(_ v: SymValue, _ body: (Payload) -> SymValue) -> SymValue {
        guard spend(v.alts.count) else { return .error }
        var err = [v.err]
        var alts: [SymValue.Alternative] = []
        for alt in v.alts {
            let r = body(alt.payload)
            err.append(SMT.and([alt.guard_, r.err]))
            for inner in r.alts {
                alts.append(.init(guard_: share(SMT.and([alt.guard_, SMT.not(r.err), inner.guard_])), payload: inner.payload,
                                  unmodelled: inner.unmodelled))
            }
        }
        return SymValue(err: share(SMT.or(err)), alts: alts.filter { $0.guard_ != "false" })
    }

    func map2(_ a: SymValue, _ b: SymValue, _ body: (Payload, Payload) -> SymValue) -> SymValue {
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
                    guard case .map(let ref) = pb else { return .error }
                    return field(ref, computed: key)
                case (.list(let items), .int(let k)):
                    var alts: [SymValue.Alternative] = []
                    var errs: [String] = []
                    for (n, item) in items.enumerated() {
                        let hit = SMT.eq(k, String(n))
                        errs.append(SMT.and([hit, item.err]))
                        alts += item.alts.map { .init(guard_: SMT.and([hit, $0.guard_]), payload: $0.payload, unmodelled: $0.unmodelled) }
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
                case (.opaque("list", _), .int), (.string, .int):
                    return anyResult("indexing a \(pb.typeName)", expr.span, of: "index", [SymValue(pb), SymValue(pi)])
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
            let alts = a.alts.map { SymValue.Alternative(guard_: SMT.and([t, SMT.not(a.err), $0.guard_]), payload: $0.payload, unmodelled: $0.unmodelled) }
                + b.alts.map { SymValue.Alternative(guard_: SMT.and([f, SMT.not(b.err), $0.guard_]), payload: $0.payload, unmodelled: $0.unmodelled) }
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

}
