import Foundation

/// The key functions `list` rules compare on, also used for display-name uniqueness.
enum Keys {
    /// ASCII letters lowercased; every other character kept (`.` and `_` stay significant).
    static func canonical(_ value: String) -> String {
        var bytes = Array(value.utf8)
        for i in bytes.indices where bytes[i] >= 0x41 && bytes[i] <= 0x5A { bytes[i] |= 0x20 }
        return String(decoding: bytes, as: UTF8.self)
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
struct KeyList: Sendable {
    let kind: ListKey
    let entries: Set<String>
    /// The longest entry in UTF-8 bytes: longer probes cannot match and build no string.
    let maxLength: Int

    init(kind: ListKey, entries: [String]) {
        self.kind = kind
        let keys = Set(entries.map { Keys.key(kind, $0) })
        self.entries = keys
        self.maxLength = keys.map(\.utf8.count).max() ?? 0
    }

    func contains(_ value: String) -> Bool { entries.contains(Keys.key(kind, value)) }

    /// Membership of pure-ASCII bytes (the caller guarantees ASCII). Builds the key on the stack;
    /// the probe string is a small (inline) string whenever `maxLength` ≤ 15.
    func contains(ascii bytes: UnsafeRawBufferPointer) -> Bool {
        if kind == .nfkcCasefold || kind == .exact || kind == .canonical {
            // ASCII is NFKC-stable; only whitespace trimming and case remain.
            var start = 0, end = bytes.count
            if kind == .nfkcCasefold {
                while start < end, isSpace(bytes[start]) { start += 1 }
                while end > start, isSpace(bytes[end - 1]) { end -= 1 }
            }
            guard end - start <= maxLength else { return false }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, end - start)) { buffer in
                for i in start..<end {
                    let byte = bytes[i]
                    buffer[i - start] = kind != .exact && byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                }
                return entries.contains(String(decoding: UnsafeBufferPointer(rebasing: buffer[0..<(end - start)]), as: UTF8.self))
            }
        }
        guard bytes.count <= maxLength * 2 + 1 else { return false }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, bytes.count)) { buffer in
            var count = 0
            Keys.lookalikeBytes(bytes) { buffer[count] = $0; count += 1 }
            guard count <= maxLength else { return false }
            return entries.contains(String(decoding: UnsafeBufferPointer(rebasing: buffer[0..<count]), as: UTF8.self))
        }
    }

    private func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }
}
