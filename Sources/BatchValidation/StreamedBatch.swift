/// A batch whose input arrives piece by piece (an HTTP request body): each piece pushed returns
/// the rows of the records it completed, exactly as ``BatchRunner`` writes them for the same
/// bytes read from a file, with the same `input.*` codes for damaged records.
///
/// Records are framed by ``RecordChunker`` and checked by the same chunk pass as a batch run, on
/// the caller's thread. Memory stays bounded by one chunk plus one record
/// (``BatchConfiguration/maxRecordBytes``; the rest of a longer record is skipped, not kept),
/// however many bytes are pushed. Lines and JSONL only: CSV needs its header first.
///
/// Not thread-safe: one caller pushes at a time.
public final class StreamedBatch {
    private let source = PushedInput()
    private let chunker: RecordChunker
    private let context: ChunkContext
    private var nextNumber = 1
    private var output = OutputBuffer()
    /// Counts of every record checked so far.
    public private(set) var tally = Tally()

    /// Creates a batch of `configuration.input` records (`lines` or `jsonl`) checked by `checker`
    /// and written as `configuration.writer` says.
    ///
    /// - Throws: ``InputError`` when the input format is CSV.
    public init(configuration: BatchConfiguration, checker: any FieldChecker) throws(InputError) {
        guard configuration.input != .csv else {
            throw InputError(name: "-", reason: "a streamed batch reads lines or JSONL, not CSV")
        }
        let writer = RecordWriter(options: configuration.writer)
        let decoder: RecordDecoder
        do {
            decoder = try RecordDecoder.make(format: configuration.input, fields: configuration.fields, header: nil)
        } catch {
            throw InputError(name: "-", reason: error.reason)
        }
        chunker = RecordChunker(input: source, framing: configuration.input.framing, maxRecordBytes: configuration.maxRecordBytes,
                                chunkBytes: configuration.chunkBytes, maxRecordsPerChunk: configuration.maxRecordsPerChunk)
        let shortcuts = checker.shortcuts
        context = ChunkContext(file: "-", jsonlPrefix: writer.jsonlPrefix(file: "-"), decoder: decoder, checker: shortcuts,
                               indexedRules: shortcuts.indexedRules, plainValidAsIs: shortcuts.validAsIsArePlainASCII,
                               writer: writer, fixed: configuration.fixedContext, failFast: false)
    }

    /// Adds the next bytes of the input.
    ///
    /// - Returns: The rows of every record these bytes completed (empty while a record is still
    ///   open).
    public func push(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        source.pending.append(contentsOf: bytes)
        return drain()
    }

    /// Ends the input: the last record, if it has no line feed, is checked now.
    ///
    /// - Returns: Its row, or nothing.
    public func finish() -> [UInt8] {
        source.isFinished = true
        return drain()
    }

    /// Ends the input early because of `damage` (a sender that stalled): the record still open,
    /// if any, is dropped unchecked, and one row for the next record number says why.
    ///
    /// - Returns: That row (empty when the writer shows only valid records).
    public func stop(_ damage: InputDamage) -> [UInt8] {
        var row: [UInt8] = []
        var rendered = RenderedViolations()
        context.writer.record(file: "-", prefix: context.jsonlPrefix, number: nextNumber, value: nil, verdict: .damaged(damage),
                              rendered: &rendered, into: &row)
        tally.add(.damaged(damage))
        nextNumber += 1
        return row
    }

    /// Checks every chunk the chunker can frame from what was pushed so far.
    private func drain() -> [UInt8] {
        var rows: [UInt8] = []
        // INVARIANT: a pushed input never fails to read, so the chunker never throws.
        while let next = try? chunker.next() {
            var chunk = next
            chunk.firstNumber = nextNumber
            nextNumber += chunk.recordCount
            let result = context.process(chunk, output: output)
            output = result.output
            tally.merge(result.tally)
            rows.append(bytes: output.bytes)
            chunker.recycle(chunk)
        }
        return rows
    }
}

/// Bytes pushed by a ``StreamedBatch``, read by its chunker: dry (nil) until more are pushed or
/// the input is finished.
final class PushedInput: RecordSource {
    var pending: [UInt8] = []
    var isFinished = false
    private var offset = 0

    func readAvailable(into buffer: inout [UInt8], count: Int) throws(InputError) -> Int? {
        let available = pending.count - offset
        guard available > 0 else {
            pending.removeAll(keepingCapacity: true)
            offset = 0
            return isFinished ? 0 : nil
        }
        let taken = min(count, available)
        buffer.append(contentsOf: pending[offset..<offset + taken])
        offset += taken
        return taken
    }
}
