import Foundation
import IDNA
import PatternAutomata

/// The email rules of any pack, run address by address without building strings for the
/// common case.
///
/// An address's subjects split in two:
/// - **per address** (`address`, `local-part`, `ascii-address`): read from the address's bytes
///   (the local part in NFC when it is not ASCII); their pattern rules run on the subjects'
///   automata, one pass each; length rules count bytes; list and Swift rules see the subject;
/// - **per domain** (`domain`, `ascii-domain`): derived from the domain alone (UTS 46, IDNA), so
///   every rule on them is decided once per distinct domain, in PCRE2, and kept in a memo.
///
/// Each thread has its own memo and copies of the prebuilt violations (``ThreadState``), so
/// that worker threads never take one lock or count references on shared memory.
///
/// Each rule is decided on its own, then `unless` is applied in pack order, exactly as
/// ``CompiledRuleSet/evaluate(_:skip:)`` does; a rule's outcome depends only on its subject, so
/// the result is the rules' own (the differential tests check it against them).
///
/// Swift rules take part when they read their own subject only (``SubjectRule``: the built-in
/// ones and the list kinds); one with a ``SubjectRule/prefilter`` runs only where that pattern,
/// compiled into its subject's automata, matches. A pack with any other Swift rule, or a rule on
/// a subject this engine does not know, gets no engine (``init(_:asciiOnly:)`` returns nil) and
/// runs rule by rule. With at most 64 rules (``ruleMasks``), only the rules an address may break
/// are decided.
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
    /// One thread's (``ThreadState``): ``continuation`` changes as the thread runs addresses.
    final class DomainOutcome {
        /// The domain rules that fire, in pack order, each with its violation (before `unless`).
        let fired: [(rule: Int, violation: Violation)]
        /// Their violations when no per-address rule fires: `unless` applied among them alone.
        let alone: [Violation]
        /// The rules of ``fired`` as a bit set (rules past the 64th left out).
        let firedMask: UInt64
        /// ``ascii``'s length in bytes.
        let asciiCount: Int?
        /// The `ascii-domain` subject; nil when the domain is empty or IDNA rejects it.
        let ascii: String?
        /// The domain as in the normalized address (Unicode form).
        let unicode: String?
        /// The `address` automaton's outcome over `@` and this domain, from the state it was
        /// last entered in (``EmailEngine/addressAndLocalBits(_:_:)``): a deterministic
        /// automaton's run over a suffix depends only on the state it starts in, and addresses
        /// of one domain mostly reach its `@` in the same state.
        var continuation: (entry: UInt32, bits: UInt64) = (.max, 0)

        init(fired: [(rule: Int, violation: Violation)], alone: [Violation], ascii: String?, unicode: String?) {
            self.fired = fired
            self.alone = alone
            firedMask = fired.reduce(0) { $1.rule < 64 ? $0 | 1 << UInt64($1.rule) : $0 }
            asciiCount = ascii?.utf8.count
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
        /// By its Swift rule; with a prefilter bit, only where that is set.
        case swift(prefilter: UInt64?)
        /// On the domain: decided once per domain.
        case perDomain
    }

    /// What one rule makes of an address.
    private enum Verdict {
        case passes
        /// It fires, with its violation of this variant (``KnownViolations``).
        case known(Int)
        case worded(Violation)

        init(_ violation: Violation?) { self = violation.map(Verdict.worded) ?? .passes }

        var passes: Bool {
            if case .passes = self { return true }
            return false
        }
    }

    /// The violations found so far, in pack order. While every one is known by its variant (and
    /// has a rule index below 64) they are kept as a ``KnownViolations/Key``, so that an address
    /// breaking the same rules as an earlier one, in the same words, shares its prebuilt array.
    private struct ViolationList {
        var violations: [Violation] = []
        var key = KnownViolations.Key()
        var count = 0

        mutating func add(_ index: Int, _ verdict: Verdict, _ state: ThreadState) {
            switch verdict {
            case .passes: return
            case .known(let variant) where violations.isEmpty && index < 64 && variant < 256 && count < KnownViolations.maxCount:
                key.rules |= 1 << UInt64(index)
                key.variants |= UInt64(variant) << UInt64(8 * count)
                count += 1
            case .known(let variant):
                expandKnown(state)
                violations.append(state.known.violation(index, variant))
            case .worded(let violation):
                expandKnown(state)
                violations.append(violation)
            }
        }

        /// Writes out the violations kept as a key so far.
        private mutating func expandKnown(_ state: ThreadState) {
            guard key.rules != 0 else { return }
            violations = state.known.violations(of: key)
            key = KnownViolations.Key()
            count = 0
        }

        func result(_ state: ThreadState) -> [Violation] { violations.isEmpty ? state.known.violations(of: key) : violations }
    }

    /// One per-address subject's automata and what tells, without the rule loop, that none of
    /// its rules fires (most addresses break none). Plain values, read in place (the engine's
    /// properties are not optional, so that no check is copied out): reading them counts no reference.
    private struct SubjectChecks {
        /// Whether some rule reads the subject; when none does, the checks below pass everything.
        let isPresent: Bool
        /// The subject's first automaton (nil when it has no pattern), borrowed from ``automata``,
        /// which the engine keeps; whether it has more.
        let first: ByteAutomaton.Tables?
        let hasMoreAutomata: Bool
        /// Which entry of ``EmailEngine/subjectLists`` holds its automata and rule lists.
        let lists: Int
        /// Automaton bits of the rules it decides exactly: must-not-match ones fire when theirs
        /// is set, must-match ones when theirs is clear.
        let firesWhenSet: UInt64
        let firesWhenClear: UInt64
        /// The bits of the rules that may fire only when their (prefilter) bit is set.
        let prefilterBits: UInt64
        /// The lengths every length rule on the subject allows, in octets and in code points.
        let octets: (low: Int, high: Int)
        let codePoints: (low: Int, high: Int)
        /// Whether some length rule counts code points.
        let countsCodePoints: Bool
        /// Whether only its length rules read the subject (then its bytes are not needed).
        let readsLengthsOnly: Bool
        /// With rule masks (``ruleMasks``): its length rules, the rules decided one by one, and
        /// every rule on the subject.
        let lengthMask: UInt64
        let othersMask: UInt64
        let ruleMask: UInt64

        /// The checks of a subject no rule reads.
        static let absent = SubjectChecks(lists: -1, SubjectLists(automata: [], prefiltered: [], others: []), firesWhenSet: 0,
                                          firesWhenClear: 0, prefilterBits: 0, octets: (0, .max), codePoints: (0, .max), lengths: [])

        init(lists: Int, _ subject: SubjectLists, firesWhenSet: UInt64, firesWhenClear: UInt64, prefilterBits: UInt64,
             octets: (low: Int, high: Int), codePoints: (low: Int, high: Int), lengths: [Int]) {
            isPresent = lists >= 0
            first = subject.automata.first?.tables
            hasMoreAutomata = subject.automata.count > 1
            self.lists = lists
            self.firesWhenSet = firesWhenSet
            self.firesWhenClear = firesWhenClear
            self.prefilterBits = prefilterBits
            self.octets = octets
            self.codePoints = codePoints
            countsCodePoints = codePoints != (0, Int.max)
            readsLengthsOnly = subject.automata.isEmpty && subject.prefiltered.isEmpty && subject.others.isEmpty
            lengthMask = lengths.reduce(0) { $1 < 64 ? $0 | 1 << UInt64($1) : $0 }
            othersMask = subject.others.reduce(0) { $1 < 64 ? $0 | 1 << UInt64($1) : $0 }
            ruleMask = firesWhenSet | firesWhenClear | prefilterBits | lengthMask | othersMask
        }

        /// With rule masks, the rules on the subject that may fire, given its automaton outcome:
        /// those the automaton says fire, those whose prefilter matched, the others, and the
        /// length rules when some length rule fails.
        @inline(__always)
        func candidates(_ bits: UInt64, octets count: Int, codePoints: () -> Int) -> UInt64 {
            let candidates = (bits & (firesWhenSet | prefilterBits)) | (~bits & firesWhenClear) | othersMask
            return lengthsPass(octets: count, codePoints: codePoints) ? candidates : candidates | lengthMask
        }

        /// Whether every length rule passes.
        @inline(__always)
        func lengthsPass(octets count: Int, codePoints: () -> Int) -> Bool {
            guard count >= octets.low && count <= octets.high else { return false }
            guard countsCodePoints else { return true }
            let count = codePoints()
            return count >= self.codePoints.low && count <= self.codePoints.high
        }
    }

    /// A per-address subject's automata, and its rules decided one by one.
    private struct SubjectLists {
        let automata: [ByteAutomaton]
        /// Rules that may fire only when their (prefilter) bit is set.
        let prefiltered: [Int]
        /// The other rules on the subject, decided one by one (PCRE2 alone, lists, Swift rules
        /// with no prefilter, must-match prefilters).
        let others: [Int]
    }

    /// The rules, with automata for the per-address subjects only.
    let rules: CompiledRuleSet
    private let asciiOnly: Bool
    /// Per rule, where its subject comes from.
    private let sources: [Source]
    /// Per rule, how a per-address subject decides it.
    private let deciders: [Decider]
    /// Per rule, its violation when that does not depend on the value (a must-match rule's; a
    /// must-not-match rule's whose every match is the same text), else nil; and that violation
    /// alone in an array (an address breaking one such rule costs no allocation).
    private let fixedViolations: [Violation?]
    /// Per rule, its Swift rule when it is one.
    private let swiftRules: [(any SubjectRule)?]
    /// Per rule, whether its `unless` names any rule.
    private let hasUnless: [Bool]
    /// The per-address subjects' checks (``SubjectChecks/absent`` when no rule reads the subject).
    private let addressChecks: SubjectChecks
    private let localChecks: SubjectChecks
    private let asciiAddressChecks: SubjectChecks
    /// Their automata and rule lists (``SubjectChecks/lists``).
    private let subjectLists: [SubjectLists]
    /// The rules on `domain` and `ascii-domain`, in pack order.
    private let domainRules: [Int]
    /// Rule `i`'s `unless` as a bit set, when every rule has a bit (``ruleMasks``).
    private let unlessMasks: [UInt64]
    /// Whether rules are bit sets: at most 64 rules, each automaton bit (and prefilter bit) being
    /// its rule's index. Then an address's candidate rules are one word, and only those are decided.
    let ruleMasks: Bool

    /// What one thread uses on its own (``ThreadCopies``): the domain memo, and the violations
    /// known by their variant, deep copies of the engine's (an address breaking only such rules
    /// costs no allocation once an address has broken them in the same words).
    final class ThreadState {
        let memo = BytesMemo<DomainOutcome>()
        let known: KnownViolations

        init(rules: [CompiledRule], fixedViolations: [Violation?]) {
            known = KnownViolations(rules: rules, fixed: fixedViolations)
        }
    }

    /// Why the domain rules have no automata, as the plan says.
    static let perDomain = "decided once per distinct domain (memoized), with no automaton"

    /// An engine for `compiled` (compiled without automata), or nil when a rule cannot run on it.
    init?(_ compiled: CompiledRuleSet, asciiOnly: Bool) {
        var sources: [Source] = []
        var swiftRules: [(any SubjectRule)?] = []
        var prefilters: [PatternPlan.ExtraPattern] = []
        for (index, rule) in compiled.rules.enumerated() {
            guard let source = Source(rule.target) else { return nil }
            sources.append(source)
            if case let .swift(swiftRule) = rule.check {
                guard let subjectRule = swiftRule as? any SubjectRule, subjectRule.subject == rule.target else { return nil }
                swiftRules.append(subjectRule)
                if source != .domain, let prefilter = subjectRule.prefilter {
                    prefilters.append(.init(subject: rule.target, pattern: prefilter, use: .search, bit: index, prefilters: index))
                }
            } else {
                swiftRules.append(nil)
            }
        }
        rules = CompiledRuleSet(field: .email, rules: compiled.rules, extraPatterns: prefilters,
                                leftOut: ["domain": Self.perDomain, "ascii-domain": Self.perDomain])
        var prefilterBits = [Int: UInt64]()
        for (extra, slot) in zip(prefilters, rules.patterns.extraSlots) {
            // A prefilter PCRE2 would have to run alone filters nothing.
            guard let slot else { continue }
            if case .alone = slot.strategy { continue }
            prefilterBits[extra.bit] = slot.bit
        }
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
                case .swift: deciders.append(.swift(prefilter: prefilterBits[index]))
                }
            }
            fixedViolations.append(fixed)
        }
        self.deciders = deciders
        self.fixedViolations = fixedViolations
        self.sources = sources
        self.swiftRules = swiftRules
        hasUnless = compiled.rules.map { !$0.unless.isEmpty }
        self.asciiOnly = asciiOnly
        domainRules = sources.indices.filter { sources[$0] == .domain }
        let plan = rules.patterns
        var lists: [SubjectLists] = []
        /// The checks of the rules on `source`.
        func checks(_ source: Source) -> SubjectChecks {
            let members = sources.indices.filter { sources[$0] == source }
            guard !members.isEmpty else { return .absent }
            var firesWhenSet: UInt64 = 0, firesWhenClear: UInt64 = 0, prefilterBits: UInt64 = 0
            var prefiltered: [Int] = [], others: [Int] = [], lengths: [Int] = []
            var octets = (low: 0, high: Int.max), codePoints = (low: 0, high: Int.max)
            for index in members {
                switch deciders[index] {
                case let .automaton(bit, mustMatch):
                    if mustMatch { firesWhenClear |= bit } else { firesWhenSet |= bit }
                case let .prefilter(bit, false), let .swift(bit?):
                    prefiltered.append(index)
                    prefilterBits |= bit
                case let .length(inOctets, min, max):
                    lengths.append(index)
                    // A low bound above a high one leaves no length: such a rule is decided one
                    // by one, so that the bounds stay a range.
                    let low = Swift.max(inOctets ? octets.low : codePoints.low, min ?? 0)
                    let high = Swift.min(inOctets ? octets.high : codePoints.high, max ?? Int.max)
                    guard low <= high else {
                        others.append(index)
                        continue
                    }
                    if inOctets { octets = (low, high) } else { codePoints = (low, high) }
                case .prefilter, .byRule, .swift, .perDomain: others.append(index)
                }
            }
            let automata = plan.subjects.first { Source($0.name) == source && source != .domain }?.patterns.automata ?? []
            let subject = SubjectLists(automata: automata, prefiltered: prefiltered, others: others)
            lists.append(subject)
            return SubjectChecks(lists: lists.count - 1, subject, firesWhenSet: firesWhenSet, firesWhenClear: firesWhenClear,
                                 prefilterBits: prefilterBits, octets: octets, codePoints: codePoints, lengths: lengths)
        }
        addressChecks = checks(.address)
        localChecks = checks(.localPart)
        asciiAddressChecks = checks(.asciiAddress)
        subjectLists = lists
        ruleMasks = rules.rules.count <= 64
            && plan.slots.enumerated().allSatisfy { index, slot in slot.map { $0.bit == 1 << UInt64(index) } ?? true }
            && zip(prefilters, plan.extraSlots).allSatisfy { extra, slot in slot.map { $0.bit == 1 << UInt64(extra.bit) } ?? true }
        unlessMasks = ruleMasks ? rules.rules.map { $0.unless.reduce(UInt64(0)) { $0 | 1 << UInt64($1) } } : []
    }

    /// Validates an address given as valid UTF-8.
    func validate(_ bytes: UnsafeBufferPointer<UInt8>, normalize: Bool) -> ValidationResult {
        // The thread's list keeps its state alive, and the memo its outcomes: neither is asked
        // for another value before the address is decided.
        ThreadCopies.unretainedLocal(for: self) { ThreadState(rules: rules.rules, fixedViolations: fixedViolations) }
            ._withUnsafeGuaranteedRef { state in
                guard let at = Self.onlyAtSign(bytes) else { return decide(Subjects(address: bytes), domain: nil, state, normalize: normalize) }
                let domain = UnsafeBufferPointer(rebasing: bytes[(at + 1)...])
                guard let outcome = state.memo.value(for: domain, compute: domainOutcome) else {
                    return decide(bytes, at: at, domainOutcome(String(decoding: domain, as: UTF8.self)), state, normalize: normalize)
                }
                return outcome._withUnsafeGuaranteedRef { decide(bytes, at: at, $0, state, normalize: normalize) }
            }
    }

    /// ``decide(_:domain:_:normalize:)`` for an address whose only `@` is at `at`, given its domain's outcome.
    private func decide(_ bytes: UnsafeBufferPointer<UInt8>, at: Int, _ domain: DomainOutcome, _ state: ThreadState,
                        normalize: Bool) -> ValidationResult {
        let local = UnsafeBufferPointer(rebasing: bytes[..<at])
        if Self.isASCII(local) {
            return decide(Subjects(address: bytes, local: local, nfcLocal: local, at: at), domain: domain, state, normalize: normalize)
        }
        var (nfc, subject) = EmailParts.local(String(decoding: local, as: UTF8.self))
        return subject.withUTF8 { subject in
            nfc.withUTF8 { nfc in
                decide(Subjects(address: bytes, local: subject, nfcLocal: nfc, at: at), domain: domain, state, normalize: normalize)
            }
        }
    }

    /// Whether every byte is ASCII, read eight at a time (the last eight overlapping the others).
    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base), count = bytes.count
        guard count >= 8 else { return bytes.allSatisfy { $0 < 0x80 } }
        var index = 0, high = raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        while index + 8 <= count {
            high |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        return high & 0x8080_8080_8080_8080 == 0
    }

    /// Where the address's only `@` is; nil when it has none or several.
    private static func onlyAtSign(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = bytes.baseAddress, let at = memchr(base, Int32(UInt8(ascii: "@")), bytes.count) else { return nil }
        let first = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(at))
        return memchr(at + 1, Int32(UInt8(ascii: "@")), bytes.count - first - 1) == nil ? first : nil
    }

    /// The per-address subjects, as UTF-8 (nil when absent).
    private struct Subjects {
        var address: UnsafeBufferPointer<UInt8>
        /// The `local-part` subject, and the NFC local part (the same bytes when ASCII).
        var local: UnsafeBufferPointer<UInt8>?
        var nfcLocal: UnsafeBufferPointer<UInt8>?
        /// Where the address's only `@` is (nil when it has none or several).
        var at: Int?
    }

    /// Every rule in pack order, `unless` applied; the normalized forms when valid.
    private func decide(_ subjects: Subjects, domain: DomainOutcome?, _ state: ThreadState, normalize: Bool) -> ValidationResult {
        let violations: [Violation]
        if ruleMasks {
            violations = maskedViolations(subjects, domain, state)
        } else if perAddressRulesPass(subjects, domain, state) {
            violations = domain?.alone ?? []
        } else {
            violations = withASCIIAddress(subjects, domain) { ascii in
                withUnsafeTemporaryAllocation(of: Bool.self, capacity: rules.rules.count) { violated in
                    violated.initialize(repeating: false)
                    return allViolations(subjects, ascii, domain, state, violated)
                }
            }
        }
        guard violations.isEmpty, normalize, let domain, let ascii = domain.ascii, let unicode = domain.unicode,
              let nfcLocal = subjects.nfcLocal else { return ValidationResult(violations: violations) }
        let normalized = Self.joined(nfcLocal, unicode)
        guard nfcLocal.allSatisfy({ $0 < 0x80 }) else { return ValidationResult(violations: [], normalized: normalized) }
        return ValidationResult(violations: [], normalized: normalized, asciiForm: unicode == ascii ? normalized : Self.joined(nfcLocal, ascii))
    }

    /// `local@domain`.
    private static func joined(_ local: UnsafeBufferPointer<UInt8>, _ domain: String) -> String {
        var domain = domain
        return domain.withUTF8 { domain in
            String(unsafeUninitializedCapacity: local.count + 1 + domain.count) { write(local, domain, to: $0) }
        }
    }

    /// Writes `local@domain` to `buffer`, which holds exactly that many bytes; returns its count.
    private static func write(_ local: UnsafeBufferPointer<UInt8>, _ domain: UnsafeBufferPointer<UInt8>,
                              to buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        _ = buffer.initialize(fromContentsOf: local)
        buffer[local.count] = UInt8(ascii: "@")
        _ = UnsafeMutableBufferPointer(rebasing: buffer[(local.count + 1)...]).initialize(fromContentsOf: domain)
        return buffer.count
    }

    /// Runs `body` with the `ascii-address` subject, `nfcLocal@ascii-domain`, in a temporary
    /// buffer (nil when absent or no rule reads it).
    private func withASCIIAddress<R>(_ subjects: Subjects, _ domain: DomainOutcome?, _ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
        guard asciiAddressChecks.isPresent, let local = subjects.nfcLocal, var ascii = domain?.ascii else { return body(nil) }
        return ascii.withUTF8 { ascii in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: local.count + 1 + ascii.count) { buffer in
                _ = Self.write(local, ascii, to: buffer)
                return body(UnsafeBufferPointer(buffer))
            }
        }
    }

    /// The violations, deciding only the rules that may fire (``ruleMasks``).
    private func maskedViolations(_ subjects: Subjects, _ domain: DomainOutcome?, _ state: ThreadState) -> [Violation] {
        var candidates = domain?.firedMask ?? 0
        let (addressBits, localBits) = addressAndLocalBits(subjects, domain)
        if addressChecks.isPresent {
            let address = subjects.address
            candidates |= addressChecks.candidates(addressBits, octets: address.count) { Self.codePoints(address) }
        }
        if localChecks.isPresent, let local = subjects.local {
            candidates |= localChecks.candidates(localBits, octets: local.count) { Self.codePoints(local) }
        }
        var readsASCIIAddress = false
        if asciiAddressChecks.isPresent, let local = subjects.nfcLocal, let domainCount = domain?.asciiCount {
            if asciiAddressChecks.readsLengthsOnly {
                // `local@ascii-domain` without building it: the ASCII domain has a code point per byte.
                if !asciiAddressChecks.lengthsPass(octets: local.count + 1 + domainCount, codePoints: { Self.codePoints(local) + 1 + domainCount }) {
                    candidates |= asciiAddressChecks.lengthMask
                }
            } else {
                readsASCIIAddress = true
            }
        }
        guard candidates != 0 || readsASCIIAddress else { return [] }
        // Only domain rules fire: their violations are the domain's own, prebuilt.
        if let domain, candidates == domain.firedMask, !readsASCIIAddress { return domain.alone }
        guard readsASCIIAddress || candidates & asciiAddressChecks.ruleMask != 0 else {
            return violations(candidates, subjects, domain, state, addressBits, localBits, nil, 0)
        }
        return withASCIIAddress(subjects, domain) { asciiAddress in
            var asciiBits: UInt64 = 0
            if let asciiAddress, readsASCIIAddress {
                asciiBits = run(asciiAddressChecks, asciiAddress)
                candidates |= asciiAddressChecks.candidates(asciiBits, octets: asciiAddress.count) { Self.codePoints(asciiAddress) }
            }
            return violations(candidates, subjects, domain, state, addressBits, localBits, asciiAddress, asciiBits)
        }
    }

    /// The violations of the `candidates` rules, in pack order, `unless` applied (``ruleMasks``).
    private func violations(_ candidates: UInt64, _ subjects: Subjects, _ domain: DomainOutcome?, _ state: ThreadState, _ addressBits: UInt64,
                            _ localBits: UInt64, _ asciiAddress: UnsafeBufferPointer<UInt8>?, _ asciiBits: UInt64) -> [Violation] {
        var candidates = candidates
        var found = ViolationList()
        var violated: UInt64 = 0
        var nextDomainRule = 0
        while candidates != 0 {
            let index = candidates.trailingZeroBitCount
            candidates &= candidates - 1
            let verdict: Verdict
            switch sources[index] {
            case .domain:
                guard let fired = domain?.fired else { continue }
                while fired[nextDomainRule].rule != index { nextDomainRule += 1 }
                verdict = .worded(fired[nextDomainRule].violation)
            case .address: verdict = self.verdict(index, subjects.address, addressBits, state)
            case .localPart: verdict = subjects.local.map { self.verdict(index, $0, localBits, state) } ?? .passes
            case .asciiAddress: verdict = asciiAddress.map { self.verdict(index, $0, asciiBits, state) } ?? .passes
            }
            if verdict.passes || unlessMasks[index] & violated != 0 { continue }
            violated |= 1 << UInt64(index)
            found.add(index, verdict, state)
        }
        return found.result(state)
    }

    /// Whether no rule on a per-address subject fires.
    private func perAddressRulesPass(_ subjects: Subjects, _ domain: DomainOutcome?, _ state: ThreadState) -> Bool {
        if addressChecks.isPresent, !passes(addressChecks, subjects.address, state) { return false }
        if localChecks.isPresent, let local = subjects.local, !passes(localChecks, local, state) { return false }
        guard asciiAddressChecks.isPresent, let local = subjects.nfcLocal, let domainCount = domain?.asciiCount else { return true }
        guard asciiAddressChecks.readsLengthsOnly else { return withASCIIAddress(subjects, domain) { passes(asciiAddressChecks, $0!, state) } }
        // `local@ascii-domain` without building it: the ASCII domain has a code point per byte.
        return asciiAddressChecks.lengthsPass(octets: local.count + 1 + domainCount) { Self.codePoints(local) + 1 + domainCount }
    }

    /// Whether no rule of `checks` fires on `subject`.
    private func passes(_ checks: SubjectChecks, _ subject: UnsafeBufferPointer<UInt8>, _ state: ThreadState) -> Bool {
        let bits = run(checks, subject)
        guard (bits & checks.firesWhenSet) | (~bits & checks.firesWhenClear) == 0,
              checks.lengthsPass(octets: subject.count, codePoints: { Self.codePoints(subject) }) else { return false }
        let lists = subjectLists[checks.lists]
        if bits & checks.prefilterBits != 0 {
            for index in lists.prefiltered where !verdict(index, subject, bits, state).passes { return false }
        }
        for index in lists.others where !verdict(index, subject, bits, state).passes { return false }
        return true
    }

    /// The outcome bits of the `address` and `local-part` automata (0 for a subject that is
    /// absent or has none). With one `@` and an automaton each, the address's run stops at its
    /// `@`: the rest comes from the domain's ``DomainOutcome/continuation`` (computed when the
    /// state differs). An ASCII local part is the address's first bytes, so both automata run
    /// over them in one pass.
    @inline(__always)
    private func addressAndLocalBits(_ subjects: Subjects, _ domain: DomainOutcome?) -> (address: UInt64, local: UInt64) {
        let address = subjects.address
        guard let tables = addressChecks.first, !addressChecks.hasMoreAutomata, let domain, let at = subjects.at else {
            return (run(addressChecks, address), subjects.local.map { run(localChecks, $0) } ?? 0)
        }
        let head = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: address[..<at]))
        var state: UInt32, emitted: UInt64, localBits: UInt64 = 0
        if let local = subjects.local, let localTables = localChecks.first, !localChecks.hasMoreAutomata,
           local.baseAddress == address.baseAddress, local.count == at {
            let both = tables.advance(from: tables.start, localTables, from: localTables.start, over: head)
            (state, emitted) = (both.state, both.emitted)
            localBits = both.otherEmitted | localTables.outcome(both.otherState)
        } else {
            (state, emitted) = tables.advance(from: tables.start, over: head)
            localBits = subjects.local.map { run(localChecks, $0) } ?? 0
        }
        if domain.continuation.entry != state {
            let rest = tables.advance(from: state, over: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: address[at...])))
            domain.continuation = (state, rest.emitted | tables.outcome(rest.state))
        }
        return (emitted | domain.continuation.bits, localBits)
    }

    /// The outcome bits of the automata of `checks` for `subject`.
    @inline(__always)
    private func run(_ checks: SubjectChecks, _ subject: UnsafeBufferPointer<UInt8>) -> UInt64 {
        guard let first = checks.first else { return 0 }
        var bits = first.run(UnsafeRawBufferPointer(subject))
        if checks.hasMoreAutomata {
            for automaton in subjectLists[checks.lists].automata.dropFirst() { bits |= automaton.run(UnsafeRawBufferPointer(subject)) }
        }
        return bits
    }

    private static func codePoints(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        bytes.reduce(0) { $1 & 0xC0 == 0x80 ? $0 : $0 + 1 }
    }

    /// Every rule in pack order, `unless` applied.
    private func allViolations(_ subjects: Subjects, _ asciiAddress: UnsafeBufferPointer<UInt8>?, _ domain: DomainOutcome?, _ state: ThreadState,
                               _ violated: UnsafeMutableBufferPointer<Bool>) -> [Violation] {
        let addressBits = run(addressChecks, subjects.address)
        let localBits = subjects.local.map { run(localChecks, $0) } ?? 0
        let asciiBits = asciiAddress.map { run(asciiAddressChecks, $0) } ?? 0
        var found = ViolationList()
        var nextDomainRule = 0
        for index in rules.rules.indices {
            var verdict = Verdict.passes
            switch sources[index] {
            case .domain:
                guard let fired = domain?.fired, nextDomainRule < fired.count, fired[nextDomainRule].rule == index else { continue }
                verdict = .worded(fired[nextDomainRule].violation)
                nextDomainRule += 1
            case .address: verdict = self.verdict(index, subjects.address, addressBits, state)
            case .localPart: if let local = subjects.local { verdict = self.verdict(index, local, localBits, state) }
            case .asciiAddress: if let asciiAddress { verdict = self.verdict(index, asciiAddress, asciiBits, state) }
            }
            if verdict.passes { continue }
            if hasUnless[index], rules.rules[index].unless.contains(where: { violated[$0] }) { continue }
            violated[index] = true
            found.add(index, verdict, state)
        }
        return found.result(state)
    }

    /// What rule `index` makes of a per-address subject, given its automaton outcome `bits`.
    private func verdict(_ index: Int, _ subject: UnsafeBufferPointer<UInt8>, _ bits: UInt64, _ state: ThreadState) -> Verdict {
        switch deciders[index] {
        case let .automaton(bit, mustMatch):
            guard (bits & bit != 0) != mustMatch else { return .passes }
            if fixedViolations[index] != nil { return .known(0) }
            return .worded(rules.rules[index].knownPatternViolation(input(index, subject)))
        case let .prefilter(bit, mustMatch):
            // The approximation matches whatever the pattern matches.
            guard bits & bit != 0 else { return mustMatch ? .known(0) : .passes }
            return Verdict(rules.rules[index].evaluate(input(index, subject)))
        case .byRule:
            return Verdict(rules.rules[index].evaluate(input(index, subject)))
        case let .length(octets, min, max):
            let length = octets ? subject.count : Self.codePoints(subject)
            guard length < (min ?? 0) || length > (max ?? Int.max),
                  let violation = rules.rules[index].lengthViolation(length, min: min, max: max) else { return .passes }
            return state.known.lengthVariant(index, length, violation).map(Verdict.known) ?? .worded(violation)
        case let .swift(prefilter):
            if let prefilter, bits & prefilter == 0 { return .passes }
            guard let found = swiftRules[index]?.check(subject: subject, asciiOnly: asciiOnly) else { return .passes }
            let rule = rules.rules[index]
            return state.known.swiftVariant(index, found) { rule.swiftViolation(found) }.map(Verdict.known) ?? .worded(rule.swiftViolation(found))
        case .perDomain:
            return .passes
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
        var alone: [Violation] = []
        var firing = Set<Int>()
        for (index, violation) in fired where !rules.rules[index].unless.contains(where: firing.contains) {
            alone.append(violation)
            firing.insert(index)
        }
        let unicode = ascii.map { ascii in ascii.contains("xn--") ? ((try? IDNA.toUnicode(ascii)) ?? ascii) : ascii }
        return DomainOutcome(fired: fired, alone: alone, ascii: ascii, unicode: unicode)
    }
}

