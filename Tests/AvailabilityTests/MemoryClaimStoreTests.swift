import Availability
import ClaimStoreTesting
import Testing

struct MemoryClaimStoreTests {
    @Test("conformance", arguments: StoreConformance.all)
    func conformance(_ check: StoreConformance.Check) async throws {
        try await check.run(MemoryClaimStore(policy: TestDisplayNamePolicy()))
    }

    @Test func claimRace() async throws {
        let store = MemoryClaimStore(policy: TestDisplayNamePolicy())
        try await ConcurrencyScenarios.claimRace(stores: [store])
    }

    @Test func batchRacingSingleClaims() async throws {
        let store = MemoryClaimStore(policy: TestDisplayNamePolicy())
        try await ConcurrencyScenarios.batchRace(batchStore: store, singleStores: [store, store])
    }

    @Test func renameRace() async throws {
        let store = MemoryClaimStore(policy: TestDisplayNamePolicy())
        try await ConcurrencyScenarios.renameRace(stores: [store])
    }
}
