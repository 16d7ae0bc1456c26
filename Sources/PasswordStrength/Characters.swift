// Character classes as zxcvbn's Python regular expressions and string methods see them. The
// estimator works on Unicode code points (Python's `len` and indices), as `UInt32`.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A password (or a part analyzed alone) as code points.
typealias Text = UnsafeBufferPointer<UInt32>
/// A part of a ``Text``.
typealias Token = Slice<UnsafeBufferPointer<UInt32>>

enum Characters {
    static let newline: UInt32 = 0x0A

    /// The code point with its simple lowercase mapping (Python's `str.lower()` for the code
    /// points whose lowercase is one code point; others stay as they are, see docs/CORPORA.md).
    @inline(__always)
    static func lowercased(_ c: UInt32) -> UInt32 {
        if c < 0x80 { return c &- 0x41 < 26 ? c | 0x20 : c }
        return nonASCIILowercased(c)
    }

    private static func nonASCIILowercased(_ c: UInt32) -> UInt32 {
        guard let scalar = Unicode.Scalar(c) else { return c }
        var mapped = scalar.properties.lowercaseMapping.unicodeScalars.makeIterator()
        if let first = mapped.next(), mapped.next() == nil { return first.value }
        return c
    }

    /// Python's `re` `\d` on `str`: general category Nd.
    @inline(__always)
    static func isDigit(_ c: UInt32) -> Bool {
        if c < 0x80 { return c &- 0x30 < 10 }
        guard let scalar = Unicode.Scalar(c) else { return false }
        return scalar.properties.numericType == .decimal
    }

    /// The value of a digit (`isDigit`).
    static func digitValue(_ c: UInt32) -> Int {
        if c < 0x80 { return Int(c &- 0x30) }
        guard let scalar = Unicode.Scalar(c), let value = scalar.properties.numericValue else { return 0 }
        return Int(value)
    }

    /// Python's `str.isspace()` (and `re`'s `\s` on `str`).
    static func isSpace(_ c: UInt32) -> Bool {
        switch c {
        case 0x09...0x0D, 0x1C...0x20, 0x85, 0xA0: return true
        case ..<0x80: return false
        default:
            guard let scalar = Unicode.Scalar(c) else { return false }
            return scalar.properties.isWhitespace
        }
    }

    /// Python's `str.isupper()` for one code point (the Unicode property Uppercase).
    static func isUpper(_ c: UInt32) -> Bool {
        if c < 0x80 { return c &- 0x41 < 26 }
        return Unicode.Scalar(c)?.properties.isUppercase ?? false
    }

    /// Python's `str.islower()` for one code point (the Unicode property Lowercase).
    static func isLower(_ c: UInt32) -> Bool {
        if c < 0x80 { return c &- 0x61 < 26 }
        return Unicode.Scalar(c)?.properties.isLowercase ?? false
    }

    @inline(__always) static func isASCIIUpper(_ c: UInt32) -> Bool { c &- 0x41 < 26 }
    @inline(__always) static func isASCIILower(_ c: UInt32) -> Bool { c &- 0x61 < 26 }
}

/// The capitalization tests of zxcvbn's scoring and feedback (ASCII classes, as its regular
/// expressions have them).
enum Casing {
    /// `^[A-Z][^A-Z]+$`
    static func startsUpper(_ token: Token) -> Bool {
        guard token.count >= 2, let first = token.first, Characters.isASCIIUpper(first) else { return false }
        return !token.dropFirst().contains(where: Characters.isASCIIUpper)
    }

    /// `^[^A-Z]+[A-Z]$`
    static func endsUpper(_ token: Token) -> Bool {
        guard token.count >= 2, let last = token.last, Characters.isASCIIUpper(last) else { return false }
        return !token.dropLast().contains(where: Characters.isASCIIUpper)
    }

    /// `^[^a-z]+$`
    static func hasNoASCIILowercase(_ token: Token) -> Bool {
        !token.isEmpty && !token.contains(where: Characters.isASCIILower)
    }

    /// `^[^A-Z]+$`
    static func hasNoASCIIUppercase(_ token: Token) -> Bool {
        !token.isEmpty && !token.contains(where: Characters.isASCIIUpper)
    }

    /// `token.lower() == token`
    static func isUnchangedByLowercasing(_ token: Token) -> Bool {
        token.allSatisfy { Characters.lowercased($0) == $0 }
    }
}

/// zxcvbn's `nCk`, computed the same way (a running product and quotient in floating point), so
/// the estimates agree to the last bit where Python's do.
func binomial(_ n: Int, _ k: Int) -> Double {
    if k > n { return 0 }
    if k == 0 { return 1 }
    var result = 1.0
    var n = Double(n)
    for d in 1...k {
        result *= n
        result /= Double(d)
        n -= 1
    }
    return result
}

/// `log10`, from the C library (the module imports no Foundation).
@inline(__always) func decimalLog(_ x: Double) -> Double { log10(x) }
