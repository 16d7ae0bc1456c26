import Availability
import Foundation

/// The `validate` batch claim, as a child process, racing single claims made by the test
/// process on the same store (``ConcurrencyScenarios/racingBatch(names:)``).
public enum BatchRace {
    /// Starts the batch, waits for its first committed rows, then makes the single claims through
    /// `singleStores` while the batch goes on; reads every row and checks the outcome with
    /// ``ConcurrencyScenarios/checkBatchRace(store:names:batch:singles:)``.
    ///
    /// - Parameters:
    ///   - store: The `--store` location of the batch.
    ///   - singleStores: Stores on the same database for the single claims (each its own connection).
    ///   - names: Names raced for.
    ///   - batchSize: The batch's `--batch-size`.
    public static func run(store: String, singleStores: [any ClaimStore], names: Int = 300, batchSize: Int = 10,
                           in directory: URL) async throws {
        let records = ConcurrencyScenarios.racingBatch(names: names)
        let file = try BatchKill.writeBatch(records.map { ($0.name, $0.user) }, in: directory)
        let process = try BatchKill.start(store: store, file: file, batchSize: batchSize)
        let reader = LineReader((process.standardOutput as? Pipe)?.fileHandleForReading)
        // Single claims start once the batch has committed its first transaction.
        _ = reader.waitForLines(1)
        let singles = try await withThrowingTaskGroup(of: (Int, ClaimOutcome).self) { group in
            for index in 0..<names {
                let store = singleStores[index % singleStores.count]
                group.addTask { (index, try await store.claim("race.\(index)", by: "s\(index)")) }
            }
            var outcomes = [ClaimOutcome?](repeating: nil, count: names)
            for try await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes.compactMap { $0 }
        }
        let lines = reader.waitForEnd()
        process.waitUntilExit()
        try require(process.terminationStatus == 1, "the batch exited \(process.terminationStatus), expected 1 (second users refused)")
        let batch = try lines.map { line -> ClaimOutcome in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let name = object["name"] as? String, let key = object["key"] as? String,
                  let claimed = object["claimed"] as? Bool, let errors = object["errors"] as? [[String: Any]] else {
                throw CheckFailure("not a batch row: \(line)")
            }
            let problems = errors.map { ClaimProblem(code: $0["code"] as? String ?? "", message: $0["message"] as? String ?? "") }
            return ClaimOutcome(name: name, key: key, claimed: claimed, owner: object["owner"] as? String, problems: problems)
        }
        try await ConcurrencyScenarios.checkBatchRace(store: singleStores[0], names: names, batch: batch, singles: singles)
    }
}

/// Reads a child's stdout lines on a thread of its own, so the child never blocks on a full pipe.
final class LineReader: @unchecked Sendable {
    private let condition = NSCondition()
    private var lines: [String] = []
    private var ended = false

    init(_ handle: FileHandle?) {
        Thread.detachNewThread { [self] in
            var pending = Data()
            while let chunk = handle?.availableData, !chunk.isEmpty {
                pending.append(chunk)
                var complete: [String] = []
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    complete.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                    pending.removeSubrange(pending.startIndex...newline)
                }
                condition.withLock { lines += complete; condition.broadcast() }
            }
            condition.withLock { ended = true; condition.broadcast() }
        }
    }

    /// Waits until `count` lines were read or the output ended; returns the count read.
    func waitForLines(_ count: Int) -> Int {
        condition.withLock {
            while lines.count < count && !ended { condition.wait() }
            return lines.count
        }
    }

    /// Waits for the end of the output; returns every line.
    func waitForEnd() -> [String] {
        condition.withLock {
            while !ended { condition.wait() }
            return lines
        }
    }
}
