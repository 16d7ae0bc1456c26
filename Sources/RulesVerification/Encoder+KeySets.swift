// Encoder+KeySets: membership, `hasOnly` and size of the key sets of input maps and map diffs,
// defined after encoding (they need every map's final keys).

/// How the other keys (those the rules do not name) of two diffed maps `a` and `b` split: how
/// many only `a` has (added), only `b` has (removed), both have with different values (changed)
/// and with equal values (unchanged). Int constants.
struct DiffRest {
    let a: SymMap
    let b: SymMap
    let added: String
    let removed: String
    let changed: String
    let unchanged: String

    /// How many of the other keys are in the key set `kind` (`addedKeys`, …, `affectedKeys`).
    func count(_ kind: String) -> String {
        switch kind {
        case "addedKeys": added
        case "removedKeys": removed
        case "changedKeys": changed
        case "unchangedKeys": unchanged
        default: "(+ \(added) \(removed) \(changed))"
        }
    }
}

extension Encoder {
    /// The split of `a`'s and `b`'s other keys, declared on first use: `a` has
    /// added + changed + unchanged of them, `b` removed + changed + unchanged, and their other
    /// keys have the same content (`restId`) exactly when none is added, removed or changed.
    func diffRest(_ a: SymMap, _ b: SymMap) -> DiffRest {
        if let known = diffRests.first(where: { $0.a === a && $0.b === b }) { return known }
        if let known = diffRests.first(where: { $0.a === b && $0.b === a }) {
            return DiffRest(a: a, b: b, added: known.removed, removed: known.added, changed: known.changed, unchanged: known.unchanged)
        }
        let index = diffRests.count
        let rest = DiffRest(a: a, b: b, added: declare("diff\(index).added", "Int"), removed: declare("diff\(index).removed", "Int"),
                            changed: declare("diff\(index).changed", "Int"), unchanged: declare("diff\(index).unchanged", "Int"))
        for count in [rest.added, rest.removed, rest.changed, rest.unchanged] { assert("(<= 0 \(count))") }
        assert("(= \(a.restCount) (+ \(rest.added) \(rest.changed) \(rest.unchanged)))")
        assert("(= \(b.restCount) (+ \(rest.removed) \(rest.changed) \(rest.unchanged)))")
        assert(SMT.eq(SMT.eq(a.restId, b.restId), "(= 0 \(rest.count("affectedKeys")))"))
        diffRests.append(rest)
        return rest
    }

    // MARK: - Key sets

    /// Whether `key` is in the set (defined after encoding).
    func member(of set: KeySet, _ key: String) -> String {
        switch set.source {
        case .literal(let keys):
            return keys.contains(key) ? "true" : "false"
        case .keys(let m):
            return m.entry(key).present
        case .diff(let kind, let a, let b):
            _ = relate(a, b)
            let pa = a.entry(key).present
            let pb = b.entry(key).present
            let v = fresh("diff.\(kind)", "Bool")
            deferred.append { [unowned self] in
                // Both entries were made above: `entry(_:)` only reads them.
                let ea = a.entry(key), eb = b.entry(key)
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
    func hasMemberOutside(_ set: KeySet, _ keys: Set<String>) -> String {
        if case .literal(let members) = set.source { return members.allSatisfy(keys.contains) ? "false" : "true" }
        let v = fresh("outside", "Bool")
        if case .diff(_, let a, let b) = set.source { _ = relate(a, b) }
        deferred.append { [unowned self] in
            switch set.source {
            case .literal: break
            case .keys(let m):
                // A key of `m.keys` has its entry (see `SymMap`): `entry(_:)` only reads it.
                let inside = m.keys.filter { !keys.contains($0) }.map { m.entry($0).present }
                self.assert(SMT.eq(v, SMT.or(inside + ["(< 0 \(m.restCount))"])))
            case .diff(let kind, let a, let b):
                var parts: [String] = []
                for key in a.keys where !keys.contains(key) {
                    let ea = a.entry(key), eb = b.entry(key)
                    parts.append(self.diffMembership(kind, ea.present, eb.present, self.leafEqual(ea.leaf, eb.leaf)))
                }
                // Keys outside the mentioned ones: some of the other keys are in the set.
                parts.append("(< 0 \(self.diffRest(a, b).count(kind)))")
                self.assert(SMT.eq(v, SMT.or(parts)))
            }
        }
        return v
    }

    func setSize(_ set: KeySet) -> String {
        if case .literal(let keys) = set.source { return String(keys.count) }
        let v = fresh("size", "Int")
        if case .diff(_, let a, let b) = set.source { _ = relate(a, b) }
        deferred.append { [unowned self] in
            switch set.source {
            case .literal: break
            case .keys(let m):
                // A key of `m.keys` has its entry (see `SymMap`): `entry(_:)` only reads it.
                let parts = m.keys.map { "(ite \(m.entry($0).present) 1 0)" }
                self.assert("(= \(v) (+ 0 \(parts.joined(separator: " ")) \(m.restCount)))")
            case .diff(let kind, let a, let b):
                // Related above, so both maps have every key: `entry(_:)` only reads.
                let parts = a.keys.map { key -> String in
                    let ea = a.entry(key), eb = b.entry(key)
                    return "(ite \(self.diffMembership(kind, ea.present, eb.present, self.leafEqual(ea.leaf, eb.leaf))) 1 0)"
                }
                self.assert("(= \(v) (+ 0 \(parts.joined(separator: " ")) \(self.diffRest(a, b).count(kind))))")
            }
        }
        return v
    }
}
