// Encoder+Operators: member access (`m.name`, `key in m`), comparisons, `in`, and arithmetic.
import Diagnostics
import RulesLanguage

extension Encoder {
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
            v.alts = v.alts.map { .init(guard_: SMT.and([e.present, $0.guard_]), payload: $0.payload, unmodelled: $0.unmodelled) }
            return v
        case .storage(let m, let nameTerm, let bucketTerm):
            // A stored object's `name` is its path after `/o/` and its `bucket` the bucket
            // segment; witnesses state both (`WitnessBuilder`).
            if name == "name", let nameTerm { return SymValue(.string(nameTerm)) }
            if name == "bucket", let bucketTerm { return SymValue(.string(bucketTerm)) }
            let e = m.entry(name)
            var v = e.leaf.value
            v.alts = v.alts.map { .init(guard_: SMT.and([e.present, $0.guard_]), payload: $0.payload, unmodelled: $0.unmodelled) }
            v.err = SMT.not(e.present)
            return v
        }
    }

    /// `key in map`.
    func hasKey(_ ref: MapRef, _ key: String) -> String {
        switch ref {
        case .literal(let fields): return fields.contains { $0.0 == key } ? "true" : "false"
        case .symbolic(let m): return m.entry(key).present
        case .storage(let m, let name, let bucket):
            return (key == "name" && name != nil) || (key == "bucket" && bucket != nil) ? "true" : m.entry(key).present
        }
    }

    // MARK: - Operators

    func binary(_ op: BinaryOperator, _ a: SymValue, _ b: SymValue, _ span: SourceSpan) -> SymValue {
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
                    if let exact = derivedIn(a, items) { return exact }
                    return plainBool(SMT.or(items.map { valueEqual(a, $0, span) }), err: a.err)
                case .keySet(let set):
                    return map(a) { item in
                        guard case .string(let key) = item else { return SymValue(.bool("false")) }
                        guard let concrete = SMT.concreteString(key) else {
                            if case .keys(let m) = set.source { return SymValue(.bool(m.computedEntry(key).present)) }
                            if case .literal(let keys) = set.source { return SymValue(.bool(SMT.or(keys.map { SMT.eq(key, SMT.string($0)) }))) }
                            return anyValue("`in` on a map diff's key set with a computed key", span)
                        }
                        return SymValue(.bool(member(of: set, concrete)))
                    }
                case .map(let ref):
                    return map(a) { item in
                        guard case .string(let key) = item else { return SymValue(.bool("false")) }
                        guard let concrete = SMT.concreteString(key) else { return SymValue(.bool(hasKey(ref, computed: key))) }
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
}
