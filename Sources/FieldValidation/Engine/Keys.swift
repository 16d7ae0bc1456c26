import Foundation

/// The key functions `list` rules compare on, also used for display-name uniqueness.
enum Keys {
    /// ASCII letters lowercased; every other character kept (`.` and `_` stay significant).
    static func canonical(_ value: String) -> String {
        var copy = value
        return copy.withUTF8 { canonical(UnsafeRawBufferPointer($0), original: value) }
    }

    /// The canonical key of `bytes`, which are the UTF-8 of `original`: `original` itself when
    /// it has no ASCII capital (no allocation), else a lowercased copy.
    @inline(__always)
    static func canonical(_ bytes: UnsafeRawBufferPointer, original: String) -> String {
        var hasCapital = false
        for byte in bytes where byte &- 0x41 < 26 {
            hasCapital = true
            break
        }
        guard hasCapital else { return original }
        // Lowercased on the stack, then decoded: for short names `String(decoding:)` builds an
        // inline small string, much cheaper than `String(unsafeUninitializedCapacity:)`.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count) { buffer in
            for i in 0..<bytes.count {
                let byte = bytes[i]
                buffer[i] = byte &- 0x41 < 26 ? byte | 0x20 : byte
            }
            return String(decoding: UnsafeBufferPointer(buffer), as: UTF8.self)
        }
    }

    /// ``canonical(_:)``, then `1`, `i`, `|` → `l`, `0` → `o`, and `rn` → `m`.
    static func lookalike(_ value: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(value.utf8.count)
        lookalikeBytes(value.utf8) { out.append($0) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Streams the look-alike key of UTF-8 bytes (non-ASCII bytes pass through unchanged).
    @inline(__always)
    static func lookalikeBytes<S: Sequence>(_ bytes: S, _ emit: (UInt8) -> Void) where S.Element == UInt8 {
        var pendingR = false
        for var byte in bytes {
            if byte >= 0x41 && byte <= 0x5A { byte |= 0x20 }
            switch byte {
            case UInt8(ascii: "1"), UInt8(ascii: "i"), UInt8(ascii: "|"): byte = UInt8(ascii: "l")
            case UInt8(ascii: "0"): byte = UInt8(ascii: "o")
            default: break
            }
            if pendingR {
                pendingR = false
                if byte == UInt8(ascii: "n") { emit(UInt8(ascii: "m")); continue }
                emit(UInt8(ascii: "r"))
            }
            if byte == UInt8(ascii: "r") { pendingR = true } else { emit(byte) }
        }
        if pendingR { emit(UInt8(ascii: "r")) }
    }

    /// NFKC, then leading/trailing whitespace trimmed, then lowercased.
    static func nfkcCasefold(_ value: String) -> String {
        nfkc(value).trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    /// Longest value normalized, in UTF-8 bytes. Foundation's NFC and NFKC take time that grows
    /// with the square of the input on runs of combining marks (a megabyte of `a` + U+0301 took
    /// seconds; 8 KiB of marks takes about 10 ms), so longer values are left as given. Every
    /// shipped length limit is far below (passwords 1,024 code points, emails 254 octets), and
    /// the length rules then measure the value as given, which is over them too.
    static let maxNormalizedBytes = 8 << 10

    /// NFKC; a value over ``maxNormalizedBytes`` is returned as given.
    static func nfkc(_ value: String) -> String {
        value.utf8.count > maxNormalizedBytes ? value : value.precomposedStringWithCompatibilityMapping
    }

    /// NFC; a value over ``maxNormalizedBytes`` is returned as given.
    static func nfc(_ value: String) -> String {
        value.utf8.count > maxNormalizedBytes ? value : value.precomposedStringWithCanonicalMapping
    }

    static func key(_ kind: ListKey, _ value: String) -> String {
        switch kind {
        case .exact: value
        case .canonical: canonical(value)
        case .lookalike: lookalike(value)
        case .nfkcCasefold: nfkcCasefold(value)
        }
    }
}

/// The keys of a `list` rule: a `Set` for strings and a ``ByteKeyTable`` for the display-name
/// fast path, which probes with bytes.
///
/// A class: validators hand it around on every name, and one reference count is cheaper than
/// one per stored collection.
final class KeyList: Sendable {
    let kind: ListKey
    let entries: Set<String>
    /// The longest entry in UTF-8 bytes: longer probes cannot match.
    let maxLength: Int
    let table: ByteKeyTable

    init(kind: ListKey, entries: [String]) {
        self.kind = kind
        let keys = Set(entries.map { Keys.key(kind, $0) })
        self.entries = keys
        self.maxLength = keys.map(\.utf8.count).max() ?? 0
        self.table = ByteKeyTable(keys)
    }

    /// How many times longer in UTF-8 than a key a canonically equivalent value can be: a
    /// scalar decomposes into at most four (UnicodeData.txt; checked over every scalar by
    /// `canonicalDecompositionsHaveAtMostFourScalars`), of at most four bytes each.
    static let maxEquivalentExpansion = 16

    /// Whether `value`'s key is listed. A key too long to be equivalent to any entry is not
    /// looked up: `Set` compares strings by canonical equivalence, whose cost grows with the
    /// square of a run of combining marks.
    func contains(_ value: String) -> Bool {
        let key = Keys.key(kind, value)
        guard key.utf8.count <= maxLength * Self.maxEquivalentExpansion else { return false }
        return entries.contains(key)
    }
}

/// An immutable open-addressing hash set of byte strings (FNV-1a, linear probing), probed
/// without allocating or reference counting.
final class ByteKeyTable: @unchecked Sendable {
    // INVARIANT: both buffers are written only in `init` and freed only in `deinit`, so
    // concurrent reads are safe.
    private let storage: UnsafeMutableBufferPointer<UInt8>
    /// 0 = empty; otherwise `(offset + 1) << 16 | length`.
    private let slots: UnsafeMutableBufferPointer<UInt64>
    private let mask: Int

    init(_ keys: Set<String>) {
        var size = 8
        while size < keys.count * 2 { size <<= 1 }
        var storage: [UInt8] = []
        var slots = [UInt64](repeating: 0, count: size)
        for key in keys.sorted() where key.utf8.count < 0xFFFF {
            let bytes = Array(key.utf8)
            var index = Int(truncatingIfNeeded: bytes.withUnsafeBufferPointer(ByteKeyTable.hash)) & (size - 1)
            while slots[index] != 0 { index = (index + 1) & (size - 1) }
            slots[index] = UInt64(storage.count + 1) << 16 | UInt64(bytes.count)
            storage += bytes
        }
        self.storage = .allocate(capacity: Swift.max(1, storage.count))
        _ = self.storage.initialize(from: storage)
        self.slots = .allocate(capacity: size)
        _ = self.slots.initialize(from: slots)
        self.mask = size - 1
    }

    deinit {
        storage.deallocate()
        slots.deallocate()
    }

    static let offsetBasis: UInt64 = 0xCBF2_9CE4_8422_2325
    static let prime: UInt64 = 0x0000_0100_0000_01B3

    /// FNV-1a.
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash = offsetBasis
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* prime }
        return hash
    }

    /// Whether `key`, whose FNV-1a hash is `hash`, is in the table.
    func contains(_ key: UnsafeBufferPointer<UInt8>, hash: UInt64) -> Bool {
        var index = Int(truncatingIfNeeded: hash) & mask
        while true {
            let slot = slots[index]
            if slot == 0 { return false }
            let length = Int(slot & 0xFFFF)
            if length == key.count {
                let offset = Int(slot >> 16) - 1
                var equal = true
                for i in 0..<length where storage[offset + i] != key[i] { equal = false; break }
                if equal { return true }
            }
            index = (index + 1) & mask
        }
    }
}
