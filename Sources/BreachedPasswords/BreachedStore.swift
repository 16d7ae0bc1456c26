#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a store cannot be used.
public enum BreachedStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file cannot be opened or mapped (the system's reason).
    case unreadable(path: String, reason: String)
    /// The bytes are not a store this build reads (the reason, as a clause).
    case notAStore(String)
    /// The store keeps only the first 64 bits of each hash, and the range API needs whole hashes.
    case notExact

    public var description: String {
        switch self {
        case let .unreadable(path, reason): "cannot read breached-password store `\(path)`: \(reason)"
        case let .notAStore(reason): "not a breached-password store: \(reason)"
        case .notExact: "the breached-password store keeps 64 bits of each hash (--bits 64); ranges need an exact store"
        }
    }
}

/// A breached-password store, memory-mapped: lookups read it in place.
///
/// Opening checks the header, the file's size, the index and the overflow table (work in
/// proportion to the index, not to the hashes); whatever the bytes of the suffixes and counts, a
/// lookup reads only inside the file. Immutable and `Sendable`: open once, share across threads.
public final class BreachedStore: @unchecked Sendable {
    // INVARIANT: `base` points to `geometry.fileBytes` readable bytes for the object's lifetime,
    // written by nobody; the index is non-decreasing from 0 to `hashes`, and the overflow table's
    // indices increase and are below `hashes` (checked in `init`).

    /// One stored hash and its count.
    public struct Entry: Sendable, Hashable {
        /// The hash (an exact store), or its first 64 bits followed by zeros (`--bits 64`).
        public let hash: SHA1Digest
        /// How many times the corpus saw it.
        public let count: UInt32

        /// An entry.
        public init(hash: SHA1Digest, count: UInt32) {
            self.hash = hash
            self.count = count
        }
    }

    private let base: UnsafeRawPointer
    private let geometry: StoreFormat.Geometry
    private let release: @Sendable (UnsafeRawPointer, Int) -> Void

    /// How many hashes the store holds.
    public var count: Int { geometry.hashes }
    /// 160 when the store is exact, 64 when it keeps the first 64 bits of each hash.
    public var hashBits: Int { geometry.hashBits }
    /// Whether the store keeps whole hashes (no false positives).
    public var isExact: Bool { geometry.hashBits == 160 }
    /// The file's size in bytes.
    public var byteCount: Int { geometry.fileBytes }

    /// Maps the store at `path`.
    ///
    /// - Throws: ``BreachedStoreError/unreadable(path:reason:)`` when the file cannot be opened
    ///   or mapped, ``BreachedStoreError/notAStore(_:)`` when its bytes are not a valid store.
    public convenience init(path: String) throws(BreachedStoreError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .unreadable(path: path, reason: "not a regular file") }
        let size = Int(info.st_size)
        guard size >= StoreFormat.headerBytes else {
            throw .notAStore("it is \(size) bytes long, shorter than a store's header")
        }
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
            throw .unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        try self.init(base: UnsafeRawPointer(mapped), size: size) { pointer, size in
            munmap(UnsafeMutableRawPointer(mutating: pointer), size)
        }
    }

    /// A store from bytes in memory (a copy is kept), for tests and the fuzz harness.
    ///
    /// - Throws: ``BreachedStoreError/notAStore(_:)`` when the bytes are not a valid store.
    public convenience init(bytes: UnsafeRawBufferPointer) throws(BreachedStoreError) {
        let copy = UnsafeMutableRawPointer.allocate(byteCount: max(1, bytes.count), alignment: 16)
        if let source = bytes.baseAddress { copy.copyMemory(from: source, byteCount: bytes.count) }
        try self.init(base: UnsafeRawPointer(copy), size: bytes.count) { pointer, _ in pointer.deallocate() }
    }

    private init(base: UnsafeRawPointer, size: Int,
                 release: @escaping @Sendable (UnsafeRawPointer, Int) -> Void) throws(BreachedStoreError) {
        let bytes = UnsafeRawBufferPointer(start: base, count: size)
        let geometry: StoreFormat.Geometry
        switch StoreFormat.Geometry.read(bytes) {
        case let .success(read): geometry = read
        case let .failure(error):
            release(base, size)
            throw error
        }
        if let problem = Self.structuralProblem(bytes, geometry) {
            release(base, size)
            throw .notAStore(problem)
        }
        self.base = base
        self.geometry = geometry
        self.release = release
    }

    deinit { release(base, geometry.fileBytes) }

    /// What is wrong with the index or the overflow table, or nil.
    private static func structuralProblem(_ bytes: UnsafeRawBufferPointer, _ geometry: StoreFormat.Geometry) -> String? {
        var previous: UInt32 = 0
        for bucket in 0...geometry.buckets {
            let start = bytes.loadLE(UInt32.self, at: geometry.indexOffset + 4 * bucket)
            if bucket == 0 && start != 0 { return "its index does not start at 0" }
            if start < previous { return "its index decreases at bucket \(bucket)" }
            previous = start
        }
        if Int(previous) != geometry.hashes { return "its index ends at \(previous), not at its \(geometry.hashes) hashes" }
        var last = -1
        for entry in 0..<geometry.overflow {
            let index = Int(bytes.loadLE(UInt32.self, at: geometry.overflowOffset + 8 * entry))
            if index <= last || index >= geometry.hashes { return "its table of large counts is out of order at entry \(entry)" }
            last = index
        }
        return nil
    }

    // MARK: - Lookups

    /// How many times the corpus saw `password` (SHA-1 of its UTF-8 as typed), or nil.
    public func count(password: String) -> UInt32? { count(hash: PasswordHash.sha1(password)) }

    /// How many times the corpus saw the hash, or nil when it is not stored. A `--bits 64`
    /// store answers for every hash whose first 64 bits are stored.
    public func count(hash: SHA1Digest) -> UInt32? {
        let position = lowerBound(hash)
        guard position.index < position.bucketEnd, compare(position.index, hash) == 0 else { return nil }
        return countAt(position.index)
    }

    /// The stored hashes whose first 20 bits are `prefix` (0…0xFFFFF), in increasing order.
    ///
    /// - Throws: ``BreachedStoreError/notExact`` for a `--bits 64` store.
    public func range(prefix: Int) throws(BreachedStoreError) -> [Entry] {
        guard isExact else { throw .notExact }
        let prefix = prefix & 0xFFFFF
        let start = SHA1Digest(high: UInt64(prefix) << 44, middle: 0, low: 0)
        let lower = lowerBound(start).index
        let upper = prefix == 0xFFFFF
            ? geometry.hashes : lowerBound(SHA1Digest(high: UInt64(prefix + 1) << 44, middle: 0, low: 0)).index
        return entries(lower..<upper, firstBucket: bucket(of: start))
    }

    /// Every entry at a position in `positions` (0..<``count``), in store order.
    public func entries(_ positions: Range<Int>) -> [Entry] {
        let positions = positions.clamped(to: 0..<geometry.hashes)
        guard let first = positions.first else { return [] }
        // The bucket holding `first`: the last whose start is at or before it.
        var low = 0, high = geometry.buckets - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if indexEntry(middle) <= first { low = middle } else { high = middle - 1 }
        }
        return entries(positions, firstBucket: low)
    }

    // MARK: - Internals

    private var indexBytes: Int { geometry.indexBits / 8 }

    @inline(__always)
    private func indexEntry(_ bucket: Int) -> Int {
        Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: geometry.indexOffset + 4 * bucket, as: UInt32.self)))
    }

    @inline(__always)
    private func bucket(of hash: SHA1Digest) -> Int { Int(hash.high >> UInt64(64 - geometry.indexBits)) }

    /// Compares stored suffix `index` with the same bytes of `hash`: negative, 0 or positive.
    @inline(__always)
    private func compare(_ index: Int, _ hash: SHA1Digest) -> Int {
        let suffix = base + geometry.suffixOffset + index * geometry.suffixBytes
        let first = indexBytes
        for offset in 0..<geometry.suffixBytes {
            let stored = suffix.load(fromByteOffset: offset, as: UInt8.self)
            let wanted = hash.byte(first + offset)
            if stored != wanted { return stored < wanted ? -1 : 1 }
        }
        return 0
    }

    /// The first position in `hash`'s bucket whose suffix is not less than `hash`'s, and the
    /// bucket's end.
    @inline(__always)
    private func lowerBound(_ hash: SHA1Digest) -> (index: Int, bucketEnd: Int) {
        let bucket = bucket(of: hash)
        var low = indexEntry(bucket), high = indexEntry(bucket + 1)
        let end = high
        while low < high {
            let middle = (low + high) / 2
            if compare(middle, hash) < 0 { low = middle + 1 } else { high = middle }
        }
        return (low, end)
    }

    @inline(__always)
    private func countAt(_ index: Int) -> UInt32 {
        let byte = base.load(fromByteOffset: geometry.countOffset + index, as: UInt8.self)
        guard byte == StoreFormat.overflowMarker else { return UInt32(byte) }
        var low = 0, high = geometry.overflow
        while low < high {
            let middle = (low + high) / 2
            let offset = geometry.overflowOffset + 8 * middle
            let stored = Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
            if stored == index { return UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)) }
            if stored < index { low = middle + 1 } else { high = middle }
        }
        // A marker without its entry (a damaged store): the least the marker can mean.
        return UInt32(StoreFormat.overflowMarker)
    }

    private func entries(_ positions: Range<Int>, firstBucket: Int) -> [Entry] {
        var result: [Entry] = []
        result.reserveCapacity(positions.count)
        var bucket = firstBucket
        let shift = 64 - geometry.indexBits
        for index in positions {
            while bucket + 1 < geometry.buckets && indexEntry(bucket + 1) <= index { bucket += 1 }
            var bytes = [UInt8](repeating: 0, count: 20)
            let bucketPrefix = UInt64(bucket) << UInt64(shift)
            for offset in 0..<indexBytes { bytes[offset] = UInt8(truncatingIfNeeded: bucketPrefix >> UInt64(56 - 8 * offset)) }
            let suffix = base + geometry.suffixOffset + index * geometry.suffixBytes
            for offset in 0..<geometry.suffixBytes { bytes[indexBytes + offset] = suffix.load(fromByteOffset: offset, as: UInt8.self) }
            let hash = bytes.withUnsafeBytes { SHA1Digest(bytes: $0) }
            result.append(Entry(hash: hash, count: countAt(index)))
        }
        return result
    }
}
