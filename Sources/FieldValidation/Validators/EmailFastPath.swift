import Foundation
import IDNA

/// The email fast path: one pass over the bytes of an address *decides* it whenever it can,
/// returning exactly the result the rules would (``EmailValidator/validateRuleByRule(_:)``),
/// and otherwise returns nil so the rules run one by one.
///
/// It exists only when the compiled rules are the shipped email rules in their semantics: the
/// same ids in the same order, with the same kind, `on`, pattern text (or Swift rule) and
/// `unless` (see ``shipped``). Messages, codes and length limits may be overridden: limits are
/// read from the rules, and every violation the fast path returns was produced at init by the
/// real rule on a sample (``CompiledRule/evaluate(_:)``), so it only decides violations whose
/// text and parameters do not depend on the value (or depend only on a length or count).
///
/// What it decides, for addresses without `<`, `>`, `"`, `(`, `)`, `[`, controls or spaces and
/// without unsafe non-ASCII characters:
/// - no `@` or several: `email.one-at-sign`, the only rule whose subject is present;
/// - the local part (ASCII atext and periods, or non-ASCII once put in NFC): its lengths and
///   leading, trailing and consecutive periods;
/// - an ASCII domain of letters, digits, `-` and `.` with a period, no hyphen at a label edge,
///   no `--` and labels of at most 63 octets: empty domain, leading, trailing and consecutive
///   periods, the top-level rule and special-use names;
/// - any other domain through ``memo``: the outcome of the domain rules for `a@domain`,
///   computed once per domain (IDNA, `xn--` labels, dotless domains, hyphens, bad characters).
///
/// Why combining is exact: when no address-level rule (`on: address`) fires, the local-part
/// rules see only the local part and the domain rules only the domain, and no rule of one
/// group names a rule of the other in its `unless`; `email.max-length` is measured from both.
/// The property tests in `EmailFastPathTests` check the fast path against the rules.
final class EmailFastPath: @unchecked Sendable {
    // INVARIANT: every stored property is written only in `init`; `classes` points to the
    // static table, written once when it is created. Concurrent reads are safe.

    /// The shipped rules, by position (``shipped`` has them in this order).
    enum Rule: Int, CaseIterable {
        case unsafe, displayName, quoted, comment, literal, oneAt, maxLength
        case localEmpty, localLength, localCharacters, localLeading, localTrailing, localConsecutive, asciiOnly
        case domainEmpty, domainCharacters, domainLeading, domainTrailing, domainConsecutive, domainHyphen
        case reservedHyphens, idna, needsPeriod, labelLength, topLevel, specialUse

        var bit: UInt64 { 1 << UInt64(rawValue) }
    }

    /// The shipped rules the fast path implements, in pack order: id, kind, `on`, pattern text
    /// or Swift rule name, and `unless`. Length limits are not part of it.
    static let shipped: [(id: String, kind: RuleKind, on: String, detail: String, unless: [String])] = {
        let specials = ["email.unsafe-characters", "email.display-name", "email.quoted-local-part", "email.comment"]
        return [
            ("email.unsafe-characters", .swift, "address", "email.unsafe-characters", []),
            ("email.display-name", .mustNotMatch, "address", "<[^<>]*@[^<>]*>", []),
            ("email.quoted-local-part", .mustNotMatch, "address", "\"", []),
            ("email.comment", .mustNotMatch, "address", "\\([^()]*\\)", []),
            ("email.domain-literal", .mustNotMatch, "address", "@\\[", []),
            ("email.one-at-sign", .swift, "address", "email.one-at-sign", Array(specials.dropFirst())),
            ("email.max-length", .length, "ascii-address", "", []),
            ("email.local-part-empty", .length, "local-part", "", []),
            ("email.local-part-length", .length, "local-part", "", []),
            ("email.local-part-characters", .mustNotMatch, "local-part",
             "[^A-Za-z0-9!#$%&'*+/=?^_`{|}~.\\x{80}-\\x{10FFFF}-]", specials),
            ("email.local-part-leading-period", .mustNotMatch, "local-part", "\\A\\.", []),
            ("email.local-part-trailing-period", .mustNotMatch, "local-part", "\\.\\z", []),
            ("email.local-part-consecutive-periods", .mustNotMatch, "local-part", "\\.\\.", []),
            ("email.ascii-only", .swift, "local-part", "email.ascii-only", []),
            ("email.domain-empty", .length, "domain", "", []),
            ("email.domain-characters", .mustNotMatch, "domain", "[^A-Za-z0-9.\\x{80}-\\x{10FFFF}-]",
             ["email.unsafe-characters", "email.display-name", "email.comment", "email.domain-literal"]),
            ("email.domain-leading-period", .mustNotMatch, "domain", "\\A\\.", []),
            ("email.domain-trailing-period", .mustNotMatch, "domain", "\\.\\z", []),
            ("email.domain-consecutive-periods", .mustNotMatch, "domain", "\\.\\.", []),
            ("email.domain-hyphen", .mustNotMatch, "domain", "(?:\\A|\\.)-|-(?:\\.|\\z)", []),
            ("email.domain-reserved-hyphens", .mustNotMatch, "domain", "(?:\\A|\\.)(?![Xx][Nn]--)[^.]{2}--", []),
            ("email.idna", .swift, "domain", "email.idna",
             ["email.unsafe-characters", "email.domain-characters", "email.domain-leading-period",
              "email.domain-trailing-period", "email.domain-consecutive-periods", "email.domain-hyphen",
              "email.domain-reserved-hyphens", "email.display-name", "email.comment"]),
            ("email.domain-needs-period", .mustNotMatch, "ascii-domain", "\\A[^.]+\\z",
             ["email.display-name", "email.comment", "email.domain-literal"]),
            ("email.domain-label-length", .mustNotMatch, "ascii-domain", "[^.]{64}", []),
            ("email.domain-top-level", .mustMatch, "ascii-domain", "(?s).*[A-Za-z]",
             ["email.unsafe-characters", "email.display-name", "email.domain-literal", "email.domain-characters",
              "email.domain-needs-period", "email.domain-trailing-period"]),
            ("email.special-use-domain", .mustNotMatch, "ascii-domain",
             "(?:\\A|\\.)(?:arpa|invalid|local|localhost|onion|test)\\z", []),
        ]
    }()
    /// The labels `email.special-use-domain` rejects as the last label.
    static let specialUseLabels: [[UInt8]] = ["arpa", "invalid", "local", "localhost", "onion", "test"].map { Array($0.utf8) }

    /// A length rule: its bounds and unit, and the rule that renders its violations.
    struct LengthRule {
        let rule: CompiledRule
        let unit: LengthUnit
        let min: Int?
        let max: Int?

        @inline(__always)
        func violation(octets: Int, codePoints: Int) -> Violation? {
            let length = unit == .utf8Octets ? octets : codePoints
            if (min.map { length >= $0 } ?? true) && (max.map { length <= $0 } ?? true) { return nil }
            return rule.lengthViolation(length, min: min, max: max)
        }
    }

    private let rules: CompiledRuleSet
    private let asciiOnly: Bool
    private let maxLength: LengthRule, localEmpty: LengthRule, localLength: LengthRule, domainEmpty: LengthRule
    /// Violations that do not depend on the value, by rule (nil for the others), each also as a
    /// one-element array (the commonest invalid outcome costs no allocation).
    private let fixed: [Violation?]
    private let fixedAlone: [[Violation]]
    /// `email.one-at-sign` for 0, 2, 3, … `@`-signs (index = count), alone.
    private let oneAtAlone: [[Violation]]
    /// `email.special-use-domain` for a last label in ``specialUseLabels`` (same index).
    private let specialUse: [Violation]
    private let specialUseAlone: [[Violation]]
    /// Rule `i`'s `unless` as a bit set.
    private let unlessMasks: [UInt64]
    /// Rules on `address`, and on `domain` / `ascii-domain`.
    private let addressRules: UInt64
    private let domainRules: UInt64
    private let classes: UnsafePointer<UInt8>
    let memo = BytesMemo<DomainOutcome>()

    /// What the rules make of `a@D` (the value ``memo`` keeps per domain).
    /// Why it is exact: the domain rules (`on: domain` / `ascii-domain`) see only the domain and,
    /// through `unless`, rules on `address` and other domain rules. So for an address `L@D` that
    /// breaks no rule on `address`, they report for `L@D` what they report for `a@D`, provided
    /// `a@D` breaks no rule on `address` either (``clean``).
    final class DomainOutcome: Sendable {
        /// No rule on `address` fired.
        let clean: Bool
        /// The violations of the domain rules, in pack order.
        let violations: [Violation]
        /// The `ascii-domain` subject (lowercase ASCII / `xn--` form); nil when IDNA rejects
        /// the domain or it is empty.
        let ascii: String?
        /// The domain as in the normalized address (Unicode form).
        let unicode: String?

        init(clean: Bool, violations: [Violation], ascii: String?, unicode: String?) {
            self.clean = clean
            self.violations = violations
            self.ascii = ascii
            self.unicode = unicode
        }
    }


    init?(_ rules: CompiledRuleSet, asciiOnly: Bool) {
        let shipped = Self.shipped
        guard rules.rules.count == shipped.count, shipped.count == Rule.allCases.count else { return nil }
        var lengths: [Rule: LengthRule] = [:]
        var addressRules: UInt64 = 0, domainRules: UInt64 = 0
        for (index, (rule, expected)) in zip(rules.rules, shipped).enumerated() {
            let definition = rule.definition
            let detail: String
            switch rule.check {
            case .mustMatch, .mustNotMatch: detail = definition.pattern ?? ""
            case .swift: detail = definition.swiftName ?? definition.id
            case .length, .list: detail = ""
            }
            guard rule.id == expected.id, definition.kind == expected.kind, rule.target == expected.on,
                  detail == expected.detail, rule.unless.map({ rules.rules[$0].id }) == expected.unless,
                  let which = Rule(rawValue: index) else { return nil }
            if case let .length(unit, min, max) = rule.check {
                lengths[which] = LengthRule(rule: rule, unit: unit, min: min, max: max)
            }
            switch rule.target {
            case "address": addressRules |= which.bit
            case "domain", "ascii-domain": domainRules |= which.bit
            default: break
            }
        }
        guard let maxLength = lengths[.maxLength], let localEmpty = lengths[.localEmpty],
              let localLength = lengths[.localLength], let domainEmpty = lengths[.domainEmpty] else { return nil }
        /// The violation the real rule reports when its subject is `sample`.
        func sample(_ which: Rule, _ sample: String) -> Violation? {
            let rule = rules.rules[which.rawValue]
            return rule.evaluate(FieldInput(field: .email, raw: sample, subjectList: [(rule.target, sample)], asciiOnly: asciiOnly))
        }
        var fixed = [Violation?](repeating: nil, count: shipped.count)
        for (which, value) in [(Rule.localLeading, ".a"), (.localTrailing, "a."), (.localConsecutive, "a..b"),
                               (.domainLeading, ".a"), (.domainTrailing, "a."), (.domainConsecutive, "a..b"),
                               (.topLevel, "a.1")] {
            guard let violation = sample(which, value) else { return nil }
            fixed[which.rawValue] = violation
        }
        var oneAt: [[Violation]] = []
        for count in 0..<8 {
            let violation = count == 1 ? nil : sample(.oneAt, "a" + String(repeating: "@", count: count))
            guard (violation == nil) == (count == 1) else { return nil }
            oneAt.append(violation.map { [$0] } ?? [])
        }
        var specialUse: [Violation] = []
        for label in Self.specialUseLabels {
            guard let violation = sample(.specialUse, "x." + String(decoding: label, as: UTF8.self)) else { return nil }
            specialUse.append(violation)
        }
        self.rules = rules
        self.asciiOnly = asciiOnly
        (self.maxLength, self.localEmpty, self.localLength, self.domainEmpty) = (maxLength, localEmpty, localLength, domainEmpty)
        self.fixed = fixed
        self.fixedAlone = fixed.map { $0.map { [$0] } ?? [] }
        self.oneAtAlone = oneAt
        self.specialUse = specialUse
        self.specialUseAlone = specialUse.map { [$0] }
        self.unlessMasks = rules.rules.map { $0.unless.reduce(UInt64(0)) { $0 | (1 << UInt64($1)) } }
        self.addressRules = addressRules
        self.domainRules = domainRules
        self.classes = UnsafePointer(Self.classTable)
    }

    // MARK: - Byte classes

    /// ASCII, neither atext nor `.` (RFC 5322 section 3.2.3).
    static let atextBad: UInt8 = 1
    /// ASCII, not a letter, digit, `-` or `.` (RFC 1035 LDH).
    static let ldhBad: UInt8 = 2
    /// `<`, `>`, `"`, `(`, `)`, `[`, C0 controls, SPACE, DEL: a rule on `address` may fire.
    static let special: UInt8 = 4
    /// A byte of a non-ASCII character.
    static let high: UInt8 = 8
    static let atSign: UInt8 = 16
    static let period: UInt8 = 32
    static let hyphen: UInt8 = 64

    // INVARIANT: written once here, then only read.
    nonisolated(unsafe) private static let classTable: UnsafeMutablePointer<UInt8> = {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        table.initialize(repeating: atextBad | ldhBad, count: 128)
        (table + 128).initialize(repeating: high, count: 128)
        for byte in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8 { table[Int(byte)] = 0 }
        for byte in "!#$%&'*+/=?^_`{|}~".utf8 { table[Int(byte)] = ldhBad }
        table[Int(UInt8(ascii: "-"))] = hyphen
        table[Int(UInt8(ascii: "."))] = period
        table[Int(UInt8(ascii: "@"))] |= atSign
        for byte in "<>\"([".utf8 { table[Int(byte)] |= special }
        table[Int(UInt8(ascii: ")"))] |= special
        for byte in 0...0x20 { table[byte] |= special }
        table[0x7F] |= special
        return table
    }()

    // MARK: - Deciding

    /// What one pass learns about a part of an address.
    struct PartScan {
        /// The classes of its bytes, OR-ed.
        var flags: UInt8 = 0
        var consecutivePeriods = false
        /// Labels (with `labels`): a `-` right before or after a period, the longest label and
        /// where the last one starts.
        var hyphenByPeriod = false
        var longestLabel = 0
        var lastLabelStart = 0
    }

    /// Scans `p[start..<end]`; periods are rare, so most bytes cost a load and an OR.
    @inline(__always)
    private func scanPart(_ p: UnsafePointer<UInt8>, from start: Int, to end: Int, labels: Bool) -> PartScan {
        var part = PartScan()
        var labelStart = start
        let classes = self.classes
        var i = start
        while i < end {
            let kind = classes[Int(p[i])]
            part.flags |= kind
            if kind & Self.period != 0 {
                if i > start && p[i - 1] == UInt8(ascii: ".") { part.consecutivePeriods = true }
                if labels {
                    part.longestLabel = Swift.max(part.longestLabel, i - labelStart)
                    if (i > start && p[i - 1] == UInt8(ascii: "-")) || (i + 1 < end && p[i + 1] == UInt8(ascii: "-")) {
                        part.hyphenByPeriod = true
                    }
                    labelStart = i + 1
                }
            }
            i += 1
        }
        part.longestLabel = Swift.max(part.longestLabel, end - labelStart)
        part.lastLabelStart = labelStart
        return part
    }

    /// Whether `p[start..<end]` has `--`.
    private static func hasDoubleHyphen(_ p: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Bool {
        var i = start + 1
        while i < end {
            if p[i] == UInt8(ascii: "-") && p[i - 1] == UInt8(ascii: "-") { return true }
            i += 1
        }
        return false
    }

    /// The facts about the local part the local rules need.
    private struct Local {
        var octets: Int
        var codePoints: Int
        var leading: Bool, trailing: Bool, consecutive: Bool
        /// Its NFC form when that is not the bytes themselves.
        var nfc: String?
        /// Whether the NFC form is ASCII (then the address has an ASCII form).
        var isASCII: Bool
    }

    /// The result the rules would give for valid UTF-8 `bytes`, or nil when the rules must run.
    /// With `normalize` false, a valid result has no `normalized` / `asciiForm`.
    func decide(_ bytes: UnsafeBufferPointer<UInt8>, normalize: Bool) -> ValidationResult? {
        guard let p = bytes.baseAddress else { return nil }
        let n = bytes.count
        let at = memchr(p, Int32(UInt8(ascii: "@")), n).map { UnsafeRawPointer(p).distance(to: UnsafeRawPointer($0)) } ?? n
        let localScan = scanPart(p, from: 0, to: at, labels: false)
        guard at < n else {
            // No `@`: only the rules on `address` have a subject.
            guard localScan.flags & Self.special == 0,
                  localScan.flags & Self.high == 0 || !EmailRules.hasUnsafeCharacters(bytes) else { return nil }
            return ValidationResult(violations: oneAtAlone[0])
        }
        let domainScan = scanPart(p, from: at + 1, to: n, labels: true)
        if domainScan.flags & Self.atSign != 0 {
            var count = 0
            for byte in bytes where byte == UInt8(ascii: "@") { count += 1 }
            guard count < oneAtAlone.count, (localScan.flags | domainScan.flags) & Self.special == 0,
                  (localScan.flags | domainScan.flags) & Self.high == 0 || !EmailRules.hasUnsafeCharacters(bytes)
            else { return nil }
            return ValidationResult(violations: oneAtAlone[count])
        }
        // One `@`. The local part: atext and periods (so no rule on `address` fires because of it).
        guard localScan.flags & Self.atextBad == 0 else { return nil }
        let localBytes = UnsafeBufferPointer(rebasing: bytes[..<at])
        var local = Local(octets: at, codePoints: at, leading: at > 0 && p[0] == UInt8(ascii: "."),
                          trailing: at > 0 && p[at - 1] == UInt8(ascii: "."),
                          consecutive: localScan.consecutivePeriods, nfc: nil, isASCII: true)
        if localScan.flags & Self.high != 0 {
            // `email.ascii-only` names the characters: left to the rule.
            guard !EmailRules.hasUnsafeCharacters(localBytes), let normalized = normalizedLocal(localBytes),
                  !asciiOnly || normalized.isASCII else { return nil }
            local = normalized
        }
        var candidates: UInt64 = 0
        if local.leading { candidates |= Rule.localLeading.bit }
        if local.trailing { candidates |= Rule.localTrailing.bit }
        if local.consecutive { candidates |= Rule.localConsecutive.bit }
        let emptyLocal = localEmpty.violation(octets: local.octets, codePoints: local.codePoints)
        let longLocal = localLength.violation(octets: local.octets, codePoints: local.codePoints)

        let domainCount = n - at - 1
        let flags = domainScan.flags
        if domainCount == 0 {
            // No `ascii-domain`, so no `ascii-address`: only `email.domain-empty` fires.
            guard let empty = domainEmpty.violation(octets: 0, codePoints: 0) else { return nil }
            return ValidationResult(violations: combine(candidates, emptyLocal, longLocal, nil, [empty]))
        }
        let last = p[n - 1]
        let direct = flags & (Self.ldhBad | Self.high) == 0 && flags & Self.period != 0 && domainScan.longestLabel <= 63
            && (flags & Self.hyphen == 0 || (!domainScan.hyphenByPeriod && p[at + 1] != UInt8(ascii: "-")
                                              && last != UInt8(ascii: "-") && !Self.hasDoubleHyphen(p, from: at + 1, to: n)))
        guard direct else {
            return memoized(bytes, at: at, local: local, candidates: candidates, emptyLocal, longLocal, normalize: normalize)
        }
        // `ascii-address` is the local part, `@` and the lowercased domain.
        let tooLong = maxLength.violation(octets: local.octets + 1 + domainCount, codePoints: local.codePoints + 1 + domainCount)
        // An LDH domain with a period, no `--` and short labels: IDNA has nothing to check.
        if p[at + 1] == UInt8(ascii: ".") { candidates |= Rule.domainLeading.bit }
        if last == UInt8(ascii: ".") { candidates |= Rule.domainTrailing.bit }
        if domainScan.consecutivePeriods { candidates |= Rule.domainConsecutive.bit }
        if (last | 0x20) &- UInt8(ascii: "a") >= 26 { candidates |= Rule.topLevel.bit }
        let special = specialUseIndex(UnsafeBufferPointer(rebasing: bytes[domainScan.lastLabelStart...]))
        if special != nil { candidates |= Rule.specialUse.bit }
        let violated = resolve(candidates)
        if violated == 0 && tooLong == nil && emptyLocal == nil && longLocal == nil {
            guard normalize else { return ValidationResult() }
            if let nfc = local.nfc {
                let domain = String(decoding: UnsafeBufferPointer(rebasing: bytes[at...]), as: UTF8.self).lowercased()
                return ValidationResult(violations: [], normalized: nfc + domain, asciiForm: local.isASCII ? nfc + domain : nil)
            }
            return EmailFastPath.accepted(bytes, at: at)
        }
        if tooLong == nil && emptyLocal == nil && longLocal == nil && violated & (violated - 1) == 0 {
            let index = violated.trailingZeroBitCount
            if index == Rule.specialUse.rawValue, let special { return ValidationResult(violations: specialUseAlone[special]) }
            return ValidationResult(violations: fixedAlone[index])
        }
        return ValidationResult(violations: listed(violated, emptyLocal, longLocal, tooLong, special: special))
    }

    /// `tooLong`, the local part's length violations, then the fixed-wording violations of the
    /// rules in `violated`, in pack order; the special-use one for label `special`.
    private func listed(_ violated: UInt64, _ emptyLocal: Violation?, _ longLocal: Violation?, _ tooLong: Violation?,
                        special: Int? = nil) -> [Violation] {
        var violations: [Violation] = []
        tooLong.map { violations.append($0) }
        emptyLocal.map { violations.append($0) }
        longLocal.map { violations.append($0) }
        var rest = violated
        while rest != 0 {
            let index = rest.trailingZeroBitCount
            rest &= rest - 1
            if index == Rule.specialUse.rawValue, let special {
                violations.append(specialUse[special])
            } else if let violation = fixed[index] {
                violations.append(violation)
            }
        }
        return violations
    }

    /// The candidate rules that fire once `unless` is applied (all other rules pass).
    @inline(__always)
    private func resolve(_ candidates: UInt64) -> UInt64 {
        var violated: UInt64 = 0
        var rest = candidates
        while rest != 0 {
            let index = rest.trailingZeroBitCount
            rest &= rest - 1
            if unlessMasks[index] & violated == 0 { violated |= 1 << UInt64(index) }
        }
        return violated
    }

    /// Local-part violations (max length first: pack order), then `domain`.
    private func combine(_ candidates: UInt64, _ emptyLocal: Violation?, _ longLocal: Violation?, _ tooLong: Violation?,
                         _ domain: [Violation]) -> [Violation] {
        let violated = resolve(candidates)
        if violated == 0 && emptyLocal == nil && longLocal == nil && tooLong == nil { return domain }
        return listed(violated, emptyLocal, longLocal, tooLong) + domain
    }

    /// A non-ASCII local part put in NFC, with its facts; nil when NFC holds a byte outside
    /// atext, periods and non-ASCII.
    private func normalizedLocal(_ bytes: UnsafeBufferPointer<UInt8>) -> Local? {
        let nfc = Keys.nfc(String(decoding: bytes, as: UTF8.self))
        var copy = nfc
        return copy.withUTF8 { p -> Local? in
            guard let base = p.baseAddress else { return nil }
            let scan = scanPart(base, from: 0, to: p.count, labels: false)
            guard scan.flags & Self.atextBad == 0 else { return nil }
            var codePoints = 0
            for byte in p where byte & 0xC0 != 0x80 { codePoints += 1 }
            return Local(octets: p.count, codePoints: codePoints, leading: p.first == UInt8(ascii: "."),
                         trailing: p.last == UInt8(ascii: "."), consecutive: scan.consecutivePeriods, nfc: nfc,
                         isASCII: scan.flags & Self.high == 0)
        }
    }

    /// Which special-use name the (LDH) last label is, ignoring ASCII case.
    @inline(__always)
    private func specialUseIndex(_ label: UnsafeBufferPointer<UInt8>) -> Int? {
        switch label.count {
        case 4, 5, 7, 9: break
        default: return nil
        }
        for (index, name) in Self.specialUseLabels.enumerated() where name.count == label.count {
            var same = true
            for i in 0..<name.count where label[i] | 0x20 != name[i] {
                same = false
                break
            }
            if same { return index }
        }
        return nil
    }

    /// Decides an address whose domain is not one the scan decides, from the domain's memoized
    /// outcome; nil when `a@domain` breaks a rule on `address` (then the rules run).
    private func memoized(_ bytes: UnsafeBufferPointer<UInt8>, at: Int, local: Local, candidates: UInt64,
                          _ emptyLocal: Violation?, _ longLocal: Violation?, normalize: Bool) -> ValidationResult? {
        let outcome = memo.outcome(UnsafeBufferPointer(rebasing: bytes[(at + 1)...]), compute: domainOutcome)
        guard outcome.clean else { return nil }
        var tooLong: Violation?
        if let ascii = outcome.ascii {
            let count = ascii.utf8.count
            tooLong = maxLength.violation(octets: local.octets + 1 + count, codePoints: local.codePoints + 1 + count)
        }
        let violations = combine(candidates, emptyLocal, longLocal, tooLong, outcome.violations)
        guard violations.isEmpty, normalize else { return ValidationResult(violations: violations) }
        // A valid address always has an ASCII domain; fail safe to the rules otherwise.
        guard let ascii = outcome.ascii, let unicode = outcome.unicode else { return nil }
        let localString = local.nfc ?? String(decoding: UnsafeBufferPointer(rebasing: bytes[..<at]), as: UTF8.self)
        return ValidationResult(violations: [], normalized: localString + "@" + unicode,
                                asciiForm: local.isASCII ? localString + "@" + ascii : nil)
    }

    /// The domain rules' outcome for `a@domain`, by the rules themselves.
    private func domainOutcome(_ domain: String) -> DomainOutcome {
        let parts = EmailParts("a@" + domain)
        let input = FieldInput(field: .email, raw: "a@" + domain, subjectList: parts.subjects, asciiOnly: asciiOnly)
        var clean = true
        var violations: [Violation] = []
        for violation in rules.evaluate(input) {
            guard let index = rules.rules.firstIndex(where: { $0.id == violation.rule }) else { clean = false; continue }
            let bit: UInt64 = 1 << UInt64(index)
            if bit & addressRules != 0 { clean = false }
            if bit & domainRules != 0 { violations.append(violation) }
        }
        let unicode = parts.asciiDomain.map { ascii in
            ascii.contains("xn--") ? ((try? IDNA.toUnicode(ascii)) ?? ascii) : ascii
        }
        return DomainOutcome(clean: clean, violations: violations, ascii: parts.asciiDomain, unicode: unicode)
    }

    /// The result when every rule passes for an ASCII address: the local part, `@` and the
    /// lowercased domain (an ASCII address is its own NFC form and its own ASCII form).
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
}
