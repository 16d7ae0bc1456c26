import Availability
import GRDB

/// A ``ClaimStore`` in one SQLite file, safe to share between threads and processes.
///
/// The file is opened in WAL mode; the schema is created or migrated when the store opens it.
/// A unique index on the canonical key makes a second claim of a name fail inside SQLite itself,
/// and a unique index on the owner keeps one name per user. Writes are `BEGIN IMMEDIATE`
/// transactions, waiting up to ``busyTimeout`` for other writers (other processes included).
public final class SQLiteClaimStore: ClaimStore {
    public let policy: any DisplayNamePolicy
    /// The database file.
    public let path: String
    /// How long a write waits for another writer before failing with a transient error.
    public static let busyTimeout: Double = 10
    private let pool: DatabasePool

    /// Opens (creating if needed) the store at `path` and migrates its schema.
    ///
    /// - Parameters:
    ///   - path: The database file; its directory must exist.
    ///   - policy: The display-name rules names are checked against.
    /// - Throws: ``ClaimStoreError`` `.unreachable` when the file cannot be opened, `.failed`
    ///   when it is not a claims database.
    public init(path: String, policy: any DisplayNamePolicy) throws(ClaimStoreError) {
        self.path = path
        self.policy = policy
        var configuration = Configuration()
        configuration.busyMode = .timeout(Self.busyTimeout)
        configuration.label = "RulesKit.claims"
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            try Self.migrator.migrate(pool)
        } catch {
            throw Self.storeError(error, path: path)
        }
    }

    /// The schema, one migration per version. Never edit a shipped migration; add one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: display names") { db in
            try db.execute(sql: """
                CREATE TABLE display_names (
                    key TEXT NOT NULL,
                    name TEXT NOT NULL,
                    owner TEXT NOT NULL,
                    claimed_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                );
                CREATE UNIQUE INDEX display_names_key ON display_names(key);
                CREATE UNIQUE INDEX display_names_owner ON display_names(owner);
                """)
        }
        return migrator
    }

    // MARK: - ClaimStore

    public func availability(of name: String) async throws(ClaimStoreError) -> NameAvailability {
        switch PreparedName.prepare(name, with: policy) {
        case .refused(let outcome):
            return ClaimVerdict.availability(refused: outcome)
        case .claimable(let name, let key):
            let holder = try await read { db in try Self.holder(ofKey: key, db) }
            return ClaimVerdict.availability(name: name, key: key, holder: holder)
        }
    }

    public func availableNames(among names: [String]) async throws(ClaimStoreError) -> [String] {
        let candidates = PreparedName.claimable(among: names, with: policy)
        guard !candidates.isEmpty else { return [] }
        let keys = candidates.map(\.key)
        let taken = try await read { db in
            let marks = Array(repeating: "?", count: keys.count).joined(separator: ",")
            return try Set(String.fetchAll(db, sql: "SELECT key FROM display_names WHERE key IN (\(marks))",
                                           arguments: StatementArguments(keys)))
        }
        return candidates.filter { !taken.contains($0.key) }.map(\.name)
    }

    public func claim(_ name: String, by user: String) async throws(ClaimStoreError) -> ClaimOutcome {
        switch PreparedName.prepare(name, with: policy) {
        case .refused(let outcome):
            return outcome
        case .claimable(let name, let key):
            return try await write { db in
                try db.execute(sql: "INSERT INTO display_names (key, name, owner) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                               arguments: [key, name, user])
                if db.changesCount == 1 { return ClaimOutcome(name: name, key: key, claimed: true, owner: user) }
                // INVARIANT: inside one write transaction a conflict is explained by a row.
                return ClaimVerdict.afterConflict(name: name, key: key, user: user,
                                                  holderOfKey: try Self.holder(ofKey: key, db),
                                                  heldByUser: try Self.claim(heldBy: user, db))
                    ?? ClaimOutcome(name: name, key: key, claimed: false, owner: nil, problems: [.taken(name)])
            }
        }
    }

    public func release(_ name: String, by user: String) async throws(ClaimStoreError) -> ClaimOutcome {
        let key = policy.evaluate(name).key
        return try await write { db in
            let holder = try Self.holder(ofKey: key, db)
            guard let holder, holder.owner == user else { return ClaimVerdict.notHeld(name: name, key: key, holder: holder) }
            try db.execute(sql: "DELETE FROM display_names WHERE key = ? AND owner = ?", arguments: [key, user])
            return ClaimOutcome(name: holder.name, key: key, claimed: false, owner: nil)
        }
    }

    public func rename(from old: String, to new: String, by user: String) async throws(ClaimStoreError) -> ClaimOutcome {
        let oldKey = policy.evaluate(old).key
        switch PreparedName.prepare(new, with: policy) {
        case .refused(let outcome):
            return outcome
        case .claimable(let name, let key):
            return try await write { db in
                let held = try Self.holder(ofKey: oldKey, db)
                guard let held, held.owner == user else { return ClaimVerdict.notHeld(name: old, key: oldKey, holder: held) }
                if let holder = try Self.holder(ofKey: key, db), holder.owner != user {
                    return ClaimOutcome(name: name, key: key, claimed: false, owner: holder.owner, problems: [.taken(name)])
                }
                try db.execute(sql: "DELETE FROM display_names WHERE key = ? AND owner = ?", arguments: [oldKey, user])
                try db.execute(sql: "INSERT INTO display_names (key, name, owner) VALUES (?, ?, ?)", arguments: [key, name, user])
                return ClaimOutcome(name: name, key: key, claimed: true, owner: user)
            }
        }
    }

    public func owner(of name: String) async throws(ClaimStoreError) -> Claim? {
        let key = policy.evaluate(name).key
        return try await read { db in try Self.holder(ofKey: key, db) }
    }

    /// Every claim, sorted by key (for tools and consistency checks).
    ///
    /// - Throws: ``ClaimStoreError`` when the file cannot be read.
    public func allClaims() async throws(ClaimStoreError) -> [Claim] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT name, key, owner FROM display_names ORDER BY key").map(Self.claim(from:))
        }
    }

    /// Runs SQLite's own consistency check; returns its findings (empty when the file is sound).
    ///
    /// - Throws: ``ClaimStoreError`` when the file cannot be read.
    public func integrityProblems() async throws(ClaimStoreError) -> [String] {
        try await read { db in
            try String.fetchAll(db, sql: "PRAGMA integrity_check").filter { $0 != "ok" }
        }
    }

    // MARK: - SQL helpers

    private static func holder(ofKey key: String, _ db: Database) throws -> Claim? {
        try Row.fetchOne(db, sql: "SELECT name, key, owner FROM display_names WHERE key = ?", arguments: [key])
            .map(claim(from:))
    }

    private static func claim(heldBy user: String, _ db: Database) throws -> Claim? {
        try Row.fetchOne(db, sql: "SELECT name, key, owner FROM display_names WHERE owner = ?", arguments: [user])
            .map(claim(from:))
    }

    private static func claim(from row: Row) -> Claim {
        Claim(name: row["name"], key: row["key"], owner: row["owner"])
    }

    private func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(ClaimStoreError) -> T {
        do { return try await pool.read(body) } catch { throw Self.storeError(error, path: path) }
    }

    private func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(ClaimStoreError) -> T {
        do { return try await pool.write(body) } catch { throw Self.storeError(error, path: path) }
    }

    /// Maps a GRDB error to the store's error kinds.
    static func storeError(_ error: any Error, path: String) -> ClaimStoreError {
        guard let error = error as? DatabaseError else {
            return ClaimStoreError(.failed, "sqlite `\(path)`: \(error)")
        }
        let detail = "sqlite `\(path)`: \(error.message ?? "\(error.resultCode)")"
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED: return ClaimStoreError(.transient, detail)
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY, .SQLITE_IOERR: return ClaimStoreError(.unreachable, detail)
        default: return ClaimStoreError(.failed, detail)
        }
    }
}
