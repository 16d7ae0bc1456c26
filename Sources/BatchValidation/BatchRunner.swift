#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FieldValidation
import Patterns

/// Everything that shapes one batch run, apart from the checker and the inputs.
public struct BatchConfiguration: Sendable {
    /// How records are framed and where the field is.
    public var input: InputFormat
    /// Which fields to read (CSV / JSONL).
    public var fields: FieldSelection
    /// Context used where a record has none of its own (`--username`, …).
    public var fixedContext: RecordContext
    /// How records are rendered.
    public var writer: WriterOptions
    /// Stop after the first invalid record (its output is still written).
    public var failFast: Bool
    /// The longest record accepted, in bytes; longer ones get `input.too-long` (default 1 MiB).
    public var maxRecordBytes: Int
    /// Threads checking records: the calling thread, which also reads and writes, and `jobs - 1`
    /// workers (defaults to the number of active cores; the initializer keeps it within
    /// 1...``maxJobs``).
    public var jobs: Int
    /// Whether a progress bar may be drawn (the caller checks TTY and `--quiet`); it is drawn
    /// only while reading a regular file.
    public var showsProgress: Bool
    /// Bytes read at a time, and the size a chunk of records grows to before it is handed to a
    /// worker (default 128 KiB). Tests and the fuzz harness set tiny values to put chunk and
    /// read boundaries everywhere; that only makes a run slower.
    public var chunkBytes = 128 * 1024
    /// The most records one chunk holds (default 16,384); tests set 1–3 for many chunks.
    public var maxRecordsPerChunk = 16_384

    /// Creates a configuration.
    public init(input: InputFormat = .lines, fields: FieldSelection = FieldSelection(), fixedContext: RecordContext = RecordContext(),
                writer: WriterOptions, failFast: Bool = false, maxRecordBytes: Int = 1 << 20,
                jobs: Int = BatchConfiguration.activeCores, showsProgress: Bool = false) {
        self.input = input
        self.fields = fields
        self.fixedContext = fixedContext
        self.writer = writer
        self.failFast = failFast
        self.maxRecordBytes = maxRecordBytes
        self.jobs = min(max(1, jobs), Self.maxJobs)
        self.showsProgress = showsProgress
    }

    /// The most worker threads a run may ask for (`--jobs`): far more than cores on any machine
    /// today, and few enough that the threads and their chunks in flight fit in memory.
    public static let maxJobs = 256

    /// The number of cores this process may use.
    public static var activeCores: Int {
        #if canImport(Glibc)
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        #else
        max(1, Int(sysconf(_SC_NPROCESSORS_ONLN)))
        #endif
    }
}

/// What happened in a run: totals, per-input tallies and problems.
public struct BatchReport: Sendable {
    /// Totals over every readable input.
    public var total = Tally()
    /// One tally per input that could be read, in order.
    public var files: [(name: String, tally: Tally)] = []
    /// Inputs that could not be read (or whose CSV header was unusable).
    public var unreadable: [InputError] = []
    /// True when `--fail-fast` stopped the run early.
    public var stoppedEarly = false
    /// Why writing the output failed, if it did.
    public var outputFailure: String?

    /// The process exit status: 2 unreadable input or output, 1 any invalid record, else 0.
    public var exitStatus: Int32 {
        if !unreadable.isEmpty || outputFailure != nil { return 2 }
        return total.invalid > 0 ? 1 : 0
    }
}

/// Runs a checker over inputs: reads chunks of records, checks them on all cores and writes
/// the results in input order, with exactly one output record per input record.
///
/// Memory stays bounded: at most `8 × jobs` chunks are in flight at once for summaries, and
/// `4 × jobs` when every record is written, each with its output; a chunk is about 128 KiB of
/// input plus at most one record, and ≤ 16384 records.
public final class BatchRunner {
    private let configuration: BatchConfiguration
    private let checker: any FieldChecker
    private let output: OutputSink
    private let errors: OutputSink
    private let writer: RecordWriter

    /// Creates a runner.
    ///
    /// - Parameters:
    ///   - configuration: formats, fields, limits and parallelism.
    ///   - checker: the validation, called concurrently.
    ///   - output: where records and summaries go.
    ///   - errors: where unreadable inputs are reported (and the progress bar is drawn).
    public init(configuration: BatchConfiguration, checker: any FieldChecker, output: OutputSink, errors: OutputSink) {
        self.configuration = configuration
        self.checker = checker
        self.output = output
        self.errors = errors
        self.writer = RecordWriter(options: configuration.writer)
    }

    /// Processes every input in order and writes the footer (summary) at the end.
    public func run(_ inputs: [InputSpec]) -> BatchReport {
        var report = BatchReport()
        var header: [UInt8] = []
        writer.header(into: &header)
        output.write(header)
        for spec in inputs where !report.stoppedEarly {
            do throws(InputError) {
                let tally = try runOne(spec, report: &report)
                report.files.append((name: spec.path, tally: tally))
                report.total.merge(tally)
            } catch {
                report.unreadable.append(error)
                errors.write("validate: error: \(error)\n")
            }
        }
        var footer: [UInt8] = []
        writer.footer(total: report.total, files: report.files, into: &footer)
        output.write(footer)
        if let failure = output.failure {
            report.outputFailure = failure
            errors.write("validate: error: cannot write \(output.name): \(failure)\n")
        }
        return report
    }

    // MARK: - One input

    private func runOne(_ spec: InputSpec, report: inout BatchReport) throws(InputError) -> Tally {
        let file = try InputFile(spec)
        let chunker = RecordChunker(input: file, framing: configuration.input.framing, maxRecordBytes: configuration.maxRecordBytes,
                                    chunkBytes: configuration.chunkBytes, maxRecordsPerChunk: configuration.maxRecordsPerChunk)
        var nextNumber = 1
        // CSV: the rest of the first chunk, after its header row.
        var csvRows: RecordChunk?

        // CSV: the first row is the header; it names the columns and is not a record.
        var headerRow: [UInt8]?
        if configuration.input == .csv, var first = try chunker.next() {
            let row = first.records.removeFirst()
            if let damage = row.damage(limit: first.maxRecordBytes) {
                throw InputError(name: file.name, reason: "the header row is unusable: \(damage.message)", location: (1, 1))
            }
            headerRow = Array(first.bytes[row.start..<row.end])
            // A line break inside a quoted column name is a quote left open: the rows it swallows
            // would never be checked, so the input is refused instead.
            if let header = headerRow, let lineBreak = header.firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) {
                let column = String(decoding: header[..<lineBreak], as: UTF8.self).count + 1
                throw InputError(name: file.name, reason: "the header row holds a line break inside a quoted column name: a quote is "
                                 + "probably not closed, and the rows after it would not be checked", location: (1, column))
            }
            if !first.records.isEmpty { csvRows = first }
        }
        let decoder: RecordDecoder
        do {
            decoder = try headerRow.withUnsafeOptionalBytes { header throws(HeaderError) in
                try RecordDecoder.make(format: configuration.input, fields: configuration.fields, header: header)
            }
        } catch {
            throw InputError(name: file.name, reason: error.reason)
        }

        let progress = configuration.showsProgress && file.regularFileSize != nil ? ProgressBar(sink: errors) : nil
        defer { progress?.finish() }
        let shortcuts = checker.shortcuts
        let context = ChunkContext(file: file.name, jsonlPrefix: writer.jsonlPrefix(file: file.name),
                                   decoder: decoder, checker: shortcuts, indexedRules: shortcuts.indexedRules,
                                   plainValidAsIs: shortcuts.validAsIsArePlainASCII, writer: writer,
                                   fixed: configuration.fixedContext, failFast: configuration.failFast)
        // Per-record output makes a chunk's result about as large as its input (JSONL more), so
        // those formats keep fewer chunks in flight; summaries carry no output per chunk.
        let window = configuration.jobs * (configuration.writer.format.isPerRecord ? 4 : 8)
        let pipeline: ChunkPipeline
        do {
            pipeline = try ChunkPipeline(context: context, workers: configuration.jobs - 1, window: window)
        } catch {
            throw InputError(name: file.name, reason: error.message)
        }
        defer { pipeline.close() }
        var spareOutputs: [OutputBuffer] = []
        func submit(_ chunk: RecordChunk) {
            var chunk = chunk
            chunk.firstNumber = nextNumber
            nextNumber += chunk.recordCount
            pipeline.submit(chunk, output: spareOutputs.popLast() ?? OutputBuffer())
        }
        if let csvRows { submit(csvRows) }
        var tally = Tally()
        var readFailure: InputError?
        var exhausted = false
        // This thread keeps the window full and writes the oldest chunk's output as soon as it
        // is done; the workers check the rest meanwhile.
        while true {
            while readFailure == nil, !exhausted, pipeline.inFlight < window {
                do throws(InputError) {
                    guard let chunk = try chunker.next() else {
                        exhausted = true
                        break
                    }
                    submit(chunk)
                } catch {
                    // What was read before the failure is still checked and written.
                    readFailure = error
                }
            }
            guard pipeline.inFlight > 0 else { break }
            let (chunk, result) = pipeline.takeOldest()
            output.write(result.output.bytes)
            tally.merge(result.tally)
            chunker.recycle(chunk)
            spareOutputs.append(result.output)
            if result.stopped || output.failure != nil {
                report.stoppedEarly = result.stopped
                return tally
            }
            if let progress, let size = file.regularFileSize {
                progress.update(name: file.name, bytesDone: file.bytesRead, bytesTotal: size, records: tally.records)
            }
        }
        if let readFailure { throw readFailure }
        return tally
    }
}

// MARK: - Chunk processing

/// The output and counts for one chunk.
struct ChunkResult: Sendable {
    var output: OutputBuffer
    var tally = Tally()
    /// True when `--fail-fast` stopped inside this chunk.
    var stopped = false
}

/// Everything a worker needs to turn a chunk into a ``ChunkResult``; immutable, shared.
struct ChunkContext: Sendable {
    let file: String
    /// ``RecordWriter/jsonlPrefix(file:)`` of `file`.
    let jsonlPrefix: [UInt8]
    let decoder: RecordDecoder
    let checker: any FieldCheckerShortcuts
    /// ``FieldCheckerShortcuts/indexedRules`` of `checker`.
    let indexedRules: [IndexedRule]
    /// ``FieldCheckerShortcuts/validAsIsArePlainASCII`` of `checker`.
    let plainValidAsIs: Bool
    let writer: RecordWriter
    let fixed: RecordContext
    let failFast: Bool

    /// Checks every record of `chunk`, writing into `output`, which is emptied first (its
    /// memory is kept, so output pages are not faulted in afresh for every chunk).
    func process(_ chunk: RecordChunk, output: OutputBuffer) -> ChunkResult {
        chunk.bytes.withUnsafeBytes { all in
            var pass = ChunkPass(context: self, chunk: chunk, bytes: all, output: output)
            // Plain lines: the checker frames and accepts the commonest record in one pass.
            let asIs = pass.isLines && pass.clean
            if chunk.unframedLines > 0 {
                // The closures reach the pass through a pointer: a captured variable would be
                // checked for exclusive access on every record.
                withUnsafeMutablePointer(to: &pass) { pass in
                    if asIs {
                        // Valid records that are not written are only counted — when no line
                        // can be too long, as skipped lines are not measured.
                        let writesValid = pass.pointee.perRecord && writer.options.only.admits(true)
                        let skipping = !writesValid && all.count <= chunk.maxRecordBytes
                        let skipped = checker.scanLines(all, skippingValid: skipping) {
                            pass.pointee.handleLine($0, $1, $2)
                        }
                        pass.pointee.result.tally.addValid(skipped)
                    } else {
                        var index = 0
                        frameLines(all) { line in
                            defer { index += 1 }
                            return pass.pointee.handleLine(index, line, .undecided)
                        }
                    }
                }
            } else {
                for raw in chunk.records {
                    let validAsIs = asIs && raw.flaw == .none && raw.end > raw.start
                        && checker.isValidAsIs(UnsafeRawBufferPointer(rebasing: all[raw.start..<raw.end]))
                    if !pass.handle(raw, validAsIs: validAsIs) { break }
                }
            }
            return pass.finish()
        }
    }
}

/// One chunk being checked: its bytes, the next record number and the result so far.
private struct ChunkPass {
    let context: ChunkContext
    let bytes: UnsafeRawBufferPointer
    let maxRecordBytes: Int
    let perRecord: Bool
    let detail: OutcomeDetail
    let isLines: Bool
    /// True when the whole chunk is free of NUL and invalid UTF-8 (line breaks are ASCII, so
    /// record boundaries never split a sequence): one pass usually proves it for every record.
    let clean: Bool
    let firstNumber: Int
    /// The number of the record being handled.
    var number: Int
    var result: ChunkResult
    var rendered = RenderedViolations()
    /// Records rendered by ``RecordWriter/record(file:prefix:number:value:verdict:rendered:into:)``
    /// before they are appended to `result.output`; reused.
    private var scratch: [UInt8] = []
    /// ``ChunkContext/jsonlPrefix`` and the record number, as text. Freed by ``finish()``.
    private var head: RecordHead
    /// The violations of checked records, merged into `result.tally` by ``finish()``.
    var violationCounts = ViolationCounts()
    /// Whether plain lines may be counted (and invalid ones written) with
    /// ``FieldChecker/violatedRules(_:)``.
    private let countsRules: Bool
    /// The JSONL `errors` arrays of the rule bit sets seen so far (the chunk's few distinct
    /// ones), when every rule in the set has a fixed violation.
    private var errorsByRules: [(rules: UInt64, json: UnsafeMutableRawBufferPointer)] = []
    /// Per rule index, the violations counted through ``FieldChecker/violatedRules(_:)``,
    /// merged into `result.tally` by ``finish()``. Allocated per pass.
    private let ruleCounts = UnsafeMutablePointer<Int>.allocate(capacity: 64)

    init(context: ChunkContext, chunk: RecordChunk, bytes: UnsafeRawBufferPointer, output: OutputBuffer) {
        self.context = context
        self.bytes = bytes
        maxRecordBytes = chunk.maxRecordBytes
        perRecord = context.writer.options.format.isPerRecord
        detail = perRecord ? .full : .violationsOnly
        isLines = if case .lines = context.decoder.kind { true } else { false }
        clean = bytes.baseAddress.map { memchr($0, 0, bytes.count) == nil } == true && isValidUTF8(bytes)
        firstNumber = chunk.firstNumber
        countsRules = isLines && !context.indexedRules.isEmpty && context.indexedRules.count <= 64
        ruleCounts.initialize(repeating: 0, count: 64)
        head = context.jsonlPrefix.withUnsafeBytes { RecordHead(prefix: $0, number: chunk.firstNumber) }
        number = chunk.firstNumber
        result = ChunkResult(output: output)
        result.output.removeAll()
        if perRecord { result.output.reserve(chunk.recordCount * 112) }
    }

    /// The result, once every record was handled; frees the pass's own memory.
    mutating func finish() -> ChunkResult {
        head.deallocate()
        for entry in errorsByRules { entry.json.deallocate() }
        violationCounts.merge(into: &result.tally)
        for (index, rule) in context.indexedRules.prefix(64).enumerated() where ruleCounts[index] > 0 {
            result.tally.count(rule.code, ruleCounts[index])
        }
        ruleCounts.deallocate()
        return result
    }

    /// The chunk's line `index`, framed by the worker: limited to `maxRecordBytes`, with a CR
    /// before its LF dropped.
    @inline(__always)
    mutating func handleLine(_ index: Int, _ line: Range<Int>, _ verdict: LineVerdict) -> Bool {
        number = firstNumber + index
        if line.count <= maxRecordBytes {
            switch verdict {
            case .validAsIs:
                // The commonest line, valid as is (so neither empty nor ending in CR), is
                // counted and written right here.
                return takeValidAsIs(UnsafeRawBufferPointer(rebasing: bytes[line]))
            case let .violated(rules) where countsRules:
                // Neither empty nor ending in CR either: the scan's rules stand for the line.
                if let handled = handle(violatedRules: rules) { return handled }
            default: break
            }
        }
        return handleOtherLine(line)
    }

    /// ``handleLine(_:_:_:)`` for a line the scan did not settle.
    private mutating func handleOtherLine(_ line: Range<Int>) -> Bool {
        if line.count > maxRecordBytes {
            return handle(RawRecord(start: line.lowerBound, end: line.lowerBound, flaw: .tooLong), validAsIs: false)
        }
        if line.count > 0, bytes[line.upperBound - 1] == UInt8(ascii: "\r") {
            return handle(RawRecord(start: line.lowerBound, end: line.upperBound - 1), validAsIs: false)
        }
        return handle(RawRecord(start: line.lowerBound, end: line.upperBound), validAsIs: false)
    }

    /// Handles one record; `validAsIs` (plain lines only) means the checker accepted it as it
    /// is, so it is counted (and written) without building an outcome. Returns false to stop
    /// (`--fail-fast`).
    mutating func handle(_ raw: RawRecord, validAsIs: Bool) -> Bool {
        defer { number += 1 }
        let record = UnsafeRawBufferPointer(rebasing: bytes[raw.start..<raw.end])
        if validAsIs { return takeValidAsIs(record) }
        if let damage = raw.damage(limit: maxRecordBytes) ?? (clean ? (record.isEmpty ? .empty : nil) : InputDamage.scan(record)) {
            result.tally.add(emit(.damaged(damage), nil))
            return continuesAfterInvalid()
        }
        // Plain lines, the bulk case: when the checker can say which rules a line broke
        // without building violations, the line is counted by rule and, if invalid, written
        // from those rules. A valid line the output shows needs its normalized value: checked.
        if countsRules, let rules = context.checker.violatedRules(record), let handled = handle(violatedRules: rules) {
            return handled
        }
        if isLines && !perRecord {
            // Summaries: the outcome is only counted.
            return count(context.checker.check(record, context: context.fixed, detail: detail))
        }
        let verdict: Verdict
        if isLines {
            verdict = emit(.checked(context.checker.check(record, context: context.fixed, detail: detail)), record)
        } else {
            switch context.decoder.withFields(record, { check($0) }) {
            case let .success(checked): verdict = checked
            case let .failure(damage): verdict = emit(.damaged(damage), nil)
            }
        }
        guard case let .checked(outcome) = verdict else {
            result.tally.add(verdict)
            return continuesAfterInvalid()
        }
        return count(outcome)
    }

    /// Counts, and writes if the output shows it, a record valid as is.
    @inline(__always)
    private mutating func takeValidAsIs(_ record: UnsafeRawBufferPointer) -> Bool {
        if perRecord { writeValidAsIs(record) }
        result.tally.addValid()
        return true
    }

    /// Counts a checked record; returns false to stop (`--fail-fast`).
    private mutating func count(_ outcome: FieldOutcome) -> Bool {
        result.tally.countStrength(outcome)
        guard !outcome.isValid else {
            result.tally.addValid()
            return true
        }
        result.tally.addInvalid()
        outcome.violations.withUnsafeBufferPointer { violations in
            for violation in violations { violationCounts.add(violation) }
        }
        return continuesAfterInvalid()
    }

    /// Counts, and writes if invalid, the record being handled from the rules it broke; nil when
    /// the output needs more (a valid record it shows, or violations whose wording depends on
    /// the value): then the checker must be asked. Otherwise false means stop (`--fail-fast`).
    private mutating func handle(violatedRules rules: UInt64) -> Bool? {
        let admitted = perRecord && context.writer.options.only.admits(rules == 0)
        guard !admitted || (rules != 0 && writeInvalid(rules)) else { return nil }
        return count(violatedRules: rules)
    }

    /// Counts a record by the bit set of rules it violates; returns false to stop (`--fail-fast`).
    private mutating func count(violatedRules rules: UInt64) -> Bool {
        guard rules != 0 else {
            result.tally.addValid()
            return true
        }
        result.tally.addInvalid()
        var remaining = rules
        while remaining != 0 {
            ruleCounts[remaining.trailingZeroBitCount] += 1
            remaining &= remaining &- 1
        }
        return continuesAfterInvalid()
    }

    /// After an invalid record: false (and the chunk marked stopped) under `--fail-fast`.
    private mutating func continuesAfterInvalid() -> Bool {
        guard context.failFast else { return true }
        result.stopped = true
        return false
    }

    /// Checks one field decoded from a CSV or JSONL record and writes its output.
    private mutating func check(_ fields: DecodedFields) -> Verdict {
        // INVARIANT: line records were scanned whole; decoded fields may still be empty or hold
        // an escaped NUL.
        let verdict = fields.verdict(checker: context.checker, fixed: context.fixed, detail: detail)
        if case .damaged = verdict { return emit(verdict, nil) }
        return emit(verdict, fields.value)
    }

    /// Writes a valid-as-is record: JSONL is staged first, the rest goes straight out.
    private mutating func writeValidAsIs(_ record: UnsafeRawBufferPointer) {
        let writer = context.writer
        guard writer.writesValidAsIsDirectly else {
            _ = emit(.checked(FieldOutcome(validAsIs: record)), record)
            return
        }
        head.move(to: number)
        let head = head.bytes, plain = context.plainValidAsIs
        result.output.write(capacity: writer.validAsIsCapacity(head: head, value: record)) {
            writer.writeValidAsIs(head: head, value: record, plain: plain, into: &$0)
        }
    }

    /// Writes an invalid JSONL record from the rules it broke, when each has a fixed violation;
    /// false (nothing written) otherwise.
    private mutating func writeInvalid(_ rules: UInt64) -> Bool {
        guard context.writer.writesInvalidFromErrors, let errors = errorsJSON(rules) else { return false }
        head.move(to: number)
        let head = head.bytes, writer = context.writer
        result.output.write(capacity: head.count + errors.count + 32) { writer.writeInvalid(head: head, errors: errors, into: &$0) }
        return true
    }

    /// The `errors` array for a set of broken rules, or nil when a rule's wording depends on
    /// the value (or the chunk saw more than 64 sets: the rest go through the checker).
    private mutating func errorsJSON(_ rules: UInt64) -> UnsafeRawBufferPointer? {
        if let known = errorsByRules.first(where: { $0.rules == rules }) { return UnsafeRawBufferPointer(known.json) }
        guard errorsByRules.count < 64 else { return nil }
        var violations: [FieldViolation] = []
        var remaining = rules
        while remaining != 0 {
            guard let violation = context.indexedRules[remaining.trailingZeroBitCount].fixedViolation else { return nil }
            violations.append(violation)
            remaining &= remaining &- 1
        }
        let rendered = RecordWriter.errorsJSON(violations)
        let json = UnsafeMutableRawBufferPointer.allocate(byteCount: rendered.count, alignment: 1)
        json.copyBytes(from: rendered)
        errorsByRules.append((rules: rules, json: json))
        return UnsafeRawBufferPointer(json)
    }

    /// Moves a record rendered into `scratch` to the output.
    private mutating func appendScratch() {
        result.output.append(scratch)
        scratch.removeAll(keepingCapacity: true)
    }

    private mutating func emit(_ verdict: Verdict, _ value: UnsafeRawBufferPointer?) -> Verdict {
        if perRecord {
            context.writer.record(file: context.file, prefix: context.jsonlPrefix, number: number, value: value,
                                  verdict: verdict, rendered: &rendered, into: &scratch)
            appendScratch()
        }
        return verdict
    }
}

extension DecodedFields {
    /// The verdict on a field decoded from a record (or given on its own): damaged when empty
    /// or holding a NUL, else what `checker` says with the record's context filled from `fixed`.
    func verdict(checker: any FieldChecker, fixed: RecordContext, detail: OutcomeDetail) -> Verdict {
        if let damage = InputDamage.scanDecoded(value) { return .damaged(damage) }
        let recordContext = context.filled(from: fixed)
        if let confirmation {
            return .checked(checker.check(value, context: recordContext, confirmation: confirmation, detail: detail))
        }
        return .checked(checker.check(value, context: recordContext, detail: detail))
    }
}

extension InputDamage {
    /// Checks a decoded field (CSV/JSONL): its record was valid UTF-8 without NUL, but the
    /// field itself may be empty or hold an escaped NUL (`\u0000`).
    static func scanDecoded(_ bytes: UnsafeRawBufferPointer) -> InputDamage? {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return .empty }
        if let nul = memchr(base, 0, bytes.count) { return .nulByte(offset: UnsafeRawPointer(nul) - base) }
        return nil
    }
}

extension Optional where Wrapped == [UInt8] {
    /// Calls `body` with the bytes, or with nil.
    func withUnsafeOptionalBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer?) throws(E) -> R) throws(E) -> R {
        switch self {
        case let .some(bytes):
            let result: Result<R, E> = bytes.withUnsafeBytes { raw in Result { () throws(E) in try body(raw) } }
            return try result.get()
        case .none: return try body(nil)
        }
    }
}
