import Availability
import ClaimStoreTesting
import Foundation
import PostgresClaims
import PostgresNIO
import Testing

/// The test database: `RULESKIT_POSTGRES_URL` (printed by `scripts/postgres start`).
enum TestDatabase {
    static let url = ProcessInfo.processInfo.environment["RULESKIT_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"
    static let howToStart: Comment = """
        RULESKIT_POSTGRES_URL is not set, so the PostgreSQL claim-store tests are skipped. \
        To run them: eval "$(scripts/postgres start)"; export RULESKIT_POSTGRES_URL
        """

    /// The test URL with a fresh schema, so that each test starts from an empty store.
    static func freshURL() -> String {
        let base = url ?? ""
        let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        return base + (base.contains("?") ? "&" : "?") + "schema=\(schema)"
    }

    /// A store on the test database. The connect timeout is generous: SCRAM in a debug build on a
    /// loaded 2-core machine (the whole suite running) can take seconds per connection.
    static func store(url: String = freshURL(), connections: Int = 2) throws -> PostgresClaimStore {
        PostgresClaimStore(location: try PostgresLocation(url: url), policy: TestDisplayNamePolicy(),
                           maxConnections: connections, connectTimeout: .seconds(90))
    }
}

@Test func postgresIsConfiguredInCI() {
    if TestDatabase.isCI && TestDatabase.url == nil {
        Issue.record("CI=true but RULESKIT_POSTGRES_URL is not set: .ci/run must start scripts/postgres")
    }
}

struct PostgresLocationTests {
    @Test func parsesAndNeverPrintsThePassword() throws {
        let location = try PostgresLocation(url: "postgres://app:s3cret@127.0.0.1:55432/appdb?sslmode=disable&schema=claims")
        #expect(location.host == "127.0.0.1" && location.port == 55432 && location.username == "app")
        #expect(location.password == "s3cret" && location.database == "appdb" && location.tls == .disable && location.schema == "claims")
        #expect(!location.description.contains("s3cret"))
    }

    @Test("an unescaped @ or / in the password: the user information ends at the last @, and none of it is ever shown",
          arguments: [
              ("postgres://u@SECRET@127.0.0.1/db", "u@SECRET", nil as String?),
              ("postgres://u:p@SECRET@127.0.0.1:5433/db", "u", "p@SECRET"),
              ("postgres://u:1234/SECRET@127.0.0.1/db", "u", "1234/SECRET"),
              ("postgresql://u:SEC%40RET@127.0.0.1/db", "u", "SEC@RET"),
          ])
    func userInformationEndsAtTheLastAt(url: String, user: String, password: String?) throws {
        let location = try PostgresLocation(url: url)
        #expect(location.username == user && location.password == password)
        #expect(location.host == "127.0.0.1" && location.database == "db")
        #expect(location.description.hasPrefix("postgres://***@127.0.0.1:"))
        #expect(!location.description.contains("SECRET") && !location.description.contains("SEC"))
        #expect(!PostgresLocation.redacted(url).contains("SECRET") && !PostgresLocation.redacted(url).contains("SEC%40RET"))
    }

    @Test func redactionHidesEverythingBetweenTheSchemeAndTheLastAt() {
        #expect(PostgresLocation.redacted("postgres://u@SECRET@host/db") == "postgres://***@host/db")
        #expect(PostgresLocation.redacted("postgres://u:p@ss@word@host:5432/db?sslmode=disable") == "postgres://***@host:5432/db?sslmode=disable")
        #expect(PostgresLocation.redacted("postgres://host/db") == "postgres://host/db")
        #expect(PostgresLocation.redacted("sqlite:./a@b.sqlite") == "sqlite:./a@b.sqlite")
    }

    @Test(arguments: [
        "mysql://a@h/db", "postgres://h/db", "postgres://a@h", "postgres://a@h/db?sslmode=maybe", "postgres://a@h/db?schema=Bad-Name",
        "postgres://:pw@h/db", "postgres://a@/db",
    ])
    func malformedLocationsAreRefused(_ url: String) {
        let error = #expect(throws: ClaimStoreError.self) { try PostgresLocation(url: url) }
        #expect(error?.kind == .badLocation)
    }

    @Test func aClosedPortIsUnreachable() async throws {
        let location = try PostgresLocation(url: "postgres://app:pw@127.0.0.1:1/appdb?sslmode=disable")
        let store = PostgresClaimStore(location: location, policy: TestDisplayNamePolicy(), connectTimeout: .seconds(3))
        defer { store.shutdown() }
        let error = await #expect(throws: ClaimStoreError.self) { try await store.prepare() }
        #expect(error?.kind == .unreachable)
    }
}

@Suite(.enabled(if: TestDatabase.url != nil, TestDatabase.howToStart), .serialized)
struct PostgresClaimStoreTests {
    @Test("conformance", arguments: StoreConformance.all)
    func conformance(_ check: StoreConformance.Check) async throws {
        let store = try TestDatabase.store()
        defer { store.shutdown() }
        try await check.run(store)
    }

    @Test func manyServersMigrateTheSameSchemaAtOnce() async throws {
        let url = TestDatabase.freshURL()
        let stores = try (0..<8).map { _ in try TestDatabase.store(url: url, connections: 1) }
        defer { stores.forEach { $0.shutdown() } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for store in stores { group.addTask { try await store.prepare() } }
            try await group.waitForAll()
        }
        #expect(try await stores[0].claim("migrated", by: "u1").claimed)
    }

    @Test func claimRaceFromEightConnections() async throws {
        let url = TestDatabase.freshURL()
        let stores = try (0..<8).map { _ in try TestDatabase.store(url: url, connections: 1) }
        defer { stores.forEach { $0.shutdown() } }
        try await ConcurrencyScenarios.claimRace(stores: stores, names: 100, attempts: 1_000)
    }

    @Test func aBatchRacingSingleClaimsFromOtherConnections() async throws {
        let url = TestDatabase.freshURL()
        let stores = try (0..<4).map { _ in try TestDatabase.store(url: url, connections: 1) }
        defer { stores.forEach { $0.shutdown() } }
        try await ConcurrencyScenarios.batchRace(batchStore: stores[0], singleStores: Array(stores[1...]))
    }

    @Test func aBatchProcessRacingSingleClaimsFromThisProcess() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = TestDatabase.freshURL()
        let stores = try (0..<4).map { _ in try TestDatabase.store(url: url, connections: 1) }
        defer { stores.forEach { $0.shutdown() } }
        try await BatchRace.run(store: url, singleStores: stores, in: directory.url)
    }

    /// Every connection of the store commits synchronously, even when the role's default says
    /// otherwise (the test sets `synchronous_commit = off` for the role, then resets it).
    @Test func theStoresConnectionsCommitSynchronouslyWhateverTheDefault() async throws {
        let url = TestDatabase.freshURL()
        let raw = try await RawConnection.open(url)
        let role = try PostgresLocation(url: url).username
        try await raw.query(PostgresQuery(unsafeSQL: "ALTER ROLE \"\(role)\" SET synchronous_commit = off"), logger: raw.logger)
        do {
            let store = try TestDatabase.store(url: url)
            defer { store.shutdown() }
            let plain = try await RawConnection.open(url)
            let rows = try await plain.query("SHOW synchronous_commit", logger: plain.logger)
            var fallback: [String] = []
            for try await value in rows.decode(String.self) { fallback.append(value) }
            try await plain.close()
            #expect(fallback == ["off"], "the role default did not apply to a plain connection: \(fallback)")
            #expect(try await store.sessionSetting("synchronous_commit") == "on")
            let batch = await store.claim(batch: [NameRequest(name: "sync.one", user: "u1"), NameRequest(name: "sync.two", user: "u2")])
            #expect(batch.outcomes.count == 2 && batch.outcomes.allSatisfy(\.claimed))
        } catch {
            _ = try? await raw.query(PostgresQuery(unsafeSQL: "ALTER ROLE \"\(role)\" RESET synchronous_commit"), logger: raw.logger)
            try? await raw.close()
            throw error
        }
        try await raw.query(PostgresQuery(unsafeSQL: "ALTER ROLE \"\(role)\" RESET synchronous_commit"), logger: raw.logger)
        try await raw.close()
    }

    @Test func renameRaceFromEightConnections() async throws {
        let url = TestDatabase.freshURL()
        let stores = try (0..<8).map { _ in try TestDatabase.store(url: url, connections: 1) }
        defer { stores.forEach { $0.shutdown() } }
        try await ConcurrencyScenarios.renameRace(stores: stores)
    }

    @Test func aBatchKilledMidwayLeavesTheDatabaseConsistent() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = TestDatabase.freshURL()
        let records = BatchKill.records(count: 2_000)
        let report = try BatchKill.runAndKill(store: url, records: records, killAfter: 100, in: directory.url)
        #expect(report.wasKilled, "the batch finished before it could be killed; raise the record count")
        let store = try TestDatabase.store(url: url)
        defer { store.shutdown() }
        let claims = try await store.allClaims()
        try BatchKill.verify(claims, records: records, reportedClaimed: report.reportedClaimed)
        let held = claims.count
        #expect(held >= report.reportedClaimed.count && held < records.count, "held \(held) of \(records.count)")
        // Re-running the batch finishes the job: claims already made are the user's own, so they succeed again.
        #expect(try BatchKill.runToEnd(store: url, records: records, in: directory.url) == 0)
        #expect(try await store.allClaims().count == records.count)
    }
}
