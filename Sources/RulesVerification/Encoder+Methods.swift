// Encoder+Methods: methods on maps, map diffs, key sets, lists, durations, paths and opaque
// values (string and timestamp methods are in Encoder+Strings and Encoder+Time).
import Diagnostics

extension Encoder {
    // MARK: - Methods

    func method(_ receiver: SymValue, _ name: String, _ args: [SymValue], _ span: SourceSpan) -> SymValue {
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
                        guard case .string(let key) = keyPayload else { return anyValue("map.get() with a list key", span) }
                        let concrete = SMT.concreteString(key)
                        let present = concrete.map { hasKey(ref, $0) } ?? hasKey(ref, computed: key)
                        let found = concrete.map { field(ref, $0) } ?? field(ref, computed: key)
                        return SymValue(err: SMT.and([present, found.err]), alts:
                            found.alts.map { .init(guard_: SMT.and([present, $0.guard_]), payload: $0.payload, unmodelled: $0.unmodelled) }
                            + args[1].alts.map { .init(guard_: SMT.and([SMT.not(present), $0.guard_]), payload: $0.payload, unmodelled: $0.unmodelled) })
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
                return known.contains(name) ? anyResult("\(type).\(name)() on data", span, of: "\(type).\(name)", [SymValue(p)] + args) : .error
            default: return .error
            }
        }
        return SymValue(err: SMT.or([argErr, result.err]), alts: result.alts.map { .init(guard_: SMT.and([SMT.not(argErr), $0.guard_]), payload: $0.payload, unmodelled: $0.unmodelled) })
    }

    private func keySetMethod(_ set: KeySet, _ name: String, _ args: [SymValue], _ span: SourceSpan) -> SymValue {
        if name == "size", args.isEmpty { return SymValue(.int(setSize(set))) }
        if ["difference", "intersection", "union"].contains(name), args.count == 1 { return anyValue("set.\(name)()", span) }
        guard ["hasAll", "hasAny", "hasOnly"].contains(name), args.count == 1 else { return .error }
        return map(args[0]) { p in
            if case .keySet(let other) = p, case .literal(let keys) = other.source {
                return keySetTest(set, name, keys)
            }
            guard case .list(let items) = p else { return anyValue("set.\(name)() with a \(p.typeName)", span) }
            // Only lists of literal strings are encoded exactly.
            var keys: [String] = []
            for item in items {
                guard item.alts.count == 1, case .string(let k) = item.alts[0].payload, let concrete = SMT.concreteString(k) else {
                    return anyValue("set.\(name)() with non-literal elements", span)
                }
                keys.append(concrete)
            }
            return keySetTest(set, name, keys)
        }
    }

    /// `set.hasAll(keys)`, `hasAny` or `hasOnly` for literal keys.
    private func keySetTest(_ set: KeySet, _ name: String, _ keys: [String]) -> SymValue {
        switch name {
        case "hasAll": return SymValue(.bool(SMT.and(keys.map { member(of: set, $0) })))
        case "hasAny": return SymValue(.bool(SMT.or(keys.map { member(of: set, $0) })))
        default:
            for key in keys { _ = member(of: set, key) }
            return SymValue(.bool(SMT.not(hasMemberOutside(set, Set(keys)))))
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
        case ("toSet", 0):
            // A set of literal strings is a key set; any other set is not modelled.
            var keys: [String] = []
            for item in items {
                guard item.alts.count == 1, item.err == "false", case .string(let k) = item.alts[0].payload, let concrete = SMT.concreteString(k) else {
                    return anyValue("list.toSet() of values other than literal strings", span)
                }
                if !keys.contains(concrete) { keys.append(concrete) }
            }
            return SymValue(.keySet(KeySet(source: .literal(keys))))
        case ("concat", 1), ("removeAll", 1), ("join", 1):
            return anyValue("list.\(name)()", span)
        default: return .error
        }
    }
}
