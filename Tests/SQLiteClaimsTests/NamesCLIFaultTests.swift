import ClaimStoreTesting
import Foundation
import SQLiteClaims
import Testing

/// `validate names` against a SQLite store with a fault: exit 2, the fault's code and a `help:`
/// line on stderr, and in a batch one row per input, never `"claimed": true` for a record that
/// was not committed.
struct NamesCLIFaultTests {
    @Test func aBatchWhoseStoreIsLockedBeforeItStartsReportsEveryRecordAsNotAttempted() async throws {
        let binary = try #require(BatchKill.validateBinary, "the `validate` executable is not built next to the tests")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("locked.sqlite")
        do {
            let store = try SQLiteClaimStore(path: path, policy: TestDisplayNamePolicy())
            #expect(try await store.claim("already.here", by: "u0").claimed)
        }
        let batch = ["{\"name\": \"alpha\", \"user\": \"u1\"}", "not json", "{\"name\": \"Beta\", \"user\": \"u2\"}"]
        try (batch.joined(separator: "\n") + "\n").write(toFile: directory.path("batch.jsonl"), atomically: true, encoding: .utf8)
        let holder = try SQLiteFaultTests.WriteLockHolder(path: path)
        // Opening the store needs the lock once; the CLI waits its whole busy timeout (10 s) for it.
        let run = try Self.run(binary, ["names", "claim", "--input", "jsonl", directory.path("batch.jsonl"),
                                        "--store", "sqlite:" + path, "--format", "jsonl"])
        try holder.release()
        #expect(run.status == 2)
        let notAttempted = "[{\"code\": \"AV3016\", \"message\": \"This record was not attempted because the store could not be opened (AV3007); run the batch again once that is fixed.\"}]}"
        #expect(run.output.split(separator: "\n").map(String.init) == [
            "{\"record\": 1, \"name\": \"alpha\", \"key\": \"alpha\", \"claimed\": false, \"owner\": null, \"errors\": " + notAttempted,
            "{\"record\": 2, \"name\": \"\", \"key\": \"\", \"claimed\": false, \"owner\": null, \"errors\": [{\"code\": \"CLI2001\", \"message\": \"expected a JSON object with string fields `name` and `user`\"}]}",
            "{\"record\": 3, \"name\": \"Beta\", \"key\": \"beta\", \"claimed\": false, \"owner\": null, \"errors\": " + notAttempted,
        ])
        #expect(run.errors.hasPrefix("validate: error[AV3007]: sqlite `\(path)`: "), "\(run.errors)")
        #expect(run.errors.hasSuffix("\nhelp: Another program is writing to the database and held its lock too long; wait for it to finish, then try again.\n"), "\(run.errors)")
        // Nothing was written; a re-run once the lock is gone completes the batch (exit 1: `not json`).
        let rerun = try Self.run(binary, ["names", "claim", "--input", "jsonl", directory.path("batch.jsonl"),
                                          "--store", "sqlite:" + path, "--format", "jsonl"])
        #expect(rerun.status == 1)
        let store = try SQLiteClaimStore(path: path, policy: TestDisplayNamePolicy())
        #expect(try await store.allClaims().map(\.key) == ["alpha", "already.here", "beta"])
    }

    @Test func aBatchMeetingAWriteLockMidwayReportsEveryRecordAndARerunConverges() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("midway.sqlite")
        let records = BatchKill.records(count: 2_000)
        var holder: SQLiteFaultTests.WriteLockHolder?
        // After 100 rows another connection takes the write lock and keeps it until the batch
        // has given up (its busy timeout is 10 s) and printed every row.
        let report = try BatchFault.run(store: "sqlite:" + path, records: records, faultAfter: 100, in: directory.url) {
            holder = try SQLiteFaultTests.WriteLockHolder(path: path)
        }
        try holder?.release()
        let reported = try BatchFault.check(report, records: records, faultCodes: ["AV3007"])
        #expect(reported.count >= 100)
        let store = try SQLiteClaimStore(path: path, policy: TestDisplayNamePolicy())
        let claims = try await store.allClaims()
        try BatchKill.verify(claims, records: records, reportedClaimed: reported)
        #expect(claims.count == reported.count, "held \(claims.count), reported \(reported.count): a faulted write was kept")
        #expect(try BatchKill.runToEnd(store: "sqlite:" + path, records: records, in: directory.url) == 0)
        let after = try await store.allClaims()
        #expect(after.count == records.count)
        try BatchKill.verify(after, records: records, reportedClaimed: records.map(\.name))
    }

    @Test func aReadOnlyStoreExits2WithAV3005() async throws {
        let binary = try #require(BatchKill.validateBinary, "the `validate` executable is not built next to the tests")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("readonly.sqlite")
        do {
            let store = try SQLiteClaimStore(path: path, policy: TestDisplayNamePolicy())
            #expect(try await store.claim("kept", by: "u1").claimed)
        }
        let lock = try ReadOnly(path)
        defer { lock.undo() }
        let run = try Self.run(binary, ["names", "claim", "fresh", "--user", "u2", "--store", "sqlite:" + path, "--format", "jsonl"])
        #expect(run.status == 2)
        #expect(!run.output.contains("\"claimed\": true"), "\(run.output)")
        #expect(run.errors.contains("error[AV3005]"), "\(run.errors)")
        #expect(run.errors.contains("help: Make the database file and its directory writable"), "\(run.errors)")
    }

    static func run(_ binary: URL, _ arguments: [String]) throws -> (output: String, errors: String, status: Int32) {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read stderr on another thread so that neither pipe can fill up and stall the child.
        let errorData = ErrorCollector(errors.fileHandleForReading)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (String(decoding: data, as: UTF8.self), String(decoding: errorData.wait(), as: UTF8.self), process.terminationStatus)
    }
}

/// Reads a pipe to its end on a thread of its own.
final class ErrorCollector: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}
