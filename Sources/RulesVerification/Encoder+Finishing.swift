// Encoder+Finishing: aligning related maps' keys and defining deferred terms once encoding is
// done, and the preferences that make a witness readable.

extension Encoder {
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
                    // Both maps have `key` now: `entry(_:)` only reads it.
                    let la = a.entry(key).leaf, lb = b.entry(key).leaf
                    let before = relations.count
                    _ = relate(la.map, lb.map)
                    if relations.count > before { changed = true }
                }
                index += 1
            }
            // Entries a computed key may read have their nested maps related too.
            if linkComputedEntries() { changed = true }
        }
        caseMappingAxioms()
        defineMemberships()
        let keyCounts = maps.map(\.keys.count)
        let relationCount = relations.count
        var done = 0
        while done < deferred.count {
            let pending = deferred[done...]
            done = deferred.count
            for body in pending { body() }
        }
        computedKeyFacts()
        objectSizeFacts()
        for (a, b, v) in relations {
            var parts: [String] = []
            for key in a.keys {
                // Aligned above: both maps have every key, so `entry(_:)` only reads.
                let ea = a.entry(key), eb = b.entry(key)
                parts.append(SMT.eq(ea.present, eb.present))
                parts.append(SMT.implies(ea.present, leafEqual(ea.leaf, eb.leaf)))
            }
            parts.append(SMT.eq(a.restId, b.restId))
            parts.append(SMT.eq(a.restCount, b.restCount))
            assert(SMT.eq(v, SMT.and(parts)))
            // Equal rest content has equal size.
            assert(SMT.implies(SMT.eq(a.restId, b.restId), SMT.eq(a.restCount, b.restCount)))
        }
        recordCaseMappingUses()
        // INVARIANT: no key or relation appeared after the alignment above.
        if relations.count != relationCount || maps.prefix(keyCounts.count).map(\.keys.count) != keyCounts { invariantBroken() }
    }

    /// A Storage object's `size` is a non-negative integer (its length in bytes), in `resource`
    /// and `request.resource`: production never has another. Stated for the maps whose `size`
    /// the encoding read; after the alignment, so it only reads entries.
    private func objectSizeFacts() {
        guard service == .storage else { return }
        for object in [resourceData, requestData].compactMap({ $0 }) {
            guard let size = object.entries["size"] else { continue }
            assert(SMT.implies(size.present, SMT.and([size.leaf.isType("int"), "(<= 0 \(size.leaf.i))"])))
        }
    }

    /// Preferences for a readable witness, strongest first: no unmentioned map keys, the
    /// `(default)` database, `sub` equal to the uid, and the case files' default request time.
    /// Each only narrows the model, so a model found with them is still a model.
    func preferences() -> [[String]] {
        var plain: [String] = maps.map { "(= \($0.restCount) 0)" }
        for (index, concrete) in pathConcrete.enumerated() where concrete == nil && index == 1 && service == .firestore {
            plain.append("(= \(pathSegments[index]) \"(default)\")")
        }
        if let sub = token?.entries["sub"] {
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
}
