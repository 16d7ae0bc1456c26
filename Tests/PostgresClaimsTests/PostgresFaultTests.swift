import Availability
import ClaimStoreTesting
import RulesTestSupport
import Foundation
import PostgresClaims
import PostgresNIO
import Testing

/// Controls the test server through `scripts/postgres crash|resume`, on the port of
/// `RULESKIT_POSTGRES_URL` (the cluster `scripts/postgres start` made, as `.ci/run` does).
enum TestServer {
    /// Runs `scripts/postgres COMMAND`; fails when it does.
    static func control(_ command: String) throws {
        guard let url = TestDatabase.url else { throw CheckFailure("RULESKIT_POSTGRES_URL is not set") }
        let location = try PostgresLocation(url: url)
        let script = packageRoot.appendingPathComponent("scripts/postgres").path
        let (status, errors) = try Subprocess.run(["bash", script, command], environment: ["RULESKIT_PG_PORT": String(location.port)])
        try require(status == 0, "scripts/postgres \(command) failed (exit \(status)): \(errors)")
    }

    /// Crashes the server (`pg_ctl stop -m immediate`), runs `body`, and always starts the
    /// server again before returning, whether `body` succeeded or not.
    static func whileCrashed<T>(_ body: () async throws -> T) async throws -> T {
        try control("crash")
        do {
            let value = try await body()
            try control("resume")
            return value
        } catch {
            try? control("resume")
            throw error
        }
    }
}

/// A plain connection of the test's own, to hold locks and make deadlocks.
enum RawConnection {
    static func open(_ url: String) async throws -> PostgresConnection {
        let location = try PostgresLocation(url: url)
        let configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.username,
            password: location.password, database: location.database, tls: .disable)
        var logger = Logger(label: "RulesKit.tests.raw")
        logger.logLevel = .critical
        return try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
    }
}

/// A URL like the test URL with one part replaced.
func testURL(password: String? = nil, database: String? = nil) throws -> String {
    guard var components = URLComponents(string: TestDatabase.freshURL()) else { throw CheckFailure("bad test url") }
    if let password { components.password = password }
    if let database { components.path = "/" + database }
    guard let url = components.string else { throw CheckFailure("bad test url") }
    return url
}

extension PostgresClaimStoreTests {
    /// Faults, against the real server. Nested in the serialized suite: the crash tests stop the
    /// server that the other PostgreSQL tests use.
    @Suite(.serialized) struct Faults {
        @Test func aWrongPasswordIsAV3012AndNeverPrinted() async throws {
            let password = "not-the-password-7f3a"
            let store = try TestDatabase.store(url: testURL(password: password))
            defer { store.shutdown() }
            let error = await #expect(throws: ClaimStoreError.self) { try await store.prepare() }
            #expect(error?.code == "AV3012" && error?.reason == .authenticationFailed, "\(String(describing: error?.code))")
            #expect(error?.help.contains("password") == true)
            let printed = "\(String(describing: error)) \(error?.message ?? "")"
            #expect(!printed.contains(password), "the wrong password was printed")
            let real = try PostgresLocation(url: TestDatabase.url ?? "").password ?? "\u{0}"
            #expect(!printed.contains(":\(real)@"), "the real password was printed")
        }

        @Test func anUnknownDatabaseIsAV3013() async throws {
            let store = try TestDatabase.store(url: testURL(database: "ruleskit_no_such_database"))
            defer { store.shutdown() }
            let error = await #expect(throws: ClaimStoreError.self) { try await store.claim("anyone", by: "u1") }
            #expect(error?.code == "AV3013" && error?.reason == .unknownDatabase, "\(String(describing: error))")
        }

        @Test func aStoreAfterShutdownIsAV3015() async throws {
            let store = try TestDatabase.store()
            #expect(try await store.claim("before.shutdown", by: "u1").claimed)
            store.shutdown()
            let claim = await #expect(throws: ClaimStoreError.self) { try await store.claim("after.shutdown", by: "u2") }
            #expect(claim?.code == "AV3015" && claim?.reason == .shutDown, "\(String(describing: claim))")
            let read = await #expect(throws: ClaimStoreError.self) { try await store.owner(of: "before.shutdown") }
            #expect(read?.code == "AV3015")
            let prepare = await #expect(throws: ClaimStoreError.self) { try await store.prepare() }
            #expect(prepare?.code == "AV3015")
        }

        @Test func theStatementTimeoutIsAV3011AndTheStoreRecovers() async throws {
            let url = TestDatabase.freshURL()
            let store = PostgresClaimStore(location: try PostgresLocation(url: url), policy: TestDisplayNamePolicy(),
                                           maxConnections: 1, connectTimeout: .seconds(90), statementTimeout: .milliseconds(300))
            defer { store.shutdown() }
            try await store.prepare()
            let raw = try await RawConnection.open(url)
            try await raw.query("BEGIN", logger: raw.logger)
            try await raw.query(PostgresQuery(unsafeSQL: "LOCK TABLE \"\(store.schema)\".display_names IN ACCESS EXCLUSIVE MODE"), logger: raw.logger)
            let error = await #expect(throws: ClaimStoreError.self) { try await store.claim("slow.name", by: "u1") }
            try await raw.query("ROLLBACK", logger: raw.logger)
            try await raw.close()
            #expect(error?.code == "AV3011" && error?.reason == .statementTimeout && error?.isTransient == true, "\(String(describing: error))")
            #expect(try await store.claim("slow.name", by: "u1").claimed, "the store does not recover after the lock is gone")
        }

        /// A deadlock between a rename and another session: PostgreSQL aborts one of them. When it
        /// aborts the rename, the store retries it (the rollback undid everything) and answers
        /// like any refused rename; with a single attempt allowed it reports `AV3010` instead.
        /// Each round reports whether the store's transaction was the one aborted.
        @Test(arguments: [1, 5])
        func aDeadlockedRenameIsRetriedOrAV3010(attempts: Int) async throws {
            let url = TestDatabase.freshURL()
            // The store connects through a relay that tells when it sends its rename's INSERT.
            let server = try PostgresLocation(url: url)
            let relay = try StatementRelay(toHost: server.host, port: server.port)
            defer { relay.close() }
            var location = server
            location.port = relay.port
            let store = PostgresClaimStore(location: location, policy: TestDisplayNamePolicy(),
                                           maxConnections: 2, connectTimeout: .seconds(90), transactionAttempts: attempts)
            defer { store.shutdown() }
            let table = "\"\(store.schema)\".display_names"
            var storeWasVictim = 0
            for round in 0..<4 where storeWasVictim == 0 {
                let (a, b) = ("dl\(round).a", "dl\(round).b")
                #expect(try await store.claim(a, by: "u1-\(round)").claimed)
                #expect(try await store.claim(b, by: "u2-\(round)").claimed)
                let raw = try await RawConnection.open(url)
                try await raw.query("BEGIN", logger: raw.logger)
                try await raw.query(PostgresQuery(unsafeSQL: "DELETE FROM \(table) WHERE key = '\(b)'"), logger: raw.logger)
                // The rename deletes `a`, then inserts `b`, which waits behind the raw transaction.
                // It sends its INSERT only after the answer to its DELETE: once the INSERT goes
                // through the relay, `a` is deleted by the rename's open transaction.
                let inserting = relay.watch(for: "INSERT INTO \(table)")
                let rename = Task { () async throws(ClaimStoreError) -> ClaimOutcome in
                    try await store.rename(from: a, to: b, by: "u1-\(round)")
                }
                // A rename that ends without inserting (a fault) ends the watch: the test fails
                // instead of waiting for ever.
                Task {
                    _ = await rename.result
                    inserting.end()
                }
                try #require(await inserting.wait(), "the rename ended without inserting its new name")
                // Now the raw transaction waits for the rename, and the rename's insert for the raw
                // transaction (whichever of the two the server sees first): a deadlock.
                var rawWasVictim = false
                do {
                    try await raw.query(PostgresQuery(unsafeSQL: "INSERT INTO \(table) (key, name, owner) VALUES ('\(a)', '\(a)', 'intruder') ON CONFLICT DO NOTHING"), logger: raw.logger)
                } catch let error as PSQLError where error.serverInfo?[.sqlState] == "40P01" {
                    rawWasVictim = true
                }
                try await raw.query("ROLLBACK", logger: raw.logger)
                try await raw.close()
                let result = await rename.result
                if !rawWasVictim { storeWasVictim += 1 }
                switch result {
                case .success(let outcome):
                    // The rename ran again (or went on) after the raw transaction rolled back: `b` is still u2's.
                    #expect(outcome.problems.map(\.code) == ["AV1003"], "round \(round): \(outcome)")
                    #expect(attempts > 1 || rawWasVictim, "with one attempt, the aborted rename must not be retried")
                case .failure(let error):
                    #expect(attempts == 1 && !rawWasVictim, "round \(round): unexpected \(error)")
                    let fault = error as? ClaimStoreError
                    #expect(fault?.code == "AV3010" && fault?.reason == .serializationFailure, "\(error)")
                }
                // Whatever happened, nothing changed: each user holds their own name.
                #expect(try await store.owner(of: a)?.owner == "u1-\(round)")
                #expect(try await store.owner(of: b)?.owner == "u2-\(round)")
            }
            #expect(storeWasVictim >= 1, "PostgreSQL never aborted the rename in 4 rounds")
        }

        /// The server a test resumes holds no descriptor of the test process: a pipe open here
        /// while the server starts reaches its end as soon as this process closes its own copy.
        /// (A server holding another test's pipe once left that test waiting for ever.)
        @Test func aResumedServerHoldsNoDescriptorOfTheTests() throws {
            var ends: [Int32] = [0, 0]
            try require(pipe(&ends) == 0, "pipe() failed: errno \(errno)")
            defer { close(ends[0]) }
            try TestServer.control("crash")
            try TestServer.control("resume")
            close(ends[1])
            var reader = pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)
            let ready = poll(&reader, 1, 10_000)
            #expect(ready == 1 && reader.revents & Int16(POLLHUP) != 0,
                    "the pipe's write end is still open elsewhere (poll \(ready), events \(reader.revents))")
        }

        @Test func theServerStoppingMidUseIsAFaultAndTheSameStoreRecovers() async throws {
            let url = TestDatabase.freshURL()
            let store = PostgresClaimStore(location: try PostgresLocation(url: url), policy: TestDisplayNamePolicy(),
                                           maxConnections: 2, connectTimeout: .seconds(90), operationTimeout: .seconds(10))
            defer { store.shutdown() }
            #expect(try await store.claim("before.crash", by: "u1").claimed)
            let error = try await TestServer.whileCrashed { () async -> ClaimStoreError? in
                do throws(ClaimStoreError) {
                    _ = try await store.claim("during.crash", by: "u2")
                    return nil
                } catch {
                    return error
                }
            }
            #expect(error?.reason == .connectionLost || error?.reason == .unreachable, "\(String(describing: error))")
            #expect(error?.isTransient == true)
            // Back up: the same store goes on working (the pool opens new connections); the first
            // tries may still meet a connection that died with the old server.
            var outcome: ClaimOutcome?
            var failures: [String] = []
            for _ in 0..<10 where outcome == nil {
                do throws(ClaimStoreError) {
                    outcome = try await store.claim("during.crash", by: "u2")
                } catch {
                    failures.append(error.code)
                    #expect(error.isTransient, "\(error)")
                }
            }
            #expect(outcome?.claimed == true, "no successful claim after the restart; faults: \(failures)")
            #expect(try await store.owner(of: "before.crash")?.owner == "u1", "a claim committed before the crash was lost")
            // Claiming again after an unknown outcome is safe: the claim is idempotent.
            #expect(try await store.claim("during.crash", by: "u2").claimed)
        }

        @Test func aBatchWhoseServerStopsReportsEveryRecordAndARerunConverges() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let url = TestDatabase.freshURL()
            let records = BatchKill.records(count: 2_000)
            var crashed = false
            let report: BatchFault.Report
            do {
                report = try BatchFault.run(store: url, records: records, faultAfter: 100, in: directory.url) {
                    try TestServer.control("crash")
                    crashed = true
                }
                try TestServer.control("resume")
            } catch {
                if crashed { try? TestServer.control("resume") }
                throw error
            }
            let reported = try BatchFault.check(report, records: records, faultCodes: ["AV3014", "AV3001"])
            #expect(reported.count >= 100)
            let store = try TestDatabase.store(url: url)
            defer { store.shutdown() }
            let claims = try await store.allClaims()
            // Every row reported claimed is held by its user; nothing else is held but records' own names.
            try BatchKill.verify(claims, records: records, reportedClaimed: reported)
            // Only the transaction the crash met may have committed unreported (its outcome is unknown).
            #expect(claims.count >= reported.count && claims.count <= reported.count + BatchKill.batchSize,
                    "held \(claims.count), reported \(reported.count)")
            #expect(Set(claims.map(\.owner)).count == claims.count, "a user holds two names")
            // The re-run converges: every record ends up claimed by its user, exit 0.
            #expect(try BatchKill.runToEnd(store: url, records: records, in: directory.url) == 0)
            let after = try await store.allClaims()
            #expect(after.count == records.count)
            try BatchKill.verify(after, records: records, reportedClaimed: records.map(\.name))
        }
    }
}
