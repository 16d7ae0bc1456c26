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
    /// The records framed by the chunker; empty when ``unframedLines`` is not zero.
    var records: [RawRecord]
    /// For plain lines: how many LF-separated lines `bytes` holds (the last may lack its LF),
    /// left for the worker to frame, so framing runs in parallel and fused with checking.
    var unframedLines = 0
    /// The 1-based number of `records[0]` within its input.
    var firstNumber: Int
    /// The byte limit records were framed with (for ``InputDamage/tooLong(limit:)``).
    var maxRecordBytes: Int

    /// How many records the chunk holds.
    var recordCount: Int { unframedLines > 0 ? unframedLines : records.count }
}

/// Where a ``RecordChunker`` reads its bytes: a file or stdin (``InputFile``), or bytes pushed
/// to it piece by piece (``PushedInput``, an HTTP request body).
protocol RecordSource: AnyObject {
    /// Appends up to `count` bytes to `buffer`; returns how many were appended (0 at the end of
    /// the input), or nil when the source has no bytes yet but more will come.
    func readAvailable(into buffer: inout [UInt8], count: Int) throws(InputError) -> Int?
}

/// Splits an input into chunks of records, streaming: memory stays bounded by the chunk size
/// plus one record, however large the input.
///
/// A record longer than `maxRecordBytes` is reported as ``InputDamage/tooLong(limit:)`` and
/// its remaining bytes are skipped up to the next line feed without being kept.
///
/// With a source that can run dry (``RecordSource/readAvailable(into:count:)`` returning nil),
/// ``next()`` returns nil early, keeping the partial record; call it again once the source has
/// more. Only a source at its end makes the partial last record a record.
final class RecordChunker {
    let input: any RecordSource
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

    init(input: any RecordSource, framing: Framing, maxRecordBytes: Int, chunkBytes: Int = 128 * 1024, maxRecordsPerChunk: Int = 16384) {
        self.input = input
        self.framing = framing
        self.maxRecordBytes = max(1, maxRecordBytes)
        self.chunkBytes = max(1, chunkBytes)
        self.maxRecordsPerChunk = max(1, maxRecordsPerChunk)
    }

    /// The next chunk, or nil at the end of the input.
    func next() throws(InputError) -> RecordChunk? {
        if framing == .lines, !skipping, let chunk = try nextLines() { return chunk }
        return try nextFramed()
    }

    /// Plain lines, the common case: a chunk of whole lines cut at the last LF, counted but not
    /// framed. Nil when the buffer holds no whole line (a line longer than a chunk, or the end
    /// of the input): those go through ``nextFramed()``, which limits and skips long lines.
    private func nextLines() throws(InputError) -> RecordChunk? {
        var buffer = spareBuffers.popLast() ?? []
        buffer.removeAll(keepingCapacity: true)
        buffer.append(contentsOf: carry)
        carry.removeAll(keepingCapacity: true)
        while buffer.count < chunkBytes && !atEnd {
            guard try fill(&buffer) else { break }
        }
        guard var cut = buffer.withUnsafeBytes({ $0.lastIndex(of: 0x0A) }).map({ $0 + 1 }) else {
            carry = buffer
            return nil
        }
        var lines = buffer.withUnsafeBytes { countLineFeeds(UnsafeRawBufferPointer(rebasing: $0[..<cut])) }
        if lines > maxRecordsPerChunk {
            cut = lineStart(after: maxRecordsPerChunk, in: buffer)
            lines = maxRecordsPerChunk
        }
        carry.append(contentsOf: buffer[cut...])
        buffer.removeSubrange(cut...)
        let chunk = RecordChunk(bytes: buffer, records: [], unframedLines: lines,
                                firstNumber: nextNumber, maxRecordBytes: maxRecordBytes)
        nextNumber += lines
        return chunk
    }

    /// The index just past the `count`-th LF of `buffer` (which has at least that many).
    private func lineStart(after count: Int, in buffer: [UInt8]) -> Int {
        var position = 0
        for _ in 0..<count { position = (find(0x0A, in: buffer, from: position) ?? buffer.count - 1) + 1 }
        return position
    }

    /// Frames records one by one: CSV, lines longer than a chunk, and the input's last line.
    private func nextFramed() throws(InputError) -> RecordChunk? {
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
                    guard try fill(&buffer) else { break }
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
            let undecidedStart = atStart
            guard try fill(&buffer) else { break }
            if undecidedStart && !atStart {
                // The start of the input was a byte order mark's first bytes, scanned already; it
                // may just have been dropped, so scan what is there afresh (no record is framed
                // yet: those bytes hold no line end).
                scanFrom = start
                csvState = CSVScanState()
            }
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
    /// Returns false when the source has nothing yet (a pushed input waiting for more).
    private func fill(_ buffer: inout [UInt8]) throws(InputError) -> Bool {
        guard let got = try input.readAvailable(into: &buffer, count: chunkBytes) else { return false }
        if got == 0 { atEnd = true }
        // Decided once the start can no longer become a byte order mark (a pushed input may
        // arrive a byte at a time).
        let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
        if atStart, buffer.count >= 3 || atEnd || !byteOrderMark.starts(with: buffer) {
            atStart = false
            if buffer.starts(with: byteOrderMark) { buffer.removeFirst(3) }
        }
        return true
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

/// How many LF bytes `bytes` holds, counted eight bytes at a time.
func countLineFeeds(_ bytes: UnsafeRawBufferPointer) -> Int {
    guard let base = bytes.baseAddress else { return 0 }
    let low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F, lineFeeds: UInt64 = 0x0A0A_0A0A_0A0A_0A0A
    var count = 0, i = 0
    while i + 8 <= bytes.count {
        // Per-byte counters (each below 256: at most 255 words per round), summed per round.
        var counters: UInt64 = 0
        let end = min(bytes.count & ~7, i + 255 * 8)
        while i < end {
            // A byte of `x` is zero exactly where the word has a LF; the high bit of each byte
            // of `t` is clear exactly there (no carry crosses a byte: 0x7F + 0x7F < 0x100).
            let x = base.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ lineFeeds
            let t = ((x & low) &+ low) | x
            counters &+= (~t & ~low) >> 7
            i += 8
        }
        // Pairs of byte counters into 16-bit lanes, then the lanes summed (at most 2040).
        let pairs = (counters & 0x00FF_00FF_00FF_00FF) &+ ((counters >> 8) & 0x00FF_00FF_00FF_00FF)
        count &+= Int((pairs &* 0x0001_0001_0001_0001) >> 48)
    }
    while i < bytes.count {
        if bytes[i] == 0x0A { count += 1 }
        i += 1
    }
    return count
}

/// The index of the first `byte` in `buffer[from...]`, found with `memchr`.
func find(_ byte: UInt8, in buffer: [UInt8], from: Int) -> Int? {
    guard from < buffer.count else { return nil }
    return buffer.withUnsafeBytes { raw -> Int? in
        guard let base = raw.baseAddress, let hit = memchr(base + from, Int32(byte), raw.count - from) else { return nil }
        return UnsafeRawPointer(hit) - base
    }
}
