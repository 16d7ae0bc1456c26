import Availability
import Foundation
import PostgresNIO

/// A ``ClaimStore`` on PostgreSQL, for many app servers sharing one database.
///
/// Unique indexes on the canonical key and on the owner make PostgreSQL itself refuse a second
/// holder; claims are `INSERT … ON CONFLICT DO NOTHING`; releases and renames run in
/// transactions. Connections come from a pool (`PostgresClient`). The schema is created or
/// migrated on first use over a connection of its own (so a refused login or a missing database
/// is reported as such), under an advisory lock so that many servers can start at once.
///
/// Faults have their own codes (``ClaimStoreError/Reason``): a refused login (`AV3012`), an
/// unknown database (`AV3013`), the statement timeout (`AV3011`), serialization failures and
/// deadlocks that outlast ``transactionAttempts`` (`AV3010`; each attempt is rolled back, so a
/// retry is safe), a connection lost mid-request (`AV3014`; its outcome is unknown, and since
/// claims and renames are idempotent, running it again is safe), no answer within
/// ``operationTimeout`` (`AV3001`), and use after ``shutdown()`` (`AV3015`). Once the server is
/// back the pool opens new connections by itself: the same store goes on working.
///
/// Owners are compared byte for byte: by PostgreSQL's `=` on text (deterministic collations
/// compare bytes), and in Swift with ``UserID/same(_:_:)``. A user id that cannot act (empty,
/// control characters; PostgreSQL text cannot hold a NUL at all) is refused with `AV1008`
/// before any SQL runs.
///
/// Call ``shutdown()`` when done (it stops the pool).
public final class PostgresClaimStore: ClaimStore {
    public let policy: any DisplayNamePolicy
    /// Where the database is (without password when printed).
    public let location: PostgresLocation
    /// The PostgreSQL schema holding the tables (from the location; `public` by default).
    public let schema: String
    /// Longest wait for the first connection and migration before the store counts as unreachable.
    public let connectTimeout: Duration
    /// Longest wait for one operation (a connection from the pool and its statements) before it
    /// fails with `AV3001`.
    public let operationTimeout: Duration
    /// The server-side `statement_timeout` of the store's connections (nil: the server's
    /// setting). A statement cancelled by it fails with `AV3011`.
    public let statementTimeout: Duration?
    /// How many times a claim, release or rename is tried when PostgreSQL aborts it with a
    /// serialization failure or a deadlock (at least 1).
    public let transactionAttempts: Int
    private let client: PostgresClient
    private let runner: Task<Void, Never>
    private let migration: Once
    private let logger: Logger
    private let closed = ShutdownFlag()
    /// Gathers concurrent claims into one transaction (see ``claim(_:by:)``); set once in `init`.
    private let coalescer = CoalescerBox()
    /// Most concurrent claims written in one transaction.
    public static let coalescedClaims = 256
    /// How many times a batch is tried again when a concurrent writer took one of its names or
    /// users between its read and its insert; then its records are decided one by one.
    static let racedBatchAttempts = 8

    /// Creates a store; nothing is contacted until the first operation.
    ///
    /// - Parameters:
    ///   - location: The database (and schema).
    ///   - policy: The display-name rules names are checked against.
    ///   - maxConnections: Size of the connection pool.
    ///   - connectTimeout: Longest wait for the first connection and migration.
    ///   - operationTimeout: Longest wait for one operation (default 30 s).
    ///   - statementTimeout: The connections' `statement_timeout` (default 10 s; nil keeps the server's).
    ///   - transactionAttempts: Tries per request on serialization failures and deadlocks (default 5).
    public init(location: PostgresLocation, policy: any DisplayNamePolicy,
                maxConnections: Int = 8, connectTimeout: Duration = .seconds(10),
                operationTimeout: Duration = .seconds(30), statementTimeout: Duration? = .seconds(10),
                transactionAttempts: Int = 5) {
        let tls: PostgresClient.Configuration.TLS = switch location.tls {
        case .disable: .disable
        case .prefer: .prefer(.makeClientConfiguration())
        case .require: .require(.makeClientConfiguration())
        }
        let startup = Self.startupParameters(statementTimeout: statementTimeout)
        var configuration = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.username,
            password: location.password, database: location.database, tls: tls)
        configuration.options.maximumConnections = max(1, maxConnections)
        configuration.options.connectTimeout = connectTimeout
        configuration.options.additionalStartupParameters = startup
        var logger = Logger(label: "RulesKit.claims.postgres")
        logger.logLevel = .critical
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.runner = Task { await client.run() }
        self.policy = policy
        self.location = location
        self.schema = location.schema
        self.connectTimeout = connectTimeout
        self.operationTimeout = operationTimeout
        self.statementTimeout = statementTimeout
        self.transactionAttempts = max(1, transactionAttempts)
        self.migration = Once()
        self.logger = logger
        coalescer.value = ClaimCoalescer(limit: Self.coalescedClaims) { [weak self] batch in
            guard let self else {
                return BatchOutcome(outcomes: [], fault: .init(error: ClaimStoreError(.shutDown, "postgres: the store was released"),
                                                               records: 0..<batch.count))
            }
            if batch.count == 1 {
                return await Self.oneByOne(1) { _ throws(ClaimStoreError) in try await self.claimOne(batch[0].name, by: batch[0].user) }
            }
            return await self.claim(batch: batch)
        }
    }

    deinit {
        runner.cancel()
    }

    /// Stops the connection pool. Operations after this fail with `AV3015`.
    public func shutdown() {
        closed.set()
        runner.cancel()
    }

    private var table: String { "\"\(schema)\".display_names" }

    /// The settings every connection of the store starts with: `synchronous_commit = on`, whatever
    /// the server's, role's or database's default (so a claim reported claimed has its commit
    /// record flushed to the server's WAL before the answer), and the statement timeout.
    static func startupParameters(statementTimeout: Duration?) -> [(String, String)] {
        [("synchronous_commit", "on")] + (statementTimeout.map { [("statement_timeout", "\(milliseconds($0))")] } ?? [])
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return max(1, seconds * 1_000 + attoseconds / 1_000_000_000_000_000)
    }

    // MARK: - Schema

    /// Creates or migrates the schema if this store has not done so yet. Called by every operation.
    ///
    /// - Throws: ``ClaimStoreError``: `AV3001` when the database cannot be reached within
    ///   ``connectTimeout``, `AV3012` when it refuses the login, `AV3013` when the database does
    ///   not exist, `AV3015` after ``shutdown()``.
    public func prepare() async throws(ClaimStoreError) {
        try checkOpen()
        if await migration.isDone { return }
        let outcome = await withDeadline(connectTimeout, clock: ContinuousClock()) { () async throws(ClaimStoreError) in
            try await self.migration.run { () async throws(ClaimStoreError) in try await self.migrate() }
        }
        switch outcome {
        case .value: return
        case .error(let error): throw error
        case .timedOut: throw ClaimStoreError(.unreachable, "postgres `\(location)`: no connection within \(connectTimeout)")
        case .cancelled: throw ClaimStoreError(.transient, "postgres `\(location)`: cancelled while connecting")
        }
    }

    private func checkOpen() throws(ClaimStoreError) {
        if closed.isSet { throw ClaimStoreError(.shutDown, "postgres `\(location)`: the store was shut down") }
    }

    /// The schema, one migration per version. Never edit a shipped migration; add one.
    private var migrations: [(version: Int, statements: [String])] {
        [(1, [
            "CREATE TABLE \(table) (key text NOT NULL, name text NOT NULL, owner text NOT NULL, claimed_at timestamptz NOT NULL DEFAULT now())",
            "CREATE UNIQUE INDEX display_names_key ON \(table) (key)",
            "CREATE UNIQUE INDEX display_names_owner ON \(table) (owner)",
        ])]
    }

    /// Migrates over a connection of its own: the pool hides why a connection could not be
    /// made, a direct connection reports it (refused login, unknown database).
    private func migrate() async throws(ClaimStoreError) {
        let connection: PostgresConnection
        do {
            let tls: PostgresConnection.Configuration.TLS = switch location.tls {
            case .disable: .disable
            case .prefer: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
            var configuration = PostgresConnection.Configuration(
                host: location.host, port: location.port, username: location.username,
                password: location.password, database: location.database, tls: tls)
            configuration.options.connectTimeout = .milliseconds(Self.milliseconds(connectTimeout))
            configuration.options.additionalStartupParameters = Self.startupParameters(statementTimeout: statementTimeout)
            connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
        } catch {
            throw storeError(error, connecting: true)
        }
        do {
            try await inTransaction(connection) { connection in
                let logger = self.logger
                // The lock's row must be read: a query returns once its columns are described,
                // so an error while waiting (a statement timeout) arrives only in its rows.
                let lock = try await connection.query(
                    "SELECT pg_advisory_xact_lock(hashtext(\("rulekit.claims." + self.schema)))::text", logger: logger)
                for try await _ in lock.decode(String.self) {}
                try await connection.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \"\(self.schema)\""), logger: logger)
                try await connection.query(PostgresQuery(unsafeSQL: """
                    CREATE TABLE IF NOT EXISTS "\(self.schema)".rulekit_migrations (
                        version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
                    """), logger: logger)
                let rows = try await connection.query(
                    PostgresQuery(unsafeSQL: "SELECT coalesce(max(version), 0) FROM \"\(self.schema)\".rulekit_migrations"), logger: logger)
                var current = 0
                for try await version in rows.decode(Int.self) { current = version }
                for migration in self.migrations where migration.version > current {
                    for statement in migration.statements {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query(
                        "INSERT INTO \(unescaped: "\"\(self.schema)\"").rulekit_migrations (version) VALUES (\(migration.version))",
                        logger: logger)
                }
                return ()
            }
        } catch {
            try? await connection.close()
            throw storeError(error)
        }
        try? await connection.close()
    }

    // MARK: - ClaimStore

    public func availability(of name: String) async throws(ClaimStoreError) -> NameAvailability {
        try await PreparedName.availability(of: name, with: policy) { key throws(ClaimStoreError) in
            try await self.connection { connection in try await self.holder(ofKey: key, connection) }
        }
    }

    public func availableNames(among names: [String]) async throws(ClaimStoreError) -> [String] {
        try await PreparedName.available(among: names, with: policy) { keys throws(ClaimStoreError) in
            try await self.connection { connection in
                let rows = try await connection.query("SELECT key FROM \(unescaped: self.table) WHERE key = ANY(\(keys))", logger: self.logger)
                var held: Set<String> = []
                for try await key in rows.decode(String.self) { held.insert(key) }
                return held
            }
        }
    }

    /// Claims `name` for `user`. Claims that arrive while another claim is being written are
    /// written together in the next transaction (``ClaimCoalescer``, ``claim(batch:)``), each
    /// decided as if alone, in arrival order; a lone claim is one `INSERT … ON CONFLICT DO
    /// NOTHING` (and, when the name or the user is taken, the reads that say by whom) between
    /// `BEGIN` and `COMMIT`: the answer waits for the `COMMIT`, which the server completes after
    /// the commit record is flushed (an autocommitted statement completes before its commit).
    public func claim(_ name: String, by user: String) async throws(ClaimStoreError) -> ClaimOutcome {
        guard let coalescer = coalescer.value else { return try await claimOne(name, by: user) }
        return try await coalescer.claim(name, by: user)
    }

    /// One claim, alone: the insert, then on a conflict the reads that explain it.
    private func claimOne(_ name: String, by user: String) async throws(ClaimStoreError) -> ClaimOutcome {
        switch CheckedClaim.check(NameRequest(name: name, user: user), policy: policy) {
        case .refused(let outcome):
            return outcome
        case .ready(let claim):
            // A conflicting row can vanish between the INSERT and the SELECT (a concurrent
            // release); then nothing explains the conflict and the claim is simply tried again.
            for _ in 1...3 {
                let outcome = try await retryingConflicts { () async throws(ClaimStoreError) in
                    try await self.connection { connection -> ClaimOutcome? in
                        try await self.inTransaction(connection) { connection -> ClaimOutcome? in
                            if try await self.insert(claim.stored, connection) { return claim.claimed }
                            return claim.afterConflict(holderOfKey: try await self.holder(ofKey: claim.key, connection),
                                                       heldByUser: try await self.claim(heldBy: claim.user, connection))
                        }
                    }
                }
                if let outcome { return outcome }
            }
            throw ClaimStoreError(.transient, "postgres `\(location)`: claim of `\(claim.name)` kept racing with releases")
        }
    }

    public func release(_ name: String, by user: String) async throws(ClaimStoreError) -> ClaimOutcome {
        switch CheckedRelease.check(NameRequest(name: name, user: user), policy: policy) {
        case .refused(let outcome):
            return outcome
        case .ready(let release):
            return try await retryingConflicts { () async throws(ClaimStoreError) in
                try await self.connection { connection in
                    try await self.inTransaction(connection) { connection in
                        let deleted = try await connection.query(
                            "DELETE FROM \(unescaped: self.table) WHERE key = \(release.key) AND owner = \(release.user) RETURNING name",
                            logger: self.logger)
                        var released: String?
                        for try await heldName in deleted.decode(String.self) { released = heldName }
                        if let released { return release.released(heldName: released) }
                        return release.notHeld(holder: try await self.holder(ofKey: release.key, connection))
                    }
                }
            }
        }
    }

    public func rename(from old: String, to new: String, by user: String) async throws(ClaimStoreError) -> ClaimOutcome {
        switch CheckedRename.check(RenameRequest(old: old, new: new, user: user), policy: policy) {
        case .refused(let outcome):
            return outcome
        case .ready(let rename):
            return try await retryingConflicts { () async throws(ClaimStoreError) in
                try await self.transaction { connection in
                    let deleted = try await connection.query(
                        "DELETE FROM \(unescaped: self.table) WHERE key = \(rename.oldKey) AND owner = \(rename.user) RETURNING key",
                        logger: self.logger)
                    guard try await Self.count(deleted) > 0 else {
                        throw EarlyOutcome(outcome: rename.withoutOld(oldHolder: try await self.holder(ofKey: rename.oldKey, connection),
                                                                      newHolder: try await self.holder(ofKey: rename.key, connection)))
                    }
                    if try await self.insert(rename.stored, connection) { return rename.renamed }
                    throw EarlyOutcome(outcome: rename.taken(by: try await self.holder(ofKey: rename.key, connection)))
                }
            }
        }
    }

    public func owner(of name: String) async throws(ClaimStoreError) -> Claim? {
        let key = policy.evaluate(name).key
        return try await connection { connection in try await self.holder(ofKey: key, connection) }
    }

    // MARK: - Batches

    /// Claims a batch in one transaction: one `SELECT` reads the claims on the batch's keys and
    /// users, every record is decided in input order (``PreparedBatch``), and one
    /// `INSERT … SELECT FROM unnest(…) ON CONFLICT DO NOTHING RETURNING key` writes the new
    /// claims. When a concurrent writer took one of those names or users after the read (an
    /// insert did not happen), the transaction is rolled back and the batch decided again from a
    /// fresh read; after ``racedBatchAttempts`` such races its records are claimed one by one.
    /// A fault rolls the transaction back (after a lost connection, `AV3014`, whether it
    /// committed is unknown).
    public func claim(batch: [NameRequest]) async -> BatchOutcome {
        await decide(PreparedBatch.claims(batch, policy: policy), locking: false) {
            await Self.oneByOne(batch.count) { index throws(ClaimStoreError) in
                try await self.claimOne(batch[index].name, by: batch[index].user)
            }
        }
    }

    /// Releases a batch in one transaction, the claims read `FOR UPDATE` (as ``claim(batch:)``).
    public func release(batch: [NameRequest]) async -> BatchOutcome {
        await decide(PreparedBatch.releases(batch, policy: policy), locking: true) {
            await Self.oneByOne(batch.count) { index throws(ClaimStoreError) in
                try await self.release(batch[index].name, by: batch[index].user)
            }
        }
    }

    /// Renames a batch in one transaction, the claims read `FOR UPDATE` (as ``claim(batch:)``).
    public func rename(batch: [RenameRequest]) async -> BatchOutcome {
        await decide(PreparedBatch.renames(batch, policy: policy), locking: true) {
            await Self.oneByOne(batch.count) { index throws(ClaimStoreError) in
                try await self.rename(from: batch[index].old, to: batch[index].new, by: batch[index].user)
            }
        }
    }

    /// What one try of a batch found.
    private enum BatchAttempt: Sendable {
        case decided([ClaimOutcome])
        case raced
    }

    /// A concurrent writer changed a row the batch planned on: roll back and decide again.
    private struct Raced: Error {}

    /// Tries `batch` in a transaction until it is decided, retrying races and serialization
    /// failures (bounded), then falls back to `oneByOne`.
    private func decide(_ batch: PreparedBatch, locking: Bool,
                        oneByOne: () async -> BatchOutcome) async -> BatchOutcome {
        if let decided = batch.decidedOutcome { return decided }
        var races = 0
        var conflicts = 1
        while true {
            do throws(ClaimStoreError) {
                switch try await attempt(batch, locking: locking) {
                case .decided(let outcomes):
                    return BatchOutcome(outcomes: outcomes)
                case .raced:
                    races += 1
                    if races >= Self.racedBatchAttempts { return await oneByOne() }
                }
            } catch where error.reason == .serializationFailure && conflicts < transactionAttempts {
                try? await Task.sleep(for: .milliseconds(5 * conflicts))
                conflicts += 1
            } catch {
                return BatchOutcome(outcomes: [], fault: .init(error: error, records: 0..<batch.count))
            }
        }
    }

    /// One transaction: read the touched claims, plan, delete, insert, check, commit.
    private func attempt(_ batch: PreparedBatch, locking: Bool) async throws(ClaimStoreError) -> BatchAttempt {
        let keys = batch.keys
        let users = batch.users
        let lock = locking ? " FOR UPDATE" : ""
        return try await connection { connection -> BatchAttempt in
            do {
                return .decided(try await self.inTransaction(connection) { connection in
                    let logger = self.logger
                    let rows = try await connection.query(
                        "SELECT name, key, owner FROM \(unescaped: self.table) WHERE key = ANY(\(keys)::text[]) OR owner = ANY(\(users)::text[])\(unescaped: lock)",
                        logger: logger)
                    var holdings: [Claim] = []
                    for try await (name, key, owner) in rows.decode((String, String, String).self) {
                        holdings.append(Claim(name: name, key: key, owner: owner))
                    }
                    let plan = batch.plan(holdings: holdings)
                    if !plan.deletes.isEmpty {
                        let deleted = try await connection.query("""
                            DELETE FROM \(unescaped: self.table) WHERE (key, owner) IN \
                            (SELECT * FROM unnest(\(plan.deletes.map(\.key))::text[], \(plan.deletes.map(\.owner))::text[])) RETURNING key
                            """, logger: logger)
                        if try await Self.count(deleted) != plan.deletes.count { throw Raced() }
                    }
                    if !plan.inserts.isEmpty {
                        let inserted = try await connection.query("""
                            INSERT INTO \(unescaped: self.table) (key, name, owner) \
                            SELECT * FROM unnest(\(plan.inserts.map(\.key))::text[], \(plan.inserts.map(\.name))::text[], \
                            \(plan.inserts.map(\.owner))::text[]) ON CONFLICT DO NOTHING RETURNING key
                            """, logger: logger)
                        if try await Self.count(inserted) != plan.inserts.count { throw Raced() }
                    }
                    return plan.outcomes
                })
            } catch is Raced {
                return .raced
            }
        }
    }

    /// Every claim, sorted by key (for tools and consistency checks).
    ///
    /// - Throws: ``ClaimStoreError`` when the database cannot be read.
    public func allClaims() async throws(ClaimStoreError) -> [Claim] {
        try await connection { connection in
            let rows = try await connection.query("SELECT name, key, owner FROM \(unescaped: self.table) ORDER BY key", logger: self.logger)
            var claims: [Claim] = []
            for try await (name, key, owner) in rows.decode((String, String, String).self) {
                claims.append(Claim(name: name, key: key, owner: owner))
            }
            return claims
        }
    }

    /// The value of a setting (`SHOW name`) on one of the store's pooled connections, for checks
    /// such as the tests' `synchronous_commit`.
    ///
    /// - Parameter name: A setting name (letters, digits and underscores).
    /// - Throws: ``ClaimStoreError`` when the database cannot be reached, or `AV3003` for a name
    ///   that is not a setting's.
    package func sessionSetting(_ name: String) async throws(ClaimStoreError) -> String? {
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
            throw ClaimStoreError(.failed, "`\(name)` is not a setting name")
        }
        return try await connection { connection in
            var value: String?
            for try await setting in try await connection.query(PostgresQuery(unsafeSQL: "SHOW \(name)"), logger: self.logger).decode(String.self) {
                value = setting
            }
            return value
        }
    }

    // MARK: - SQL helpers

    /// An outcome decided inside a transaction before its end (a refusal, or a rename found
    /// already done): thrown to roll the transaction back, then returned.
    private struct EarlyOutcome: Error {
        var outcome: ClaimOutcome
    }

    private func holder(ofKey key: String, _ connection: PostgresConnection) async throws -> Claim? {
        try await firstClaim(connection.query("SELECT name, key, owner FROM \(unescaped: table) WHERE key = \(key)", logger: logger))
    }

    /// Inserts `claim` unless its key or owner is taken (`ON CONFLICT DO NOTHING`); true when it
    /// was inserted.
    private func insert(_ claim: Claim, _ connection: PostgresConnection) async throws -> Bool {
        let inserted = try await connection.query(
            "INSERT INTO \(unescaped: table) (key, name, owner) VALUES (\(claim.key), \(claim.name), \(claim.owner)) ON CONFLICT DO NOTHING RETURNING key",
            logger: logger)
        return try await Self.count(inserted) > 0
    }

    private func claim(heldBy user: String, _ connection: PostgresConnection) async throws -> Claim? {
        try await firstClaim(connection.query("SELECT name, key, owner FROM \(unescaped: table) WHERE owner = \(user)", logger: logger))
    }

    /// The number of rows `rows` holds, read to their end: a query returns once its columns are
    /// described, so an error in the statement (or a lost connection) arrives only in its rows,
    /// and a row seen is not yet a statement finished.
    private static func count(_ rows: PostgresRowSequence) async throws -> Int {
        var count = 0
        for try await _ in rows { count += 1 }
        return count
    }

    private func firstClaim(_ rows: PostgresRowSequence) async throws -> Claim? {
        var found: Claim?
        for try await (name, key, owner) in rows.decode((String, String, String).self) where found == nil {
            found = Claim(name: name, key: key, owner: owner)
        }
        return found
    }

    /// Runs `body` again when PostgreSQL aborted it with a serialization failure or deadlock, up
    /// to ``transactionAttempts`` times in all. Safe because an aborted statement or transaction
    /// changed nothing.
    private func retryingConflicts<T: Sendable>(_ body: () async throws(ClaimStoreError) -> T) async throws(ClaimStoreError) -> T {
        var attempt = 1
        while true {
            do throws(ClaimStoreError) {
                return try await body()
            } catch where error.reason == .serializationFailure && attempt < transactionAttempts {
                // A short, growing pause lets the transaction that won finish first.
                try? await Task.sleep(for: .milliseconds(5 * attempt))
                attempt += 1
            }
        }
    }

    /// Runs `body` on a pooled connection after making sure the schema exists, within
    /// ``operationTimeout``.
    private func connection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws(ClaimStoreError) -> T {
        try await prepare()
        let outcome = await withDeadline(operationTimeout, clock: ContinuousClock()) { () async throws(ClaimStoreError) -> T in
            do {
                return try await self.client.withConnection { connection in try await body(connection) }
            } catch {
                throw self.storeError(error)
            }
        }
        switch outcome {
        case .value(let value): return value
        case .error(let error): throw error
        case .timedOut: throw ClaimStoreError(.unreachable, "postgres `\(location)`: no answer within \(operationTimeout)")
        case .cancelled: throw ClaimStoreError(.transient, "postgres `\(location)`: cancelled")
        }
    }

    /// Runs `body` between `BEGIN` and `COMMIT` on `connection`; rolls back when it throws.
    private func inTransaction<T: Sendable>(_ connection: PostgresConnection,
                                            _ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await connection.query("BEGIN", logger: logger)
        do {
            let value = try await body(connection)
            try await connection.query("COMMIT", logger: logger)
            return value
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }

    /// Runs `body` in a transaction on a pooled connection: committed when it returns, rolled
    /// back when it throws. A thrown ``EarlyOutcome`` is rolled back and returned.
    private func transaction(_ body: @escaping @Sendable (PostgresConnection) async throws -> ClaimOutcome) async throws(ClaimStoreError) -> ClaimOutcome {
        let result = try await connection { connection -> EarlyResult in
            do {
                return .done(try await self.inTransaction(connection, body))
            } catch let early as EarlyOutcome {
                return .early(early.outcome)
            }
        }
        switch result {
        case .done(let outcome), .early(let outcome): return outcome
        }
    }

    private enum EarlyResult: Sendable {
        case done(ClaimOutcome)
        case early(ClaimOutcome)
    }

    /// Maps a postgres-nio error to the store's fault reasons. Never includes the password.
    ///
    /// - Parameter connecting: True while opening a connection (nothing was sent yet, so a
    ///   connection error means unreachable rather than lost mid-request).
    private func storeError(_ error: any Error, connecting: Bool = false) -> ClaimStoreError {
        if let error = error as? ClaimStoreError { return error }
        let prefix = "postgres `\(location)`"
        if closed.isSet { return ClaimStoreError(.shutDown, "\(prefix): the store was shut down") }
        if error is CancellationError { return ClaimStoreError(.transient, "\(prefix): cancelled") }
        guard let error = error as? PSQLError else {
            return ClaimStoreError(.unreachable, "\(prefix): \(type(of: error)) \(String(describing: error).prefix(120))")
        }
        let state = error.serverInfo?[.sqlState] ?? ""
        let message = error.serverInfo?[.message] ?? "\(error.code)"
        let detail = "\(prefix): \(message)"
        switch error.code {
        case .server:
            switch state {
            case "40001", "40P01": return ClaimStoreError(.serializationFailure, detail)
            case "57014": return ClaimStoreError(.statementTimeout, detail)
            case "55P03": return ClaimStoreError(.transient, detail)
            case "28P01", "28000": return ClaimStoreError(.authenticationFailed, detail)
            case "3D000": return ClaimStoreError(.unknownDatabase, detail)
            case "53100": return ClaimStoreError(.storageFull, detail)
            case "25006": return ClaimStoreError(.readOnly, detail)
            case "57P01", "57P02", "57P03":
                return ClaimStoreError(connecting ? .unreachable : .connectionLost, detail)
            case _ where state.hasPrefix("08"): return ClaimStoreError(connecting ? .unreachable : .connectionLost, detail)
            default: return ClaimStoreError(.failed, detail)
            }
        case .serverClosedConnection, .uncleanShutdown, .clientClosedConnection, .connectionError:
            return ClaimStoreError(connecting ? .unreachable : .connectionLost, detail)
        default:
            return ClaimStoreError(connecting ? .unreachable : .failed, detail)
        }
    }
}

/// The store's coalescer, set once in its `init` (after every stored property, since the
/// coalescer's writer refers back to the store).
final class CoalescerBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: ClaimCoalescer?

    var value: ClaimCoalescer? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// Set once, by ``PostgresClaimStore/shutdown()``; read by every operation.
final class ShutdownFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    /// True once ``set()`` was called.
    var isSet: Bool { lock.withLock { value } }

    /// Marks the store shut down.
    func set() { lock.withLock { value = true } }
}

/// Runs an async operation once; concurrent and later callers share its success, and a failure
/// lets the next caller try again.
actor Once {
    private var done = false
    private var running: Task<Void, any Error>?

    /// True once the operation has succeeded.
    var isDone: Bool { done }

    func run(_ operation: @escaping @Sendable () async throws(ClaimStoreError) -> Void) async throws(ClaimStoreError) {
        if done { return }
        let task = running ?? Task { try await operation() }
        running = task
        do {
            try await task.value
            done = true
        } catch {
            running = nil
            throw (error as? ClaimStoreError) ?? ClaimStoreError(.failed, "\(error)")
        }
    }
}
