import Availability
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs the `validate` binary's batch claim as a child process and kills it (SIGKILL) part-way,
/// to check that a store survives a writer dying mid-batch.
public enum BatchKill {
    /// The `validate` executable built next to the test bundle, if it exists.
    public static var validateBinary: URL? {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [directory, directory.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("validate")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }

    /// The records of a batch: `batch.N` claimed by `batcherN`, one JSON object per line.
    public static func records(count: Int) -> [(name: String, user: String)] {
        (0..<count).map { ("batch.\($0)", "batcher\($0)") }
    }

    /// What the killed run reported before dying.
    public struct Report {
        /// Names the child printed as claimed before it was killed.
        public var reportedClaimed: [String]
        /// True when the child was killed by the signal (rather than finishing first).
        public var wasKilled: Bool
    }

    /// Writes the batch file, starts `validate names claim --input jsonl FILE --store STORE
    /// --format jsonl`, waits for `killAfter` output lines, then SIGKILLs it.
    ///
    /// - Throws: ``CheckFailure`` when the binary is missing or misbehaves.
    public static func runAndKill(store: String, records: [(name: String, user: String)], killAfter: Int,
                                  in directory: URL) throws -> Report {
        let file = try writeBatch(records, in: directory)
        let process = try start(store: store, file: file)
        let reader = (process.standardOutput as? Pipe)?.fileHandleForReading
        var pending = Data()
        var lines: [String] = []
        while lines.count < killAfter, let chunk = reader?.availableData, !chunk.isEmpty {
            pending.append(chunk)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                pending.removeSubrange(pending.startIndex...newline)
            }
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let claimed = lines.compactMap { line -> String? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["claimed"] as? Bool == true else { return nil }
            return object["name"] as? String
        }
        return Report(reportedClaimed: claimed, wasKilled: process.terminationReason == .uncaughtSignal)
    }

    /// Runs the whole batch to completion and returns the exit status.
    public static func runToEnd(store: String, records: [(name: String, user: String)], in directory: URL) throws -> Int32 {
        let process = try start(store: store, file: try writeBatch(records, in: directory))
        _ = (process.standardOutput as? Pipe)?.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Checks the claims left after a killed batch: every record's name is free or held by that
    /// record's user under its display form, nothing else is held, and every name reported
    /// claimed is held.
    public static func verify(_ claims: [Claim], records: [(name: String, user: String)], reportedClaimed: [String]) throws {
        let expected = Dictionary(uniqueKeysWithValues: records.map { ($0.name.lowercased(), $0) })
        for claim in claims {
            guard let record = expected[claim.key] else { throw CheckFailure("unexpected claim \(claim)") }
            try require(claim.owner == record.user && claim.name == record.name, "\(record.name) held as \(claim)")
        }
        let held = Set(claims.map(\.key))
        for name in reportedClaimed {
            try require(held.contains(name.lowercased()), "\(name) was reported claimed but is not held")
        }
    }

    static func writeBatch(_ records: [(name: String, user: String)], in directory: URL) throws -> URL {
        let file = directory.appendingPathComponent("batch.jsonl")
        let text = records.map { "{\"name\": \"\($0.name)\", \"user\": \"\($0.user)\"}\n" }.joined()
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    /// The `--batch-size` of the batches the tests start: small, so that a batch of a few
    /// thousand records spans many transactions and prints its rows as it goes.
    public static let batchSize = 20

    static func start(store: String, file: URL, batchSize: Int = BatchKill.batchSize) throws -> Process {
        guard let binary = validateBinary else {
            throw CheckFailure("the `validate` executable is not built next to the tests; run `swift build --build-tests` first")
        }
        let process = Process()
        process.executableURL = binary
        // A generous connect timeout: the whole suite may be loading both cores.
        process.arguments = ["names", "claim", "--input", "jsonl", file.path, "--store", store, "--format", "jsonl",
                             "--connect-timeout", "90", "--batch-size", String(batchSize)]
        process.standardOutput = Pipe()
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }
}
