import IDNA

/// Validates email addresses for sign-up under a strict policy (the `email` rule packs).
///
/// Accepted: a dot-atom local part (RFC 5322 section 3.2.3 atext, plus UTF-8 per RFC 6531 unless
/// ``asciiOnly``), one `@`, and a dotted domain whose last label ends in a letter. Rejected:
/// quoted local parts, domain literals, comments, display names, unsafe Unicode, over-long parts
/// (local part 64 octets, address 254 octets, labels 63 octets: RFC 5321 section 4.5.3.1, RFC
/// 1035 section 2.3.4), invalid IDNA 2008 names, `--` in positions 3-4 outside `xn--`, and
/// IANA special-use domains.
///
/// Rules see these subjects: `address` (raw), `local-part` (NFC), `domain` (raw),
/// `ascii-domain` (lowercase ASCII / `xn--` form; absent when IDNA rejects the domain) and
/// `ascii-address` (`local-part@ascii-domain`).
///
/// A valid address's ``ValidationResult/normalized`` is the NFC local part, `@`, and the
/// lowercased Unicode domain; ``ValidationResult/asciiForm`` uses the ASCII domain and is nil
/// when the local part is not ASCII.
public struct EmailValidator: Sendable {
    let rules: CompiledRuleSet
    /// Whether the local part must be ASCII (no SMTPUTF8). Internationalized domains are still
    /// accepted; their ASCII form is in ``ValidationResult/asciiForm``.
    public let asciiOnly: Bool

    /// Compiles the email rules of `packs`.
    ///
    /// - Parameters:
    ///   - packs: the rule packs (the shipped ones by default).
    ///   - asciiOnly: reject non-ASCII local parts (like email-validator's `allow_smtputf8=False`).
    ///   - rules: extra Swift rules the packs may refer to.
    /// - Throws: ``RulePackError`` when the packs do not load or compile.
    public init(packs: RulePackSet = .shipped, asciiOnly: Bool = false, rules: [any FieldRule] = []) throws(RulePackError) {
        self.rules = try CompiledRuleSet.compile(packs, field: .email, library: EmailRules.all + rules)
        self.asciiOnly = asciiOnly
    }

    /// Validates an email address.
    ///
    /// - Returns: every violation in pack order; when valid, the normalized address and,
    ///   for ASCII local parts, the all-ASCII form.
    public func validate(_ address: String) -> ValidationResult {
        let parts = EmailParts(address)
        let input = FieldInput(field: .email, raw: address, subjects: parts.subjects, asciiOnly: asciiOnly)
        let violations = rules.evaluate(input)
        guard violations.isEmpty, let local = parts.localPart, let ascii = parts.asciiDomain else {
            return ValidationResult(violations: violations)
        }
        let unicodeDomain = ascii.contains("xn--") ? ((try? IDNA.toUnicode(ascii)) ?? ascii) : ascii
        return ValidationResult(
            violations: [], normalized: local + "@" + unicodeDomain,
            asciiForm: local.utf8.allSatisfy { $0 < 0x80 } ? local + "@" + ascii : nil)
    }

    /// Validates an address given as UTF-8 bytes (valid UTF-8, checked by the caller).
    public func validate(utf8 bytes: UnsafeRawBufferPointer) -> ValidationResult {
        validate(String(decoding: bytes, as: UTF8.self))
    }
}

/// An address split at its only `@`-sign, with the derived subjects.
struct EmailParts {
    var subjects: [String: String] = [:]
    var localPart: String?
    var asciiDomain: String?

    init(_ address: String) {
        subjects["address"] = address
        let ats = address.unicodeScalars.indices.filter { address.unicodeScalars[$0] == "@" }
        guard ats.count == 1, let at = ats.first else { return }
        let local = Keys.nfc(String(address.unicodeScalars[..<at]))
        let domain = String(address.unicodeScalars[address.unicodeScalars.index(after: at)...])
        localPart = local
        subjects["local-part"] = local
        subjects["domain"] = domain
        guard !domain.isEmpty else { return }
        if domain.utf8.allSatisfy({ $0 < 0x80 }) {
            asciiDomain = Keys.canonical(domain)
        } else {
            asciiDomain = try? IDNA.toASCII(domain)
        }
        if let asciiDomain {
            subjects["ascii-domain"] = asciiDomain
            subjects["ascii-address"] = local + "@" + asciiDomain
        }
    }
}

/// The built-in Swift rules of the email pack.
enum EmailRules {
    static let all: [any FieldRule] = [
        ClosureFieldRule(name: "email.unsafe-characters") { input in
            unsafeCharacters(input.raw).map { ["characters": $0] }
        },
        ClosureFieldRule(name: "email.one-at-sign") { input in
            let count = input.raw.unicodeScalars.filter { $0 == "@" }.count
            return count == 1 ? nil : ["count": String(count)]
        },
        ClosureFieldRule(name: "email.ascii-only") { input in
            guard input.asciiOnly, let local = input.subject("local-part") else { return nil }
            let bad = local.unicodeScalars.filter { !$0.isASCII }
            return bad.isEmpty ? nil : ["characters": displayCharacters(bad)]
        },
        ClosureFieldRule(name: "email.idna") { input in
            guard let domain = input.subject("domain"), !domain.isEmpty else { return nil }
            return idnaProblem(domain).map { ["reason": $0] }
        },
    ]

    /// email-validator's unsafe set: controls, format characters, surrogates, private use,
    /// unassigned code points (including non-characters), every separator (Zs, Zl, Zp; also
    /// ASCII space, which is never allowed unquoted) and a combining mark at the start of either
    /// part (it would combine with whatever precedes the address).
    static func unsafeCharacters(_ address: String) -> String? {
        var bad: [Unicode.Scalar] = []
        var atStart = true
        for scalar in address.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .surrogate, .privateUse, .unassigned,
                 .spaceSeparator, .lineSeparator, .paragraphSeparator:
                bad.append(scalar)
            case .nonspacingMark, .spacingMark, .enclosingMark:
                // `where` would bind to the last pattern only, so test `atStart` here.
                if atStart { bad.append(scalar) }
            default: break
            }
            atStart = scalar == "@"
        }
        return bad.isEmpty ? nil : displayCharacters(bad)
    }

    /// Why the domain fails UTS 46 + IDNA 2008, or nil. ASCII domains are checked only for
    /// their `xn--` labels, which must decode and encode back to the same label.
    static func idnaProblem(_ domain: String) -> String? {
        if !domain.utf8.allSatisfy({ $0 < 0x80 }) {
            do {
                _ = try IDNA.toASCII(domain)
                return nil
            } catch {
                return error.message
            }
        }
        for label in domain.split(separator: ".", omittingEmptySubsequences: true)
        where label.lowercased().hasPrefix("xn--") {
            let ascii = label.lowercased()
            do {
                let unicode = try IDNA.toUnicode(ascii)
                guard try IDNA.toASCII(unicode) == ascii else {
                    return "the label \(ascii) does not round-trip through Unicode"
                }
            } catch {
                return "the label \(ascii) is not valid Punycode: \(error.message)"
            }
        }
        return nil
    }
}
