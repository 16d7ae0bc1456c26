import IDNA

/// The email rules of any pack, run address by address without building strings for the
/// common case: what decides every pack the hand-written ``EmailFastPath`` declines.
///
/// An address's subjects split in two:
/// - **per address** (`address`, `local-part`, `ascii-address`): read from the address's bytes
///   (the local part in NFC when it is not ASCII); their pattern rules run on the subjects'
///   automata, one pass each; length rules count bytes; list and Swift rules see the subject;
/// - **per domain** (`domain`, `ascii-domain`): derived from the domain alone (UTS 46, IDNA), so
///   every rule on them is decided once per distinct domain, in PCRE2, and kept in ``memo``.
///
/// Each rule is decided on its own, then `unless` is applied in pack order, exactly as
/// ``CompiledRuleSet/evaluate(_:skip:)`` does; a rule's outcome depends only on its subject, so
/// the result is the rules' own (the differential tests check it against them).
///
/// Swift rules take part when they read their own subject only (``SubjectRule``: the built-in
/// ones and the list kinds). A pack with any other Swift rule, or a rule on a subject this engine
/// does not know, gets no engine (``init(_:asciiOnly:)`` returns nil) and runs rule by rule.
final class EmailEngine: Sendable {
    /// Where a rule's subject comes from.
    enum Source: Int {
        case address, localPart, asciiAddress, domain

        init?(_ subject: String) {
            switch subject {
            case "address": self = .address
            case "local-part": self = .localPart
            case "ascii-address": self = .asciiAddress
            case "domain", "ascii-domain": self = .domain
            default: return nil
            }
        }
    }

    /// What the rules on `domain` and `ascii-domain` make of one domain.
    final class DomainOutcome: Sendable {
        /// The domain rules that fire, in pack order, each with its violation (before `unless`).
        let fired: [(rule: Int, violation: Violation)]
        /// The `ascii-domain` subject; nil when the domain is empty or IDNA rejects it.
        let ascii: String?
        /// The domain as in the normalized address (Unicode form).
        let unicode: String?

        init(fired: [(rule: Int, violation: Violation)], ascii: String?, unicode: String?) {
            self.fired = fired
            self.ascii = ascii
            self.unicode = unicode
        }
    }

    /// How a rule on a per-address subject is decided (no payload to copy or retain).
    private enum Decider {
        /// Exactly by its subject's automaton: it fires when `bit` is set, or unset for must-match.
        case automaton(bit: UInt64, mustMatch: Bool)
        /// By an automaton for a wider pattern; PCRE2 decides only the subjects where it fires.
        case prefilter(bit: UInt64, mustMatch: Bool)
        /// By the rule itself (PCRE2, a list lookup) on the subject as a string.
        case byRule
        case length(octets: Bool, min: Int?, max: Int?)
        case swift
        /// On the domain: decided once per domain.
        case perDomain
    }

    /// What tells, for one per-address subject, that none of its rules fires, without the rule
    /// loop: most addresses break no rule on these subjects.
    private struct QuickCheck {
        /// The automaton bits of the must-not-match and must-match rules it decides exactly.
        var mustNotMatch: UInt64 = 0
        var mustMatch: UInt64 = 0
        /// The lengths every length rule on the subject allows, in octets and in code points
        /// (none when a low bound passes a high one).
        var octets = (low: 0, high: Int.max)
        var codePoints = (low: 0, high: Int.max)
        /// The other rules on the subject (prefilters, lists, Swift rules, PCRE2 alone).
        var others: [Int] = []

        /// Narrows the allowed lengths to a length rule's.
        mutating func allow(octets inOctets: Bool, min: Int?, max: Int?) {
            if inOctets {
                octets = (Swift.max(octets.low, min ?? 0), Swift.min(octets.high, max ?? Int.max))
            } else {
                codePoints = (Swift.max(codePoints.low, min ?? 0), Swift.min(codePoints.high, max ?? Int.max))
            }
        }

        /// Whether every length rule on `subject` passes.
        func lengthsPass(_ subject: UnsafeBufferPointer<UInt8>) -> Bool {
            guard subject.count >= octets.low && subject.count <= octets.high else { return false }
            guard codePoints != (0, Int.max) else { return true }
            var count = 0
            for byte in subject where byte & 0xC0 != 0x80 { count += 1 }
            return count >= codePoints.low && count <= codePoints.high
        }
    }

    /// The automaton outcomes of the per-address subjects.
    private struct SubjectBits {
        var address: UInt64 = 0
        var local: UInt64 = 0
        var asciiAddress: UInt64 = 0

        subscript(source: Source) -> UInt64 {
            get {
                switch source {
                case .address: address
                case .localPart: local
                case .asciiAddress: asciiAddress
                case .domain: 0
                }
            }
            set {
                switch source {
                case .address: address = newValue
                case .localPart: local = newValue
                case .asciiAddress: asciiAddress = newValue
                case .domain: break
                }
            }
        }
    }

    /// The rules, with automata for the per-address subjects only.
    let rules: CompiledRuleSet
    private let asciiOnly: Bool
    /// Per rule, where its subject comes from.
    private let sources: [Source]
    /// Per rule, how a per-address subject decides it.
    private let deciders: [Decider]
    /// Per rule, its violation when that does not depend on the value (a must-match rule's; a
    /// must-not-match rule's whose every match is the same text), else nil.
    private let fixedViolations: [Violation?]
    /// Per rule, its Swift rule when it is one.
    private let swiftRules: [(any SubjectRule)?]
    /// Per rule, whether its `unless` names any rule.
    private let hasUnless: [Bool]
    /// Per per-address source (``Source/rawValue``), how to tell that none of its rules fires.
    private let quickChecks: [QuickCheck]
    /// The rules on `domain` and `ascii-domain`, in pack order.
    private let domainRules: [Int]
    /// Per per-address source (``Source/rawValue``), the index of its automata in the plan.
    private let automata: [Int?]
    /// Whether any rule reads `ascii-address`.
    private let readsASCIIAddress: Bool
    let memo = BytesMemo<DomainOutcome>()

    /// The per-address sources, in ``Source`` order.
    private static let perAddress: [Source] = [.address, .localPart, .asciiAddress]
    /// Why the domain rules have no automata, as the plan says.
    static let perDomain = "decided once per distinct domain (memoized), with no automaton"

    /// An engine for `compiled` (compiled without automata), or nil when a rule cannot run on it.
    init?(_ compiled: CompiledRuleSet, asciiOnly: Bool) {
        var sources: [Source] = []
        var swiftRules: [(any SubjectRule)?] = []
        for rule in compiled.rules {
            guard let source = Source(rule.target) else { return nil }
            sources.append(source)
            if case let .swift(swiftRule) = rule.check {
                guard let subjectRule = swiftRule as? any SubjectRule, subjectRule.subject == rule.target else { return nil }
                swiftRules.append(subjectRule)
            } else {
                swiftRules.append(nil)
            }
        }
        rules = CompiledRuleSet(field: .email, rules: compiled.rules,
                                leftOut: ["domain": Self.perDomain, "ascii-domain": Self.perDomain])
        var automata = [Int?](repeating: nil, count: 3)
        for (index, subject) in rules.patterns.subjects.enumerated() {
            if let source = Source(subject.name), source != .domain { automata[source.rawValue] = index }
        }
        self.automata = automata
        var deciders: [Decider] = []
        var fixedViolations: [Violation?] = []
        for (index, rule) in rules.rules.enumerated() {
            var fixed: Violation?
            if sources[index] == .domain {
                deciders.append(.perDomain)
            } else {
                switch rule.check {
                case .mustMatch, .mustNotMatch:
                    var mustMatch = false
                    if case .mustMatch = rule.check { mustMatch = true; fixed = rule.staticViolation }
                    guard let slot = rules.patterns.slots[index] else {
                        deciders.append(.byRule)
                        break
                    }
                    switch slot.strategy {
                    case .automaton:
                        deciders.append(.automaton(bit: slot.bit, mustMatch: mustMatch))
                        let position = rules.patterns.subjects[slot.subject].rules.firstIndex(of: index)
                        if !mustMatch, let position, let text = rules.patterns.subjects[slot.subject].patterns.fixedMatches[position] {
                            // Every match is `text`: the violation is the one the rule reports for it.
                            fixed = rule.knownPatternViolation(FieldInput(field: .email, raw: text, subjectList: [(rule.target, text)],
                                                                          asciiOnly: asciiOnly))
                        }
                    case .prefilter: deciders.append(.prefilter(bit: slot.bit, mustMatch: mustMatch))
                    case .alone: deciders.append(.byRule)
                    }
                case let .length(unit, min, max): deciders.append(.length(octets: unit == .utf8Octets, min: min, max: max))
                case .list: deciders.append(.byRule)
                case .swift: deciders.append(.swift)
                }
            }
            fixedViolations.append(fixed)
        }
        self.deciders = deciders
        var quickChecks = [QuickCheck](repeating: QuickCheck(), count: 3)
        for (index, decider) in deciders.enumerated() where sources[index] != .domain {
            let source = sources[index].rawValue
            switch decider {
            case let .automaton(bit, mustMatch):
                if mustMatch { quickChecks[source].mustMatch |= bit } else { quickChecks[source].mustNotMatch |= bit }
            case let .length(octets, min, max): quickChecks[source].allow(octets: octets, min: min, max: max)
            case .prefilter, .byRule, .swift: quickChecks[source].others.append(index)
            case .perDomain: break
            }
        }
        self.quickChecks = quickChecks
        self.fixedViolations = fixedViolations
        self.sources = sources
        self.swiftRules = swiftRules
        hasUnless = compiled.rules.map { !$0.unless.isEmpty }
        self.asciiOnly = asciiOnly
        domainRules = sources.indices.filter { sources[$0] == .domain }
        readsASCIIAddress = sources.contains(.asciiAddress)
    }

    /// Validates an address given as valid UTF-8.
    func validate(_ bytes: UnsafeBufferPointer<UInt8>, normalize: Bool) -> ValidationResult {
        var ats = 0
        var at = 0
        for index in bytes.indices where bytes[index] == UInt8(ascii: "@") {
            ats += 1
            at = index
        }
        guard ats == 1 else { return decide(Subjects(address: bytes), domain: nil, normalize: normalize) }
        let local = UnsafeBufferPointer(rebasing: bytes[..<at])
        let domain = memo.outcome(UnsafeBufferPointer(rebasing: bytes[(at + 1)...]), compute: domainOutcome)
        if local.allSatisfy({ $0 < 0x80 }) {
            return withASCIIAddress(local, domain) { asciiAddress in
                decide(Subjects(address: bytes, local: local, nfcLocal: local, asciiAddress: asciiAddress),
                       domain: domain, normalize: normalize)
            }
        }
        var (nfc, subject) = EmailParts.local(String(decoding: local, as: UTF8.self))
        return subject.withUTF8 { subject in
            nfc.withUTF8 { nfc in
                withASCIIAddress(nfc, domain) { asciiAddress in
                    decide(Subjects(address: bytes, local: subject, nfcLocal: nfc, asciiAddress: asciiAddress),
                           domain: domain, normalize: normalize)
                }
            }
        }
    }

    /// The per-address subjects, as UTF-8 (nil when absent).
    private struct Subjects {
        var address: UnsafeBufferPointer<UInt8>
        /// The `local-part` subject, and the NFC local part (the same bytes when ASCII).
        var local: UnsafeBufferPointer<UInt8>?
        var nfcLocal: UnsafeBufferPointer<UInt8>?
        var asciiAddress: UnsafeBufferPointer<UInt8>?

        subscript(source: Source) -> UnsafeBufferPointer<UInt8>? {
            switch source {
            case .address: address
            case .localPart: local
            case .asciiAddress: asciiAddress
            case .domain: nil
            }
        }
    }

    /// Runs `body` with `local@ascii-domain` in a temporary buffer (nil when there is no ASCII
    /// domain, or no rule reads it).
    private func withASCIIAddress<R>(_ local: UnsafeBufferPointer<UInt8>, _ domain: DomainOutcome,
                                     _ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
        guard readsASCIIAddress, var ascii = domain.ascii else { return body(nil) }
        return ascii.withUTF8 { ascii in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: local.count + 1 + ascii.count) { buffer in
                _ = buffer.initialize(fromContentsOf: local)
                buffer[local.count] = UInt8(ascii: "@")
                _ = UnsafeMutableBufferPointer(rebasing: buffer[(local.count + 1)...]).initialize(fromContentsOf: ascii)
                return body(UnsafeBufferPointer(buffer))
            }
        }
    }

    /// Every rule in pack order, `unless` applied; the normalized forms when valid.
    private func decide(_ subjects: Subjects, domain: DomainOutcome?, normalize: Bool) -> ValidationResult {
        var bits = SubjectBits()
        for source in Self.perAddress {
            guard let automaton = automata[source.rawValue], let bytes = subjects[source] else { continue }
            bits[source] = rules.patterns.subjects[automaton].patterns.run(UnsafeRawBufferPointer(bytes))
        }
        let clean = perAddressRulesPass(subjects, bits)
        let violations: [Violation]
        if clean, domain?.fired.isEmpty ?? true {
            violations = []
        } else {
            violations = withUnsafeTemporaryAllocation(of: Bool.self, capacity: rules.rules.count) { violated in
                violated.initialize(repeating: false)
                return clean ? domainViolations(domain, violated) : allViolations(subjects, bits, domain, violated)
            }
        }
        guard violations.isEmpty, normalize, let domain, let ascii = domain.ascii, let unicode = domain.unicode,
              let nfcLocal = subjects.nfcLocal else { return ValidationResult(violations: violations) }
        let local = String(decoding: nfcLocal, as: UTF8.self)
        let normalized = local + "@" + unicode
        let asciiForm = nfcLocal.allSatisfy { $0 < 0x80 } ? (unicode == ascii ? normalized : local + "@" + ascii) : nil
        return ValidationResult(violations: [], normalized: normalized, asciiForm: asciiForm)
    }

    /// Whether no rule on a per-address subject fires.
    private func perAddressRulesPass(_ subjects: Subjects, _ bits: SubjectBits) -> Bool {
        for source in Self.perAddress {
            guard let subject = subjects[source] else { continue }
            let check = quickChecks[source.rawValue]
            let outcome = bits[source]
            if (outcome & check.mustNotMatch) | (~outcome & check.mustMatch) != 0 || !check.lengthsPass(subject) { return false }
            for index in check.others where evaluate(index, subject, outcome) != nil { return false }
        }
        return true
    }

    /// The violations when only domain rules fire: theirs, `unless` applied.
    private func domainViolations(_ domain: DomainOutcome?, _ violated: UnsafeMutableBufferPointer<Bool>) -> [Violation] {
        var violations: [Violation] = []
        for (index, violation) in domain?.fired ?? [] {
            if hasUnless[index], rules.rules[index].unless.contains(where: { violated[$0] }) { continue }
            violations.append(violation)
            violated[index] = true
        }
        return violations
    }

    /// Every rule in pack order, `unless` applied.
    private func allViolations(_ subjects: Subjects, _ bits: SubjectBits, _ domain: DomainOutcome?,
                               _ violated: UnsafeMutableBufferPointer<Bool>) -> [Violation] {
        var violations: [Violation] = []
        var nextDomainRule = 0
        for index in rules.rules.indices {
            var violation: Violation?
            let source = sources[index]
            if source == .domain {
                guard let fired = domain?.fired, nextDomainRule < fired.count, fired[nextDomainRule].rule == index else { continue }
                violation = fired[nextDomainRule].violation
                nextDomainRule += 1
            }
            if hasUnless[index], rules.rules[index].unless.contains(where: { violated[$0] }) { continue }
            if source != .domain, let subject = subjects[source] {
                violation = evaluate(index, subject, bits[source])
            }
            if let violation {
                violations.append(violation)
                violated[index] = true
            }
        }
        return violations
    }

    /// Rule `index`'s violation by a per-address subject, given its automaton outcome `bits`.
    private func evaluate(_ index: Int, _ subject: UnsafeBufferPointer<UInt8>, _ bits: UInt64) -> Violation? {
        switch deciders[index] {
        case let .automaton(bit, mustMatch):
            guard (bits & bit != 0) != mustMatch else { return nil }
            return fixedViolations[index] ?? rules.rules[index].knownPatternViolation(input(index, subject))
        case let .prefilter(bit, mustMatch):
            // The approximation matches whatever the pattern matches.
            guard bits & bit != 0 else { return mustMatch ? fixedViolations[index] : nil }
            return rules.rules[index].evaluate(input(index, subject))
        case .byRule:
            return rules.rules[index].evaluate(input(index, subject))
        case let .length(octets, min, max):
            let length = octets ? subject.count : subject.reduce(0) { $1 & 0xC0 == 0x80 ? $0 : $0 + 1 }
            return rules.rules[index].lengthViolation(length, min: min, max: max)
        case .swift:
            return swiftRules[index]?.check(subject: subject, asciiOnly: asciiOnly).map(rules.rules[index].swiftViolation)
        case .perDomain:
            return nil
        }
    }

    /// An input holding only rule `index`'s subject (all a pattern, list or length rule reads).
    private func input(_ index: Int, _ subject: UnsafeBufferPointer<UInt8>) -> FieldInput {
        FieldInput(field: .email, raw: "", subjectList: [(rules.rules[index].target, String(decoding: subject, as: UTF8.self))],
                   asciiOnly: asciiOnly)
    }

    /// The domain rules' outcome for `domain`, by the rules themselves (PCRE2, IDNA).
    private func domainOutcome(_ domain: String) -> DomainOutcome {
        let (subject, ascii) = EmailParts.domain(domain)
        var subjects = [("domain", subject)]
        if let ascii { subjects.append(("ascii-domain", ascii)) }
        let input = FieldInput(field: .email, raw: "", subjectList: subjects, asciiOnly: asciiOnly)
        let fired = domainRules.compactMap { index in rules.rules[index].evaluate(input).map { (rule: index, violation: $0) } }
        let unicode = ascii.map { ascii in ascii.contains("xn--") ? ((try? IDNA.toUnicode(ascii)) ?? ascii) : ascii }
        return DomainOutcome(fired: fired, ascii: ascii, unicode: unicode)
    }
}

