// Encoder+ComputedKeys: reading a map at a computed key (`m[k]`, `k in m`, `m.get(k, d)` with `k`
// a string that is not a literal). The key is one of the keys the rules mention (then the read
// is that entry) or one of the map's other keys (then it counts among them, and two reads of
// equal keys, in one map or in two maps with the same other keys, agree).
import Diagnostics

extension Encoder {
    // MARK: - Reads at computed keys

    /// `m[key]` for a String term `key`: the value, or an error when the key is missing.
    func field(_ ref: MapRef, computed key: String) -> SymValue {
        switch ref {
        case .literal(let fields):
            var errs: [String] = []
            var alts: [SymValue.Alternative] = []
            var hits: [String] = []
            var seen: Set<String> = []
            // The last entry of a key wins, as in ``field(_:_:)``.
            for (name, value) in fields.reversed() where seen.insert(name).inserted {
                let hit = SMT.eq(key, SMT.string(name))
                hits.append(hit)
                errs.append(SMT.and([hit, value.err]))
                alts += value.alts.map { .init(guard_: SMT.and([hit, SMT.not(value.err), $0.guard_]), payload: $0.payload, unmodelled: $0.unmodelled) }
            }
            errs.append(SMT.not(SMT.or(hits)))
            return SymValue(err: SMT.or(errs), alts: alts)
        case .symbolic(let m):
            return value(of: m.computedEntry(key))
        case .storage(let m, let name, let bucket):
            // `name` and `bucket` are the object's own (see ``field(_:_:)``); any other key is metadata.
            let special = storageIdentity(key, name: name, bucket: bucket)
            let other = SMT.not(SMT.or(special.map(\.hit)))
            let entry = value(of: m.computedEntry(key))
            return SymValue(err: SMT.and([other, entry.err]), alts:
                special.map { .init(guard_: $0.hit, payload: .string($0.value)) }
                + entry.alts.map { .init(guard_: SMT.and([other, $0.guard_]), payload: $0.payload, unmodelled: $0.unmodelled) })
        }
    }

    /// `key in m` for a String term `key`.
    func hasKey(_ ref: MapRef, computed key: String) -> String {
        switch ref {
        case .literal(let fields):
            return SMT.or(Set(fields.map(\.0)).sorted().map { SMT.eq(key, SMT.string($0)) })
        case .symbolic(let m):
            return m.computedEntry(key).present
        case .storage(let m, let name, let bucket):
            let special = storageIdentity(key, name: name, bucket: bucket).map(\.hit)
            return SMT.or(special + [SMT.and([SMT.not(SMT.or(special)), m.computedEntry(key).present])])
        }
    }

    private func storageIdentity(_ key: String, name: String?, bucket: String?) -> [(hit: String, value: String)] {
        var special: [(hit: String, value: String)] = []
        if let name { special.append((SMT.eq(key, SMT.string("name")), name)) }
        if let bucket { special.append((SMT.eq(key, SMT.string("bucket")), bucket)) }
        return special
    }

    private func value(of entry: SymMap.ComputedEntry) -> SymValue {
        var v = entry.leaf.value
        v.err = SMT.not(entry.present)
        v.alts = v.alts.map { .init(guard_: SMT.and([entry.present, $0.guard_]), payload: $0.payload, unmodelled: $0.unmodelled) }
        return v
    }

    // MARK: - Finishing

    /// The maps with reads at computed keys.
    private var computedReaders: [SymMap] { maps.filter { !$0.computed.isEmpty } }

    /// Relates the nested maps of every two entries a computed key may be the key of, so
    /// ``leafEqual(_:_:)`` can state their equality; true when a relation was added. Part of the
    /// alignment in ``finish()``.
    func linkComputedEntries() -> Bool {
        let before = relations.count
        let readers = computedReaders
        for m in readers {
            for (index, entry) in m.computed.enumerated() {
                // A key of `m.keys` has its entry (see `SymMap`): `entry(_:)` only reads it.
                for key in m.keys { _ = relate(entry.leaf.map, m.entry(key).leaf.map) }
                for earlier in m.computed[..<index] { _ = relate(entry.leaf.map, earlier.leaf.map) }
            }
        }
        for (index, m) in readers.enumerated() {
            for other in readers[(index + 1)...] {
                for entry in m.computed { for read in other.computed { _ = relate(entry.leaf.map, read.leaf.map) } }
            }
        }
        return relations.count > before
    }

    /// The facts that make reads at computed keys one map: a computed key equal to a mentioned
    /// key reads that entry; equal computed keys read the same entry; a present key that is no
    /// mentioned one is among the map's other keys (`restCount` counts each distinct one), and
    /// maps with the same other keys (`restId`) agree on it. Every real map satisfies them.
    func computedKeyFacts() {
        var others: [(SymMap, SymMap.ComputedEntry, String)] = []
        for m in computedReaders {
            var counted: [String] = []
            for (index, entry) in m.computed.enumerated() {
                var differs: [String] = []
                for key in m.keys {
                    // A key of `m.keys` has its entry: `entry(_:)` only reads it.
                    let named = m.entry(key)
                    let hit = SMT.eq(entry.key, SMT.string(key))
                    assert(SMT.implies(hit, agree(entry, named.present, named.leaf)))
                    differs.append(SMT.not(hit))
                }
                let isOther = share(SMT.and(differs))
                var distinct: [String] = []
                for earlier in m.computed[..<index] {
                    let same = SMT.eq(entry.key, earlier.key)
                    assert(SMT.implies(same, agree(entry, earlier.present, earlier.leaf)))
                    distinct.append(SMT.not(same))
                }
                counted.append("(ite \(SMT.and([entry.present, isOther] + distinct)) 1 0)")
                others.append((m, entry, isOther))
            }
            assert("(<= (+ 0 \(counted.joined(separator: " "))) \(m.restCount))")
        }
        for (index, (m, entry, isOther)) in others.enumerated() {
            for (n, read, readIsOther) in others[(index + 1)...] where n !== m {
                let same = SMT.and([SMT.eq(m.restId, n.restId), isOther, readIsOther, SMT.eq(entry.key, read.key)])
                assert(SMT.implies(same, agree(entry, read.present, read.leaf)))
            }
        }
    }

    private func agree(_ entry: SymMap.ComputedEntry, _ present: String, _ leaf: Leaf) -> String {
        SMT.and([SMT.eq(entry.present, present), SMT.implies(entry.present, leafEqual(entry.leaf, leaf))])
    }
}
