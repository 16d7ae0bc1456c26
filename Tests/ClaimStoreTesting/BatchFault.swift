import Availability
import Foundation

/// Runs the `validate` binary's batch claim as a child process, causes a store fault part-way
/// (stopping the database, holding its lock, …) and reads every row the batch still prints.
public enum BatchFault {
    /// One output row of `validate names claim --input jsonl … --format jsonl`.
    public struct Row: Sendable, Hashable {
        public var record: Int
        public var name: String
        public var claimed: Bool
        public var codes: [String]
    }

    /// Everything the batch printed, and how it ended.
    public struct Report: Sendable {
        public var rows: [Row]
        public var status: Int32
    }

    /// Writes the batch file, starts `validate names claim --input jsonl FILE --store STORE
    /// --format jsonl`, calls `fault` once `faultAfter` rows have been printed, then reads the
    /// rest of the output and waits for the exit.
    ///
    /// - Throws: ``CheckFailure`` when the binary is missing or prints something that is not a row.
    public static func run(store: String, records: [(name: String, user: String)], faultAfter: Int,
                           in directory: URL, fault: () throws -> Void) throws -> Report {
        let file = try BatchKill.writeBatch(records, in: directory)
        let process = try BatchKill.start(store: store, file: file)
        let reader = (process.standardOutput as? Pipe)?.fileHandleForReading
        var pending = Data()
        var lines: [String] = []
        var faulted = false
        do {
            while let chunk = reader?.availableData, !chunk.isEmpty {
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                    pending.removeSubrange(pending.startIndex...newline)
                }
                if !faulted, lines.count >= faultAfter {
                    faulted = true
                    try fault()
                }
            }
        } catch {
            process.terminate()
            process.waitUntilExit()
            throw error
        }
        process.waitUntilExit()
        try require(faulted, "the batch ended after \(lines.count) rows, before the fault at \(faultAfter)")
        let rows = try lines.map { line -> Row in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let record = object["record"] as? Int, let name = object["name"] as? String,
                  let claimed = object["claimed"] as? Bool, let errors = object["errors"] as? [[String: Any]] else {
                throw CheckFailure("not a batch row: \(line)")
            }
            return Row(record: record, name: name, claimed: claimed, codes: errors.compactMap { $0["code"] as? String })
        }
        return Report(rows: rows, status: process.terminationStatus)
    }

    /// Checks the shape a faulted batch must have: exit 2; one row per input, in order; claimed
    /// rows, then the rows of the one transaction that met the fault (the whole transaction of
    /// `batchSize` records, each with the same fault code from `faultCodes`), then only `AV3016`
    /// rows (not attempted). Returns the names reported claimed.
    public static func check(_ report: Report, records: [(name: String, user: String)], faultCodes: Set<String>,
                             batchSize: Int = BatchKill.batchSize) throws -> [String] {
        try require(report.status == 2, "exit status \(report.status), expected 2")
        try require(report.rows.map(\.record) == Array(1...records.count),
                    "\(report.rows.count) rows for \(records.count) records (or out of order)")
        try require(report.rows.map(\.name) == records.map(\.name), "rows do not follow the input names")
        guard let faultIndex = report.rows.firstIndex(where: { !$0.claimed }) else {
            throw CheckFailure("no row reports the fault")
        }
        try require(faultIndex % batchSize == 0, "the fault met record \(faultIndex + 1), not the first of a transaction of \(batchSize)")
        let faulted = report.rows[faultIndex..<min(faultIndex + batchSize, records.count)]
        let code = report.rows[faultIndex].codes
        try require(code.count == 1 && faultCodes.contains(code[0]),
                    "fault row \(faultIndex + 1) has codes \(code), expected one of \(faultCodes.sorted())")
        for row in faulted {
            try require(!row.claimed && row.codes == code, "row \(row.record) in the failed transaction: \(row)")
        }
        for row in report.rows[faulted.endIndex...] {
            try require(!row.claimed && row.codes == ["AV3016"], "row \(row.record) after the fault: \(row)")
        }
        return report.rows[..<faultIndex].map(\.name)
    }
}
