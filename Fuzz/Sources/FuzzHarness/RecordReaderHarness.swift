import BatchValidation
import Foundation

/// The batch CLI's record readers (`BatchRunner` with lines, CSV or JSONL input) on arbitrary
/// bytes, through a real input file and a JSONL output file, with a checker that accepts every
/// field.
///
/// Input layout: the first byte picks the format (`% 3`: lines, CSV, JSONL) and, for lines, a
/// small record-size limit (`/ 3 % 5`: 4, 16, 64, 256 bytes or the default 1 MiB); the rest is
/// the file.
///
/// Checks, against ``ReferenceFraming`` (a plain re-implementation of the framing rules):
/// exactly one output record per input record, numbered 1, 2, 3, …; every record is either
/// valid or carries exactly one `input.*` code; for lines, each record's code is the one the
/// reference predicts (`input.too-long`, `input.empty`, `input.nul-byte`, `input.invalid-utf8`).
public enum RecordReaderHarness {
    static let limits = [4, 16, 64, 256, 1 << 20]
    static let knownCodes: Set<String> = [
        "input.invalid-utf8", "input.nul-byte", "input.empty", "input.too-long", "input.malformed-json",
        "input.malformed-csv", "input.missing-field", "input.not-a-string",
    ]

    @Sendable public static func run(_ input: UnsafeRawBufferPointer) -> [FuzzFinding] {
        guard let first = input.first else { return [] }
        let format = [InputFormat.lines, .csv, .jsonl][Int(first) % 3]
        let limit = format == .lines ? limits[Int(first) / 3 % limits.count] : 1 << 20
        let file = Array(input[1...])
        guard let output = run(file, format: format, limit: limit) else { return [FuzzFinding("cannot use temporary files")] }
        var findings: [FuzzFinding] = []

        let records = ReferenceFraming.records(file, format: format)
        if output.unreadable {
            // Only a damaged CSV header row makes an input unreadable; then no record is written.
            if format != .csv || !output.lines.isEmpty {
                findings.append(FuzzFinding("\(format): input reported unreadable with \(output.lines.count) records out"))
            }
            return findings
        }
        let expected = format == .csv ? Array(records.dropFirst()) : records
        if output.lines.count != expected.count {
            findings.append(FuzzFinding("\(format): \(expected.count) records in, \(output.lines.count) out"))
            return findings
        }
        for (index, line) in output.lines.enumerated() {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                  let number = object["record"] as? Int, let valid = object["valid"] as? Bool,
                  let errors = object["errors"] as? [[String: Any]]
            else {
                findings.append(FuzzFinding("output record \(index + 1) is not a record object"))
                continue
            }
            if number != index + 1 { findings.append(FuzzFinding("output record \(index + 1) is numbered \(number)")) }
            let codes = errors.compactMap { $0["code"] as? String }
            if valid != codes.isEmpty || codes.count > 1 || !codes.allSatisfy(knownCodes.contains) {
                findings.append(FuzzFinding("record \(number): valid \(valid) with codes \(codes)"))
            }
            if format == .lines {
                let want = ReferenceFraming.lineDamage(expected[index], limit: limit)
                if codes.first != want {
                    findings.append(FuzzFinding("record \(number): code \(codes.first ?? "none"), reference \(want ?? "none")"))
                }
            }
        }
        return findings
    }

    struct Output {
        var lines: [[UInt8]]
        var unreadable: Bool
        var total: Tally
    }

    /// A checker that accepts every field.
    static let acceptAll = ClosureChecker { _, _ in FieldOutcome() }

    /// Runs the batch engine on `file` written to a temporary file; nil when temporary files fail.
    ///
    /// Files are handled with POSIX calls: Foundation's `FileManager.contents(atPath:)` leaks a
    /// 4 KiB buffer on empty files, which LeakSanitizer reports.
    ///
    /// - Parameters:
    ///   - jobs: worker threads.
    ///   - chunking: `chunkBytes` and `maxRecordsPerChunk`; nil for the defaults.
    ///   - checker: the field checker (every field valid by default).
    static func run(_ file: [UInt8], format: InputFormat, limit: Int, jobs: Int = 1, chunking: (bytes: Int, records: Int)? = nil,
                    checker: ClosureChecker = acceptAll) -> Output? {
        var template = Array("/tmp/fuzz-records-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { return nil }
        let directory = String(cString: made)
        let inputPath = directory + "/in", outputPath = directory + "/out", errorPath = directory + "/err"
        defer {
            for path in [inputPath, outputPath, errorPath] { unlink(path) }
            rmdir(directory)
        }
        guard writeFile(inputPath, file), let output = try? OutputSink.file(outputPath),
              let errors = try? OutputSink.file(errorPath)
        else { return nil }
        let configuration = BatchConfiguration(
            input: format, fields: FieldSelection(value: format == .jsonl ? .name("v") : nil),
            writer: WriterOptions(format: .jsonl), maxRecordBytes: limit, jobs: jobs)
        var configured = configuration
        if let chunking {
            configured.chunkBytes = chunking.bytes
            configured.maxRecordsPerChunk = chunking.records
        }
        let report = BatchRunner(configuration: configured, checker: checker, output: output, errors: errors).run([InputSpec(path: inputPath)])
        withExtendedLifetime((output, errors)) {}
        guard let written = readFile(outputPath) else { return nil }
        let lines = written.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).map(Array.init)
        return Output(lines: lines, unreadable: !report.unreadable.isEmpty, total: report.total)
    }

    static func writeFile(_ path: String, _ bytes: [UInt8]) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return bytes.withUnsafeBytes { raw in raw.isEmpty || write(fd, raw.baseAddress, raw.count) == raw.count }
    }

    static func readFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let got = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if got < 0 { return nil }
            if got == 0 { return bytes }
            bytes += buffer[0..<got]
        }
    }
}

/// The batch engine with **2 jobs** and tiny chunks against the plain 1-job run with default
/// chunks, on the same arbitrary bytes: ordering across workers and every chunk and read
/// boundary.
///
/// Input layout: the first byte as in ``RecordReaderHarness`` (format and, for lines, the record
/// limit); the second byte picks the chunking of the 2-job run (`& 7`: 1, 2, 3, 5, 8, 13, 64 or
/// 4,096 bytes read at a time; `>> 3 & 3`: at most 1, 2, 3 or 16,384 records a chunk); the rest
/// is the file. The checker rejects values containing `x` (code `fuzz.x`) so valid and invalid
/// records interleave.
///
/// Checks: both runs agree on whether the input is readable, write byte-identical output (so the
/// same records, in the same order, with the same numbers and codes) and count the same totals;
/// the 2-job run writes as many records as ``ReferenceFraming`` frames.
public enum RecordReaderJobsHarness {
    static let chunkBytes = [1, 2, 3, 5, 8, 13, 64, 4096]
    static let recordsPerChunk = [1, 2, 3, 16_384]
    static let rejectX = ClosureChecker { value, _ in
        value.utf8.contains(UInt8(ascii: "x"))
            ? FieldOutcome(violations: [FieldViolation(code: "fuzz.x", rule: "fuzz.x", message: "contains x")])
            : FieldOutcome(normalized: value)
    }

    @Sendable public static func run(_ input: UnsafeRawBufferPointer) -> [FuzzFinding] {
        guard input.count >= 2 else { return [] }
        let first = input[0], second = input[1]
        let format = [InputFormat.lines, .csv, .jsonl][Int(first) % 3]
        let limit = format == .lines ? RecordReaderHarness.limits[Int(first) / 3 % RecordReaderHarness.limits.count] : 1 << 20
        let chunking = (bytes: chunkBytes[Int(second) & 7], records: recordsPerChunk[Int(second >> 3) & 3])
        let file = Array(input[2...])
        guard let simple = RecordReaderHarness.run(file, format: format, limit: limit, checker: rejectX),
              let parallel = RecordReaderHarness.run(file, format: format, limit: limit, jobs: 2, chunking: chunking, checker: rejectX)
        else { return [FuzzFinding("cannot use temporary files")] }
        let setup = "\(format), 2 jobs, \(chunking.bytes)-byte reads, ≤ \(chunking.records) records a chunk"
        if simple.unreadable != parallel.unreadable {
            return [FuzzFinding("\(setup): unreadable \(parallel.unreadable), 1 job: \(simple.unreadable)")]
        }
        var findings: [FuzzFinding] = []
        if let index = simple.lines.indices.first(where: { $0 < parallel.lines.count && simple.lines[$0] != parallel.lines[$0] }) {
            findings.append(FuzzFinding("\(setup): output record \(index + 1) is `\(String(decoding: parallel.lines[index], as: UTF8.self))`, "
                                        + "1 job: `\(String(decoding: simple.lines[index], as: UTF8.self))`"))
        } else if simple.lines.count != parallel.lines.count {
            findings.append(FuzzFinding("\(setup): \(parallel.lines.count) output records, 1 job: \(simple.lines.count)"))
        }
        if simple.total != parallel.total {
            findings.append(FuzzFinding("\(setup): totals \(parallel.total.records)/\(parallel.total.valid) valid, "
                                        + "1 job: \(simple.total.records)/\(simple.total.valid)"))
        }
        if !parallel.unreadable {
            let records = ReferenceFraming.records(file, format: format)
            let expected = format == .csv ? max(0, records.count - 1) : records.count
            if parallel.lines.count != expected {
                findings.append(FuzzFinding("\(setup): \(expected) records in, \(parallel.lines.count) out"))
            }
        }
        return findings
    }
}

/// The batch framing rules written out plainly, for ``RecordReaderHarness``: a leading UTF-8
/// byte order mark is dropped; lines end at LF (a CR before it is dropped); a CSV row also
/// continues through line breaks inside a quoted field (a quote opens one only at a field's
/// start), and a quote still open at the end of the input makes its line one malformed record,
/// after which framing starts afresh on the next line.
enum ReferenceFraming {
    static func records(_ file: [UInt8], format: InputFormat) -> [[UInt8]] {
        var bytes = file
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        var records: [[UInt8]] = []
        var start = 0
        while start < bytes.count {
            let end = format == .csv ? csvRowEnd(bytes, from: start) : lineEnd(bytes, from: start)
            records.append(Array(bytes[start..<min(end, bytes.count)]))
            start = end + 1
        }
        return records
    }

    static func lineEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
        return index
    }

    /// The LF ending the CSV row at `start`; an unclosed quote ends the row at the next LF.
    static func csvRowEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var atFieldStart = true
        var quoted = false
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if quoted {
                if byte == UInt8(ascii: "\"") {
                    if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\"") { index += 1 } else { quoted = false; atFieldStart = false }
                }
            } else if byte == UInt8(ascii: "\n") {
                return index
            } else if byte == UInt8(ascii: ",") {
                atFieldStart = true
            } else if byte == UInt8(ascii: "\"") && atFieldStart {
                quoted = true
            } else {
                atFieldStart = false
            }
            index += 1
        }
        return quoted ? lineEnd(bytes, from: start) : bytes.count
    }

    /// The damage code of a raw line record (its CR still on): too long (counting the CR), then
    /// after dropping a final CR: empty, NUL byte, invalid UTF-8, or nil.
    static func lineDamage(_ raw: [UInt8], limit: Int) -> String? {
        if raw.count > limit { return "input.too-long" }
        let record = raw.last == UInt8(ascii: "\r") ? Array(raw.dropLast()) : raw
        if record.isEmpty { return "input.empty" }
        if record.contains(0) { return "input.nul-byte" }
        if String(validating: record, as: UTF8.self) == nil { return "input.invalid-utf8" }
        return nil
    }
}
