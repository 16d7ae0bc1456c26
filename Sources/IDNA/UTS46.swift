// UTS #46 processing through libidn2, so a domain can be re-checked in the form it maps to.
// libidn2 maps (non-transitional, STD3 rules off), encodes and checks IDNA 2008 label by label;
// this file splits the domain, keeps what libidn2 would drop or refuse to return (the mapped
// form of a rejected label, the length of an over-long A-label) and adds the two IDNA 2008
// checks libidn2 2.3 misses. It has no mapping table and no Punycode of its own.
import CIDN2
import Foundation

extension IDNA {
    /// The most code points ``process(_:)`` accepts; longer domains are far over every DNS
    /// limit (253 octets, RFC 1035 section 2.3.4).
    public static let maxProcessedScalars = 4_096

    /// A domain after UTS #46 mapping, with its ASCII form and IDNA 2008 verdict, before the
    /// DNS length limits are applied.
    public struct Processed: Sendable, Hashable {
        /// The mapped form: UTS #46 mapped by libidn2 (non-transitional, without STD3 rules) in
        /// NFC, labels separated by `.` (`。`, `．` and `｡` become `.`); empty labels are kept.
        public let mapped: String
        /// Every label of ``mapped`` in ASCII form: libidn2's A-label (`xn--…`) for non-ASCII
        /// labels, ASCII labels as they are. Lengths are not checked. libidn2 does not return
        /// an A-label longer than 63 octets; such a label stands here as the shortest A-label it
        /// can have (`xn--`, its ASCII characters and `-`, one `a` per other code point, at
        /// least 64 octets), so it is over the label limit and the address length is a lower
        /// bound. Nil when ``problem`` is set.
        public let ascii: String?
        /// Why IDNA 2008 rejects a non-ASCII label of ``mapped``, leaving aside the label and
        /// domain length limits; nil when every label passes.
        public let problem: Failure?
    }

    /// The UTS #46 mapping of `domain` (section 4 steps 1 and 2, non-transitional, STD3 rules
    /// off, so an ASCII character a mapping produces is kept for the caller to check), as
    /// ``Processed/mapped``.
    ///
    /// - Throws: ``Failure`` (`IDN2_DISALLOWED`) naming the first disallowed code point.
    public static func map(_ domain: String) throws(Failure) -> String {
        try process(domain).mapped
    }

    /// Maps `domain` with libidn2 label by label, giving its mapped and ASCII forms and the
    /// IDNA 2008 verdict on its non-ASCII labels, without the length limits (callers measure
    /// the ASCII form).
    ///
    /// - Throws: ``Failure`` when a code point is disallowed, so the domain has no mapped form,
    ///   or when the domain has more than ``maxProcessedScalars`` code points.
    public static func process(_ domain: String) throws(Failure) -> Processed {
        guard domain.unicodeScalars.count <= maxProcessedScalars else {
            throw Failure(code: Int32(IDN2_TOO_BIG_DOMAIN.rawValue), message: "domain is longer than \(maxProcessedScalars) characters")
        }
        var mapped: [String] = [], ascii: [String] = []
        var problem: Failure?
        for label in domain.split(omittingEmptySubsequences: false, whereSeparator: isFullStop) {
            let result = try processLabel(label)
            mapped.append(result.mapped)
            ascii.append(result.ascii)
            if problem == nil { problem = result.problem }
        }
        let joined = mapped.joined(separator: ".")
        if problem == nil { problem = missedByLibidn2(mapped: joined, labels: mapped) }
        return Processed(mapped: joined, ascii: problem == nil ? ascii.joined(separator: ".") : nil, problem: problem)
    }

    // MARK: - Labels

    /// The UTS #46 full stops: `.`, U+3002 IDEOGRAPHIC FULL STOP, U+FF0E FULLWIDTH FULL STOP and
    /// U+FF61 HALFWIDTH IDEOGRAPHIC FULL STOP (section 4 step 1 maps the last three to `.`; no
    /// other code point maps to one that holds a `.` and is allowed).
    static func isFullStop(_ character: Character) -> Bool {
        switch character {
        case ".", "\u{3002}", "\u{FF0E}", "\u{FF61}": true
        default: false
        }
    }

    /// libidn2's codes for a label or domain over the DNS limits.
    static let lengthCodes: Set<Int32> = [
        Int32(IDN2_PUNYCODE_BIG_OUTPUT.rawValue), Int32(IDN2_TOO_BIG_DOMAIN.rawValue), Int32(IDN2_TOO_BIG_LABEL.rawValue),
    ]

    /// No NFC flag (libidn2 puts the mapped form in NFC itself) and no STD3 rules: libidn2 2.3
    /// with them silently drops ASCII characters STD3 forbids (`a;b` becomes `ab`).
    static let flags = Int32(IDN2_NONTRANSITIONAL.rawValue)

    /// One label's mapped form, ASCII form and libidn2's verdict.
    static func processLabel(_ label: Substring) throws(Failure) -> (mapped: String, ascii: String, problem: Failure?) {
        if label.utf8.allSatisfy({ $0 < 0x80 }) {
            // UTS 46 maps ASCII only by lowercasing it (STD3 rules off); the ASCII rules judge
            // the rest, and `xn--` labels are the caller's to check.
            let lower = String(decoding: label.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
            return (lower, lower, nil)
        }
        do {
            let ascii = try call(String(label)) { input, output in idn2_to_ascii_8z(input, output, flags) }
            return (try unicodeLabel(ascii), ascii, nil)
        } catch {
            // libidn2 returns nothing for a label it rejects: map it code point by code point.
            let mapped = try mapScalars(label)
            if mapped.utf8.allSatisfy({ $0 < 0x80 }) {
                // Mapped into ASCII (`ab－－cd` is `ab--cd`): checked as if typed that way.
                return (mapped, mapped, nil)
            }
            if lengthCodes.contains(error.code) {
                // libidn2 checks a label's contents before encoding it, so only its length failed.
                return (mapped, shortestALabel(mapped), nil)
            }
            return (mapped, mapped, error)
        }
    }

    /// The Unicode form of a label libidn2 produced (an `xn--` label decoded, others as they are).
    static func unicodeLabel(_ ascii: String) throws(Failure) -> String {
        guard ascii.hasPrefix("xn--") else { return ascii }
        return try call(ascii) { input, output in idn2_to_unicode_8z8z(input, output, flags) }
    }

    /// The mapped form of a label libidn2 rejects, one code point at a time, in NFC. Exact in
    /// its ASCII characters (the ones the caller's rules look at): every code point that maps
    /// into ASCII is mapped alone by libidn2, or between two letters when its mapping is a
    /// hyphen. A code point that fails a contextual rule alone (combining marks, joiners)
    /// stands for itself; NFC then applies the canonical mappings among them.
    ///
    /// - Throws: ``Failure`` (`IDN2_DISALLOWED`) naming a disallowed code point.
    static func mapScalars(_ label: Substring) throws(Failure) -> String {
        var out = String.UnicodeScalarView()
        for scalar in label.unicodeScalars {
            if scalar.isASCII {
                out.append(scalar.value >= 0x41 && scalar.value <= 0x5A ? Unicode.Scalar(UInt8(scalar.value | 0x20)) : scalar)
            } else {
                out.append(contentsOf: try mapScalar(scalar).unicodeScalars)
            }
        }
        let mapped = String(out)
        return mapped.utf8.allSatisfy { $0 < 0x80 } ? mapped : mapped.precomposedStringWithCanonicalMapping
    }

    /// What libidn2 maps one non-ASCII code point to.
    static func mapScalar(_ scalar: Unicode.Scalar) throws(Failure) -> String {
        do {
            return try unicodeLabel(try call(String(scalar)) { input, output in idn2_to_ascii_8z(input, output, flags) })
        } catch where error.code == Int32(IDN2_DISALLOWED.rawValue) {
            throw Failure(code: error.code, message: "\(describe(scalar)) is not allowed in a domain name")
        } catch where error.code == Int32(IDN2_HYPHEN_STARTEND.rawValue) {
            // It maps to a hyphen, which cannot end a label: map `a` + it + `a` and drop the `a`s.
            do {
                let wrapped = try unicodeLabel(try call("a" + String(scalar) + "a") { input, output in
                    idn2_to_ascii_8z(input, output, flags)
                })
                return String(String.UnicodeScalarView(wrapped.unicodeScalars.dropFirst().dropLast()))
            } catch {
                return String(scalar)
            }
        } catch {
            return String(scalar)
        }
    }

    /// The shortest A-label a non-ASCII mapped label can have, for one libidn2 found longer than
    /// 63 octets: `xn--`, its ASCII code points and `-`, then at least one Punycode digit per
    /// other code point (RFC 3492 section 6.3), standing here as `a`; at least 64 octets.
    static func shortestALabel(_ mapped: String) -> String {
        let basic = mapped.unicodeScalars.filter(\.isASCII)
        let others = mapped.unicodeScalars.count - basic.count
        var label = "xn--" + String(String.UnicodeScalarView(basic)) + (basic.isEmpty ? "" : "-")
            + String(repeating: "a", count: others)
        if label.utf8.count < 64 { label += String(repeating: "a", count: 64 - label.utf8.count) }
        return label
    }

    // MARK: - What libidn2 misses

    /// The IDNA 2008 rules libidn2 2.3 does not apply to a mapped domain, or nil.
    static func missedByLibidn2(mapped: String, labels: [String]) -> Failure? {
        guard !mapped.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        // U+2260, U+226E and U+226F decompose to `=`, `<` and `>` plus U+0338: IDNA 2008 disallows
        // them (RFC 5892 section 2.2), but libidn2 without STD3 rules (which it cannot apply
        // without dropping characters) lets them through.
        for scalar in mapped.unicodeScalars where !scalar.isASCII && scalar.properties.canonicalCombiningClass == .notReordered {
            let decomposed = String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars
            if let ascii = decomposed.first(where: { $0.isASCII && !isLDH($0) }) {
                return Failure(code: Int32(IDN2_DISALLOWED.rawValue),
                               message: "\(describe(scalar)) decomposes to \(describe(ascii)), which a domain name cannot hold")
            }
        }
        // RFC 5893 section 2 rule 1 holds for every label of a domain with a right-to-left label
        // (section 1.4); libidn2 checks each label alone, so `123.مثال` would pass. For a label
        // that starts with an ASCII character, rule 1 means it starts with a letter.
        if mapped.unicodeScalars.contains(where: isRightToLeft) {
            for label in labels {
                guard let first = label.unicodeScalars.first, first.isASCII, !first.properties.isAlphabetic else { continue }
                return Failure(code: Int32(IDN2_BIDI.rawValue),
                               message: "the label \(label) starts with \(describe(first)), which the Bidi rule does not allow next to a right-to-left label")
            }
        }
        return nil
    }

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
}
