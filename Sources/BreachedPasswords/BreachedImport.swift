#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why an import failed. Nothing is left at the output path when it does.
public enum BreachedImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An input file cannot be opened, read or mapped, or is not a regular file.
    case unreadable(path: String, reason: String)
    /// A line is not `HEX40:COUNT`; `line` counts from 1. The reason never quotes the line.
    case malformed(path: String, line: Int, reason: String)
    /// An input changed between the two passes.
    case changed(path: String)
    /// More hashes than a store holds.
    case tooManyHashes(Int)
    /// The store cannot be written.
    case unwritable(path: String, reason: String)

    public var description: String {
        switch self {
        case let .unreadable(path, reason): "cannot read `\(path)`: \(reason)"
        case let .malformed(path, line, reason): "\(path):\(line): not a Pwned Passwords line (HEX40:COUNT): \(reason)"
        case let .changed(path): "`\(path)` changed while it was being imported"
        case let .tooManyHashes(count): "\(count) lines are more than a store holds (\(StoreFormat.maxHashes))"
        case let .unwritable(path, reason): "cannot write `\(path)`: \(reason)"
        }
    }
}

/// Imports Pwned Passwords files into a store.
///
/// Lines are `HEX40:COUNT`: 40 hex digits in either case, a colon, a decimal count (at most
/// 4,294,967,295), then LF, CRLF or the end of the file; files may be in any order, and a hash
/// that appears twice keeps its highest count. Two passes over the memory-mapped inputs: the
/// first checks every line and counts hashes per 24-bit prefix, the second files each hash in
/// its bucket of a temporary file next to the output; then buckets are sorted and compacted,
/// and the file is renamed over the output. On any error the temporary file is removed, so the
/// output path is either the old file or the complete new store, never a half-written one.
/// Memory: 64 MiB of prefix counts, one byte per hash and 4 bytes per bucket.
public struct BreachedImport: Sendable {
    /// 160 (exact) or 64 (the first 64 bits of each hash).
    public var hashBits: Int

    /// An import keeping `hashBits` of each hash (160 or 64).
    public init(hashBits: Int = 160) {
        self.hashBits = hashBits
    }

    /// What an import did.
    public struct Summary: Sendable, Equatable {
        /// Lines read.
        public var lines: Int
        /// Hashes stored (lines less duplicates).
        public var hashes: Int
        /// Bytes read (each input once).
        public var inputBytes: Int
        /// The store's size.
        public var storeBytes: Int
    }

    /// Imports `files` into a store at `output`.
    ///
    /// - Parameter progress: called now and then with the bytes processed so far and in all
    ///   (each input counts twice: two passes).
    /// - Throws: ``BreachedImportError``.
    public func run(files: [String], output: String,
                    progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }) throws(BreachedImportError) -> Summary {
        let inputs = try files.map { path throws(BreachedImportError) in try MappedFile(path: path) }
        let total = inputs.reduce(0) { $0 + $1.size } * 2
        var done = 0
        // Pass 1: check every line; count hashes per 24-bit prefix.
        var perPrefix = [UInt32](repeating: 0, count: 1 << 24)
        for input in inputs {
            let failure = perPrefix.withUnsafeMutableBufferPointer { counts in
                PwnedLines.scan(input.bytes, progress: { progress(done + $0, total) }) { hash, _ in
                    counts[Int(hash.high >> 40)] &+= 1
                    return true
                }
            }
            if let failure { throw .malformed(path: input.path, line: failure.line, reason: failure.reason) }
            done += input.size
        }
        let lines = perPrefix.reduce(0) { $0 + Int($1) }
        guard lines <= StoreFormat.maxHashes else { throw .tooManyHashes(lines) }

        // Pass 2: file every hash in its bucket of the temporary store.
        let temporary = try TemporaryStore(next: output, capacity: StoreBuilder.capacity(hashes: lines, hashBits: hashBits))
        var builder = StoreBuilder(perPrefix: perPrefix, hashBits: hashBits, buffer: temporary.buffer)
        perPrefix = []
        for input in inputs {
            var overfull = false
            let failure = PwnedLines.scan(input.bytes, progress: { progress(done + $0, total) }) { hash, count in
                if builder.add(hash, count: count) { return true }
                overfull = true
                return false
            }
            if overfull { throw .changed(path: input.path) }
            if let failure { throw .malformed(path: input.path, line: failure.line, reason: failure.reason) }
            done += input.size
        }
        guard builder.isComplete else { throw .changed(path: inputs.last?.path ?? output) }
        let (size, hashes) = builder.finish()
        try temporary.commit(size: size)
        progress(total, total)
        return Summary(lines: lines, hashes: hashes, inputBytes: total / 2, storeBytes: size)
    }
}

extension BreachedImport {
    /// A line that is not `HEX40:COUNT`: its number (from 1) and why, naming the first wrong
    /// column but quoting nothing of the line.
    public struct LineError: Error, Sendable, Equatable {
        public var line: Int
        public var reason: String
    }

    /// Reads `HEX40:COUNT` lines as the importer does (either case, LF or CRLF, the last line
    /// with or without one), calling `visit` with each line's hash and count in order, and
    /// stops at the first malformed line (for the fuzz harness and tools; an import reads files).
    ///
    /// - Returns: the first malformed line, or nil when every line is well formed.
    public static func parseLines(_ bytes: UnsafeRawBufferPointer, _ visit: (SHA1Digest, UInt32) -> Void) -> LineError? {
        PwnedLines.scan(bytes) { hash, count in
            visit(hash, count)
            return true
        }.map { LineError(line: $0.line, reason: $0.reason) }
    }
}

/// The `HEX40:COUNT` line format.
enum PwnedLines {
    /// A line that is not `HEX40:COUNT`.
    struct Failure: Error, Equatable {
        var line: Int
        var reason: String
    }

    /// Calls `visit` with each line's hash and count, in order, until it returns false.
    ///
    /// - Returns: the first malformed line, or nil.
    @inline(__always)
    static func scan(_ bytes: UnsafeRawBufferPointer, progress: (Int) -> Void = { _ in },
                     _ visit: (SHA1Digest, UInt32) -> Bool) -> Failure? {
        guard let start = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        let end = bytes.count
        return Hex.values.withUnsafeBufferPointer { table -> Failure? in
            var position = 0
            var line = 1
            var nextReport = 1 << 24
            while position < end {
                if position >= nextReport {
                    progress(position)
                    nextReport = position + (1 << 24)
                }
                guard end - position >= 42 else {
                    return Failure(line: line, reason: shortLine(start + position, end - position))
                }
                let p = start + position
                var bad: UInt8 = 0
                var high: UInt64 = 0, middle: UInt64 = 0, low: UInt32 = 0
                for index in 0..<16 {
                    let digit = table[Int(p[index])]
                    bad |= digit
                    high = high << 4 | UInt64(digit & 0xF)
                }
                for index in 16..<32 {
                    let digit = table[Int(p[index])]
                    bad |= digit
                    middle = middle << 4 | UInt64(digit & 0xF)
                }
                for index in 32..<40 {
                    let digit = table[Int(p[index])]
                    bad |= digit
                    low = low << 4 | UInt32(digit & 0xF)
                }
                if bad & 0xF0 != 0 {
                    let column = (0..<40).first { table[Int(p[$0])] == 0xFF } ?? 0
                    return Failure(line: line, reason: "column \(column + 1) is not a hexadecimal digit (a hash is 40 of them)")
                }
                guard p[40] == UInt8(ascii: ":") else {
                    return Failure(line: line, reason: "column 41 should be `:` after the 40 hexadecimal digits")
                }
                var offset = 41
                var count: UInt64 = 0
                while position + offset < end, p[offset] &- UInt8(ascii: "0") < 10 {
                    count = count * 10 + UInt64(p[offset] &- UInt8(ascii: "0"))
                    // Checked at every digit, so `count` never overflows; leading zeros are fine.
                    guard count <= UInt64(UInt32.max) else {
                        return Failure(line: line, reason: "the count is more than 4294967295")
                    }
                    offset += 1
                }
                if offset == 41 {
                    return Failure(line: line, reason: "column 42 should start the count (decimal digits)")
                }
                if position + offset < end, p[offset] == UInt8(ascii: "\r") { offset += 1 }
                if position + offset < end {
                    guard p[offset] == UInt8(ascii: "\n") else {
                        return Failure(line: line, reason: "column \(offset + 1) should end the line (a decimal digit, CR LF or LF)")
                    }
                    offset += 1
                }
                guard visit(SHA1Digest(high: high, middle: middle, low: low), UInt32(count)) else { return nil }
                position += offset
                line += 1
            }
            return nil
        }
    }

    /// Why a line near the end of the file is too short, naming its first wrong column.
    private static func shortLine(_ p: UnsafePointer<UInt8>, _ available: Int) -> String {
        var length = 0
        while length < available, p[length] != UInt8(ascii: "\n") { length += 1 }
        for column in 0..<min(length, 40) where Hex.values[Int(p[column])] == 0xFF {
            return "column \(column + 1) is not a hexadecimal digit (a hash is 40 of them)"
        }
        if length < 40 || (length > 0 && p[length - 1] == UInt8(ascii: "\r") && length - 1 <= 40) {
            return "the line ends after \(min(length, 40)) hexadecimal digits; a hash is 40 of them"
        }
        if length == 40 { return "column 41 should be `:` after the 40 hexadecimal digits" }
        if p[40] != UInt8(ascii: ":") { return "column 41 should be `:` after the 40 hexadecimal digits" }
        return "column 42 should start the count (decimal digits)"
    }
}

/// An input file mapped read-only.
final class MappedFile {
    let path: String
    let size: Int
    private let base: UnsafeMutableRawPointer?

    init(path: String) throws(BreachedImportError) {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .unreadable(path: path, reason: "not a regular file (an import reads each file twice)")
        }
        size = Int(info.st_size)
        guard size > 0 else {
            base = nil
            return
        }
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
            throw .unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        _ = madvise(mapped, size, MADV_SEQUENTIAL)
        base = mapped
    }

    deinit { if let base { munmap(base, size) } }

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: base == nil ? 0 : size) }
}

/// The store being written: a temporary file next to the output, mapped for writing, renamed
/// over the output by ``commit(size:)`` and removed if that never happens.
final class TemporaryStore {
    let output: String
    let path: String
    let capacity: Int
    let buffer: UnsafeMutableRawPointer
    private let fd: Int32
    private var committed = false
    private var mapped = true

    init(next output: String, capacity: Int) throws(BreachedImportError) {
        self.output = output
        let slash = output.lastIndex(of: "/")
        let directory = slash.map { String(output[...$0]) } ?? ""
        let name = slash.map { String(output[output.index(after: $0)...]) } ?? output
        var template = Array((directory + "." + name + ".tmp-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw .unwritable(path: output, reason: String(cString: strerror(errno))) }
        let path = String(cString: template.map { UInt8(bitPattern: $0) })
        self.fd = fd
        self.path = path
        self.capacity = max(capacity, StoreFormat.headerBytes)
        guard ftruncate(fd, off_t(self.capacity)) == 0,
              let mapped = mmap(nil, self.capacity, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), mapped != MAP_FAILED else {
            let reason = String(cString: strerror(errno))
            close(fd)
            unlink(path)
            throw .unwritable(path: output, reason: reason)
        }
        buffer = mapped
    }

    /// Cuts the file to `size`, flushes it and renames it over the output.
    func commit(size: Int) throws(BreachedImportError) {
        munmap(buffer, capacity)
        mapped = false
        guard ftruncate(fd, off_t(size)) == 0, fchmod(fd, 0o644) == 0, fsync(fd) == 0, rename(path, output) == 0 else {
            throw .unwritable(path: output, reason: String(cString: strerror(errno)))
        }
        committed = true
    }

    deinit {
        if mapped { munmap(buffer, capacity) }
        if !committed { unlink(path) }
        close(fd)
    }
}
