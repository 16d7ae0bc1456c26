import Availability
import ClaimStoreTesting
import PropertyBased
import Testing

/// The batch planner (through the memory store) against one request per record, on generated
/// scripts of claims, renames and releases with random transaction sizes.
struct BatchPlannerPropertyTests {
    @Test func aBatchDecidesEveryRecordAsOneRequestPerRecordWould() async {
        await propertyCheck(input: Gen.int(in: 0...1_000_000), Gen.int(in: 1...40)) { (seed: Int, batchSize: Int) in
            let store = MemoryClaimStore(policy: TestDisplayNamePolicy())
            let (steps, universe) = BatchConformance.script(seed: UInt64(seed), records: 60)
            try await BatchConformance.matchesOneByOne(store, steps: steps, batchSize: batchSize, universe: universe)
        }
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
