/// The fused fast path for display names: one pass over the bytes decides every pattern and
/// length rule of the shipped policy, and list rules are probed with keys built on the stack.
/// A valid ASCII name costs no allocation and no reference counting; an invalid one costs only
/// the violations it reports.
///
/// It exists only when every active pattern rule is one it implements exactly (recognized by
/// kind and pattern text, so overriding a message or a length keeps it) and the pack has at most
/// 64 rules; otherwise names go rule by rule. Violations of pattern rules are captured once at
/// build time by running the real rule on a sample, so both paths report identical values; the
/// property test `FastPathTests` checks they agree on generated names.
final class DisplayNameFastPath: @unchecked Sendable {
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

    /// A list rule probed on the fast path.
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
        /// 2 KiB, owned by the fast path.
        let prefixes: UnsafeMutablePointer<UInt64>
        /// True when no name with a non-ASCII character can be listed: the keys are ASCII and
        /// hold none of the three ASCII characters that non-ASCII ones are canonically
        /// equivalent to (U+212A KELVIN SIGN is `K`, U+037E is `;`, U+1FEF is a backtick), and
        /// the key function keeps non-ASCII characters (it is not NFKC-based). The list is then
        /// never probed for such names.
        let excludesNonASCII: Bool
    }

    // Which rules each fact of the scan violates, as bit sets of rule indices (plain values, so
    // deciding costs no reference counting).
    /// `[A-Za-z0-9._]*` or `+` as a whole match: violated by any byte outside the set.
    private let characterRules: UInt64
    /// `[A-Za-z0-9._]+`: also violated by the empty name.
    private let nonEmptyRules: UInt64
    private let leadingPeriodRules: UInt64
    private let trailingPeriodRules: UInt64
    private let consecutivePeriodRules: UInt64
    /// Swift rules: always run by the validator.
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

    private static let knownPatterns: [String: String] = [
        "must-match \u{0}[A-Za-z0-9._]*": "characters*", "must-match \u{0}[A-Za-z0-9._]+": "characters+",
        "must-not-match \u{0}\\A\\.": "leading", "must-not-match \u{0}^\\.": "leading",
        "must-not-match \u{0}\\.\\z": "trailing", "must-not-match \u{0}\\.\\.": "consecutive",
    ]

    init?(_ rules: CompiledRuleSet, appName: String?) {
        guard rules.rules.count <= 64 else { return nil }
        var characters: UInt64 = 0, nonEmpty: UInt64 = 0, leading: UInt64 = 0, trailing: UInt64 = 0
        var consecutive: UInt64 = 0, uncovered: UInt64 = 0
        var lengthRules: [LengthRule] = [], listRules: [ListRule] = []
        var violations: [Violation?] = []
        var probes: [Probe] = []
        var lists: [KeyList] = []
        var tables: [ByteKeyTable] = []
        var minLength = 0, maxLength = Int.max
        /// The violation the real rule reports for `sample`, so both paths agree exactly.
        func sampleViolation(_ rule: CompiledRule, _ sample: String) -> Violation? {
            rule.evaluate(FieldInput(field: .displayName, value: sample, appName: appName))
        }
        for (index, rule) in rules.rules.enumerated() {
            let bit: UInt64 = 1 << UInt64(index)
            switch rule.check {
            case .mustMatch, .mustNotMatch:
                let key = (rule.definition.kind?.rawValue ?? "") + " \u{0}" + (rule.definition.pattern ?? "")
                let sample: String
                switch Self.knownPatterns[key] {
                case "characters*": (characters, sample) = (characters | bit, "-")
                case "characters+": (characters, nonEmpty, sample) = (characters | bit, nonEmpty | bit, "-")
                case "leading": (leading, sample) = (leading | bit, ".a")
                case "trailing": (trailing, sample) = (trailing | bit, "a.")
                case "consecutive": (consecutive, sample) = (consecutive | bit, "a..b")
                default: return nil
                }
                guard let violation = sampleViolation(rule, sample) else { return nil }
                violations.append(violation)
            case let .length(unit, min, max):
                minLength = Swift.max(minLength, min ?? 0)
                maxLength = Swift.min(maxLength, max ?? Int.max)
                lengthRules.append(LengthRule(index: index, unit: unit, min: min, max: max))
                violations.append(rule.fixedLengthViolation)
            case let .list(list):
                tables.append(list.table)
                lists.append(list)
                probes.append(Self.probe(for: list))
                listRules.append(ListRule(index: index, probe: probes.count - 1))
                violations.append(rule.staticViolation)
            case .swift:
                uncovered |= bit
                violations.append(nil)
            }
        }
        (characterRules, nonEmptyRules, leadingPeriodRules) = (characters, nonEmpty, leading)
        (trailingPeriodRules, consecutivePeriodRules, uncoveredRules) = (trailing, consecutive, uncovered)
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

    /// Byte classes: 0 not allowed, 1 allowed, 3 period (allowed; bit 2 marks periods),
    /// 4 non-ASCII lead byte, 8 UTF-8 continuation byte.
    // INVARIANT: written once here, then only read.
    nonisolated(unsafe) private static let classes: UnsafeMutablePointer<UInt8> = {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        table.initialize(repeating: 0, count: 256)
        for byte in UInt8(ascii: "0")...UInt8(ascii: "9") { table[Int(byte)] = 1 }
        for byte in UInt8(ascii: "A")...UInt8(ascii: "Z") { table[Int(byte)] = 1 }
        for byte in UInt8(ascii: "a")...UInt8(ascii: "z") { table[Int(byte)] = 1 }
        table[Int(UInt8(ascii: "_"))] = 1
        table[Int(UInt8(ascii: "."))] = 3
        for byte in 0x80...0xBF { table[byte] = 8 }
        for byte in 0xC0...0xFF { table[byte] = 4 }
        return table
    }()

    /// True when every byte an accepted name may hold (class 1 or 3) is printable ASCII other
    /// than `"` and `\`.
    var acceptsOnlyPlainASCII: Bool {
        (0..<256).allSatisfy { byte in
            Self.classes[byte] & 1 == 0 || (0x20...0x7E).contains(byte) && byte != 0x22 && byte != 0x5C
        }
    }

    /// What one pass over the bytes learns.
    struct Scan {
        var octets = 0
        var codePoints = 0
        var allAllowed = true
        var isASCII = true
        var leadingPeriod = false
        var trailingPeriod = false
        var consecutivePeriods = false
    }

    /// The outcome for valid UTF-8 `bytes`: the violated rules as a bit set of rule indices,
    /// plus the list rules that still need the string path (non-ASCII names).
    struct Outcome {
        var violated: UInt64 = 0
        var pending: UInt64 = 0
        var scan = Scan()
    }

    /// What the quick pass over a name learns: which class bits every byte has, which two
    /// neighbours share (only period & period shares bit 2), the last byte's class, and the
    /// fingerprint of the first list key.
    struct QuickScan {
        var every: UInt8 = 0xFF
        var neighbours: UInt8 = 0
        var last: UInt8 = 0
        var hash = ListSignature.seed
    }

    /// The quick pass over `count` (≥ 1) bytes: branch-free, as valid names are read to the end
    /// anyway.
    @inline(__always)
    private func quickScan(_ input: UnsafePointer<UInt8>, _ count: Int) -> QuickScan {
        let classes = Self.classes, values = quickSignature.values
        var scan = QuickScan()
        for i in 0..<count {
            let byte = input[i]
            let kind = classes[Int(byte)]
            scan.every &= kind
            scan.neighbours |= kind & scan.last
            scan.last = kind
            scan.hash = scan.hash &+ values[Int(byte)]
        }
        return scan
    }

    /// Whether a name of `count` bytes with this quick scan is valid under the pattern, length
    /// and list rules: every byte allowed, no period first, last or twice in a row, and in no
    /// list.
    @inline(__always)
    private func accepts(_ scan: QuickScan, _ input: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        count >= Swift.max(1, minLength) && count <= maxLength && scan.every & 1 == 1 && scan.neighbours & 2 == 0
            && scan.last != 3 && input[0] != UInt8(ascii: ".") && !quickSignature.mayContain(scan.hash)
            && (otherQuickProbes == 0 || !listedInOtherQuickProbes(input, count))
    }

    /// True when `bytes` is a valid name under the pattern, length and list rules, decided
    /// with no allocation; false means "call ``evaluate(_:)``". Only meaningful when there are
    /// no uncovered rules.
    @inline(__always)
    func quickAccept(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        guard count >= Swift.max(1, minLength), count <= maxLength,
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
        let classes = Self.classes, values = quickSignature.values, total = bytes.count
        var i = 0, index = 0, skipped = 0
        while i < total {
            let start = i
            var scan = QuickScan()
            while i < total {
                let byte = input[i]
                if byte == 0x0A { break }
                let kind = classes[Int(byte)]
                scan.every &= kind
                scan.neighbours |= kind & scan.last
                scan.last = kind
                scan.hash = scan.hash &+ values[Int(byte)]
                i += 1
            }
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

    /// ``quickAccept(_:)`` when the fast path covers every rule, else false.
    @inline(__always)
    func quickAcceptWhenComplete(_ bytes: UnsafeRawBufferPointer) -> Bool {
        !hasUncoveredRules && quickAccept(bytes)
    }

    /// Decides every covered rule for valid UTF-8 `bytes`, in pack order, honouring `unless`:
    /// one quick pass decides a valid name and the facts of a name of allowed bytes; a name
    /// with other bytes takes a second pass for its code points.
    func evaluate(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        var outcome = Outcome()
        let count = bytes.count
        guard let input = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count > 0 else {
            outcome.violated = decide(Scan(), input: nil, count: 0, pending: &outcome.pending)
            return outcome
        }
        let quick = quickScan(input, count)
        if !hasUncoveredRules, accepts(quick, input, count) { return outcome }
        return self.outcome(of: quick, input, count)
    }

    /// ``evaluate(_:)`` for `count` (≥ 1) bytes that a quick pass has scanned.
    private func outcome(of quick: QuickScan, _ input: UnsafePointer<UInt8>, _ count: Int) -> Outcome {
        var outcome = Outcome()
        var scan = Scan()
        scan.octets = count
        scan.allAllowed = quick.every & 1 == 1
        scan.consecutivePeriods = quick.neighbours & 2 != 0
        scan.leadingPeriod = input[0] == UInt8(ascii: ".")
        scan.trailingPeriod = quick.last == 3
        if scan.allAllowed {
            scan.codePoints = count
        } else {
            // Which class bits any byte has (non-ASCII ones: bits 4 and 8), and the
            // continuation bytes.
            let classes = Self.classes
            var some: UInt8 = 0, continuations = 0
            for i in 0..<count {
                let kind = classes[Int(input[i])]
                some |= kind
                continuations &+= Int(kind >> 3)
            }
            scan.isASCII = some & 12 == 0
            scan.codePoints = count - continuations
        }
        outcome.scan = scan
        // An ASCII name whose fingerprint misses is in none of the signed lists.
        let unlisted = scan.isASCII && !quickSignature.mayContain(quick.hash) ? signedProbes : 0
        outcome.violated = decide(scan, input: input, count: count, unlisted: unlisted, pending: &outcome.pending)
        return outcome
    }

    /// The rules valid UTF-8 `bytes` violates, as a bit set of rule indices, when the fast path
    /// decides every rule for them; nil when some rule must still run (Swift rules, list rules
    /// on non-ASCII names).
    func violatedRules(_ bytes: UnsafeRawBufferPointer) -> UInt64? {
        let outcome = evaluate(bytes)
        return outcome.pending == 0 ? outcome.violated : nil
    }

    /// `unlisted`: probes known not to list the name.
    private func decide(_ scan: Scan, input: UnsafePointer<UInt8>?, count: Int, unlisted: UInt64 = 0,
                        pending: inout UInt64) -> UInt64 {
        var violated: UInt64 = 0
        if !scan.allAllowed { violated |= characterRules }
        if scan.octets == 0 { violated |= nonEmptyRules }
        if scan.leadingPeriod { violated |= leadingPeriodRules }
        if scan.trailingPeriod { violated |= trailingPeriodRules }
        if scan.consecutivePeriods { violated |= consecutivePeriodRules }
        for rule in lengthRules where rule.isViolated(by: scan) { violated |= 1 << UInt64(rule.index) }
        pending = uncoveredRules
        for rule in listRules {
            let probe = probes[rule.probe]
            // Byte probes need ASCII (and, for `nfkc-casefold`, nothing to trim); other names,
            // and the empty one, go through the rule itself.
            if let input, scan.isASCII, scan.allAllowed || probe.kind != .nfkcCasefold {
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

    /// The violation the fast path reports for rule `index` (known violated).
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
