import Availability
import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A ``ClaimStore`` in one SQLite file, safe to share between threads and processes.
///
/// The file is opened in WAL mode; the schema is created or migrated when the store opens it.
/// A unique index on the canonical key makes a second claim of a name fail inside SQLite itself,
/// and a unique index on the owner keeps one name per user. Writes are `BEGIN IMMEDIATE`
/// transactions, waiting up to ``busyTimeout`` for other writers (other processes included).
///
/// Faults have their own codes (``ClaimStoreError/Reason``): the write lock held past the busy
/// timeout (`AV3007`), a read-only file or directory (`AV3005`), a full disk or size limit
/// (`AV3006`), a file that is not a claims database (`AV3008`), and the file replaced or removed
/// while open (`AV3009`, checked before every operation: the same file, still starting with the
/// SQLite header). A failed write leaves nothing behind: it is one transaction.
///
/// Text goes in and comes out with its length: every string is bound as the bytes of its UTF-8
/// (`CAST(? AS TEXT)`) and read back as bytes (`CAST(column AS BLOB)`), never as a C string, so
/// an embedded NUL round-trips instead of cutting the string short. Owners are compared byte for
/// byte, in SQL and in Swift (``UserID``); a user id that cannot act (empty, control characters)
/// is refused with `AV1008` before any SQL runs.
///
/// Lookups by name (``availability(of:)``, ``owner(of:)``) run on a connection of their own, on
/// the caller's thread: one `SELECT` by key with a prepared statement kept across lookups, in
/// SQLite's autocommit mode. The statement is its own read transaction, so it sees every claim
/// committed before it starts, through any connection or process; nothing is cached.
public final class SQLiteClaimStore: ClaimStore {
    public let policy: any DisplayNamePolicy
    /// The database file.
    public let path: String
    /// The default for ``busyTimeout``: 10 seconds.
    public static let defaultBusyTimeout: Duration = .seconds(10)
    /// How long a write waits for another writer before failing with `AV3007`.
    public let busyTimeout: Duration
    /// The file's size limit in pages (SQLite's `PRAGMA max_page_count`), or nil for SQLite's own
    /// limit. Writing past it fails with `AV3006`, like a full disk.
    public let maxPageCount: Int?
    private let pool: DatabasePool
    /// Gathers concurrent claims into one write transaction (see ``claim(_:by:)``).
    private let coalescer: ClaimCoalescer
    /// Most concurrent claims written in one transaction.
    public static let coalescedClaims = 256
    /// The connection for lookups by name (see the type's documentation).
    private let lookups: DatabaseQueue
    private let identity: FileIdentity?

    /// Opens (creating if needed) the store at `path` and migrates its schema.
    ///
    /// - Parameters:
    ///   - path: The database file; its directory must exist.
    ///   - policy: The display-name rules names are checked against.
    ///   - busyTimeout: How long a write waits for another writer (default 10 s).
    ///   - maxPageCount: The file's size limit in pages; nil for SQLite's own.
    /// - Throws: ``ClaimStoreError``: `AV3001` when the file cannot be opened, `AV3005` when it or
    ///   its directory is read-only, `AV3008` when it is not a claims database.
    public init(path: String, policy: any DisplayNamePolicy, busyTimeout: Duration = defaultBusyTimeout,
                maxPageCount: Int? = nil) throws(ClaimStoreError) {
        self.path = path
        self.policy = policy
        self.busyTimeout = busyTimeout
        self.maxPageCount = maxPageCount
        var configuration = Configuration()
        let (seconds, attoseconds) = busyTimeout.components
        configuration.busyMode = .timeout(Double(seconds) + Double(attoseconds) / 1e18)
        configuration.label = "RulesKit.claims"
        if let maxPageCount {
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA max_page_count = \(maxPageCount)") }
        }
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            try Self.migrator.migrate(pool)
            configuration.label = "RulesKit.claims.lookups"
            lookups = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw Self.storeError(error, path: path)
        }
        identity = FileIdentity(path: path)
        coalescer = ClaimCoalescer(limit: Self.coalescedClaims, write: { [pool, policy, path, identity] batch in
            await Self.claim(batch: batch, policy: policy, pool: pool, path: path, identity: identity)
        })
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
        try await PreparedName.availability(of: name, with: policy) { key throws(ClaimStoreError) in
            try lookUp { db in try Self.holder(ofKey: key, db) }
        }
    }

    public func availableNames(among names: [String]) async throws(ClaimStoreError) -> [String] {
        try await PreparedName.available(among: names, with: policy) { keys throws(ClaimStoreError) in
            try await read { db in
                let marks = Array(repeating: "CAST(? AS TEXT)", count: keys.count).joined(separator: ",")
                return try Set(Data.fetchAll(db, sql: "SELECT CAST(key AS BLOB) FROM display_names WHERE key IN (\(marks))",
                                             arguments: StatementArguments(keys.map(Self.exact))).map(Self.string(from:)))
            }
        }
    }

    /// Claims `name` for `user`. Claims that arrive while another claim is being written are
    /// written together in the next transaction (``ClaimCoalescer``), each decided as if alone,
    /// in arrival order; a lone claim is written at once.
    public func claim(_ name: String, by user: String) async throws(ClaimStoreError) -> ClaimOutcome {
        try await coalescer.claim(name, by: user)
    }

    /// Releases `name` for `user`: a batch of one record (``release(batch:)``).
    public func release(_ name: String, by user: String) async throws(ClaimStoreError) -> ClaimOutcome {
        try await release(batch: [NameRequest(name: name, user: user)]).results(count: 1)[0].get()
    }

    /// Renames `old` to `new` for `user`: a batch of one record (``rename(batch:)``).
    public func rename(from old: String, to new: String, by user: String) async throws(ClaimStoreError) -> ClaimOutcome {
        try await rename(batch: [RenameRequest(old: old, new: new, user: user)]).results(count: 1)[0].get()
    }

    public func owner(of name: String) async throws(ClaimStoreError) -> Claim? {
        let key = policy.evaluate(name).key
        return try lookUp { db in try Self.holder(ofKey: key, db) }
    }

    // MARK: - Batches

    /// Claims a batch in one write transaction (`BEGIN IMMEDIATE`): the claims on the batch's keys
    /// and users are read, every record is decided in input order (``PreparedBatch``), and the
    /// new claims are inserted, all while holding the write lock, so no other writer comes
    /// between. A fault rolls the whole transaction back (``BatchOutcome/Fault``).
    public func claim(batch: [NameRequest]) async -> BatchOutcome {
        await Self.claim(batch: batch, policy: policy, pool: pool, path: path, identity: identity)
    }

    /// Releases a batch in one write transaction (as ``claim(batch:)``).
    public func release(batch: [NameRequest]) async -> BatchOutcome {
        await Self.apply(PreparedBatch.releases(batch, policy: policy), pool: pool, path: path, identity: identity)
    }

    /// Renames a batch in one write transaction (as ``claim(batch:)``).
    public func rename(batch: [RenameRequest]) async -> BatchOutcome {
        await Self.apply(PreparedBatch.renames(batch, policy: policy), pool: pool, path: path, identity: identity)
    }

    private static func claim(batch: [NameRequest], policy: any DisplayNamePolicy, pool: DatabasePool, path: String,
                              identity: FileIdentity?) async -> BatchOutcome {
        await apply(PreparedBatch.claims(batch, policy: policy), pool: pool, path: path, identity: identity)
    }

    /// Reads the claims `batch` touches, plans it and writes the plan, in one write transaction.
    private static func apply(_ batch: PreparedBatch, pool: DatabasePool, path: String, identity: FileIdentity?) async -> BatchOutcome {
        if let decided = batch.decidedOutcome { return decided }
        return await BatchOutcome.deciding(batch.count) { () async throws(ClaimStoreError) in
            try checkFile(path: path, identity: identity)
            do {
                return try await pool.write { db in
                    var holdings: [Claim] = []
                    let byKey = try db.cachedStatement(sql: "SELECT \(claimColumns) FROM display_names WHERE key = \(text)")
                    for key in batch.keys {
                        if let row = try Row.fetchOne(byKey, arguments: [exact(key)]) { holdings.append(claim(from: row)) }
                    }
                    let byOwner = try db.cachedStatement(sql: "SELECT \(claimColumns) FROM display_names WHERE owner = \(text)")
                    for user in batch.users {
                        if let row = try Row.fetchOne(byOwner, arguments: [exact(user)]) { holdings.append(claim(from: row)) }
                    }
                    let plan = batch.plan(holdings: holdings)
                    let delete = try db.cachedStatement(sql: "DELETE FROM display_names WHERE key = \(text) AND owner = \(text)")
                    for row in plan.deletes {
                        try delete.execute(arguments: [exact(row.key), exact(row.owner)])
                        // INVARIANT: the write lock is held since the rows were read.
                        guard db.changesCount == 1 else { throw BatchInvariant(detail: "a claim read in this transaction was gone") }
                    }
                    let insert = try db.cachedStatement(sql: "INSERT INTO display_names (key, name, owner) VALUES (\(text), \(text), \(text))")
                    for row in plan.inserts {
                        try insert.execute(arguments: [exact(row.key), exact(row.name), exact(row.owner)])
                    }
                    return plan.outcomes
                }
            } catch let error as BatchInvariant {
                throw ClaimStoreError(.failed, "sqlite `\(path)`: \(error.detail); please report it")
            } catch {
                throw storeError(error, path: path)
            }
        }
    }

    /// A broken internal invariant inside a batch's transaction (rolls it back).
    private struct BatchInvariant: Error {
        var detail: String
    }

    /// Every claim, sorted by key (for tools and consistency checks).
    ///
    /// - Throws: ``ClaimStoreError`` when the file cannot be read.
    public func allClaims() async throws(ClaimStoreError) -> [Claim] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.claimColumns) FROM display_names ORDER BY key").map(Self.claim(from:))
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

    /// A text parameter, bound as the bytes of its UTF-8 (with ``exact(_:)``): SQLite keeps its
    /// length, NULs included, and stores it as TEXT.
    static let text = "CAST(? AS TEXT)"
    /// The columns of a claim, read as bytes with their length (decoded by ``claim(from:)``).
    static let claimColumns = "CAST(name AS BLOB) AS name, CAST(key AS BLOB) AS key, CAST(owner AS BLOB) AS owner"

    /// The value bound for a ``text`` parameter: the string's UTF-8 as a blob, which GRDB binds
    /// with its length (a `String` is bound as a C string, which ends at a NUL). The empty string
    /// stays a string: an empty blob would bind as NULL.
    static func exact(_ string: String) -> any DatabaseValueConvertible {
        string.isEmpty ? string : Data(string.utf8)
    }

    /// A column read as bytes (``claimColumns``), decoded as UTF-8.
    static func string(from data: Data) -> String {
        String(decoding: data, as: UTF8.self)
    }

    private static func holder(ofKey key: String, _ db: Database) throws -> Claim? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT \(claimColumns) FROM display_names WHERE key = \(text)"),
                         arguments: [exact(key)])
            .map(claim(from:))
    }

    static func claim(from row: Row) -> Claim {
        func column(_ name: String) -> String { string(from: row[name] ?? Data()) }
        return Claim(name: column("name"), key: column("key"), owner: column("owner"))
    }

    private func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(ClaimStoreError) -> T {
        try checkFile()
        do { return try await pool.read(body) } catch { throw Self.storeError(error, path: path) }
    }

    /// One lookup on the lookup connection, on the caller's thread, outside any transaction.
    private func lookUp<T>(_ body: (Database) throws -> T) throws(ClaimStoreError) -> T {
        try checkFile()
        do { return try lookups.unsafeRead(body) } catch { throw Self.storeError(error, path: path) }
    }

    /// Fails with `AV3009` when the file at ``path`` is no longer the one the store opened, or no
    /// longer starts with the SQLite header (overwritten in place). Open connections would
    /// otherwise go on reading and writing a deleted file, or write pages into a foreign one.
    private func checkFile() throws(ClaimStoreError) {
        try Self.checkFile(path: path, identity: identity)
    }

    private static func checkFile(path: String, identity: FileIdentity?) throws(ClaimStoreError) {
        guard let identity else { return }
        switch FileIdentity.check(path: path, against: identity) {
        case .same: return
        case .missing: throw ClaimStoreError(.fileReplaced, "sqlite `\(path)`: the file was removed while the store had it open")
        case .replaced: throw ClaimStoreError(.fileReplaced, "sqlite `\(path)`: the file was replaced while the store had it open")
        case .notSQLite: throw ClaimStoreError(.fileReplaced, "sqlite `\(path)`: the file was overwritten with something that is not a database")
        }
    }

    /// Maps a GRDB error to the store's fault reasons.
    static func storeError(_ error: any Error, path: String) -> ClaimStoreError {
        guard let error = error as? DatabaseError else {
            return ClaimStoreError(.failed, "sqlite `\(path)`: \(error)")
        }
        let detail = "sqlite `\(path)`: \(error.message ?? "\(error.resultCode)")"
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED: return ClaimStoreError(.locked, detail)
        case .SQLITE_READONLY: return ClaimStoreError(.readOnly, detail)
        case .SQLITE_FULL: return ClaimStoreError(.storageFull, detail)
        case .SQLITE_NOTADB, .SQLITE_CORRUPT: return ClaimStoreError(.notADatabase, detail)
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_IOERR:
            return ClaimStoreError(FileIdentity.isReadOnly(path: path) ? .readOnly : .unreachable, detail)
        default: return ClaimStoreError(.failed, detail)
        }
    }
}

/// Which file a path named when the store opened it (device and inode).
struct FileIdentity: Sendable, Hashable {
    var device: UInt64
    var inode: UInt64

    /// The SQLite file header, the first 16 bytes of every database file.
    static let header = Array("SQLite format 3\0".utf8)

    /// How a path compares with the file a store opened.
    enum Check { case same, missing, replaced, notSQLite }

    /// The identity of the file at `path`, or nil when it cannot be examined.
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    /// Compares the file now at `path` with `identity`, and checks its header (an empty file is
    /// accepted: SQLite has not written it yet).
    static func check(path: String, against identity: FileIdentity) -> Check {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return errno == ENOENT ? .missing : .same }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return .same }
        guard UInt64(info.st_dev) == identity.device, UInt64(info.st_ino) == identity.inode else { return .replaced }
        var bytes = [UInt8](repeating: 0, count: header.count)
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, header.count, 0) }
        if count == 0 { return .same }
        return count == header.count && bytes == header ? .same : .notSQLite
    }

    /// True when the file at `path` exists and cannot be written, or its directory exists and
    /// cannot be written (SQLite needs to create the `-wal` and `-shm` files next to it).
    static func isReadOnly(path: String) -> Bool {
        let directory = (path as NSString).deletingLastPathComponent
        let directoryPath = directory.isEmpty ? "." : directory
        if access(path, F_OK) == 0, access(path, W_OK) != 0 { return true }
        return access(directoryPath, F_OK) == 0 && access(directoryPath, W_OK) != 0
    }
}
