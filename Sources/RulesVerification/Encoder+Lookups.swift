// Encoder+Lookups: `get`, `exists`, `getAfter`, `existsAfter` (and Storage's `firestore.get`/
// `exists`): one slot per looked-up path, the same path always giving the same document.
import Diagnostics

extension Encoder {
    // MARK: - Lookups

    func lookup(_ name: String, _ pathValue: SymValue, _ span: SourceSpan, storage: Bool) -> SymValue {
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
                            ownDoc.alts.map { .init(guard_: SMT.and([own, $0.guard_]), payload: $0.payload, unmodelled: $0.unmodelled) }
                            + document.alts.map { .init(guard_: SMT.and([SMT.not(own), $0.guard_]), payload: $0.payload, unmodelled: $0.unmodelled) })
                    }
                }
            }
            if name.hasPrefix("exists") {
                return SymValue(err: SMT.not(valid), alts: [.init(guard_: valid, payload: .bool(existsTerm))])
            }
            return SymValue(err: SMT.not(valid), alts:
                [.init(guard_: SMT.and([valid, SMT.not(existsTerm)]), payload: .null)]
                + document.alts.map { .init(guard_: SMT.and([valid, existsTerm, $0.guard_]), payload: $0.payload, unmodelled: $0.unmodelled) })
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
}
