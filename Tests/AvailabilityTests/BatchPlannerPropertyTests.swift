import Availability
import ClaimStoreTesting
import PropertyBased
import Testing

/// The batch planner (through the memory store) against one request per record, on generated
/// scripts of claims, renames and releases with random transaction sizes.
struct BatchPlannerPropertyTests {
    @Test func aBatchDecidesEveryRecordAsOneRequestPerRecordWould() async {
        var scripts = 0
        var met = BatchConformance.Tally()
        await propertyCheck(input: Gen.int(in: 0...1_000_000), Gen.int(in: 1...40)) { (seed: Int, batchSize: Int) in
            let store = MemoryClaimStore(policy: TestDisplayNamePolicy())
            let (steps, universe) = BatchConformance.script(seed: UInt64(seed), records: 60)
            let tally = try await BatchConformance.matchesOneByOne(store, steps: steps, batchSize: batchSize, universe: universe)
            scripts += 1
            met.codes.merge(tally.codes, uniquingKeysWith: +)
            met.repeats += tally.repeats
            met.acrossTransactions += tally.acrossTransactions
            met.renamed += tally.renamed
            met.released += tally.released
        }
        // The generated scripts reach every case the planner decides, many times over.
        #expect(scripts >= 100, "only \(scripts) scripts ran")
        for code in ["AV1001", "AV1002", "AV1003", "AV1004", "AV1005", "AV1006", "AV1008"] {
            #expect(met.codes[code, default: 0] >= 100, "only \(met.codes[code, default: 0]) records got \(code)")
        }
        // A repeat needs the same user to pick the same name again in one step: about one a script.
        #expect(met.repeats >= 40, "only \(met.repeats) repeats by the holder within a step")
        #expect(met.acrossTransactions >= 1_000, "only \(met.acrossTransactions) records met a key an earlier transaction decided")
        #expect(met.renamed >= 100, "only \(met.renamed) renames done")
        // A release needs its user to hold the name: about one script in two has one.
        #expect(met.released >= 20, "only \(met.released) releases done")
    }

    @Test func theDefaultBatchAsksOneRecordAtATimeAndStopsAtTheFirstFault() async throws {
        let store = FailingAfter(limit: 2)
        let outcome = await store.claim(batch: (0..<5).map { NameRequest(name: "name\($0)", user: "u\($0)") })
        #expect(outcome.outcomes.count == 2 && outcome.outcomes.allSatisfy(\.claimed))
        #expect(outcome.fault?.records == 2..<3 && outcome.fault?.error.code == "AV3001")
        #expect(await store.asked == 3, "records after the fault were sent")
    }

    /// A store without batch support whose claims fail after `limit` successes.
    actor FailingAfter: ClaimStore {
        nonisolated let policy: any DisplayNamePolicy = TestDisplayNamePolicy()
        let limit: Int
        var asked = 0
        init(limit: Int) { self.limit = limit }

        func claim(_ name: String, by user: String) throws(ClaimStoreError) -> ClaimOutcome {
            asked += 1
            if asked > limit { throw ClaimStoreError(.unreachable, "down") }
            return ClaimOutcome(name: name, key: name, claimed: true, owner: user)
        }
        func availability(of name: String) -> NameAvailability { NameAvailability(name: name, key: name, isAvailable: true) }
        func release(_ name: String, by user: String) -> ClaimOutcome { ClaimOutcome(name: name, key: name, claimed: false, owner: nil) }
        func rename(from old: String, to new: String, by user: String) -> ClaimOutcome { ClaimOutcome(name: new, key: new, claimed: true, owner: user) }
        func owner(of name: String) -> Claim? { nil }
    }
}
