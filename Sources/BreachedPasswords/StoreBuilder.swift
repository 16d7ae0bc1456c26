/// Lays out a store in a writable buffer: hashes are scattered into their buckets as they come
/// (any order), then each bucket is sorted, duplicates are merged (the highest count wins) and
/// the records are compacted into the final layout, in place.
///
/// While hashes come in, the suffix area holds scratch records of S + 4 bytes (suffix, count);
/// compaction moves each bucket down to S-byte suffixes, which never overtakes a record not yet
/// read (a bucket is read whole before it is written, and it is written no further right than
/// it was). Memory outside the buffer: one byte per hash for the counts, 4 bytes per bucket, and
/// the large counts.
struct StoreBuilder {
    let hashBits: Int
    let indexBits: Int
    let expected: Int
    let buffer: UnsafeMutableRawPointer
    private var starts: [UInt32]
    private var cursors: [UInt32]

    /// The bytes a buffer needs for `hashes` hashes with these bits: the scratch records, or the
    /// final layout if every count were large, whichever is more.
    static func capacity(hashes: Int, hashBits: Int) -> Int {
        let geometry = StoreFormat.Geometry(hashBits: hashBits, indexBits: StoreFormat.indexBits(forHashes: hashes),
                                            hashes: hashes, overflow: 0)
        return geometry.suffixOffset + hashes * (geometry.suffixBytes + 9)
    }

    var scratchRecordBytes: Int { suffixBytes + 4 }
    var suffixBytes: Int { hashBits / 8 - indexBits / 8 }
    var suffixOffset: Int { StoreFormat.headerBytes + 4 * ((1 << indexBits) + 1) }

    /// - Parameters:
    ///   - perPrefix: how many hashes will come with each value of their first 24 bits (2^24 entries).
    ///   - buffer: at least ``capacity(hashes:hashBits:)`` writable bytes.
    init(perPrefix: [UInt32], hashBits: Int, buffer: UnsafeMutableRawPointer) {
        let indexBits = StoreFormat.indexBits(forHashes: perPrefix.reduce(0) { $0 + Int($1) })
        var perBucket = [UInt32](repeating: 0, count: 1 << indexBits)
        let shift = 24 - indexBits
        for (prefix, count) in perPrefix.enumerated() where count > 0 { perBucket[prefix >> shift] += count }
        self.init(perBucket: perBucket, indexBits: indexBits, hashBits: hashBits, buffer: buffer)
    }

    /// - Parameters:
    ///   - perBucket: how many hashes will come with each value of their first `indexBits` bits
    ///     (2^indexBits entries; `indexBits` as ``StoreFormat/indexBits(forHashes:)`` gives for their sum).
    ///   - buffer: at least ``capacity(hashes:hashBits:)`` writable bytes.
    init(perBucket: [UInt32], indexBits: Int, hashBits: Int, buffer: UnsafeMutableRawPointer) {
        self.hashBits = hashBits
        self.indexBits = indexBits
        self.expected = perBucket.reduce(0) { $0 + Int($1) }
        self.buffer = buffer
        var starts = [UInt32](repeating: 0, count: perBucket.count + 1)
        for (bucket, count) in perBucket.enumerated() { starts[bucket + 1] = starts[bucket] + count }
        self.starts = starts
        self.cursors = Array(starts.dropLast())
    }

    /// Files the hash; false when its bucket is already full (the input changed since it was counted).
    @inline(__always)
    mutating func add(_ hash: SHA1Digest, count: UInt32) -> Bool {
        let bucket = Int(hash.high >> UInt64(64 - indexBits))
        let slot = cursors[bucket]
        guard slot < starts[bucket + 1] else { return false }
        cursors[bucket] = slot + 1
        let record = buffer + suffixOffset + Int(slot) * scratchRecordBytes
        let first = indexBits / 8
        for offset in 0..<suffixBytes { record.storeBytes(of: hash.byte(first + offset), toByteOffset: offset, as: UInt8.self) }
        record.storeBytes(of: count.littleEndian, toByteOffset: suffixBytes, as: UInt32.self)
        return true
    }

    /// Whether every counted hash was filed.
    var isComplete: Bool { zip(cursors, starts.dropFirst()).allSatisfy { $0 == $1 } }

    /// One scratch record as comparable words.
    private struct Record {
        var key: (UInt64, UInt64, UInt64)
        var count: UInt32
    }

    /// Sorts, merges and compacts; writes the index, counts, large counts and header.
    ///
    /// - Returns: the store's size in bytes (the buffer's first bytes are the store) and how
    ///   many hashes it holds.
    mutating func finish() -> (bytes: Int, hashes: Int) {
        let buckets = 1 << indexBits
        let suffixBytes = suffixBytes, scratch = scratchRecordBytes, suffixOffset = suffixOffset
        var index = [UInt32](repeating: 0, count: buckets + 1)
        var counts = [UInt8]()
        counts.reserveCapacity(expected)
        var overflow: [(UInt32, UInt32)] = []
        var records: [Record] = []
        var written = 0
        for bucket in 0..<buckets {
            index[bucket] = UInt32(written)
            let start = Int(starts[bucket]), end = Int(cursors[bucket])
            guard start < end else { continue }
            records.removeAll(keepingCapacity: true)
            for slot in start..<end {
                let record = UnsafeRawPointer(buffer + suffixOffset + slot * scratch)
                var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
                for offset in 0..<suffixBytes {
                    let byte = UInt64(record.load(fromByteOffset: offset, as: UInt8.self))
                    switch offset {
                    case 0..<8: words.0 |= byte << UInt64(8 * (7 - offset))
                    case 8..<16: words.1 |= byte << UInt64(8 * (15 - offset))
                    default: words.2 |= byte << UInt64(8 * (23 - offset))
                    }
                }
                records.append(Record(key: words, count: UInt32(littleEndian: record.loadUnaligned(fromByteOffset: suffixBytes, as: UInt32.self))))
            }
            records.sort { $0.key < $1.key }
            var previous: (UInt64, UInt64, UInt64)?
            for record in records {
                if let previous, previous == record.key {
                    // A duplicate: the highest count wins.
                    let last = written - 1
                    let current = counts[last] == StoreFormat.overflowMarker ? overflow[overflow.count - 1].1 : UInt32(counts[last])
                    if record.count > current {
                        if counts[last] == StoreFormat.overflowMarker { overflow[overflow.count - 1].1 = record.count }
                        else if record.count >= UInt32(StoreFormat.overflowMarker) {
                            counts[last] = StoreFormat.overflowMarker
                            overflow.append((UInt32(last), record.count))
                        } else {
                            counts[last] = UInt8(record.count)
                        }
                    }
                    continue
                }
                previous = record.key
                let target = buffer + suffixOffset + written * suffixBytes
                for offset in 0..<suffixBytes {
                    let byte: UInt8 = switch offset {
                    case 0..<8: UInt8(truncatingIfNeeded: record.key.0 >> UInt64(8 * (7 - offset)))
                    case 8..<16: UInt8(truncatingIfNeeded: record.key.1 >> UInt64(8 * (15 - offset)))
                    default: UInt8(truncatingIfNeeded: record.key.2 >> UInt64(8 * (23 - offset)))
                    }
                    target.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self)
                }
                if record.count >= UInt32(StoreFormat.overflowMarker) {
                    counts.append(StoreFormat.overflowMarker)
                    overflow.append((UInt32(written), record.count))
                } else {
                    counts.append(UInt8(record.count))
                }
                written += 1
            }
        }
        index[buckets] = UInt32(written)
        let geometry = StoreFormat.Geometry(hashBits: hashBits, indexBits: indexBits, hashes: written, overflow: overflow.count)
        counts.withUnsafeBytes { bytes in
            if let source = bytes.baseAddress { (buffer + geometry.countOffset).copyMemory(from: source, byteCount: bytes.count) }
        }
        for (entry, (position, count)) in overflow.enumerated() {
            buffer.storeBytes(of: position.littleEndian, toByteOffset: geometry.overflowOffset + 8 * entry, as: UInt32.self)
            buffer.storeBytes(of: count.littleEndian, toByteOffset: geometry.overflowOffset + 8 * entry + 4, as: UInt32.self)
        }
        for (bucket, start) in index.enumerated() {
            buffer.storeBytes(of: start.littleEndian, toByteOffset: geometry.indexOffset + 4 * bucket, as: UInt32.self)
        }
        let header = geometry.header
        header.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        return (geometry.fileBytes, written)
    }
}

extension BreachedStore {
    /// The bytes of a store holding `entries` (any order; a repeated hash keeps its highest
    /// count), for tests and the fuzz harness. `hashBits` is 160 (exact) or 64.
    public static func bytes(of entries: [Entry], hashBits: Int = 160) -> [UInt8] {
        let indexBits = StoreFormat.indexBits(forHashes: entries.count)
        var perBucket = [UInt32](repeating: 0, count: 1 << indexBits)
        for entry in entries { perBucket[Int(entry.hash.high >> UInt64(64 - indexBits))] += 1 }
        let capacity = StoreBuilder.capacity(hashes: entries.count, hashBits: hashBits)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        defer { buffer.deallocate() }
        var builder = StoreBuilder(perBucket: perBucket, indexBits: indexBits, hashBits: hashBits, buffer: buffer)
        for entry in entries { _ = builder.add(entry.hash, count: entry.count) }
        let size = builder.finish().bytes
        return Array(UnsafeRawBufferPointer(start: buffer, count: size))
    }
}
