import PatternAutomata

/// The display-name engine: one pass over the bytes runs the pack's pattern
/// automaton (every must-match and must-not-match rule at once, one table step per byte; a pack
/// with too many patterns for one automaton runs the others after it) and
/// fingerprints the name's list key; length rules read the pass's counts, and list rules are
/// probed with keys built on the stack. A valid ASCII name costs no allocation and no reference
/// counting; an invalid one costs only the violations it reports.
///
/// Nothing here knows which rules ship: the automaton is compiled from the pack's patterns
/// (PatternAutomata), and the list prefilters from the lists' keys. It exists when the pack has
/// at most 62 rules; pattern rules the automaton cannot decide exactly (prefilters, patterns left
/// to PCRE2), and Swift rules, are left to the rules themselves. A must-not-match violation is
/// worded once at build time when every match of its pattern is the same text (`\.\.`),
/// else by PCRE2 for the name; the property tests `FastPathTests` and
/// `PackAutomatonDifferentialTests` check both paths agree.
final class DisplayNameEngine: @unchecked Sendable {
    // INVARIANT: `probes` is written only in `init` and freed in `deinit`; the tables it points
    // to are kept alive by `tables`. Concurrent reads are safe.

    /// A length rule: rule `index` with its bounds.
    struct LengthRule {
        let index: Int
        let unit: LengthUnit
        let min: Int?
        let max: Int?

        func length(_ scan: Scan) -> Int { unit == .codePoints ? scan.codePoints : scan.octets }

        func isViolated(by scan: Scan) -> Bool {
            let length = length(scan)
            return (min.map { length < $0 } ?? false) || (max.map { length > $0 } ?? false)
        }
    }

    /// A list rule: rule `index`, probed with `probes[probe]` for ASCII names.
    struct ListRule {
        let index: Int
        let probe: Int
    }

    /// A list rule the engine probes itself, for ASCII names.
    struct Probe {
        let kind: ListKey
        let table: Unmanaged<ByteKeyTable>
        /// Longest probe key that can match, in bytes (look-alike keys shrink: `rn` → `m`).
        let maxInputLength: Int
        /// Prefilter: which bytes start / end some key, and which key lengths (< 64) exist.
        /// A name whose key cannot match them skips the table lookup; no false negatives.
        let lastBytes: (UInt64, UInt64)
        let keyLengths: UInt64
        /// Which first two key bytes occur (bit `b0 * 128 + b1`; `b1` is 0 for one-byte keys):
        /// 2 KiB, owned by the engine.
        let prefixes: UnsafeMutablePointer<UInt64>
        /// True when no name with a non-ASCII character can be listed: the keys are ASCII and
        /// hold none of the three ASCII characters that non-ASCII ones are canonically
        /// equivalent to (U+212A KELVIN SIGN is `K`, U+037E is `;`, U+1FEF is a backtick), and
        /// the key function keeps non-ASCII characters (it is not NFKC-based). The list is then
        /// never probed for such names.
        let excludesNonASCII: Bool
    }

    /// The pack's pattern rules as automata whose outcome bit `i` is rule `i`'s pattern
    /// matching, plus ``unplainBit``: some byte a JSON string must escape, or non-ASCII. The
    /// automaton with that bit is stepped in the quick pass; the others (when the patterns are
    /// too many for one automaton) each run over the name after it.
    private let automaton: ByteAutomaton
    private let otherAutomata: [ByteAutomaton]
    /// The rules the automaton decides, and among them the must-match ones (violated when their
    /// bit is clear).
    private let automatonRules: UInt64
    private let mustMatchRules: UInt64
    /// Swift rules, and pattern rules with no exact automaton: always run by the validator.
    private let uncoveredRules: UInt64
    private let lengthRules: [LengthRule]
    private let listRules: [ListRule]
    /// Rule `i`'s `unless` as a bit set (earlier rules only), and the rules that have one.
    private let unlessMasks: [UInt64]
    private let rulesWithUnless: UInt64
    /// Rule `i`'s violation when its wording does not depend on the name: every pattern and
    /// list rule, and a length rule whose message does not mention the length (whose
    /// parameters still do: ``violation(_:_:)`` builds those); nil for Swift rules.
    let fixedViolations: [Violation?]
    /// The commonest invalid outcome, one broken rule, as arrays built once: `[fixedViolations[i]]`
    /// for pattern and list rules, and for length rules one per length below
    /// ``CompiledRule/cachedLengths``.
    private let singleViolations: SingleViolations
    private let rules: [CompiledRule]
    /// Whether some rule (a Swift rule) must still be run by the validator.
    let hasUncoveredRules: Bool
    private let probes: UnsafeMutableBufferPointer<Probe>
    /// How many entries of `probes` are initialized (its capacity is at least 1, even for none).
    private let probeCount: Int
    /// The probes ``quickAccept(_:)`` needs: a canonical list is skipped when a look-alike list
    /// holds the look-alike key of each of its keys, since the look-alike key of a canonically
    /// listed name is then look-alike listed too (`lookalike(x) == lookalike(canonical(x))`).
    private let quickProbes: UInt64
    /// The first of ``quickProbes``, fingerprinted during the scan (``ListSignature``); the
    /// others, if any, are probed with their keys.
    private let quickSignature: ListSignature
    private let otherQuickProbes: UInt64
    /// The fingerprinted probe and the canonical probes it implies (see ``quickProbes``): when
    /// the fingerprint misses, none of these lists holds an ASCII name.
    private let signedProbes: UInt64
    private let tables: [ByteKeyTable]
    /// When every rule is a pattern, length or list rule and a valid ASCII name can be accepted
    /// by the scan alone: the tightest length bounds.
    private let minLength: Int
    private let maxLength: Int

    /// The outcome bit of the automaton's own pattern: a byte outside printable ASCII, `"` or `\`.
    private static let unplainBit = 63
    /// That pattern, which the validator compiles into the rules' automata on `value`.
    static let plainASCIICheck = PatternPlan.ExtraPattern(
        subject: "value", pattern: #"[^\x20\x21\x23-\x5B\x5D-\x7E]"#, use: .search, bit: unplainBit)

    /// Built on the automata of `rules` (``CompiledRuleSet/patterns``), compiled with
    /// ``plainASCIICheck``; nil when they lack it (more than 62 rules).
    init?(_ rules: CompiledRuleSet, appName: String?) {
        guard rules.rules.count <= Self.unplainBit,
              let subject = rules.patterns.subjects.first(where: { $0.name == Self.plainASCIICheck.subject }),
              let unplain = subject.rules.firstIndex(of: nil) else { return nil }
        var automatonRules: UInt64 = 0, mustMatch: UInt64 = 0, uncovered: UInt64 = 0
        var lengthRules: [LengthRule] = [], listRules: [ListRule] = []
        var violations = [Violation?](repeating: nil, count: rules.rules.count)
        var probes: [Probe] = []
        var lists: [KeyList] = []
        var tables: [ByteKeyTable] = []
        var minLength = 0, maxLength = Int.max
        let set = subject.patterns
        // The plain-ASCII check must be decided by an automaton, which the quick pass steps.
        guard set.strategies[unplain] == .automaton,
              let primary = set.members.firstIndex(where: { $0.contains(unplain) }) else { return nil }
        let automaton = set.automata[primary]
        let otherAutomata = set.automata.indices.filter { $0 != primary }.map { set.automata[$0] }
        // Pattern rules the automata on `value` do not decide (past 64 patterns) are left to the rules.
        let decided = Set(subject.rules.compactMap { $0 })
        for (index, rule) in rules.rules.enumerated() where !decided.contains(index) {
            if case .mustMatch = rule.check { uncovered |= 1 << UInt64(index) }
            if case .mustNotMatch = rule.check { uncovered |= 1 << UInt64(index) }
        }
        for (position, member) in subject.rules.enumerated() {
            guard let index = member else { continue }
            let bit: UInt64 = 1 << UInt64(index)
            let rule = rules.rules[index]
            guard set.strategies[position] == .automaton else {
                uncovered |= bit
                continue
            }
            automatonRules |= bit
            if case .mustMatch = rule.check {
                mustMatch |= bit
                violations[index] = rule.staticViolation
            } else if let text = set.fixedMatches[position] {
                // Every match is `text`: the violation is the one the rule reports for it.
                violations[index] = rule.knownPatternViolation(FieldInput(field: .displayName, value: text, appName: appName))
            }
            // Otherwise the wording names the name's matches: PCRE2 words it per name.
        }
        for (index, rule) in rules.rules.enumerated() {
            switch rule.check {
            case .mustMatch, .mustNotMatch:
                continue
            case let .length(unit, min, max):
                minLength = Swift.max(minLength, min ?? 0)
                maxLength = Swift.min(maxLength, max ?? Int.max)
                lengthRules.append(LengthRule(index: index, unit: unit, min: min, max: max))
                violations[index] = rule.fixedLengthViolation
            case let .list(list):
                tables.append(list.table)
                lists.append(list)
                probes.append(Self.probe(for: list))
                listRules.append(ListRule(index: index, probe: probes.count - 1))
                violations[index] = rule.staticViolation
            case .swift:
                uncovered |= 1 << UInt64(index)
            }
        }
        self.automaton = automaton
        self.otherAutomata = otherAutomata
        (self.automatonRules, mustMatchRules, uncoveredRules) = (automatonRules, mustMatch, uncovered)
        self.lengthRules = lengthRules
        self.listRules = listRules
        self.fixedViolations = violations
        self.singleViolations = SingleViolations(
            rules: violations.indices.map { index in
                lengthRules.contains { $0.index == index } ? nil : violations[index].map { [$0] }
            },
            lengths: lengthRules.map { length in
                (0..<CompiledRule.cachedLengths).map { count in
                    rules.rules[length.index].lengthViolation(count, min: length.min, max: length.max).map { [$0] }
                }
            })
        self.rules = rules.rules
        self.unlessMasks = rules.rules.map { $0.unless.reduce(UInt64(0)) { $0 | (1 << UInt64($1)) } }
        self.rulesWithUnless = unlessMasks.enumerated().reduce(0) { $1.element == 0 ? $0 : $0 | (1 << UInt64($1.offset)) }
        self.hasUncoveredRules = uncovered != 0
        self.tables = tables
        self.probes = .allocate(capacity: Swift.max(1, probes.count))
        self.probeCount = self.probes.initialize(from: probes).index
        /// Whether every key of canonical list `index` has its look-alike key in list `other`.
        func implies(_ other: KeyList, _ index: Int) -> Bool {
            lists[index].kind == .canonical && other.kind == .lookalike
                && lists[index].entries.allSatisfy { other.entries.contains(Keys.lookalike($0)) }
        }
        self.quickProbes = lists.indices.reduce(0) { mask, index in
            let implied = lists.contains { implies($0, index) }
            return implied || index >= 64 ? mask : mask | 1 << UInt64(index)
        }
        let signed = quickProbes.trailingZeroBitCount
        self.quickSignature = signed < lists.count
            ? ListSignature(kind: lists[signed].kind, keys: lists[signed].entries)
            : ListSignature(kind: .exact, keys: [])
        self.otherQuickProbes = quickProbes & (quickProbes &- 1)
        self.signedProbes = signed < lists.count
            ? lists.indices.reduce(1 << UInt64(signed)) { mask, index in
                index < 64 && implies(lists[signed], index) ? mask | 1 << UInt64(index) : mask
            }
            : 0
        self.minLength = minLength
        self.maxLength = maxLength
    }

    deinit {
        // Only the initialized entries: with no list rules the one slot is uninitialized memory.
        for index in 0..<probeCount { probes[index].prefixes.deallocate() }
        probes.deallocate()
    }

    private static func probe(for list: KeyList) -> Probe {
        var last: (UInt64, UInt64) = (0, 0), lengths: UInt64 = 0
        let prefixes = UnsafeMutablePointer<UInt64>.allocate(capacity: 256)
        prefixes.initialize(repeating: 0, count: 256)
        for key in list.entries {
            let bytes = Array(key.utf8)
            // Keys with non-ASCII bytes can never equal the key of an ASCII name.
            guard let tail = bytes.last, bytes.allSatisfy({ $0 < 128 }) else { continue }
            insert(tail, into: &last)
            lengths |= bytes.count < 64 ? 1 << UInt64(bytes.count) : 1 << 63
            let bit = Int(bytes[0]) * 128 + (bytes.count > 1 ? Int(bytes[1]) : 0)
            prefixes[bit >> 6] |= 1 << UInt64(bit & 63)
        }
        let excludesNonASCII = list.kind != .nfkcCasefold && list.entries.allSatisfy { key in
            key.utf8.allSatisfy { $0 < 0x80 && $0 != UInt8(ascii: "K") && $0 != UInt8(ascii: ";") && $0 != UInt8(ascii: "`") }
        }
        return Probe(kind: list.kind, table: Unmanaged.passUnretained(list.table),
                     maxInputLength: list.kind == .lookalike ? list.maxLength * 2 : list.maxLength,
                     lastBytes: last, keyLengths: lengths, prefixes: prefixes, excludesNonASCII: excludesNonASCII)
    }

    /// Adds an ASCII byte to a 128-bit set (non-ASCII key bytes are never probed with).
    private static func insert(_ byte: UInt8, into set: inout (UInt64, UInt64)) {
        if byte < 64 { set.0 |= 1 << UInt64(byte) } else if byte < 128 { set.1 |= 1 << UInt64(byte - 64) }
    }

    @inline(__always)
    private static func contains(_ set: (UInt64, UInt64), _ byte: UInt8) -> Bool {
        byte < 64 ? (set.0 >> UInt64(byte)) & 1 == 1 : (set.1 >> UInt64(byte & 63)) & 1 == 1
    }

    // MARK: - Scanning

    /// True: every name ``quickAccept(_:)`` accepts is printable ASCII other than `"` and `\`
    /// (the automaton's own pattern says so in the same pass).
    var acceptsOnlyPlainASCII: Bool { true }

    /// What one pass over the bytes learns.
    struct Scan {
        var octets = 0
        var codePoints = 0
        var isASCII = true
        /// The automaton's outcome bits.
        var matches: UInt64 = 0
    }

    /// The outcome for valid UTF-8 `bytes`: the violated rules as a bit set of rule indices,
    /// plus the rules that still need their own check (Swift rules, patterns without an exact
    /// automaton, list rules on non-ASCII names).
    struct Outcome {
        var violated: UInt64 = 0
        var pending: UInt64 = 0
        var scan = Scan()
    }

    /// What the quick pass over a name learns: the automaton's state and the fingerprint of the
    /// first list key.
    struct QuickScan {
        var state: UInt32
        /// The matches the automaton emitted on the way.
        var emitted: UInt64 = 0
        var hash = ListSignature.seed
    }

    /// The quick pass over `count` bytes: one table step and one addition per byte.
    @inline(__always)
    private func quickScan(_ input: UnsafePointer<UInt8>, _ count: Int) -> QuickScan {
        automaton.emitsMatches
            ? quickScan(input, from: 0, upTo: count, emitting: true, stoppingAtLF: false).scan
            : quickScan(input, from: 0, upTo: count, emitting: false, stoppingAtLF: false).scan
    }

    /// The quick pass from `start` to `end` (or, `stoppingAtLF`, to the first LF before it),
    /// and where it stopped. The flags are literals at each call: each copy of the loop tests
    /// only what it needs per byte.
    @inline(__always)
    private func quickScan(_ input: UnsafePointer<UInt8>, from start: Int, upTo end: Int, emitting: Bool,
                           stoppingAtLF: Bool) -> (scan: QuickScan, end: Int) {
        let values = quickSignature.values
        var scan = QuickScan(state: automaton.start)
        var i = start
        while i < end {
            let byte = input[i]
            if stoppingAtLF, byte == 0x0A { break }
            scan.state = automaton.step(scan.state, byte)
            if emitting { scan.emitted |= automaton.emitted(scan.state) }
            scan.hash = scan.hash &+ values[Int(byte)]
            i += 1
        }
        return (scan, i)
    }

    /// The outcome bits of a name of `count` bytes whose quick pass ended as `scan`.
    @inline(__always)
    private func matches(_ scan: QuickScan, _ input: UnsafePointer<UInt8>?, _ count: Int) -> UInt64 {
        var bits = scan.emitted | automaton.outcome(scan.state)
        for other in otherAutomata { bits |= other.run(UnsafeRawBufferPointer(start: input, count: count)) }
        return bits
    }

    /// The automaton's rules `matches` violates.
    @inline(__always)
    private func patternViolations(_ matches: UInt64) -> UInt64 {
        (matches ^ mustMatchRules) & automatonRules
    }

    /// Whether a name of `count` bytes with this quick scan is valid under the pattern, length
    /// and list rules: no pattern rule violated, plain ASCII, within the lengths, and in no list.
    @inline(__always)
    private func accepts(_ scan: QuickScan, _ input: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        let matches = self.matches(scan, input, count)
        return count >= minLength && count <= maxLength && patternViolations(matches) == 0
            && matches >> UInt64(Self.unplainBit) == 0 && !quickSignature.mayContain(scan.hash)
            && (otherQuickProbes == 0 || !listedInOtherQuickProbes(input, count))
    }

    /// True when `bytes` is a valid name under the pattern, length and list rules, decided
    /// with no allocation; false means "call ``evaluate(_:)``". Only meaningful when there are
    /// no uncovered rules.
    @inline(__always)
    func quickAccept(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        guard count >= minLength, count <= maxLength, count > 0,
              let input = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
        return accepts(quickScan(input, count), input, count)
    }

    /// Whether an ASCII name is listed by a quick probe other than the fingerprinted one.
    private func listedInOtherQuickProbes(_ input: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        var remaining = otherQuickProbes
        while remaining != 0 {
            let index = remaining.trailingZeroBitCount
            remaining &= remaining - 1
            if listed(input, count, probes[index]) { return true }
        }
        return false
    }

    /// Splits `bytes` into lines at LF (the last may lack one) and calls `visit` with each line's
    /// index, its range without the LF, and its verdict — `.validAsIs` exactly when
    /// ``quickAcceptWhenComplete(_:)`` accepts it, else the rules it broke when they are decided
    /// (never for an empty line or one ending in CR) — finding the line's end in the same pass
    /// that checks it. With `skippingValid`, lines valid as is are only counted. `visit`
    /// returns false to stop. Returns how many were skipped.
    func scanLines(_ bytes: UnsafeRawBufferPointer, skippingValid: Bool, _ visit: (Int, Range<Int>, LineVerdict) -> Bool) -> Int {
        guard let input = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
        let total = bytes.count, emits = automaton.emitsMatches
        var i = 0, index = 0, skipped = 0
        while i < total {
            let start = i
            let scan: QuickScan
            (scan, i) = emits
                ? quickScan(input, from: start, upTo: total, emitting: true, stoppingAtLF: true)
                : quickScan(input, from: start, upTo: total, emitting: false, stoppingAtLF: true)
            let count = i - start
            let verdict: LineVerdict
            if count == 0 || input[i - 1] == UInt8(ascii: "\r") {
                verdict = .undecided
            } else if !hasUncoveredRules, accepts(scan, input + start, count) {
                verdict = .validAsIs
            } else {
                let outcome = self.outcome(of: scan, input + start, count)
                verdict = outcome.pending == 0 ? .violated(outcome.violated) : .undecided
            }
            if verdict == .validAsIs && skippingValid {
                skipped += 1
            } else if !visit(index, start..<i, verdict) {
                break
            }
            i += 1
            index += 1
        }
        return skipped
    }

    /// ``quickAccept(_:)`` when the engine covers every rule, else false.
    @inline(__always)
    func quickAcceptWhenComplete(_ bytes: UnsafeRawBufferPointer) -> Bool {
        !hasUncoveredRules && quickAccept(bytes)
    }

    /// Decides every covered rule for valid UTF-8 `bytes`, in pack order, honouring `unless`:
    /// one quick pass decides a valid name and every pattern rule; a non-ASCII name takes a
    /// second pass for its code points.
    func evaluate(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        let count = bytes.count
        guard let input = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count > 0 else {
            var outcome = Outcome()
            outcome.scan.matches = matches(QuickScan(state: automaton.start), nil, 0)
            outcome.violated = decide(outcome.scan, input: nil, count: 0, pending: &outcome.pending)
            return outcome
        }
        let quick = quickScan(input, count)
        if !hasUncoveredRules, accepts(quick, input, count) { return Outcome() }
        return self.outcome(of: quick, input, count)
    }

    /// ``evaluate(_:)`` for `count` (≥ 1) bytes that a quick pass has scanned.
    private func outcome(of quick: QuickScan, _ input: UnsafePointer<UInt8>, _ count: Int) -> Outcome {
        var outcome = Outcome()
        var scan = Scan()
        scan.octets = count
        scan.matches = matches(quick, input, count)
        scan.codePoints = count
        if scan.matches >> UInt64(Self.unplainBit) != 0 {
            var some: UInt8 = 0, continuations = 0
            for i in 0..<count {
                let byte = input[i]
                some |= byte
                continuations &+= byte & 0xC0 == 0x80 ? 1 : 0
            }
            scan.isASCII = some < 0x80
            scan.codePoints = count - continuations
        }
        outcome.scan = scan
        // An ASCII name whose fingerprint misses is in none of the signed lists.
        let unlisted = scan.isASCII && !quickSignature.mayContain(quick.hash) ? signedProbes : 0
        outcome.violated = decide(scan, input: input, count: count, unlisted: unlisted, pending: &outcome.pending)
        return outcome
    }

    /// The rules valid UTF-8 `bytes` violates, as a bit set of rule indices, when the engine
    /// decides every rule for them; nil when some rule must still run (Swift rules, list rules on
    /// non-ASCII names). A rule whose wording names its matches has no ``fixedViolations``
    /// entry: writing its violation takes ``violation(_:_:)``'s caller to PCRE2.
    func violatedRules(_ bytes: UnsafeRawBufferPointer) -> UInt64? {
        let outcome = evaluate(bytes)
        return outcome.pending == 0 ? outcome.violated : nil
    }

    /// `unlisted`: probes known not to list the name.
    private func decide(_ scan: Scan, input: UnsafePointer<UInt8>?, count: Int, unlisted: UInt64 = 0,
                        pending: inout UInt64) -> UInt64 {
        var violated = patternViolations(scan.matches)
        for rule in lengthRules where rule.isViolated(by: scan) { violated |= 1 << UInt64(rule.index) }
        pending = uncoveredRules
        for rule in listRules {
            let probe = probes[rule.probe]
            // Byte probes need ASCII (and, for `nfkc-casefold`, nothing to trim); other names,
            // and the empty one, go through the rule itself.
            if let input, scan.isASCII, probe.kind != .nfkcCasefold || !Self.hasTrimmableEnds(input, count) {
                if unlisted & (1 << UInt64(rule.probe)) == 0, listed(input, count, probe) { violated |= 1 << UInt64(rule.index) }
            } else if input != nil, !scan.isASCII, probe.excludesNonASCII {
                // Not listed.
            } else {
                pending |= 1 << UInt64(rule.index)
            }
        }
        // `unless` names earlier rules only, so one pass in pack order settles it: a rule whose
        // exception is violated is dropped; one whose exception is undecided is left to the rule.
        var open = (violated | pending) & rulesWithUnless
        while open != 0 {
            let index = open.trailingZeroBitCount
            open &= open - 1
            let bit: UInt64 = 1 << UInt64(index)
            if unlessMasks[index] & violated != 0 {
                violated &= ~bit
                pending &= ~bit
            } else if unlessMasks[index] & pending != 0 {
                violated &= ~bit
                pending |= bit
            }
        }
        return violated
    }

    /// Whether an ASCII name starts or ends with whitespace that `nfkc-casefold` keys trim.
    @inline(__always)
    private static func hasTrimmableEnds(_ input: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        return count > 0 && (isSpace(input[0]) || isSpace(input[count - 1]))
    }

    /// ``violation(_:_:)`` as a one-element array built once, or nil when there is none cached.
    /// With `perThread`, the array comes from the calling thread's copy (``ThreadCopies``), for
    /// callers that run on many threads at once name after name (the batch CLI).
    func singleViolation(_ index: Int, _ scan: Scan, perThread: Bool = false) -> [Violation]? {
        let singles = perThread ? ThreadCopies.copy(of: singleViolations, for: self) : singleViolations
        for (position, rule) in lengthRules.enumerated() where rule.index == index {
            let length = rule.length(scan)
            return length < CompiledRule.cachedLengths ? singles.lengths[position][length] : nil
        }
        return singles.rules[index]
    }

    /// The violation the engine reports for rule `index` (known violated); nil when the
    /// rule must word it (a must-not-match rule whose matches vary).
    func violation(_ index: Int, _ scan: Scan) -> Violation? {
        for rule in lengthRules where rule.index == index {
            return rules[index].lengthViolation(rule.length(scan), min: rule.min, max: rule.max)
        }
        return fixedViolations[index]
    }

    // MARK: - List probes

    /// Whether the key of an ASCII name is in the probe's list: prefilter, then the key is built
    /// on the stack and looked up. Written without closures so it compiles to one loop.
    @inline(__always)
    private func listed(_ input: UnsafePointer<UInt8>, _ count: Int, _ probe: Probe) -> Bool {
        guard count <= probe.maxInputLength, Self.mayBeListed(input, count, probe) else { return false }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { buffer -> Bool in
            guard let out = buffer.baseAddress else { return false }
            let fold = probe.kind != .exact
            let lookalike = probe.kind == .lookalike
            var length = 0
            var hash = ByteKeyTable.offsetBasis
            var i = 0
            while i < count {
                var byte = input[i]
                i += 1
                if fold, byte &- 0x41 < 26 { byte |= 0x20 }
                if lookalike {
                    switch byte {
                    case UInt8(ascii: "1"), UInt8(ascii: "i"), UInt8(ascii: "|"): byte = UInt8(ascii: "l")
                    case UInt8(ascii: "0"): byte = UInt8(ascii: "o")
                    case UInt8(ascii: "r"):
                        if i < count, input[i] | 0x20 == UInt8(ascii: "n") {
                            byte = UInt8(ascii: "m")
                            i += 1
                        }
                    default: break
                    }
                }
                out[length] = byte
                length += 1
                hash = (hash ^ UInt64(byte)) &* ByteKeyTable.prime
            }
            return probe.table._withUnsafeGuaranteedRef {
                $0.contains(UnsafeBufferPointer(start: out, count: length), hash: hash)
            }
        }
    }

    /// The prefilter: false when the key of this ASCII name certainly is not in the list
    /// (its length, first two bytes or last byte occur in no key).
    @inline(__always)
    private static func mayBeListed(_ input: UnsafePointer<UInt8>, _ count: Int, _ probe: Probe) -> Bool {
        let fold = probe.kind != .exact
        let lookalike = probe.kind == .lookalike
        @inline(__always) func key(_ byte: UInt8) -> UInt8 {
            var byte = byte
            if fold, byte &- 0x41 < 26 { byte |= 0x20 }
            if lookalike {
                switch byte {
                case UInt8(ascii: "1"), UInt8(ascii: "i"), UInt8(ascii: "|"): byte = UInt8(ascii: "l")
                case UInt8(ascii: "0"): byte = UInt8(ascii: "o")
                default: break
                }
            }
            return byte
        }
        @inline(__always) func pairsRN(_ at: Int) -> Bool {
            lookalike && at + 1 < count && input[at] | 0x20 == UInt8(ascii: "r") && input[at + 1] | 0x20 == UInt8(ascii: "n")
        }
        // First two key bytes: `rn` → `m` may consume two input bytes.
        var first = key(input[0]), next = 1
        if pairsRN(0) { first = UInt8(ascii: "m"); next = 2 }
        var second: UInt8 = 0
        if next < count { second = pairsRN(next) ? UInt8(ascii: "m") : key(input[next]) }
        let bit = Int(first) * 128 + Int(second)
        guard (probe.prefixes[bit >> 6] >> UInt64(bit & 63)) & 1 == 1 else { return false }
        var last = key(input[count - 1])
        var lengths: UInt64 = count < 64 ? 1 << UInt64(count) : 1 << 63
        if lookalike {
            // `rn` → `m` can change the last key byte and shrink the key to count/2.
            if count > 1, last == UInt8(ascii: "n"), input[count - 2] | 0x20 == UInt8(ascii: "r") { last = UInt8(ascii: "m") }
            let shortest = (count + 1) / 2
            lengths = count < 64 ? (UInt64.max >> UInt64(63 - count)) & ~((1 << UInt64(shortest)) - 1) : UInt64.max
        }
        return probe.keyLengths & lengths != 0 && contains(probe.lastBytes, last)
    }
}
