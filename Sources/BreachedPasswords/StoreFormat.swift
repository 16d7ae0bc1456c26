/// The store file's layout (version 1). Every integer is little-endian.
///
/// ```
/// offset  size            field
/// 0       8               magic "RKBREACH"
/// 8       4               version (1)
/// 12      4               hash bits: 160 (exact) or 64 (the first 64 bits of each hash)
/// 16      4               index bits k: 8, 16 or 24
/// 20      4               suffix bytes S = hash bits / 8 - k / 8
/// 24      8               hashes N (< 2^32)
/// 32      8               overflow entries M (≤ N)
/// 40      24              zero
/// 64      4 × (2^k + 1)   index: entry b is the first hash whose first k bits are ≥ b
///                         (entry 0 is 0, entry 2^k is N, never decreasing)
/// …       N × S           suffixes: each hash's bytes k/8 ..< hash bits/8, increasing within a bucket
/// …       N               counts: the count, or 255 when it is 255 or more
/// …       8 × M           overflow: (UInt32 hash index, UInt32 count) for counts of 255 or more,
///                         by increasing hash index
/// ```
///
/// The file's size is exactly the sum, so a truncated or padded file is refused when it is
/// opened. An exact store spends S + 1 bytes per hash (18 + 1 with k = 16, 17 + 1 with k = 24),
/// plus the index (4 × 2^k bytes, at least 8 hashes per bucket on average) and 8 bytes per
/// count of 255 or more.
enum StoreFormat {
    static let magic: [UInt8] = Array("RKBREACH".utf8)
    static let version: UInt32 = 1
    static let headerBytes = 64
    /// Counts at or over this are in the overflow table.
    static let overflowMarker: UInt8 = 255
    /// The largest number of hashes a store holds (index entries are 32-bit).
    static let maxHashes = Int(UInt32.max) - 1

    /// The index bits for `count` hashes: the widest of 8, 16 and 24 that leaves at least eight
    /// hashes per bucket on average (the index then costs at most half a byte per hash).
    static func indexBits(forHashes count: Int) -> Int {
        if count >= 8 << 24 { return 24 }
        if count >= 8 << 16 { return 16 }
        return 8
    }

    /// The geometry of one store.
    struct Geometry: Equatable {
        let hashBits: Int
        let indexBits: Int
        let hashes: Int
        let overflow: Int

        var suffixBytes: Int { hashBits / 8 - indexBits / 8 }
        var buckets: Int { 1 << indexBits }
        var indexOffset: Int { StoreFormat.headerBytes }
        var suffixOffset: Int { indexOffset + 4 * (buckets + 1) }
        var countOffset: Int { suffixOffset + hashes * suffixBytes }
        var overflowOffset: Int { countOffset + hashes }
        var fileBytes: Int { overflowOffset + 8 * overflow }

        /// Whether the fields are ones a store can have.
        var isValid: Bool {
            (hashBits == 160 || hashBits == 64) && [8, 16, 24].contains(indexBits)
                && (0...StoreFormat.maxHashes).contains(hashes) && (0...hashes).contains(overflow)
        }

        /// The header's 64 bytes.
        var header: [UInt8] {
            var bytes = StoreFormat.magic
            func put<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
            put(StoreFormat.version)
            put(UInt32(hashBits))
            put(UInt32(indexBits))
            put(UInt32(suffixBytes))
            put(UInt64(hashes))
            put(UInt64(overflow))
            bytes += [UInt8](repeating: 0, count: StoreFormat.headerBytes - bytes.count)
            return bytes
        }

        /// The geometry a header describes, or why it is not a store's.
        static func read(_ bytes: UnsafeRawBufferPointer) -> Result<Geometry, BreachedStoreError> {
            guard bytes.count >= StoreFormat.headerBytes, Array(bytes[0..<8]) == StoreFormat.magic else {
                return .failure(.notAStore("it does not start with a breached-password store header"))
            }
            let version = bytes.loadLE(UInt32.self, at: 8)
            guard version == StoreFormat.version else {
                return .failure(.notAStore("its format version is \(version); this build reads version \(StoreFormat.version)"))
            }
            let hashBits = bytes.loadLE(UInt32.self, at: 12), indexBits = bytes.loadLE(UInt32.self, at: 16)
            let suffixBytes = bytes.loadLE(UInt32.self, at: 20)
            let hashes = bytes.loadLE(UInt64.self, at: 24), overflow = bytes.loadLE(UInt64.self, at: 32)
            guard hashes <= UInt64(StoreFormat.maxHashes), overflow <= hashes else {
                return .failure(.notAStore("its header counts \(hashes) hashes and \(overflow) large counts"))
            }
            let geometry = Geometry(hashBits: Int(hashBits), indexBits: Int(indexBits), hashes: Int(hashes), overflow: Int(overflow))
            guard geometry.isValid, Int(suffixBytes) == geometry.suffixBytes,
                  bytes[40..<64].allSatisfy({ $0 == 0 }) else {
                return .failure(.notAStore("its header has \(hashBits) hash bits, \(indexBits) index bits and \(suffixBytes) suffix bytes"))
            }
            guard geometry.fileBytes == bytes.count else {
                return .failure(.notAStore("it is \(bytes.count) bytes long where its header needs \(geometry.fileBytes) (truncated or damaged)"))
            }
            return .success(geometry)
        }
    }
}

extension UnsafeRawBufferPointer {
    /// A little-endian integer at `offset` (any alignment); the caller checks the bounds.
    @inline(__always)
    func loadLE<T: FixedWidthInteger>(_ type: T.Type, at offset: Int) -> T {
        T(littleEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}
