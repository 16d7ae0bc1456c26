// UTS #46 mapping and Punycode in Swift, so a domain can be re-checked in the form it maps to.
// libidn2 still decides IDNA 2008 validity (IDNA.swift); this file owns the mapping table lookup
// (UTS46Table.swift, generated) and RFC 3492 encoding. It does not check label contents.
import CIDN2
import Foundation

/// The UTS #46 mapping table (section 5), looked up by code point.
enum UTS46 {
    enum Status: UInt8 {
        case valid = 0x56 // V
        case mapped = 0x4D // M
        case deviation = 0x44 // D
        case ignored = 0x49 // I
        case disallowed = 0x58 // X
    }

    /// The parsed ``table``: range starts, their statuses, and for mapped ranges the slice of
    /// ``Parsed/pool`` they map to.
    struct Parsed: Sendable {
        var starts: [UInt32] = []
        var statuses: [Status] = []
        var replacements: [Range<Int>] = []
        var pool: [Unicode.Scalar] = []
    }

    // INVARIANT: ``table`` is generated and well formed; a malformed line is skipped, which can
    // only make a code point take the status of the range before it (tests check known ones).
    static let parsed: Parsed = {
        var parsed = Parsed()
        parsed.starts.reserveCapacity(8_600)
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 2, let start = UInt32(fields[0], radix: 16),
                  let byte = fields[1].utf8.first, let status = Status(rawValue: byte) else { continue }
            let from = parsed.pool.count
            for field in fields.dropFirst(2) {
                if let value = UInt32(field, radix: 16), let scalar = Unicode.Scalar(value) { parsed.pool.append(scalar) }
            }
            parsed.starts.append(start)
            parsed.statuses.append(status)
            parsed.replacements.append(from..<parsed.pool.count)
        }
        return parsed
    }()

    /// The status of `scalar` and, when mapped, what it maps to.
    static func lookup(_ scalar: Unicode.Scalar) -> (Status, ArraySlice<Unicode.Scalar>) {
        let table = parsed
        let value = scalar.value
        // The last range starting at or before `value` (the first range starts at 0).
        var low = 0, high = table.starts.count
        while high - low > 1 {
            let middle = (low + high) / 2
            if table.starts[middle] <= value { low = middle } else { high = middle }
        }
        guard low < table.statuses.count else { return (.disallowed, []) }
        return (table.statuses[low], table.pool[table.replacements[low]])
    }
}

extension IDNA {
    /// The most code points ``process(_:)`` encodes; longer domains are far over every DNS
    /// limit (253 octets, RFC 1035 section 2.3.4) and Punycode's cost grows with the square of
    /// a label's length.
    public static let maxProcessedScalars = 4_096

    /// A domain after UTS #46 mapping, with its ASCII form and IDNA 2008 verdict, before the
    /// DNS length limits are applied.
    public struct Processed: Sendable, Hashable {
        /// The mapped form: UTS #46 mapped (non-transitional, without STD3 rules) and put in
        /// NFC, labels separated by `.` (`。`, `．` and `｡` become `.`); empty labels are kept.
        public let mapped: String
        /// Every non-ASCII label of ``mapped`` as `xn--` and its Punycode (RFC 3492), the
        /// others as they are. Lengths are not checked. Nil when ``mapped`` has more than
        /// ``IDNA/maxProcessedScalars`` code points.
        public let ascii: String?
        /// Why IDNA 2008 (through libidn2) rejects a label of ``mapped``, leaving aside the
        /// label and domain length limits; nil when it accepts every label.
        public let problem: Failure?
    }

    /// The UTS #46 mapping of `domain` (section 4 steps 1 and 2, non-transitional, STD3 rules
    /// off, so an ASCII character a mapping produces is kept for the caller to check): every
    /// code point mapped by the table, ignored ones removed, then NFC.
    ///
    /// - Throws: ``Failure`` (`IDN2_DISALLOWED`) naming the first disallowed code point.
    public static func map(_ domain: String) throws(Failure) -> String {
        var out = String.UnicodeScalarView()
        for scalar in domain.unicodeScalars {
            if scalar.isASCII {
                // The table maps only A-Z in ASCII (to lowercase).
                out.append(scalar.value >= 0x41 && scalar.value <= 0x5A ? Unicode.Scalar(UInt8(scalar.value | 0x20)) : scalar)
                continue
            }
            let (status, replacement) = UTS46.lookup(scalar)
            switch status {
            case .valid, .deviation: out.append(scalar)
            case .mapped: out.append(contentsOf: replacement)
            case .ignored: continue
            case .disallowed:
                throw Failure(code: Int32(IDN2_DISALLOWED.rawValue), message: "\(describe(scalar)) is not allowed in a domain name")
            }
        }
        let mapped = String(out)
        return mapped.utf8.allSatisfy { $0 < 0x80 } ? mapped : mapped.precomposedStringWithCanonicalMapping
    }

    /// Maps `domain` (``map(_:)``), encodes its non-ASCII labels and checks them under IDNA
    /// 2008 with libidn2, without applying the length limits (callers measure the ASCII form).
    ///
    /// - Throws: ``Failure`` when ``map(_:)`` does (a disallowed code point).
    public static func process(_ domain: String) throws(Failure) -> Processed {
        let mapped = try map(domain)
        if mapped.utf8.allSatisfy({ $0 < 0x80 }) {
            return Processed(mapped: mapped, ascii: mapped, problem: nil)
        }
        guard mapped.unicodeScalars.count <= maxProcessedScalars else {
            return Processed(mapped: mapped, ascii: nil, problem: Failure(
                code: Int32(IDN2_TOO_BIG_DOMAIN.rawValue), message: "domain is longer than \(maxProcessedScalars) characters"))
        }
        // U+2260, U+226E and U+226F decompose to `=`, `<` and `>` plus U+0338: IDNA 2008 disallows
        // them, but libidn2 without STD3 rules (which it cannot apply without dropping
        // characters) lets them through.
        for scalar in mapped.unicodeScalars where !scalar.isASCII && scalar.properties.canonicalCombiningClass == .notReordered {
            let decomposed = String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars
            if let ascii = decomposed.first(where: { $0.isASCII && !isLDH($0) }) {
                return Processed(mapped: mapped, ascii: nil, problem: Failure(
                    code: Int32(IDN2_DISALLOWED.rawValue),
                    message: "\(describe(scalar)) decomposes to \(describe(ascii)), which a domain name cannot hold"))
            }
        }
        let labels = mapped.split(separator: ".", omittingEmptySubsequences: false)
        // RFC 5893 section 2 rule 1 holds for every label of a domain with a right-to-left label
        // (section 1.4); libidn2 checks each label alone, so `123.مثال` would pass. For a label
        // that starts with an ASCII character, rule 1 means it starts with a letter.
        if mapped.unicodeScalars.contains(where: isRightToLeft) {
            for label in labels {
                guard let first = label.unicodeScalars.first, first.isASCII, !first.properties.isAlphabetic else { continue }
                return Processed(mapped: mapped, ascii: nil, problem: Failure(
                    code: Int32(IDN2_BIDI.rawValue),
                    message: "the label \(label) starts with \(describe(first)), which the Bidi rule does not allow next to a right-to-left label"))
            }
        }
        let ascii = labels.map { label in
            label.utf8.allSatisfy { $0 < 0x80 } ? String(label) : "xn--" + punycode(Array(label.unicodeScalars))
        }.joined(separator: ".")
        return Processed(mapped: mapped, ascii: ascii, problem: problem(mapped: mapped, labels: labels, ascii: ascii))
    }

    /// libidn2's verdict on a mapped domain, length limits aside.
    private static func problem(mapped: String, labels: [Substring], ascii: String) -> Failure? {
        do {
            // No NFC flag (already NFC) and no STD3 rules: libidn2 2.3 silently drops ASCII
            // characters STD3 forbids, and the caller checks ASCII itself.
            let theirs = try call(mapped) { input, output in
                idn2_to_ascii_8z(input, output, Int32(IDN2_NONTRANSITIONAL.rawValue))
            }
            guard theirs == ascii else {
                // libidn2's (older) Unicode tables map the domain differently: fail closed.
                return Failure(code: Int32(IDN2_ENCODING_ERROR.rawValue),
                               message: "libidn2 encodes the domain as \(theirs), not \(ascii)")
            }
            return nil
        } catch where lengthCodes.contains(error.code) {
            // Too long as a whole: check each label alone; the caller reports the length.
            for label in labels where !label.utf8.allSatisfy({ $0 < 0x80 }) {
                do {
                    _ = try call(String(label)) { input, output in
                        idn2_to_ascii_8z(input, output, Int32(IDN2_NONTRANSITIONAL.rawValue))
                    }
                } catch where lengthCodes.contains(error.code) {
                    continue
                } catch {
                    return error
                }
            }
            return nil
        } catch {
            return error
        }
    }

    /// libidn2's codes for a label or domain over the DNS limits.
    private static let lengthCodes: Set<Int32> = [
        Int32(IDN2_PUNYCODE_BIG_OUTPUT.rawValue), Int32(IDN2_TOO_BIG_DOMAIN.rawValue), Int32(IDN2_TOO_BIG_LABEL.rawValue),
    ]

    /// Whether `scalar` is in a right-to-left block (Hebrew, Arabic, Syriac, Thaana, NKo,
    /// Samaritan, Mandaic, their supplements and presentation forms, and the right-to-left
    /// ranges of plane 1): the code points of bidi class R, AL or AN that a valid label can hold.
    static func isRightToLeft(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0590...0x08FF, 0xFB1D...0xFDFF, 0xFE70...0xFEFF, 0x10800...0x10FFF, 0x1E800...0x1EFFF: true
        default: false
        }
    }

    /// Whether an ASCII scalar is a lowercase letter, digit, hyphen or period (STD3 rules, mapped form).
    static func isLDH(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return (value >= 0x61 && value <= 0x7A) || (value >= 0x30 && value <= 0x39) || value == 0x2D || value == 0x2E
    }

    /// How a code point is named in a message: `U+2488 DIGIT ONE FULL STOP`.
    static func describe(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        return scalar.properties.name.map { code + " " + $0 } ?? code
    }

    // MARK: - Punycode (RFC 3492 section 6.3)

    /// The Punycode encoding of a label (without the `xn--` prefix), lowercase.
    static func punycode(_ input: [Unicode.Scalar]) -> String {
        let base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700
        var output: [UInt8] = input.compactMap { $0.isASCII ? UInt8($0.value) : nil }
        let basicCount = output.count
        var handled = basicCount
        if basicCount > 0 { output.append(UInt8(ascii: "-")) }
        var n = 0x80, delta = 0, bias = 72
        func digit(_ d: Int) -> UInt8 { d < 26 ? UInt8(97 + d) : UInt8(22 + d) }
        func adapt(_ delta: Int, _ count: Int, _ first: Bool) -> Int {
            var delta = first ? delta / damp : delta / 2
            delta += delta / count
            var k = 0
            while delta > ((base - tMin) * tMax) / 2 {
                delta /= base - tMin
                k += base
            }
            return k + (base - tMin + 1) * delta / (delta + skew)
        }
        let values = input.map { Int($0.value) }
        while handled < values.count {
            // The smallest code point not yet handled (there is one: handled < count).
            let m = values.lazy.filter { $0 >= n }.min() ?? n
            delta += (m - n) * (handled + 1)
            n = m
            for value in values {
                if value < n { delta += 1 }
                if value == n {
                    var q = delta
                    var k = base
                    while true {
                        let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                        if q < t { break }
                        output.append(digit(t + (q - t) % (base - t)))
                        q = (q - t) / (base - t)
                        k += base
                    }
                    output.append(digit(q))
                    bias = adapt(delta, handled + 1, handled == basicCount)
                    delta = 0
                    handled += 1
                }
            }
            delta += 1
            n += 1
        }
        return String(decoding: output, as: UTF8.self)
    }
}
