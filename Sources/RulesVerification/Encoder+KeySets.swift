// Encoder+KeySets: membership, `hasOnly` and size of the key sets of input maps and map diffs,
// defined after encoding (they need every map's final keys).

extension Encoder {
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
        let v = fresh("outside", "Bool")
        if case .diff(_, let a, let b) = set.source { _ = relate(a, b) }
        deferred.append { [unowned self] in
            switch set.source {
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

    func setSize(_ set: KeySet) -> String {
        let v = fresh("size", "Int")
        deferred.append { [unowned self] in
            switch set.source {
            case .keys(let m):
                // A key of `m.keys` has its entry (see `SymMap`): `entry(_:)` only reads it.
                let parts = m.keys.map { "(ite \(m.entry($0).present) 1 0)" }
                self.assert("(= \(v) (+ 0 \(parts.joined(separator: " ")) \(m.restCount)))")
            case .diff:
                self.assert("(<= 0 \(v))")
                self.abstractions.append(Abstraction(construct: "size() of a map diff's key set", location: "\(self.source.name)"))
            }
        }
        return v
    }
}
