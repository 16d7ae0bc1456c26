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
/// Rules see these subjects: `address` (raw), `local-part` (NFC; as typed when that holds an
/// ASCII character atext forbids), `domain` (as typed when ASCII, else its UTS 46 mapped form,
/// so `。` counts as a period and U+037E as `;`), `ascii-domain` (lowercase ASCII / `xn--` form,
/// lengths unchecked; absent when IDNA rejects the domain) and `ascii-address`
/// (`local-part@ascii-domain`). See docs/RULE-PACKS.md, "Email domains after UTS 46 mapping".
///
/// A valid address's ``ValidationResult/normalized`` is the NFC local part, `@`, and the
/// lowercased Unicode domain; ``ValidationResult/asciiForm`` uses the ASCII domain and is nil
/// when the local part is not ASCII.
///
/// Speed: any pack runs on ``EmailEngine``: one automaton pass over each per-address subject,
/// and the domain rules once per distinct domain. A pack with a Swift rule that reads more than
/// its own subject runs rule by rule. ``violations(utf8:)`` skips building the normalized forms.
public struct EmailValidator: Sendable {
    let rules: CompiledRuleSet
    let engine: EmailEngine?
    /// Whether the local part must be ASCII (no SMTPUTF8). Internationalized domains are still
    /// accepted; their ASCII form is in ``ValidationResult/asciiForm``.
    public let asciiOnly: Bool
    /// The providers' rules behind ``ValidationResult/mailboxKey``.
    public let providers: MailboxProviders

    /// The id of the shipped rule `rejectDisposable:` switches on and `allowDomains:` adjusts.
    public static let disposableRule = "email.disposable-domain"

    /// Compiles the email rules of `packs`.
    ///
    /// - Parameters:
    ///   - packs: the rule packs (the shipped ones by default).
    ///   - asciiOnly: reject non-ASCII local parts (like email-validator's `allow_smtputf8=False`).
    ///   - rules: extra Swift rules the packs may refer to.
    ///   - rejectDisposable: switches `email.disposable-domain` (EM132, shipped off) on.
    ///   - allowDomains: domains `email.disposable-domain` never rejects, nor their subdomains
    ///     (added to the rule's `allow-file` entries; they win over the list).
    ///   - providers: the rules behind ``ValidationResult/mailboxKey`` (the shipped
    ///     `rules/lists/email-providers.yaml` by default).
    /// - Throws: ``RulePackError`` when the packs do not load or compile.
    public init(packs: RulePackSet = .shipped, asciiOnly: Bool = false, rules: [any FieldRule] = [],
                rejectDisposable: Bool = false, allowDomains: [String] = [],
                providers: MailboxProviders = .shipped) throws(RulePackError) {
        let compiled = try CompiledRuleSet.compile(packs, field: .email, library: EmailRules.all + rules,
                                                   compilesAutomata: false) { definition in
            guard definition.id == Self.disposableRule else { return }
            if rejectDisposable { definition.enabled = true }
            if !allowDomains.isEmpty { definition.allowEntries = (definition.allowEntries ?? []) + allowDomains }
        }
        // The engine compiles automata for the per-address subjects only (the domain rules run
        // once per domain); a pack it cannot run goes rule by rule, on automata for every subject.
        self.engine = EmailEngine(compiled, asciiOnly: asciiOnly)
        self.rules = engine?.rules ?? CompiledRuleSet(field: .email, rules: compiled.rules)
        self.asciiOnly = asciiOnly
        self.providers = providers
    }

    /// How each rule is decided: automata, PCRE2, lengths, lists, Swift rules.
    public var plan: ValidatorPlan { ValidatorPlan(rules) }

    /// Validates an email address.
    ///
    /// - Returns: every violation in pack order; when valid, the normalized address and,
    ///   for ASCII local parts, the all-ASCII form.
    public func validate(_ address: String) -> ValidationResult {
        var copy = address
        return copy.withUTF8 { validate(bytes: $0, address: address) }
    }

    /// Validates an address given as UTF-8 bytes (valid UTF-8, checked by the caller).
    public func validate(utf8 bytes: UnsafeRawBufferPointer) -> ValidationResult {
        validate(bytes: bytes.assumingMemoryBound(to: UInt8.self), address: nil, normalize: true)
    }

    /// ``validate(utf8:)``, building ``ValidationResult/mailboxKey`` only when `mailboxKey` is
    /// true (the batch engine's CSV and text output never show it).
    package func validate(utf8 bytes: UnsafeRawBufferPointer, mailboxKey: Bool) -> ValidationResult {
        validate(bytes: bytes.assumingMemoryBound(to: UInt8.self), address: nil, normalize: true, mailboxKey: mailboxKey)
    }

    /// The violations of an address given as UTF-8 bytes (valid UTF-8, checked by the caller):
    /// the same as ``validate(utf8:)``'s, without building the normalized and ASCII forms
    /// (for counts and summaries).
    public func violations(utf8 bytes: UnsafeRawBufferPointer) -> [Violation] {
        validate(bytes: bytes.assumingMemoryBound(to: UInt8.self), address: nil, normalize: false).violations
    }

    /// Every rule, one by one, with no engine (the reference the engine must agree with).
    func validateRuleByRule(_ address: String, mailboxKey: Bool = true) -> ValidationResult {
        let parts = EmailParts(address)
        let input = FieldInput(field: .email, raw: address, subjectList: parts.subjects, asciiOnly: asciiOnly)
        let violations = rules.evaluate(input)
        guard violations.isEmpty, let local = parts.localPart, let ascii = parts.asciiDomain else {
            return ValidationResult(violations: violations)
        }
        let unicodeDomain = ascii.contains("xn--") ? ((try? IDNA.toUnicode(ascii)) ?? ascii) : ascii
        var result = ValidationResult(
            violations: [], normalized: local + "@" + unicodeDomain,
            asciiForm: local.utf8.allSatisfy { $0 < 0x80 } ? local + "@" + ascii : nil)
        if mailboxKey, let normalized = result.normalized { result.mailboxKey = providers.key(normalized: normalized) }
        return result
    }

    /// The engine's result, or rule by rule when there is no engine. `address` is the string
    /// form of `bytes` when the caller has it; `mailboxKey` (with `normalize`) adds the mailbox key.
    private func validate(bytes: UnsafeBufferPointer<UInt8>, address: String?, normalize: Bool = true,
                          mailboxKey: Bool = true) -> ValidationResult {
        if var decided = engine?.validate(bytes, normalize: normalize) {
            if normalize, mailboxKey, let normalized = decided.normalized { decided.mailboxKey = providers.key(normalized: normalized) }
            return decided
        }
        return validateRuleByRule(address ?? String(decoding: bytes, as: UTF8.self), mailboxKey: normalize && mailboxKey)
    }
}

/// An address split at its only `@`-sign, with the derived subjects.
struct EmailParts {
    var subjects: [(name: String, value: String)]
    var localPart: String?
    var asciiDomain: String?

    init(_ address: String) {
        subjects = [("address", address)]
        // `@` is ASCII: counting bytes counts scalars, and its index is a scalar boundary.
        var ats = 0
        var at = address.utf8.startIndex
        for index in address.utf8.indices where address.utf8[index] == UInt8(ascii: "@") {
            ats += 1
            at = index
        }
        guard ats == 1 else { return }
        let (local, localSubject) = Self.local(String(address.unicodeScalars[..<at]))
        let domain = String(address.unicodeScalars[address.unicodeScalars.index(after: at)...])
        localPart = local
        subjects.append(("local-part", localSubject))
        let (domainSubject, ascii) = Self.domain(domain)
        subjects.append(("domain", domainSubject))
        asciiDomain = ascii
        if let ascii {
            subjects.append(("ascii-domain", ascii))
            subjects.append(("ascii-address", local + "@" + ascii))
        }
    }

    /// A local part as typed: its NFC form, and the `local-part` subject the rules see.
    ///
    /// NFC can compose an ASCII character a dot-atom forbids into one it allows (`<` and U+0338
    /// become U+226E NOT LESS-THAN): then the rules see the local part as typed.
    static func local(_ raw: String) -> (nfc: String, subject: String) {
        // ASCII is its own NFC form.
        if raw.utf8.allSatisfy({ $0 < 0x80 }) { return (raw, raw) }
        let nfc = Keys.nfc(raw)
        return (nfc, hasASCII(raw, outside: atext) ? raw : nfc)
    }

    /// A domain as typed: the `domain` subject the rules see, and the `ascii-domain` subject
    /// (nil when the domain is empty or IDNA rejects it).
    ///
    /// The rules check the UTS 46 mapped form, as if it had been typed (`。` is a period,
    /// U+037E is `;`), unless the domain as typed already holds an ASCII character a hostname
    /// forbids (NFC could compose it away) or does not map. The ASCII form is kept even when too
    /// long, so the length rules measure it (a label libidn2 will not encode, being over 63
    /// octets, counts at its shortest A-label length).
    static func domain(_ domain: String) -> (subject: String, ascii: String?) {
        guard !domain.isEmpty else { return (domain, nil) }
        if domain.utf8.allSatisfy({ $0 < 0x80 }) { return (domain, Keys.canonical(domain)) }
        let processed = try? IDNA.process(domain)
        let asTyped = processed == nil || hasASCII(domain, outside: hostname)
        return (asTyped ? domain : processed?.mapped ?? domain, processed.flatMap { $0.problem == nil ? $0.ascii : nil })
    }

    /// RFC 5322 section 3.2.3 atext and the period, as ASCII bytes.
    static let atext: Set<UInt8> = Set(Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+/=?^_`{|}~.-".utf8))
    /// Letters, digits, hyphen and period (RFC 1035 section 2.3.1), as ASCII bytes.
    static let hostname: Set<UInt8> = Set(Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-".utf8))

    /// Whether `text` holds an ASCII byte not in `allowed`.
    static func hasASCII(_ text: String, outside allowed: Set<UInt8>) -> Bool {
        text.utf8.contains { $0 < 0x80 && !allowed.contains($0) }
    }
}

/// The built-in Swift rules of the email pack. Each reads one subject only (``SubjectRule``).
enum EmailRules {
    static let all: [any FieldRule] = [UnsafeCharacters(), OneAtSign(), ASCIIOnly(), IDNAValid()]

    /// `email.unsafe-characters`: the address holds a character ``unsafeCharacters(_:)`` reports.
    final class UnsafeCharacters: SubjectRule {
        let name = "email.unsafe-characters"
        let subject = "address"
        /// Any character but printable ASCII and the Latin-1 and Latin Extended-A characters that
        /// are never unsafe, even first (no control, format, separator or mark: all but U+00AD
        /// SOFT HYPHEN from U+00A1 on). A small class keeps the subject's automaton small;
        /// `SubjectRulePrefilterTests` checks it against ``isUnsafe(_:atStart:)``.
        let prefilter: String? = #"[^!-~\x{A1}-\x{AC}\x{AE}-\x{17F}]"#

        func check(subject bytes: UnsafeBufferPointer<UInt8>, asciiOnly: Bool) -> [String: String]? {
            // In ASCII only C0 controls, SPACE and DEL are unsafe.
            var plain = true
            for byte in bytes where byte &- 0x21 >= 0x5E {
                plain = false
                break
            }
            if plain || !hasUnsafeCharacters(bytes) { return nil }
            return unsafeCharacters(String(decoding: bytes, as: UTF8.self)).map { ["characters": $0] }
        }
    }

    /// `email.one-at-sign`: the address has no `@`-sign, or several.
    final class OneAtSign: SubjectRule {
        let name = "email.one-at-sign"
        let subject = "address"
        /// No `@`, or two.
        let prefilter: String? = #"\A[^@]*\z|@[^@]*@"#

        /// The parameters for each count below 8, built once.
        private static let counts = (0..<8).map { ["count": String($0)] }

        func check(subject bytes: UnsafeBufferPointer<UInt8>, asciiOnly: Bool) -> [String: String]? {
            var count = 0
            for byte in bytes where byte == UInt8(ascii: "@") { count += 1 }
            guard count != 1 else { return nil }
            return count < Self.counts.count ? Self.counts[count] : ["count": String(count)]
        }
    }

    /// `email.ascii-only`: an ASCII-only validator got a non-ASCII local part.
    final class ASCIIOnly: SubjectRule {
        let name = "email.ascii-only"
        let subject = "local-part"
        /// Any non-ASCII character.
        let prefilter: String? = #"[^\x00-\x7F]"#

        func check(subject bytes: UnsafeBufferPointer<UInt8>, asciiOnly: Bool) -> [String: String]? {
            guard asciiOnly, !bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            let bad = String(decoding: bytes, as: UTF8.self).unicodeScalars.filter { !$0.isASCII }
            return ["characters": displayCharacters(bad)]
        }
    }

    /// `email.idna`: the domain fails UTS 46 + IDNA 2008 (``idnaProblem(_:)``).
    final class IDNAValid: StringSubjectRule {
        let name = "email.idna"
        let subject = "domain"

        func check(subject domain: String, asciiOnly: Bool) -> [String: String]? {
            guard !domain.isEmpty else { return nil }
            return idnaProblem(domain).map { ["reason": $0] }
        }
    }

    /// email-validator's unsafe set: controls, format characters, surrogates, private use,
    /// unassigned code points (including non-characters), every separator (Zs, Zl, Zp; also
    /// ASCII space, which is never allowed unquoted) and a combining mark at the start of either
    /// part (it would combine with whatever precedes the address).
    static func unsafeCharacters(_ address: String) -> String? {
        // In ASCII only C0 controls, SPACE and DEL are unsafe: skip the category lookups.
        if address.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) { return nil }
        var bad: [Unicode.Scalar] = []
        var atStart = true
        for scalar in address.unicodeScalars {
            if isUnsafe(scalar, atStart: atStart) { bad.append(scalar) }
            atStart = scalar == "@"
        }
        return bad.isEmpty ? nil : displayCharacters(bad)
    }

    /// Whether valid UTF-8 `bytes` hold a character ``unsafeCharacters(_:)`` reports (true
    /// for bytes that are not valid UTF-8), without building a string.
    static func hasUnsafeCharacters(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var atStart = true
        while true {
            switch parser.parseScalar(from: &iterator) {
            case let .valid(encoded):
                let scalar = Unicode.UTF8.decode(encoded)
                if isUnsafe(scalar, atStart: atStart) { return true }
                atStart = scalar == "@"
            case .emptyInput: return false
            case .error: return true
            }
        }
    }

    /// Whether `scalar` is unsafe; `atStart`: it starts the address or follows an `@`.
    @inline(__always)
    static func isUnsafe(_ scalar: Unicode.Scalar, atStart: Bool) -> Bool {
        // ASCII has no format, unassigned, separator or mark characters: only controls (Cc) and SPACE (Zs).
        if scalar.isASCII { return scalar.value <= 0x20 || scalar.value == 0x7F }
        switch scalar.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned,
             .spaceSeparator, .lineSeparator, .paragraphSeparator:
            return true
        case .nonspacingMark, .spacingMark, .enclosingMark:
            return atStart
        default:
            return false
        }
    }

    /// Why the domain fails UTS 46 + IDNA 2008, or nil. A non-ASCII domain (as typed, or
    /// mapped if it still is) must map and its labels be valid IDNA 2008; lengths are left to
    /// the length rules, which measure the ASCII form. `xn--` labels must decode and encode
    /// back to the same label.
    static func idnaProblem(_ domain: String) -> String? {
        if !domain.utf8.allSatisfy({ $0 < 0x80 }) {
            do {
                if let problem = try IDNA.process(domain).problem { return problem.message }
            } catch {
                return error.message
            }
        }
        var unicodeLabels: [String] = []
        var decodedAny = false
        for label in domain.split(separator: ".", omittingEmptySubsequences: false) {
            let ascii = label.lowercased()
            guard label.utf8.allSatisfy({ $0 < 0x80 }) && ascii.hasPrefix("xn--") else {
                unicodeLabels.append(String(label))
                continue
            }
            do {
                let unicode = try IDNA.toUnicode(ascii)
                guard try IDNA.toASCII(unicode) == ascii else {
                    return "the label \(ascii) does not round-trip through Unicode"
                }
                unicodeLabels.append(unicode)
                decodedAny = true
            } catch {
                return "the label \(ascii) is not valid Punycode: \(error.message)"
            }
        }
        // The domain's Unicode form must pass as if typed: the Bidi rule, for one, looks across
        // labels, so an `xn--` label that round-trips can still break it next to another label.
        guard decodedAny else { return nil }
        do {
            return try IDNA.process(unicodeLabels.joined(separator: ".")).problem?.message
        } catch {
            return error.message
        }
    }
}
