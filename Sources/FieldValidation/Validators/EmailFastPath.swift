import Foundation

/// The email fast path: one pass over the bytes of an address proves, rule by rule, which of
/// the shipped email rules cannot fire, so the validator runs only the others (through the
/// real ``CompiledRule``, so violations are exactly the rule-by-rule ones). When every rule is
/// proven, the address is valid and costs one scan and the normalized string.
///
/// It exists only when the compiled rules are the shipped email rules in their semantics: the
/// same ids in the same order, with the same kind, `on`, pattern text (or Swift rule) and
/// `unless` (see ``shipped``). Messages, codes and length limits may be overridden; limits are
/// read from the rules. A proof is only ever "this rule passes"; anything the scan is not sure
/// about (non-ASCII parts, `--` in the domain, a violation) is left to the rule itself.
///
/// Addresses whose local part is proven but whose domain is not ASCII (or contains `--`, such
/// as `xn--` labels) are decided by ``DomainMemo``: the outcome of the rules for `a@domain`,
/// computed once per domain. The property test `EmailFastPathTests` checks that both paths
/// agree on generated addresses.
final class EmailFastPath: Sendable {
    /// What a rule's proof needs to hold, for the rule to be skipped.
    ///
    /// Each case is equivalent to its pack rule *passing* under the stated condition (parts are
    /// the bytes before and after the only `@`; "ASCII part" means every byte is below 0x80).
    enum Proof: Sendable {
        /// `email.unsafe-characters`: an ASCII address is unsafe only through C0 controls, DEL
        /// (general category Cc) and SPACE (Zs); ASCII has no format, unassigned, separator or
        /// mark characters.
        case noUnsafeASCII
        /// `email.display-name` (`<[^<>]*@[^<>]*>`): cannot match without both `<` and `>`.
        case noAngleBrackets
        /// `email.quoted-local-part` (`"`): no `"` byte.
        case noQuote
        /// `email.comment` (`\([^()]*\)`): cannot match without both `(` and `)`.
        case noParentheses
        /// `email.domain-literal` (`@\[`): no `[` byte.
        case noBracket
        /// `email.one-at-sign`: exactly one `@` byte (`@` is ASCII, so bytes count scalars).
        case oneAtSign
        /// A length rule on `ascii-address`, `local-part` or `domain`: the part is ASCII (NFC
        /// and lowercasing keep its length, octets equal code points) and within bounds.
        case length(LengthSubject, min: Int?, max: Int?)
        /// `email.local-part-characters`: every byte of the local part is atext or `.`
        /// (a subset of the pattern's allowed set, so the pattern cannot match).
        case localCharacters
        /// `email.local-part-leading-period` / `-trailing-period` / `-consecutive-periods`:
        /// an ASCII local part (its own NFC form) without that period.
        case localLeadingPeriod, localTrailingPeriod, localConsecutivePeriods
        /// `email.ascii-only`: the local part is ASCII.
        case localASCII
        /// `email.domain-characters`: every byte of the domain is a letter, digit, `-` or `.`.
        case domainCharacters
        /// `email.domain-leading-period` / `-trailing-period` / `-consecutive-periods` on an
        /// ASCII domain.
        case domainLeadingPeriod, domainTrailingPeriod, domainConsecutivePeriods
        /// `email.domain-hyphen`: no label of an ASCII domain starts or ends with `-`.
        case domainHyphen
        /// `email.domain-reserved-hyphens` and `email.idna`: an ASCII domain without `--`
        /// has no label with `--` in positions 3-4 and no `xn--` label, the only labels IDNA
        /// checks in an ASCII domain.
        case noDoubleHyphen
        /// `email.domain-needs-period` (`\A[^.]+\z` on the lowercased ASCII domain): it has a
        /// period, or is empty (then `ascii-domain` is absent).
        case domainHasPeriod
        /// `email.domain-label-length` (`[^.]{64}`): no label of the ASCII domain is longer
        /// than 63 bytes.
        case labelLength
        /// `email.domain-top-level` (`(?s).*[A-Za-z]`, whole match): the ASCII domain ends in a
        /// letter, or is empty.
        case topLevelLetter
        /// `email.special-use-domain`: the last label of the lowercased ASCII domain is none of
        /// the pattern's names.
        case notSpecialUse
    }

    /// Which string a length rule measures.
    enum LengthSubject: Sendable { case address, local, domain }

    /// The shipped rules the fast path implements, in pack order: id, kind, `on`, pattern text
    /// or Swift rule name, `unless` and the proof. Length limits are not part of it.
    static let shipped: [(id: String, kind: RuleKind, on: String, detail: String, unless: [String], proof: Proof?)] = {
        let specials = ["email.unsafe-characters", "email.display-name", "email.quoted-local-part", "email.comment"]
        return [
            ("email.unsafe-characters", .swift, "address", "email.unsafe-characters", [], .noUnsafeASCII),
            ("email.display-name", .mustNotMatch, "address", "<[^<>]*@[^<>]*>", [], .noAngleBrackets),
            ("email.quoted-local-part", .mustNotMatch, "address", "\"", [], .noQuote),
            ("email.comment", .mustNotMatch, "address", "\\([^()]*\\)", [], .noParentheses),
            ("email.domain-literal", .mustNotMatch, "address", "@\\[", [], .noBracket),
            ("email.one-at-sign", .swift, "address", "email.one-at-sign", Array(specials.dropFirst()), .oneAtSign),
            ("email.max-length", .length, "ascii-address", "", [], nil),
            ("email.local-part-empty", .length, "local-part", "", [], nil),
            ("email.local-part-length", .length, "local-part", "", [], nil),
            ("email.local-part-characters", .mustNotMatch, "local-part",
             "[^A-Za-z0-9!#$%&'*+/=?^_`{|}~.\\x{80}-\\x{10FFFF}-]", specials, .localCharacters),
            ("email.local-part-leading-period", .mustNotMatch, "local-part", "\\A\\.", [], .localLeadingPeriod),
            ("email.local-part-trailing-period", .mustNotMatch, "local-part", "\\.\\z", [], .localTrailingPeriod),
            ("email.local-part-consecutive-periods", .mustNotMatch, "local-part", "\\.\\.", [], .localConsecutivePeriods),
            ("email.ascii-only", .swift, "local-part", "email.ascii-only", [], .localASCII),
            ("email.domain-empty", .length, "domain", "", [], nil),
            ("email.domain-characters", .mustNotMatch, "domain", "[^A-Za-z0-9.\\x{80}-\\x{10FFFF}-]",
             ["email.unsafe-characters", "email.display-name", "email.comment", "email.domain-literal"], .domainCharacters),
            ("email.domain-leading-period", .mustNotMatch, "domain", "\\A\\.", [], .domainLeadingPeriod),
            ("email.domain-trailing-period", .mustNotMatch, "domain", "\\.\\z", [], .domainTrailingPeriod),
            ("email.domain-consecutive-periods", .mustNotMatch, "domain", "\\.\\.", [], .domainConsecutivePeriods),
            ("email.domain-hyphen", .mustNotMatch, "domain", "(?:\\A|\\.)-|-(?:\\.|\\z)", [], .domainHyphen),
            ("email.domain-reserved-hyphens", .mustNotMatch, "domain", "(?:\\A|\\.)(?![Xx][Nn]--)[^.]{2}--", [], .noDoubleHyphen),
            ("email.idna", .swift, "domain", "email.idna",
             ["email.unsafe-characters", "email.domain-characters", "email.domain-leading-period",
              "email.domain-trailing-period", "email.domain-consecutive-periods", "email.domain-hyphen",
              "email.domain-reserved-hyphens", "email.display-name", "email.comment"], .noDoubleHyphen),
            ("email.domain-needs-period", .mustNotMatch, "ascii-domain", "\\A[^.]+\\z",
             ["email.display-name", "email.comment", "email.domain-literal"], .domainHasPeriod),
            ("email.domain-label-length", .mustNotMatch, "ascii-domain", "[^.]{64}", [], .labelLength),
            ("email.domain-top-level", .mustMatch, "ascii-domain", "(?s).*[A-Za-z]",
             ["email.unsafe-characters", "email.display-name", "email.domain-literal", "email.domain-characters",
              "email.domain-needs-period", "email.domain-trailing-period"], .topLevelLetter),
            ("email.special-use-domain", .mustNotMatch, "ascii-domain",
             "(?:\\A|\\.)(?:arpa|invalid|local|localhost|onion|test)\\z", [], .notSpecialUse),
        ]
    }()

    /// The labels `email.special-use-domain` rejects as the last label.
    private static let specialUseLabels: [[UInt8]] = ["arpa", "invalid", "local", "localhost", "onion", "test"].map { Array($0.utf8) }

    let proofs: [Proof]
    /// Every rule's bit.
    let allRules: UInt64
    /// The rules on `local-part`: when all are proven, the local part is clean ASCII atext.
    private let localRules: UInt64
    /// Bounds of `email.max-length`, checked again for memo-decided addresses.
    private let addressBounds: (min: Int?, max: Int?)
    let memo = DomainMemo()

    init?(_ rules: CompiledRuleSet) {
        let shipped = Self.shipped
        guard rules.rules.count == shipped.count else { return nil }
        var proofs: [Proof] = []
        var localRules: UInt64 = 0
        var addressBounds: (min: Int?, max: Int?) = (nil, nil)
        for (index, (rule, expected)) in zip(rules.rules, shipped).enumerated() {
            let definition = rule.definition
            let detail: String
            switch rule.check {
            case .mustMatch, .mustNotMatch: detail = definition.pattern ?? ""
            case .swift: detail = definition.swiftName ?? definition.id
            case .length, .list: detail = ""
            }
            guard rule.id == expected.id, definition.kind == expected.kind, rule.target == expected.on,
                  detail == expected.detail, rule.unless.map({ rules.rules[$0].id }) == expected.unless else { return nil }
            if case let .length(_, min, max) = rule.check {
                switch rule.target {
                case "ascii-address":
                    proofs.append(.length(.address, min: min, max: max))
                    addressBounds = (min, max)
                case "local-part": proofs.append(.length(.local, min: min, max: max))
                default: proofs.append(.length(.domain, min: min, max: max))
                }
            } else if let proof = expected.proof {
                proofs.append(proof)
            } else {
                return nil
            }
            if rule.target == "local-part" { localRules |= 1 << UInt64(index) }
        }
        self.proofs = proofs
        self.allRules = UInt64.max >> UInt64(64 - proofs.count)
        self.localRules = localRules
        self.addressBounds = addressBounds
    }

    // MARK: - Scanning

    /// Byte classes (bit set): atext, letter/digit/hyphen (domain), and "never allowed".
    private static let atext: UInt8 = 1, ldh: UInt8 = 2
    // INVARIANT: written once here, then only read.
    nonisolated(unsafe) private static let classes: UnsafeMutablePointer<UInt8> = {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        table.initialize(repeating: 0, count: 256)
        for byte in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-".utf8 {
            table[Int(byte)] = atext | ldh
        }
        // RFC 5322 section 3.2.3 atext, plus the period of dot-atom.
        for byte in "!#$%&'*+/=?^_`{|}~.".utf8 { table[Int(byte)] |= atext }
        table[Int(UInt8(ascii: "."))] |= ldh
        return table
    }()

    /// What one pass over an address learns.
    struct Scan {
        /// The rules proven to pass (bit `i` for rule `i`).
        var proven: UInt64 = 0
        /// Offset of the `@` when there is exactly one.
        var at: Int?
        /// Whether the domain is non-ASCII or has `--`: the memo decides it.
        var domainNeedsMemo = false
    }

    /// Scans valid UTF-8 `bytes` and proves what it can.
    func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> Scan {
        var scan = Scan()
        var ats = 0, at = 0
        var unsafe = false, ascii = true
        var lt = false, gt = false, quote = false, open = false, close = false, bracket = false
        for (i, byte) in bytes.enumerated() {
            switch byte {
            case UInt8(ascii: "@"): ats += 1; at = i
            case 0...0x20, 0x7F: unsafe = true
            case UInt8(ascii: "<"): lt = true
            case UInt8(ascii: ">"): gt = true
            case UInt8(ascii: "\""): quote = true
            case UInt8(ascii: "("): open = true
            case UInt8(ascii: ")"): close = true
            case UInt8(ascii: "["): bracket = true
            case 0x80...: ascii = false
            default: break
            }
        }
        let local = ats == 1 ? Part(UnsafeBufferPointer(rebasing: bytes[..<at]), allowed: Self.atext) : nil
        let domain = ats == 1 ? Part(UnsafeBufferPointer(rebasing: bytes[(at + 1)...]), allowed: Self.ldh) : nil
        if ats == 1 {
            scan.at = at
            scan.domainNeedsMemo = domain.map { !$0.isASCII || $0.doubleHyphen } ?? false
        }
        for (index, proof) in proofs.enumerated() {
            let holds: Bool
            switch proof {
            case .noUnsafeASCII: holds = ascii && !unsafe
            case .noAngleBrackets: holds = !lt || !gt
            case .noQuote: holds = !quote
            case .noParentheses: holds = !open || !close
            case .noBracket: holds = !bracket
            case .oneAtSign: holds = ats == 1
            default:
                // Rules on the parts pass when there is no single `@` (their subjects are absent).
                guard let local, let domain else { holds = true; break }
                holds = Self.holds(proof, local, domain)
            }
            if holds { scan.proven |= 1 << UInt64(index) }
        }
        return scan
    }

    private static func holds(_ proof: Proof, _ local: Part, _ domain: Part) -> Bool {
        switch proof {
        case let .length(subject, min, max):
            let length: Int
            switch subject {
            case .address:
                guard local.isASCII, domain.isASCII else { return false }
                length = local.count + 1 + domain.count
            case .local:
                guard local.isASCII else { return false }
                length = local.count
            case .domain:
                guard domain.isASCII else { return false }
                length = domain.count
            }
            return min.map { length >= $0 } ?? true && max.map { length <= $0 } ?? true
        case .localCharacters: return local.allAllowed
        case .localLeadingPeriod: return local.isASCII && !local.leadingPeriod
        case .localTrailingPeriod: return local.isASCII && !local.trailingPeriod
        case .localConsecutivePeriods: return local.isASCII && !local.consecutivePeriods
        case .localASCII: return local.isASCII
        case .domainCharacters: return domain.allAllowed
        case .domainLeadingPeriod: return domain.isASCII && !domain.leadingPeriod
        case .domainTrailingPeriod: return domain.isASCII && !domain.trailingPeriod
        case .domainConsecutivePeriods: return domain.isASCII && !domain.consecutivePeriods
        case .domainHyphen: return domain.isASCII && !domain.hyphenAtLabelEdge
        case .noDoubleHyphen: return domain.isASCII && !domain.doubleHyphen
        case .domainHasPeriod: return domain.isASCII && (domain.hasPeriod || domain.count == 0)
        case .labelLength: return domain.isASCII && domain.longestLabel <= 63
        case .topLevelLetter: return domain.isASCII && (domain.endsInLetter || domain.count == 0)
        case .notSpecialUse: return domain.isASCII && !domain.specialUse
        case .noUnsafeASCII, .noAngleBrackets, .noQuote, .noParentheses, .noBracket, .oneAtSign: return false
        }
    }

    /// Facts about one part of an address.
    struct Part {
        var count = 0
        var isASCII = true
        /// Every byte is in the allowed class (implies ASCII).
        var allAllowed = true
        var leadingPeriod = false, trailingPeriod = false, consecutivePeriods = false
        var hyphenAtLabelEdge = false, doubleHyphen = false
        var hasPeriod = false, endsInLetter = false
        var longestLabel = 0
        /// The last label, lowercased, is one of the special-use names.
        var specialUse = false

        init(_ bytes: UnsafeBufferPointer<UInt8>, allowed: UInt8) {
            count = bytes.count
            var previous: UInt8 = UInt8(ascii: ".")
            var labelStart = 0
            for (i, byte) in bytes.enumerated() {
                if byte >= 0x80 { isASCII = false }
                if EmailFastPath.classes[Int(byte)] & allowed == 0 { allAllowed = false }
                if byte == UInt8(ascii: ".") {
                    hasPeriod = true
                    if previous == UInt8(ascii: ".") && i > 0 { consecutivePeriods = true }
                    if previous == UInt8(ascii: "-") { hyphenAtLabelEdge = true }
                    longestLabel = Swift.max(longestLabel, i - labelStart)
                    labelStart = i + 1
                } else if byte == UInt8(ascii: "-") {
                    if previous == UInt8(ascii: ".") { hyphenAtLabelEdge = true }
                    if previous == UInt8(ascii: "-") { doubleHyphen = true }
                }
                previous = byte
            }
            longestLabel = Swift.max(longestLabel, count - labelStart)
            guard let first = bytes.first, let last = bytes.last else { return }
            leadingPeriod = first == UInt8(ascii: ".")
            trailingPeriod = last == UInt8(ascii: ".")
            if last == UInt8(ascii: "-") { hyphenAtLabelEdge = true }
            endsInLetter = (last | 0x20) &- UInt8(ascii: "a") < 26
            let lastLabel = UnsafeBufferPointer(rebasing: bytes[labelStart...])
            specialUse = EmailFastPath.specialUseLabels.contains { name in
                name.count == lastLabel.count && zip(name, lastLabel).allSatisfy { $0 == ($1 &- 0x41 < 26 ? $1 | 0x20 : $1) }
            }
        }
    }

    // MARK: - Results

    /// The result when every rule is proven: the local part, `@` and the lowercased domain
    /// (an ASCII address is its own NFC form and its own ASCII form).
    static func accepted(_ bytes: UnsafeBufferPointer<UInt8>, at: Int) -> ValidationResult {
        let normalized = String(unsafeUninitializedCapacity: bytes.count) { buffer in
            for i in 0..<bytes.count {
                let byte = bytes[i]
                buffer[i] = i > at && byte &- 0x41 < 26 ? byte | 0x20 : byte
            }
            return bytes.count
        }
        return ValidationResult(violations: [], normalized: normalized, asciiForm: normalized)
    }

    /// The result for an address whose local-part rules are all proven, decided by the domain's
    /// memoized outcome; nil when the rules must run.
    func memoized(_ bytes: UnsafeBufferPointer<UInt8>, scan: Scan, validate: (String) -> ValidationResult) -> ValidationResult? {
        guard let at = scan.at, scan.domainNeedsMemo, scan.proven & localRules == localRules else { return nil }
        let domain = String(decoding: UnsafeBufferPointer(rebasing: bytes[(at + 1)...]), as: UTF8.self)
        guard case let .valid(unicode, ascii) = memo.outcome(domain, compute: validate) else { return nil }
        // `email.max-length` measures the real local part with the ASCII domain.
        let length = at + ascii.utf8.count
        if let min = addressBounds.min, length < min { return nil }
        if let max = addressBounds.max, length > max { return nil }
        let local = String(decoding: UnsafeBufferPointer(rebasing: bytes[..<at]), as: UTF8.self)
        // `unicode` and `ascii` start with the `@`.
        return ValidationResult(violations: [], normalized: local + unicode, asciiForm: local + ascii)
    }
}

/// A bounded, thread-safe memo of domains and what the email rules make of them.
///
/// Why it is exact: for an address `L@D` whose local part `L` is proven clean ASCII atext
/// (every local-part rule proven, so `L` holds no `@`, `<`, `"`, `(`, `[`, control or space),
/// every rule except `email.max-length` sees the same facts about `D` as it does for `a@D`; so
/// `L@D` is valid exactly when `a@D` is valid and `L@D`'s ASCII form is within the length
/// limit, and its normalized forms are `L@` plus those of `a@D`.
///
/// Real exports repeat a few domains heavily, so IDNA (libidn2) runs once per domain instead of
/// once per address. At most ``capacity`` domains are kept; when full, the memo is emptied and
/// refills with the domains in use.
final class DomainMemo: @unchecked Sendable {
    // INVARIANT: `outcomes` is only read or written with `lock` held.
    enum Outcome: Sendable {
        /// `a@D` is valid: its domain in normalized (Unicode) and ASCII form.
        case valid(unicode: String, ascii: String)
        case invalid
    }

    static let capacity = 4096
    private let lock = NSLock()
    private var outcomes: [String: Outcome] = [:]

    /// The outcome for `domain`, computed with `validate` (run on `a@domain`) when unknown.
    func outcome(_ domain: String, compute validate: (String) -> ValidationResult) -> Outcome {
        if let known = lock.withLock({ outcomes[domain] }) { return known }
        // Computed outside the lock: two threads may both compute a new domain, harmlessly.
        let result = validate("a@" + domain)
        let outcome: Outcome
        if result.isValid, let normalized = result.normalized, let ascii = result.asciiForm {
            outcome = .valid(unicode: String(normalized.dropFirst()), ascii: String(ascii.dropFirst()))
        } else {
            outcome = .invalid
        }
        lock.withLock {
            if outcomes.count >= Self.capacity { outcomes.removeAll(keepingCapacity: true) }
            outcomes[domain] = outcome
        }
        return outcome
    }
}
