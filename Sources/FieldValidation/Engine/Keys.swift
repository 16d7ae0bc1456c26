import Foundation

/// The key functions `list` rules compare on, also used for display-name uniqueness.
enum Keys {
    /// ASCII letters lowercased; every other character kept (`.` and `_` stay significant).
    static func canonical(_ value: String) -> String {
        let utf8 = value.utf8
        return String(unsafeUninitializedCapacity: utf8.count) { buffer in
            var count = 0
            for byte in utf8 {
                buffer[count] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                count += 1
            }
            return count
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

    static func nfkc(_ value: String) -> String { value.precomposedStringWithCompatibilityMapping }
    static func nfc(_ value: String) -> String { value.precomposedStringWithCanonicalMapping }

    static func key(_ kind: ListKey, _ value: String) -> String {
        switch kind {
        case .exact: value
        case .canonical: canonical(value)
        case .lookalike: lookalike(value)
        case .nfkcCasefold: nfkcCasefold(value)
        }
    }
}

/// A list of keys that can be probed with ASCII bytes without allocating.
///
/// A class: validators hand it around on every name, and one reference count is cheaper than
/// one per stored collection.
final class KeyList: Sendable {
    let kind: ListKey
    let entries: Set<String>
    /// The longest entry in UTF-8 bytes: longer probes cannot match.
    let maxLength: Int
    private let table: ByteKeyTable

    init(kind: ListKey, entries: [String]) {
        self.kind = kind
        let keys = Set(entries.map { Keys.key(kind, $0) })
        self.entries = keys
        self.maxLength = keys.map(\.utf8.count).max() ?? 0
        self.table = ByteKeyTable(keys)
    }

    func contains(_ value: String) -> Bool { entries.contains(Keys.key(kind, value)) }

    /// Membership of pure-ASCII bytes (the caller guarantees ASCII): the key is built in a
    /// stack buffer and looked up in a byte hash table, so nothing is allocated.
    func contains(ascii bytes: UnsafeRawBufferPointer) -> Bool {
        var start = 0, end = bytes.count
        if kind == .nfkcCasefold {
            // ASCII is NFKC-stable; only whitespace trimming and case remain.
            while start < end, isSpace(bytes[start]) { start += 1 }
            while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        }
        let length = end - start
        // A look-alike key can shrink (`rn` → `m`) to half the length, never below.
        guard length <= (kind == .lookalike ? maxLength * 2 : maxLength) else { return false }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Swift.max(1, length)) { buffer in
            var count = 0
            if kind == .lookalike {
                Keys.lookalikeBytes(UnsafeRawBufferPointer(rebasing: bytes[start..<end])) { buffer[count] = $0; count += 1 }
            } else {
                for i in start..<end {
                    let byte = bytes[i]
                    buffer[count] = kind != .exact && byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                    count += 1
                }
            }
            return table.contains(UnsafeBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    private func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }
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

    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return hash
    }

    func contains(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = Int(truncatingIfNeeded: ByteKeyTable.hash(key)) & mask
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
