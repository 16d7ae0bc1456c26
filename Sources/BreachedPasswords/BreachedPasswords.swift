// BreachedPasswords: Pwned Passwords files (`HEX40:COUNT` lines) imported into a compact,
// memory-mappable store, and the lookups made in it: a password's SHA-1, a hash, and the
// five-hex-digit ranges of the Pwned Passwords range API.
//
// Owns: the store format (StoreFormat), the importer (BreachedImport), the reader
// (BreachedStore) and the range API's text (RangeAnswer). SHA-1 comes from swift-crypto
// (`Insecure.SHA1`), never from code of our own.
// Does not own: the rule that rejects breached passwords (FieldValidation's `breached` kind), the
// CLI or the HTTP route.
import Crypto

/// SHA-1 as the Pwned Passwords corpus uses it: of the password's UTF-8 bytes, as typed.
public enum PasswordHash {
    /// The 20 bytes of SHA-1 of `password`'s UTF-8.
    public static func sha1(_ password: String) -> SHA1Digest {
        var copy = password
        return copy.withUTF8 { sha1(UnsafeRawBufferPointer($0)) }
    }

    /// The 20 bytes of SHA-1 of `bytes`.
    public static func sha1(_ bytes: UnsafeRawBufferPointer) -> SHA1Digest {
        let digest = Insecure.SHA1.hash(data: bytes)
        return digest.withUnsafeBytes { SHA1Digest(bytes: $0) }
    }
}

/// A SHA-1 digest as three words, most significant first, so comparing two is comparing the
/// words (the byte order of the hex text).
public struct SHA1Digest: Sendable, Hashable, Comparable {
    /// Bytes 0..<8, big-endian.
    public var high: UInt64
    /// Bytes 8..<16, big-endian.
    public var middle: UInt64
    /// Bytes 16..<20, big-endian.
    public var low: UInt32

    /// A digest from its words.
    public init(high: UInt64, middle: UInt64, low: UInt32) {
        self.high = high
        self.middle = middle
        self.low = low
    }

    /// A digest from 20 bytes (missing bytes are zero, extra bytes ignored).
    public init(bytes: UnsafeRawBufferPointer) {
        var words: (UInt64, UInt64, UInt32) = (0, 0, 0)
        for index in 0..<min(20, bytes.count) {
            let byte = bytes[index]
            switch index {
            case 0..<8: words.0 |= UInt64(byte) << (8 * (7 - index))
            case 8..<16: words.1 |= UInt64(byte) << (8 * (15 - index))
            default: words.2 |= UInt32(byte) << (8 * (19 - index))
            }
        }
        (high, middle, low) = words
    }

    /// Byte `index` (0..<20), most significant first.
    @inline(__always)
    public func byte(_ index: Int) -> UInt8 {
        switch index {
        case 0..<8: UInt8(truncatingIfNeeded: high >> (8 * (7 - index)))
        case 8..<16: UInt8(truncatingIfNeeded: middle >> (8 * (15 - index)))
        default: UInt8(truncatingIfNeeded: low >> (8 * (19 - index)))
        }
    }

    /// The first 20 bits: the range API's five-hex-digit prefix.
    public var prefix: Int { Int(high >> 44) }

    /// The 40 hex digits, uppercase. Only for tests and tools: never print a real password's hash.
    public var hex: String {
        String(decoding: (0..<20).flatMap { index -> [UInt8] in
            let byte = self.byte(index)
            return [Hex.digits[Int(byte >> 4)], Hex.digits[Int(byte & 0xF)]]
        }, as: UTF8.self)
    }

    public static func < (lhs: SHA1Digest, rhs: SHA1Digest) -> Bool {
        (lhs.high, lhs.middle, lhs.low) < (rhs.high, rhs.middle, rhs.low)
    }
}

/// Hex digits both ways.
enum Hex {
    /// `0`…`9`, `A`…`F`.
    static let digits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// The value of each byte as a hex digit (either case), or 0xFF.
    static let values: [UInt8] = (0..<256).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt8(byte) - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt8(byte) - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt8(byte) - UInt8(ascii: "A") + 10
        default: 0xFF
        }
    }

    /// The value of a five-hex-digit range prefix (either case), or nil.
    static func prefix(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count == 5 else { return nil }
        var value = 0
        for byte in bytes {
            let digit = values[Int(byte)]
            guard digit != 0xFF else { return nil }
            value = value << 4 | Int(digit)
        }
        return value
    }
}
