// Encoder+Equality: language equality of values, paths and maps; input maps are related by
// equality constants defined once their keys are aligned (``Encoder/finish()``).
import Diagnostics

extension Encoder {
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
        // A value the encoding does not model may really be a path, a set, a map diff or a
        // latlng, which its alternatives cannot be: its equality with such a value is left open
        // (a fresh Boolean), never false, or a proof could rest on it.
        for (modelled, unmodelled) in [(a, b), (b, a)] where unmodelled.alts.contains(where: \.unmodelled) {
            let someAlternative = SMT.or(unmodelled.alts.filter(\.unmodelled).map(\.guard_))
            for y in modelled.alts where !y.unmodelled && !y.payload.isLeafType {
                abstract("comparing a value the encoding does not model with a \(y.payload.typeName)", span)
                cases.append(SMT.and([someAlternative, y.guard_, fresh("abs.eq", "Bool")]))
            }
        }
        return SMT.or(cases)
    }

    private func payloadEqual(_ a: Payload, _ b: Payload, _ span: SourceSpan) -> String {
        switch (a, b) {
        case (.null, .null): return "true"
        case (.string(let x), .string(let y)) where derivations[x] != nil || derivations[y] != nil:
            // A derived string against a literal: exact, as a membership of its base.
            if let literal = SMT.concreteString(y), let member = derivedMembership(x, [literal]) { return member }
            if let literal = SMT.concreteString(x), let member = derivedMembership(y, [literal]) { return member }
            return SMT.eq(x, y)
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
        case (.keySet(let x), .keySet(let y)):
            return keySetEqual(x, y, span)
        case (.mapDiff, .mapDiff), (.list, .opaque), (.opaque, .list):
            abstract("equality of \(a.typeName) values", span)
            return fresh("abs.eq", "Bool")
        default:
            return "false"
        }
    }

    /// Set equality of key sets; exact when one side is a literal set (`['a'].toSet()`): the
    /// other has every listed key and no other.
    private func keySetEqual(_ x: KeySet, _ y: KeySet, _ span: SourceSpan) -> String {
        switch (x.source, y.source) {
        case (.literal(let a), .literal(let b)):
            return Set(a) == Set(b) ? "true" : "false"
        case (.literal(let keys), _):
            return SMT.and(keys.map { member(of: y, $0) } + [SMT.not(hasMemberOutside(y, Set(keys)))])
        case (_, .literal):
            return keySetEqual(y, x, span)
        default:
            abstract("equality of two key sets of maps", span)
            return fresh("abs.eq", "Bool")
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
                // A key of `m.keys` has its entry (see `SymMap`): `entry(_:)` only reads it.
                let others = m.keys.filter { !keys.contains($0) }.map { SMT.not(m.entry($0).present) }
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
    func leafEqual(_ x: Leaf, _ y: Leaf) -> String {
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
}
