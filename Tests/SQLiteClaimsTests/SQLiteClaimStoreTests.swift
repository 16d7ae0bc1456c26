import Availability
import ClaimStoreTesting
import Foundation
import SQLiteClaims
import Testing

struct SQLiteClaimStoreTests {
    let policy = TestDisplayNamePolicy()

    @Test("conformance", arguments: StoreConformance.all)
    func conformance(_ check: StoreConformance.Check) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await check.run(SQLiteClaimStore(path: directory.path("names.sqlite"), policy: policy))
    }

    @Test func theFileIsInWALModeAndKeepsClaimsAcrossOpens() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("names.sqlite")
        let first = try SQLiteClaimStore(path: path, policy: policy)
        #expect(try await first.claim("Persisted.Name", by: "u1").claimed)
        #expect(FileManager.default.fileExists(atPath: path + "-wal"), "no -wal file next to the database")
        let reopened = try SQLiteClaimStore(path: path, policy: policy)
        #expect(try await reopened.owner(of: "persisted.name") == Claim(name: "Persisted.Name", key: "persisted.name", owner: "u1"))
    }

    /// A policy that takes any name as its own key, NULs included (the app's policy refuses
    /// control characters; the store must not depend on that).
    struct AnyNamePolicy: DisplayNamePolicy {
        func evaluate(_ name: String) -> NameEvaluation { NameEvaluation(key: name, violations: [], isReserved: false) }
    }

    @Test("text is bound and read with its length: a NUL inside a name is kept, not the end of it")
    func aNulInsideTextRoundTrips() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteClaimStore(path: directory.path("names.sqlite"), policy: AnyNamePolicy())
        #expect(try await store.claim("victim", by: "u1").claimed)
        let withNul = try await store.claim("victim\u{0}x", by: "u2")
        #expect(withNul.claimed && withNul.problems.isEmpty, "a different key, not `victim`: \(withNul)")
        let held = try await store.owner(of: "victim\u{0}x")
        #expect(held.map { Array($0.key.utf8) } == Array("victim\u{0}x".utf8))
        #expect(held.map { Array($0.name.utf8) } == Array("victim\u{0}x".utf8))
        #expect(held?.owner == "u2")
        #expect(try await store.owner(of: "victim")?.owner == "u1")
        let all = try await store.allClaims()
        #expect(all.map { Array($0.key.utf8) } == [Array("victim".utf8), Array("victim\u{0}x".utf8)])
        #expect(try await store.availableNames(among: ["victim\u{0}x", "victim\u{0}y", "victim"]) == ["victim\u{0}y"])
        // A release of the longer key leaves the shorter one alone.
        #expect(try await store.release("victim\u{0}x", by: "u2").succeeded)
        #expect(try await store.owner(of: "victim")?.owner == "u1")
        #expect(try await store.owner(of: "victim\u{0}x") == nil)
        #expect(try await store.integrityProblems().isEmpty)
    }

    @Test func aFileThatIsNotADatabaseIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("garbage.sqlite")
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: ClaimStoreError.self) { try SQLiteClaimStore(path: path, policy: policy) }
        #expect(error?.kind == .failed)
    }

    @Test func aMissingDirectoryIsUnreachable() {
        let error = #expect(throws: ClaimStoreError.self) {
            try SQLiteClaimStore(path: "/nonexistent-ruleskit-dir/names.sqlite", policy: policy)
        }
        #expect(error?.kind == .unreachable)
    }

    @Test func aLookupSeesEveryClaimAndReleaseCommittedThroughAnotherConnection() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("names.sqlite")
        let (reader, writer) = (try SQLiteClaimStore(path: path, policy: policy), try SQLiteClaimStore(path: path, policy: policy))
        var checked = 0
        for round in 0..<50 {
            let name = "Name_\(round)"
            #expect(try await reader.availability(of: name).isAvailable)
            #expect(try await writer.claim(name, by: "user\(round)").claimed)
            #expect(try await !reader.availability(of: name).isAvailable, "a claim through another connection is seen at once")
            #expect(try await reader.owner(of: name)?.owner == "user\(round)")
            #expect(try await !writer.release(name, by: "user\(round)").claimed)
            #expect(try await reader.availability(of: name).isAvailable, "a release through another connection is seen at once")
            checked += 1
        }
        #expect(checked == 50)
    }

    @Test func claimRaceFromEightConnections() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let stores = try (0..<8).map { _ in try SQLiteClaimStore(path: directory.path("race.sqlite"), policy: policy) }
        try await ConcurrencyScenarios.claimRace(stores: stores, names: 100, attempts: 1_000)
    }

    @Test func aBatchRacingSingleClaimsFromOtherConnections() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let stores = try (0..<4).map { _ in try SQLiteClaimStore(path: directory.path("batch-race.sqlite"), policy: policy) }
        try await ConcurrencyScenarios.batchRace(batchStore: stores[0], singleStores: Array(stores[1...]))
    }

    @Test func aBatchProcessRacingSingleClaimsFromThisProcess() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("process-race.sqlite")
        let stores = try (0..<4).map { _ in try SQLiteClaimStore(path: path, policy: policy) }
        try await BatchRace.run(store: "sqlite:" + path, singleStores: stores, in: directory.url)
        #expect(try await stores[0].integrityProblems() == [])
    }

    @Test func renameRaceFromEightConnections() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let stores = try (0..<8).map { _ in try SQLiteClaimStore(path: directory.path("rename.sqlite"), policy: policy) }
        try await ConcurrencyScenarios.renameRace(stores: stores)
    }

    @Test func aBatchKilledMidwayLeavesTheFileConsistent() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("batch.sqlite")
        let records = BatchKill.records(count: 2_000)
        let report = try BatchKill.runAndKill(store: "sqlite:\(path)", records: records, killAfter: 100, in: directory.url)
        #expect(report.wasKilled, "the batch finished before it could be killed; raise the record count")
        let store = try SQLiteClaimStore(path: path, policy: policy)
        #expect(try await store.integrityProblems() == [])
        let claims = try await store.allClaims()
        try BatchKill.verify(claims, records: records, reportedClaimed: report.reportedClaimed)
        let held = claims.count
        #expect(held >= report.reportedClaimed.count && held < records.count, "held \(held) of \(records.count)")
        // Re-running the batch finishes the job: claims already made are the user's own, so they succeed again.
        #expect(try BatchKill.runToEnd(store: "sqlite:\(path)", records: records, in: directory.url) == 0)
        #expect(try await store.allClaims().count == records.count)
    }
}
