import Availability
import Foundation
import PostgresNIO

/// A ``ClaimStore`` on PostgreSQL, for many app servers sharing one database.
///
/// Unique indexes on the canonical key and on the owner make PostgreSQL itself refuse a second
/// holder; claims are `INSERT … ON CONFLICT DO NOTHING`; releases and renames run in
/// transactions. Connections come from a pool (`PostgresClient`). The schema is created or
/// migrated on first use, under an advisory lock so that many servers can start at once.
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
    private let client: PostgresClient
    private let runner: Task<Void, Never>
    private let migration: Once
    private let logger: Logger

    /// Creates a store; nothing is contacted until the first operation.
    ///
    /// - Parameters:
    ///   - location: The database (and schema).
    ///   - policy: The display-name rules names are checked against.
    ///   - maxConnections: Size of the connection pool.
    ///   - connectTimeout: Longest wait for the first connection and migration.
    public init(location: PostgresLocation, policy: any DisplayNamePolicy,
                maxConnections: Int = 8, connectTimeout: Duration = .seconds(10)) {
        let tls: PostgresClient.Configuration.TLS = switch location.tls {
        case .disable: .disable
        case .prefer: .prefer(.makeClientConfiguration())
        case .require: .require(.makeClientConfiguration())
        }
        var configuration = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.username,
            password: location.password, database: location.database, tls: tls)
        configuration.options.maximumConnections = max(1, maxConnections)
        configuration.options.connectTimeout = connectTimeout
        var logger = Logger(label: "RulesKit.claims.postgres")
        logger.logLevel = .critical
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.runner = Task { await client.run() }
        self.policy = policy
        self.location = location
        self.schema = location.schema
        self.connectTimeout = connectTimeout
        self.migration = Once()
        self.logger = logger
    }

    deinit {
        runner.cancel()
    }

    /// Stops the connection pool. Operations after this fail as unreachable.
    public func shutdown() {
        runner.cancel()
    }

    private var table: String { "\"\(schema)\".display_names" }

    // MARK: - Schema

    /// Creates or migrates the schema if this store has not done so yet. Called by every operation.
    ///
    /// - Throws: ``ClaimStoreError`` `.unreachable` when the database cannot be reached within
    ///   ``connectTimeout``.
    public func prepare() async throws(ClaimStoreError) {
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

    /// The schema, one migration per version. Never edit a shipped migration; add one.
    private var migrations: [(version: Int, statements: [String])] {
        [(1, [
            "CREATE TABLE \(table) (key text NOT NULL, name text NOT NULL, owner text NOT NULL, claimed_at timestamptz NOT NULL DEFAULT now())",
            "CREATE UNIQUE INDEX display_names_key ON \(table) (key)",
            "CREATE UNIQUE INDEX display_names_owner ON \(table) (owner)",
        ])]
    }

    private func migrate() async throws(ClaimStoreError) {
        try await rawTransaction { connection in
            let logger = self.logger
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext('rulekit.claims'))", logger: logger)
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
    }

    // MARK: - ClaimStore

    public func availability(of name: String) async throws(ClaimStoreError) -> NameAvailability {
        switch PreparedName.prepare(name, with: policy) {
        case .refused(let outcome):
            return ClaimVerdict.availability(refused: outcome)
        case .claimable(let name, let key):
            let holder = try await connection { connection in try await self.holder(ofKey: key, connection) }
            return ClaimVerdict.availability(name: name, key: key, holder: holder)
        }
    }

    public func availableNames(among names: [String]) async throws(ClaimStoreError) -> [String] {
        let candidates = PreparedName.claimable(among: names, with: policy)
        guard !candidates.isEmpty else { return [] }
        let keys = candidates.map(\.key)
        let taken = try await connection { connection in
            let rows = try await connection.query("SELECT key FROM \(unescaped: self.table) WHERE key = ANY(\(keys))", logger: self.logger)
            var taken: Set<String> = []
            for try await key in rows.decode(String.self) { taken.insert(key) }
            return taken
        }
        return candidates.filter { !taken.contains($0.key) }.map(\.name)
    }

    public func claim(_ name: String, by user: String) async throws(ClaimStoreError) -> ClaimOutcome {
        switch PreparedName.prepare(name, with: policy) {
        case .refused(let outcome):
            return outcome
        case .claimable(let name, let key):
            // A conflicting row can vanish between the INSERT and the SELECT (a concurrent
            // release); then nothing explains the conflict and the claim is simply tried again.
            for _ in 1...3 {
                let outcome = try await connection { connection -> ClaimOutcome? in
                    let inserted = try await connection.query(
                        "INSERT INTO \(unescaped: self.table) (key, name, owner) VALUES (\(key), \(name), \(user)) ON CONFLICT DO NOTHING RETURNING key",
                        logger: self.logger)
                    for try await _ in inserted.decode(String.self) {
                        return ClaimOutcome(name: name, key: key, claimed: true, owner: user)
                    }
                    return ClaimVerdict.afterConflict(name: name, key: key, user: user,
                                                      holderOfKey: try await self.holder(ofKey: key, connection),
                                                      heldByUser: try await self.claim(heldBy: user, connection))
                }
                if let outcome { return outcome }
            }
            throw ClaimStoreError(.transient, "postgres `\(location)`: claim of `\(name)` kept racing with releases")
        }
    }

    public func release(_ name: String, by user: String) async throws(ClaimStoreError) -> ClaimOutcome {
        let key = policy.evaluate(name).key
        return try await connection { connection in
            let deleted = try await connection.query(
                "DELETE FROM \(unescaped: self.table) WHERE key = \(key) AND owner = \(user) RETURNING name", logger: self.logger)
            for try await heldName in deleted.decode(String.self) {
                return ClaimOutcome(name: heldName, key: key, claimed: false, owner: nil)
            }
            return ClaimVerdict.notHeld(name: name, key: key, holder: try await self.holder(ofKey: key, connection))
        }
    }

    public func rename(from old: String, to new: String, by user: String) async throws(ClaimStoreError) -> ClaimOutcome {
        let oldKey = policy.evaluate(old).key
        switch PreparedName.prepare(new, with: policy) {
        case .refused(let outcome):
            return outcome
        case .claimable(let name, let key):
            return try await transaction { connection in
                let deleted = try await connection.query(
                    "DELETE FROM \(unescaped: self.table) WHERE key = \(oldKey) AND owner = \(user) RETURNING key", logger: self.logger)
                var released = false
                for try await _ in deleted.decode(String.self) { released = true }
                guard released else {
                    throw Refusal(outcome: ClaimVerdict.notHeld(
                        name: old, key: oldKey, holder: try await self.holder(ofKey: oldKey, connection)))
                }
                let inserted = try await connection.query(
                    "INSERT INTO \(unescaped: self.table) (key, name, owner) VALUES (\(key), \(name), \(user)) ON CONFLICT DO NOTHING RETURNING key",
                    logger: self.logger)
                for try await _ in inserted.decode(String.self) {
                    return ClaimOutcome(name: name, key: key, claimed: true, owner: user)
                }
                let holder = try await self.holder(ofKey: key, connection)
                throw Refusal(outcome: ClaimOutcome(name: name, key: key, claimed: false, owner: holder?.owner, problems: [.taken(name)]))
            }
        }
    }

    public func owner(of name: String) async throws(ClaimStoreError) -> Claim? {
        let key = policy.evaluate(name).key
        return try await connection { connection in try await self.holder(ofKey: key, connection) }
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

    // MARK: - SQL helpers

    /// A refusal found inside a transaction: thrown to roll it back, then returned as the outcome.
    private struct Refusal: Error {
        var outcome: ClaimOutcome
    }

    private func holder(ofKey key: String, _ connection: PostgresConnection) async throws -> Claim? {
        try await firstClaim(connection.query("SELECT name, key, owner FROM \(unescaped: table) WHERE key = \(key)", logger: logger))
    }

    private func claim(heldBy user: String, _ connection: PostgresConnection) async throws -> Claim? {
        try await firstClaim(connection.query("SELECT name, key, owner FROM \(unescaped: table) WHERE owner = \(user)", logger: logger))
    }

    private func firstClaim(_ rows: PostgresRowSequence) async throws -> Claim? {
        var found: Claim?
        for try await (name, key, owner) in rows.decode((String, String, String).self) where found == nil {
            found = Claim(name: name, key: key, owner: owner)
        }
        return found
    }

    /// Runs `body` on a pooled connection after making sure the schema exists.
    private func connection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws(ClaimStoreError) -> T {
        try await prepare()
        do {
            return try await client.withConnection { connection in try await body(connection) }
        } catch {
            throw storeError(error)
        }
    }

    /// Runs `body` in a transaction (no migration check): committed when it returns, rolled back when it throws. A
    /// thrown ``Refusal`` is rolled back and returned as the outcome.
    private func rawTransaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws(ClaimStoreError) -> T {
        do {
            return try await client.withConnection { connection in
                try await connection.query("BEGIN", logger: self.logger)
                do {
                    let value = try await body(connection)
                    try await connection.query("COMMIT", logger: self.logger)
                    return value
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: self.logger)
                    throw error
                }
            }
        } catch let refusal as Refusal {
            if let outcome = refusal.outcome as? T { return outcome }
            throw ClaimStoreError(.failed, "postgres `\(location)`: internal refusal of an unexpected type; please report it")
        } catch {
            throw storeError(error)
        }
    }

    /// Runs `body` in a transaction after making sure the schema exists.
    private func transaction(_ body: @escaping @Sendable (PostgresConnection) async throws -> ClaimOutcome) async throws(ClaimStoreError) -> ClaimOutcome {
        try await prepare()
        return try await rawTransaction(body)
    }

    /// Maps a postgres-nio error to the store's error kinds. Never includes the password.
    private func storeError(_ error: any Error) -> ClaimStoreError {
        if let error = error as? ClaimStoreError { return error }
        guard let error = error as? PSQLError else {
            return ClaimStoreError(.failed, "postgres `\(location)`: \(type(of: error))")
        }
        let state = error.serverInfo?[.sqlState] ?? ""
        let message = error.serverInfo?[.message] ?? "\(error.code)"
        let detail = "postgres `\(location)`: \(message)"
        switch error.code {
        case .server where ["40001", "40P01", "55P03", "57014"].contains(state): return ClaimStoreError(.transient, detail)
        case .server where state.hasPrefix("08") || state.hasPrefix("28") || state == "3D000": return ClaimStoreError(.unreachable, detail)
        case .server: return ClaimStoreError(.failed, detail)
        default: return ClaimStoreError(.unreachable, detail)
        }
    }
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
