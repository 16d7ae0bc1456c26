import Availability
import ClaimStoreTesting
import Foundation
import GRDB
import SQLiteClaims
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The SQLite store under faults: each fault gets its own code, a failed write leaves nothing
/// behind, and the store works again once the fault is gone.
struct SQLiteFaultTests {
    let policy = TestDisplayNamePolicy()

    /// Holds the database's write lock (`BEGIN IMMEDIATE`) from a connection of its own until
    /// ``release()``.
    final class WriteLockHolder {
        let queue: DatabaseQueue

        init(path: String) throws {
            var configuration = Configuration()
            configuration.allowsUnsafeTransactions = true
            configuration.busyMode = .timeout(30)
            queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.inDatabase { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        }

        func release() throws {
            try queue.inDatabase { db in try db.execute(sql: "ROLLBACK") }
        }
    }

    @Test func theWriteLockHeldPastTheBusyTimeoutIsAV3007AndNothingIsWritten() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("locked.sqlite")
        let store = try SQLiteClaimStore(path: path, policy: policy, busyTimeout: .milliseconds(200))
        #expect(try await store.claim("before.lock", by: "u1").claimed)
        let holder = try WriteLockHolder(path: path)
        let error = await #expect(throws: ClaimStoreError.self) { try await store.claim("during.lock", by: "u2") }
        #expect(error?.code == "AV3007" && error?.reason == .locked && error?.isTransient == true, "\(String(describing: error))")
        #expect(error?.help.isEmpty == false)
        // Reads are not blocked by a writer (WAL).
        #expect(try await store.owner(of: "before.lock")?.owner == "u1")
        try holder.release()
        #expect(try await store.owner(of: "during.lock") == nil, "the refused write left a claim behind")
        #expect(try await store.claim("during.lock", by: "u2").claimed, "the store does not recover once the lock is gone")
    }

    @Test func aFullDatabaseIsAV3006AndEveryClaimBeforeItIsKept() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("full.sqlite")
        let store = try SQLiteClaimStore(path: path, policy: policy, maxPageCount: 12)
        // Long user ids fill pages quickly; the limit must be reached within the loop.
        var claimed: [String] = []
        var fullError: ClaimStoreError?
        for index in 0..<2_000 {
            let name = "full.\(index)"
            do throws(ClaimStoreError) {
                let outcome = try await store.claim(name, by: "user-\(index)-" + String(repeating: "x", count: 600))
                guard outcome.claimed else {
                    Issue.record("claim \(index) refused: \(outcome)")
                    break
                }
                claimed.append(name)
            } catch {
                fullError = error
                #expect(try await store.owner(of: name) == nil, "the claim that hit the limit was stored")
                break
            }
        }
        #expect(fullError?.code == "AV3006" && fullError?.reason == .storageFull, "\(String(describing: fullError))")
        #expect(claimed.count >= 3, "the limit was hit after only \(claimed.count) claims")
        let held = try await store.allClaims().map(\.name)
        #expect(held.sorted() == claimed.sorted(), "held \(held.count), claimed \(claimed.count)")
        #expect(try await store.integrityProblems() == [])
        // Reads go on working, and freeing space makes room again.
        #expect(try await store.release(claimed[0], by: "user-0-" + String(repeating: "x", count: 600)).succeeded)
        #expect(try await store.availability(of: claimed[0]).isAvailable)
    }

    @Test func aFileReplacedWhileOpenIsAV3009AndIsNotWrittenTo() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("replaced.sqlite")
        let store = try SQLiteClaimStore(path: path, policy: policy)
        #expect(try await store.claim("first", by: "u1").claimed)
        let garbage = Data(repeating: 0x41, count: 8192)
        try garbage.write(to: URL(fileURLWithPath: directory.path("garbage")))
        #expect(rename(directory.path("garbage"), path) == 0)
        let error = await #expect(throws: ClaimStoreError.self) { try await store.claim("second", by: "u2") }
        #expect(error?.code == "AV3009" && error?.reason == .fileReplaced, "\(String(describing: error))")
        let readError = await #expect(throws: ClaimStoreError.self) { try await store.owner(of: "first") }
        #expect(readError?.code == "AV3009")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage, "the store wrote into the replacement")
    }

    @Test func aFileOverwrittenInPlaceIsAV3009() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("overwritten.sqlite")
        let store = try SQLiteClaimStore(path: path, policy: policy)
        #expect(try await store.claim("first", by: "u1").claimed)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.write(contentsOf: Data(repeating: 0x42, count: 4096))
        try handle.close()
        let error = await #expect(throws: ClaimStoreError.self) { try await store.claim("second", by: "u2") }
        #expect(error?.code == "AV3009", "\(String(describing: error))")
    }

    @Test func aRemovedFileIsAV3009() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("removed.sqlite")
        let store = try SQLiteClaimStore(path: path, policy: policy)
        #expect(try await store.claim("first", by: "u1").claimed)
        try FileManager.default.removeItem(atPath: path)
        let error = await #expect(throws: ClaimStoreError.self) { try await store.claim("second", by: "u2") }
        #expect(error?.code == "AV3009", "\(String(describing: error))")
    }

    @Test func aReadOnlyDatabaseFileIsAV3005() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("readonly.sqlite")
        do {
            let store = try SQLiteClaimStore(path: path, policy: policy)
            #expect(try await store.claim("kept", by: "u1").claimed)
        }
        let lock = try ReadOnly(path)
        defer { lock.undo() }
        let error = await Self.firstError {
            let store = try SQLiteClaimStore(path: path, policy: policy)
            _ = try await store.claim("refused", by: "u2")
        }
        #expect(error?.code == "AV3005" && error?.reason == .readOnly, "\(String(describing: error))")
        #expect(error?.help.contains("writable") == true)
    }

    @Test func aReadOnlyDirectoryIsAV3005() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let folder = directory.path("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/names.sqlite"
        do {
            let store = try SQLiteClaimStore(path: path, policy: policy)
            #expect(try await store.claim("kept", by: "u1").claimed)
        }
        let lock = try ReadOnly(folder)
        defer { lock.undo() }
        let error = await Self.firstError {
            let store = try SQLiteClaimStore(path: path, policy: policy)
            _ = try await store.claim("refused", by: "u2")
        }
        #expect(error?.code == "AV3005" && error?.reason == .readOnly, "\(String(describing: error))")
    }

    @Test func aNewDatabaseInAReadOnlyDirectoryIsAV3005() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let folder = directory.path("empty")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let lock = try ReadOnly(folder)
        defer { lock.undo() }
        let error = #expect(throws: ClaimStoreError.self) { try SQLiteClaimStore(path: folder + "/names.sqlite", policy: policy) }
        #expect(error?.code == "AV3005", "\(String(describing: error))")
    }

    /// The first ``ClaimStoreError`` `body` throws (nil when it throws none).
    static func firstError(_ body: () async throws -> Void) async -> ClaimStoreError? {
        do {
            try await body()
            return nil
        } catch {
            return error as? ClaimStoreError
        }
    }
}

/// Makes a file or directory read-only for this process, and undoes it. As root, permission
/// bits do not stop writes, so the file is made immutable (`chattr +i`) instead.
struct ReadOnly {
    let path: String
    let immutable: Bool

    init(_ path: String) throws {
        self.path = path
        immutable = geteuid() == 0
        if immutable {
            let (status, errors) = try Subprocess.run(["chattr", "+i", path])
            if status != 0 {
                throw CheckFailure("running as root, `chattr +i \(path)` failed (exit \(status): \(errors)); the read-only tests need a file system with immutable files (ext4, xfs, btrfs, overlayfs on those)")
            }
        } else {
            var info = stat()
            stat(path, &info)
            let isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
            chmod(path, isDirectory ? 0o555 : 0o444)
        }
    }

    func undo() {
        if immutable {
            _ = try? Subprocess.run(["chattr", "-i", path])
        } else {
            chmod(path, 0o755)
        }
    }
}
