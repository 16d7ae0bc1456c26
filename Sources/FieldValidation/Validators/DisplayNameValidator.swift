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
/// Speed: a fused one-pass scan (``DisplayNameScanner``) accepts valid ASCII names without
/// running each pattern; only names it rejects are evaluated rule by rule.
public struct DisplayNameValidator: Sendable {
    let rules: CompiledRuleSet
    let scanner: DisplayNameScanner?
    /// The rules the scanner does not prove (list and Swift rules), run after it accepts.
    private let tail: [TailRule]
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
        let compiled = try CompiledRuleSet.compile(packs, field: .displayName, library: rules, appName: appName)
        let scanner = DisplayNameScanner(compiled)
        self.rules = compiled
        self.scanner = scanner
        self.tail = compiled.rules.indices.compactMap { index in
            guard scanner?.covered[index] != true else { return nil }
            let rule = compiled.rules[index]
            if case let .list(list) = rule.check { return TailRule(index: index, list: list, unless: rule.unless) }
            return TailRule(index: index, list: nil, unless: rule.unless)
        }
        self.appName = appName
    }

    /// Validates a display name.
    ///
    /// - Returns: every violation in pack order; when valid, the name as `normalized` and its
    ///   canonical key as `key`.
    public func validate(_ name: String) -> ValidationResult {
        var name = name
        let fast: [Violation]? = name.withUTF8 { fastViolations(UnsafeRawBufferPointer($0), name: nil) }
        let violations = fast ?? evaluateAll(name)
        return result(name, violations)
    }

    /// Validates a display name given as UTF-8 bytes (the batch CLI's entry point).
    ///
    /// The caller guarantees `bytes` is valid UTF-8 without NUL. A valid ASCII name is decided
    /// without allocating; the result then carries no `normalized` or `key` (they are the bytes
    /// themselves and their ASCII lowercase). Other names are evaluated rule by rule.
    public func validate(utf8 bytes: UnsafeRawBufferPointer) -> ValidationResult {
        if let fast = fastViolations(bytes, name: nil) { return ValidationResult(violations: fast) }
        return ValidationResult(violations: evaluateAll(String(decoding: bytes, as: UTF8.self)))
    }

    /// The canonical uniqueness key: ASCII letters lowercased, everything else (including `.`
    /// and `_`) kept, so `John.Doe` and `john.doe` collide but `john_doe` does not.
    public func canonicalKey(_ name: String) -> String { Keys.canonical(name) }

    /// The look-alike key: the canonical key with `1`, `i`, `|` → `l`, `0` → `o` and `rn` → `m`,
    /// so `adm1n`, `admln` and `admin` collide.
    public func lookalikeKey(_ name: String) -> String { Keys.lookalike(name) }

    // MARK: - Evaluation

    /// Every rule, one by one, with no fast path (the reference the fast path must agree with).
    func validateRuleByRule(_ name: String) -> ValidationResult {
        result(name, evaluateAll(name))
    }

    private func result(_ name: String, _ violations: [Violation]) -> ValidationResult {
        guard violations.isEmpty else { return ValidationResult(violations: violations) }
        return ValidationResult(violations: [], normalized: name, key: canonicalKey(name))
    }

    private func evaluateAll(_ name: String) -> [Violation] {
        rules.evaluate(input(name))
    }

    private func input(_ name: String) -> FieldInput {
        FieldInput(field: .displayName, raw: name, subjects: ["value": name], appName: appName)
    }

    /// The violations of a name the scanner accepts (only list and Swift rules can still fail),
    /// or nil when the scanner is off or does not accept it.
    private func fastViolations(_ bytes: UnsafeRawBufferPointer, name: String?) -> [Violation]? {
        guard let scanner, scanner.accepts(bytes) else { return nil }
        var violations: [Violation] = []
        var violatedIndices: [Int] = []
        for rule in tail {
            if !rule.unless.isEmpty, rule.unless.contains(where: violatedIndices.contains) { continue }
            let violation: Violation?
            if let list = rule.list {
                if !list.contains(ascii: bytes) { continue }
                let compiled = rules.rules[rule.index]
                violation = compiled.violation(compiled.staticParameters)
            } else {
                violation = rules.rules[rule.index].evaluate(input(name ?? String(decoding: bytes, as: UTF8.self)))
            }
            if let violation {
                violations.append(violation)
                violatedIndices.append(rule.index)
            }
        }
        return violations
    }

    /// A rule left to run after the scanner accepts; `list` is set for list rules, which are
    /// probed with the bytes directly.
    private struct TailRule: Sendable {
        let index: Int
        let list: KeyList?
        let unless: [Int]
    }
}
