import Patterns

/// Validates display names (usernames) against the `display-name` rule packs.
///
/// The raw input is validated as given: no trimming, NFKC or case folding first (so
/// `"john\n"` and `"ｊｏｈｎ"` are invalid, not silently repaired). Every violated rule is
/// reported, in pack order: a 31-character name with `..` gets both `DN102` and `DN106`.
///
/// A valid name's ``ValidationResult/normalized`` is the name itself and its
/// ``ValidationResult/key`` is the canonical uniqueness key (see ``canonicalKey(_:)``).
///
/// Speed: a fused one-pass scan (``DisplayNameEngine``) runs the pack's pattern automaton and
/// decides the length and list rules for any name, allocating only for the violations it
/// reports; the rules it cannot decide (Swift rules, patterns PCRE2 must confirm) run on their own.
public struct DisplayNameValidator: Sendable {
    let rules: CompiledRuleSet
    let engine: DisplayNameEngine?
    /// The app's name, reserved through `include-app-name` list rules.
    public let appName: String?

    /// Compiles the display-name rules of `packs`.
    ///
    /// - Parameters:
    ///   - packs: the rule packs (the shipped ones by default).
    ///   - appName: the application's name, reserved like the names in the reserved list.
    ///   - rules: Swift rules the packs may refer to with `kind: swift`.
    /// - Throws: ``RulePackError`` when the packs do not load or compile.
    public init(packs: RulePackSet = .shipped, appName: String? = nil, rules: [any FieldRule] = []) throws(RulePackError) {
        self.rules = try CompiledRuleSet.compile(packs, field: .displayName, library: rules, appName: appName,
                                                 extraPatterns: [DisplayNameEngine.plainASCIICheck])
        self.engine = DisplayNameEngine(self.rules, appName: appName)
        self.appName = appName
    }

    /// How each rule is decided: automata, PCRE2, lengths, lists, Swift rules.
    public var plan: ValidatorPlan { ValidatorPlan(rules) }

    /// Validates a display name.
    ///
    /// - Returns: every violation in pack order; when valid, the name as `normalized` and its
    ///   canonical key as `key`.
    public func validate(_ name: String) -> ValidationResult {
        // Native strings lend their storage without the copy-on-write dance of `withUTF8`. The
        // closures return only the violations: a whole result passed through them is copied
        // field by field.
        let fast: [Violation]?
        if let lent = name.utf8.withContiguousStorageIfAvailable({ fastViolations(UnsafeRawBufferPointer($0), name: name) }) {
            fast = lent
        } else {
            var copy = name
            fast = copy.withUTF8 { fastViolations(UnsafeRawBufferPointer($0), name: name) }
        }
        let violations = fast ?? evaluateAll(name)
        return violations.isEmpty ? ValidationResult(validDisplayName: name) : ValidationResult(violations: violations)
    }

    /// Validates a display name given as UTF-8 bytes, as ``validate(_:)`` does a string: the
    /// entry point for batches, which read records as bytes.
    ///
    /// The caller guarantees `bytes` is valid UTF-8 without NUL.
    public func validate(utf8 bytes: UnsafeRawBufferPointer) -> ValidationResult {
        let violations = violations(utf8: bytes)
        return violations.isEmpty ? ValidationResult(validDisplayName: String(decoding: bytes, as: UTF8.self)) : ValidationResult(violations: violations)
    }

    /// ``validate(utf8:)``'s violations alone: a valid ASCII name is decided without allocating.
    package func violations(utf8 bytes: UnsafeRawBufferPointer) -> [Violation] {
        fastViolations(bytes, name: nil, perThread: true) ?? evaluateAll(String(decoding: bytes, as: UTF8.self))
    }

    /// The rules by index: what the bits of ``violatedRules(utf8:)`` stand for.
    package var indexedRules: [IndexedRule] {
        rules.rules.indices.map { IndexedRule(code: rules.rules[$0].code, fixedViolation: engine?.fixedViolations[$0]) }
    }

    /// The rules the name in `bytes` (valid UTF-8 without NUL) violates, as a bit set over
    /// ``indexedRules`` — one bit per violation ``validate(utf8:)`` reports, 0 when valid — decided
    /// without building violations; nil when only ``validate(utf8:)`` can say. Summaries count
    /// codes with it.
    package func violatedRules(utf8 bytes: UnsafeRawBufferPointer) -> UInt64? {
        engine.flatMap { $0.violatedRules(bytes) }
    }

    /// True only when the name in `bytes` (valid UTF-8 without NUL) is valid, decided by the
    /// fast path alone with no allocation: its normalized form is then the bytes themselves and
    /// its key their ASCII lowercase. False means "call ``validate(utf8:)``".
    package func isValidAsIs(utf8 bytes: UnsafeRawBufferPointer) -> Bool {
        // Optional chaining borrows the engine; binding it with `guard let` would retain it.
        engine?.quickAcceptWhenComplete(bytes) ?? false
    }

    /// True when every name ``isValidAsIs(utf8:)`` accepts is printable ASCII other than `"` and
    /// `\`: JSON needs no escape for it.
    package var validAsIsArePlainASCII: Bool { engine?.acceptsOnlyPlainASCII ?? true }

    /// Splits `bytes` (valid UTF-8 without NUL) into lines at LF — the last may lack one — and
    /// calls `visit` with each line's 0-based index, its range without the LF, and its verdict,
    /// found in one pass over the bytes: `.validAsIs` exactly when ``isValidAsIs(utf8:)`` holds,
    /// else, when the engine decides the line, `.violated` with what
    /// ``violatedRules(utf8:)`` returns for it (never for an empty line or one ending in CR).
    /// With `skippingValid`, lines valid as is are only counted, not visited. `visit` returns
    /// false to stop. Returns how many lines were skipped.
    package func scanLines(_ bytes: UnsafeRawBufferPointer, skippingValid: Bool = false,
                          _ visit: (Int, Range<Int>, LineVerdict) -> Bool) -> Int {
        if let engine { return engine.scanLines(bytes, skippingValid: skippingValid, visit) }
        var start = 0, index = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            if !visit(index, start..<end, .undecided) { break }
            start = end + 1
            index += 1
        }
        return 0
    }

    /// The canonical uniqueness key: ASCII letters lowercased, everything else (including `.`
    /// and `_`) kept, so `John.Doe` and `john.doe` collide but `john_doe` does not.
    public func canonicalKey(_ name: String) -> String { Keys.canonical(name) }

    /// The look-alike key: the canonical key with `1`, `i`, `|` → `l`, `0` → `o` and `rn` → `m`,
    /// so `adm1n`, `admln` and `admin` collide.
    public func lookalikeKey(_ name: String) -> String { Keys.lookalike(name) }

    // MARK: - Evaluation

    /// Every rule, one by one, with no engine (the reference the engine must agree with).
    func validateRuleByRule(_ name: String) -> ValidationResult {
        let violations = evaluateAll(name)
        guard violations.isEmpty else { return ValidationResult(violations: violations) }
        return ValidationResult(violations: [], normalized: name, key: canonicalKey(name))
    }

    private func evaluateAll(_ name: String) -> [Violation] {
        rules.evaluate(FieldInput(field: .displayName, value: name, appName: appName))
    }

    /// The violations of a name, decided by the engine (nil when there is none): a valid
    /// ASCII name allocates nothing; rules the engine cannot decide for this name (Swift
    /// rules, list rules on non-ASCII names) run through ``CompiledRule/evaluate(_:)``.
    /// `perThread`: see ``DisplayNameEngine/singleViolation(_:_:perThread:)``.
    @inline(__always)
    private func fastViolations(_ bytes: UnsafeRawBufferPointer, name: String?, perThread: Bool = false) -> [Violation]? {
        // `flatMap` lends the engine; binding it with `guard let` would retain it, an atomic
        // operation on an object every thread shares.
        engine.flatMap { fastViolations(using: $0, bytes, name: name, perThread: perThread) }
    }

    private func fastViolations(using engine: DisplayNameEngine, _ bytes: UnsafeRawBufferPointer, name: String?,
                                perThread: Bool) -> [Violation]? {
        let outcome = engine.evaluate(bytes)
        if outcome.violated == 0, outcome.pending == 0 { return [] }
        if outcome.pending == 0, outcome.violated.nonzeroBitCount == 1,
           let single = engine.singleViolation(outcome.violated.trailingZeroBitCount, outcome.scan, perThread: perThread) {
            return single
        }
        var violations: [Violation] = []
        violations.reserveCapacity((outcome.violated | outcome.pending).nonzeroBitCount)
        var violated = outcome.violated
        var input: FieldInput?
        // Only the rules the engine found violated or left undecided, in pack order.
        var remaining = outcome.violated | outcome.pending
        while remaining != 0 {
            let index = remaining.trailingZeroBitCount
            remaining &= remaining - 1
            let bit: UInt64 = 1 << UInt64(index)
            if outcome.pending & bit != 0 {
                let rule = rules.rules[index]
                if rule.unless.contains(where: { violated & (1 << UInt64($0)) != 0 }) { continue }
                let current = input ?? FieldInput(field: .displayName, value: name ?? String(decoding: bytes, as: UTF8.self), appName: appName)
                input = current
                if let violation = rule.evaluate(current) {
                    violations.append(violation)
                    violated |= bit
                }
            } else if let violation = engine.violation(index, outcome.scan) {
                violations.append(violation)
            } else {
                // A must-not-match rule whose wording names its matches: PCRE2 words it.
                let current = input ?? FieldInput(field: .displayName, value: name ?? String(decoding: bytes, as: UTF8.self), appName: appName)
                input = current
                violations.append(rules.rules[index].knownPatternViolation(current))
            }
        }
        return violations
    }
}
