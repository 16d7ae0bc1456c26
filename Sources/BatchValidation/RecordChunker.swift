#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How records are delimited in the byte stream.
enum Framing: Sendable {
    /// One record per line (LF; a CR before the LF is dropped).
    case lines
    /// RFC 4180 rows: a line break inside a quoted field does not end the row.
    case csv
}

/// One framed record: a byte range in its chunk, or damage found while framing.
///
/// Plain data (no references), so arrays of records cost no reference counting.
struct RawRecord: Sendable {
    /// Damage the framing itself found.
    enum Flaw: UInt8, Sendable { case none, tooLong, unclosedQuote }

    var start: Int
    var end: Int
    var flaw = Flaw.none

    /// The damage for this record, given the chunker's byte limit.
    func damage(limit: Int) -> InputDamage? {
        switch flaw {
        case .none: nil
        case .tooLong: .tooLong(limit: limit)
        case .unclosedQuote: .malformedCSV("a quoted field is not closed")
        }
    }
}

/// A run of consecutive records sharing one byte buffer; the unit of parallel work.
struct RecordChunk: Sendable {
    var bytes: [UInt8]
    var records: [RawRecord]
    /// The 1-based number of `records[0]` within its input.
    var firstNumber: Int
    /// The byte limit records were framed with (for ``InputDamage/tooLong(limit:)``).
    var maxRecordBytes: Int
}

/// Splits an input into chunks of records, streaming: memory stays bounded by the chunk size
/// plus one record, however large the input.
///
/// A record longer than `maxRecordBytes` is reported as ``InputDamage/tooLong(limit:)`` and
/// its remaining bytes are skipped up to the next line feed without being kept.
final class RecordChunker {
    let input: InputFile
    let framing: Framing
    let maxRecordBytes: Int
    let chunkBytes: Int
    let maxRecordsPerChunk: Int

    private var carry: [UInt8] = []
    private var spareBuffers: [[UInt8]] = []
    private var spareRecords: [[RawRecord]] = []
    private var atEnd = false
    private var atStart = true
    private var skipping = false
    private var nextNumber = 1

    init(input: InputFile, framing: Framing, maxRecordBytes: Int, chunkBytes: Int = 128 * 1024, maxRecordsPerChunk: Int = 16384) {
        self.input = input
        self.framing = framing
        self.maxRecordBytes = max(1, maxRecordBytes)
        self.chunkBytes = max(4096, chunkBytes)
        self.maxRecordsPerChunk = max(1, maxRecordsPerChunk)
    }

    /// The next chunk, or nil at the end of the input.
    func next() throws(InputError) -> RecordChunk? {
        // Reuse the storage of chunks already written: no fresh pages, no regrowth.
        var buffer = spareBuffers.popLast() ?? []
        buffer.removeAll(keepingCapacity: true)
        buffer.append(contentsOf: carry)
        carry.removeAll(keepingCapacity: true)
        var records = spareRecords.popLast() ?? []
        records.removeAll(keepingCapacity: true)
        var start = 0          // first byte of the record being framed
        var scanFrom = 0       // where to resume looking for its end (lines only)
        var csvState = CSVScanState()

        while records.count < maxRecordsPerChunk {
            if skipping {
                if let newline = find(UInt8(ascii: "\n"), in: buffer, from: start) {
                    start = newline + 1
                    scanFrom = start
                    skipping = false
                } else {
                    buffer.removeSubrange(start...)
                    if atEnd { skipping = false; break }
                    try fill(&buffer)
                }
                continue
            }
            if let end = findEnd(in: buffer, start: start, scanFrom: &scanFrom, csv: &csvState) {
                records.append(frame(buffer, start, end))
                start = end + 1
                scanFrom = start
                csvState = CSVScanState()
                continue
            }
            if buffer.count - start > maxRecordBytes {
                records.append(RawRecord(start: start, end: start, flaw: .tooLong))
                buffer.removeSubrange(start...)
                skipping = true
                csvState = CSVScanState()
                continue
            }
            if atEnd, framing == .csv, csvState.isInQuotedField, let newline = find(UInt8(ascii: "\n"), in: buffer, from: start) {
                // A quote left open until the end of the input was a stray one: report its
                // line as malformed and frame the following lines afresh instead of losing them.
                records.append(RawRecord(start: start, end: start, flaw: .unclosedQuote))
                start = newline + 1
                scanFrom = start
                csvState = CSVScanState()
                continue
            }
            if atEnd {
                if start < buffer.count { records.append(frame(buffer, start, buffer.count)) }
                start = buffer.count
                break
            }
            if !records.isEmpty && buffer.count >= chunkBytes { break }
            try fill(&buffer)
        }

        if start < buffer.count {
            carry.append(contentsOf: buffer[start...])
            buffer.removeSubrange(start...)
        }
        guard !records.isEmpty else { return nil }
        let chunk = RecordChunk(bytes: buffer, records: records, firstNumber: nextNumber, maxRecordBytes: maxRecordBytes)
        nextNumber += records.count
        return chunk
    }

    /// Takes back a chunk that has been processed, to reuse its storage for later chunks.
    func recycle(_ chunk: consuming RecordChunk) {
        guard spareBuffers.count < 64 else { return }
        spareBuffers.append(chunk.bytes)
        spareRecords.append(chunk.records)
    }

    /// Reads the next block; drops a UTF-8 byte order mark at the very start of the input.
    private func fill(_ buffer: inout [UInt8]) throws(InputError) {
        if try input.read(into: &buffer, count: chunkBytes) == 0 { atEnd = true }
        if atStart, buffer.count >= 3 || atEnd {
            atStart = false
            if buffer.starts(with: [0xEF, 0xBB, 0xBF]) { buffer.removeFirst(3) }
        }
    }

    /// A record ending before `end` (the terminator's index), with a trailing CR dropped.
    private func frame(_ buffer: [UInt8], _ start: Int, _ end: Int) -> RawRecord {
        if end - start > maxRecordBytes {
            return RawRecord(start: start, end: start, flaw: .tooLong)
        }
        var last = end
        if last > start, buffer[last - 1] == UInt8(ascii: "\r") { last -= 1 }
        return RawRecord(start: start, end: last)
    }

    /// The index of the byte that ends the record starting at `start`, if it is in `buffer`.
    private func findEnd(in buffer: [UInt8], start: Int, scanFrom: inout Int, csv: inout CSVScanState) -> Int? {
        switch framing {
        case .lines:
            let found = find(UInt8(ascii: "\n"), in: buffer, from: scanFrom)
            if found == nil { scanFrom = buffer.count }
            return found
        case .csv:
            let found = csv.scan(buffer, from: scanFrom)
            if found == nil { scanFrom = buffer.count }
            return found
        }
    }
}

/// The index of the first `byte` in `buffer[from...]`, found with `memchr`.
func find(_ byte: UInt8, in buffer: [UInt8], from: Int) -> Int? {
    guard from < buffer.count else { return nil }
    return buffer.withUnsafeBytes { raw -> Int? in
        guard let base = raw.baseAddress, let hit = memchr(base + from, Int32(byte), raw.count - from) else { return nil }
        return UnsafeRawPointer(hit) - base
    }
}
