import BreachedPasswords
import PasswordStrength

/// Validates passwords against the `password` rule packs (NIST SP 800-63B practice).
///
/// Rejects control characters (Cc) in the raw input; normalizes with NFKC; counts length in
/// code points of the NFKC form (minimum 8, configurable, maximum 1024, never truncated);
/// rejects common passwords and passwords containing the username, the email's local part or
/// the app's name. No character-class rules.
///
/// The password and its normalized form never appear in a result, message or parameter:
/// ``ValidationResult/normalized`` is always nil. ``strength(_:context:)`` estimates how hard a
/// password is to guess (zxcvbn); `password.strength` (PW110, a `strength` rule, shipped off)
/// rejects scores under its `min-score` when a pack or ``minimumStrengthScore`` switches it on.
public struct PasswordValidator: Sendable {
    let rules: CompiledRuleSet
    /// The app's name, used when a ``PasswordContext`` gives none.
    public let appName: String?
    /// The minimum length in code points in force.
    public let minimumLength: Int?
    /// The least strength score (0-4) `password.strength` (PW110) accepts when set here (it
    /// switches the rule on); nil leaves the rule as the packs say (shipped off).
    public let minimumStrengthScore: Int?
    private let customEstimator: StrengthEstimator?

    /// The estimator ``strength(_:context:)`` uses: the one given, else the shipped dictionaries'
    /// (``StrengthDictionaries/shippedEstimator``, built when first used).
    public var strengthEstimator: StrengthEstimator { customEstimator ?? StrengthDictionaries.shippedEstimator }

    /// The id of the shipped rule `minimumStrengthScore:` switches on.
    public static let strengthRule = "password.strength"

    /// The id of the shipped rule the `breached:` option switches on.
    public static let breachedRule = "password.breached"

    /// NIST SP 800-63B rev 4 section 3.1.1.2: passwords used as a single factor have at least 15 characters.
    public static let nistSingleFactorMinimumLength = 15

    /// Compiles the password rules of `packs`.
    ///
    /// - Parameters:
    ///   - packs: the rule packs (the shipped ones by default).
    ///   - minimumLength: replaces `min` of `password.min-length` (8 in the shipped pack).
    ///   - appName: the app's name for `password.contains-app-name`.
    ///   - minimumStrengthScore: switches `password.strength` (PW110) on with this `min-score`:
    ///     scores below it (0-4) are violations.
    ///   - strengthEstimator: the estimator for ``strength(_:context:)`` and PW110 (the shipped
    ///     dictionaries' by default).
    ///   - rules: extra Swift rules the packs may refer to.
    ///   - breached: switches `password.breached` (PW109, shipped off) on with this store: a
    ///     password whose SHA-1 the store holds, seen at least the rule's `min-count` times, is
    ///     rejected.
    /// - Throws: ``RulePackError`` when the packs do not load or compile.
    public init(packs: RulePackSet = .shipped, minimumLength: Int? = nil, appName: String? = nil,
                minimumStrengthScore: Int? = nil, strengthEstimator: StrengthEstimator? = nil,
                rules: [any FieldRule] = [], breached: BreachedStore? = nil) throws(RulePackError) {
        self.rules = try CompiledRuleSet.compile(
            packs, field: .password, library: PasswordContextRule.all + rules, appName: appName
        ) { definition in
            if definition.id == "password.min-length", let minimumLength { definition.min = minimumLength }
            if definition.id == Self.strengthRule, let minimumStrengthScore {
                definition.enabled = true
                definition.minScore = minimumStrengthScore
            }
            if definition.kind == .strength, let strengthEstimator { definition.strengthEstimator = strengthEstimator }
            if definition.id == Self.breachedRule, let breached {
                definition.enabled = true
                definition.breachedStore = breached
            }
        }
        self.appName = appName
        self.minimumLength = minimumLength
        self.minimumStrengthScore = minimumStrengthScore
        self.customEstimator = strengthEstimator
    }

    /// How each rule is decided: automata, PCRE2, lengths, lists, Swift rules.
    public var plan: ValidatorPlan { ValidatorPlan(rules) }

    /// The NIST SP 800-63B rev 4 preset for passwords used as a single factor (minimum 15).
    public static func nistSingleFactor(packs: RulePackSet = .shipped, appName: String? = nil) throws(RulePackError) -> PasswordValidator {
        try PasswordValidator(packs: packs, minimumLength: nistSingleFactorMinimumLength, appName: appName)
    }

    /// Validates a password.
    ///
    /// - Parameters:
    ///   - password: the password as typed; it is never stored or echoed.
    ///   - context: values the password must not contain.
    /// - Returns: every violation in pack order; `normalized` is always nil.
    public func validate(_ password: String, context: PasswordContext = .none) -> ValidationResult {
        var context = context
        if context.appName == nil { context.appName = appName }
        let input = FieldInput(field: .password, raw: password,
                               subjects: ["value": Keys.nfkc(password), "raw": password],
                               context: context, appName: context.appName)
        return ValidationResult(violations: rules.evaluate(input))
    }

    /// Validates a password given as UTF-8 bytes (valid UTF-8, checked by the caller).
    public func validate(utf8 bytes: UnsafeRawBufferPointer, context: PasswordContext = .none) -> ValidationResult {
        validate(String(decoding: bytes, as: UTF8.self), context: context)
    }

    // MARK: - Confirmation

    /// The violation of a sign-up form whose two password fields differ (the app's rule
    /// "passwords must match"). `PW108`; the message names neither value.
    public static let confirmationMismatch = Violation(
        code: "PW108", rule: "password.confirmation", message: "Passwords do not match.")

    /// Validates a password and its confirmation, the same password typed a second time.
    ///
    /// The two match when their NFKC forms are equal: the form the length rule counts, so two
    /// spellings that normalize alike (`ﬁ` and `fi`) are one password, as NIST SP 800-63B
    /// section 3.1.1.2 has verifiers normalize before hashing. Values past the normalization
    /// limit (8 KiB) must be equal byte for byte. A mismatch adds
    /// ``confirmationMismatch`` after the pack's violations; the pack's rules apply to
    /// `password` only. Neither value appears in the result.
    ///
    /// - Parameters:
    ///   - password: the password as typed; it is never stored or echoed.
    ///   - context: values the password must not contain.
    ///   - confirmation: the password as typed a second time; never stored or echoed.
    /// - Returns: every violation in pack order, then `PW108` when the two differ; `normalized`
    ///   is always nil.
    public func validate(_ password: String, context: PasswordContext = .none, confirmation: String) -> ValidationResult {
        var result = validate(password, context: context)
        // NFKC forms are canonical, so equal ones have equal bytes; comparing bytes is linear,
        // where `String ==` compares by canonical equivalence (slow on long runs of marks).
        if !Keys.nfkc(password).utf8.elementsEqual(Keys.nfkc(confirmation).utf8) {
            result.violations.append(Self.confirmationMismatch)
        }
        return result
    }

    /// ``validate(_:context:confirmation:)`` for a password given as UTF-8 bytes (valid UTF-8,
    /// checked by the caller).
    public func validate(utf8 bytes: UnsafeRawBufferPointer, context: PasswordContext = .none, confirmation: String) -> ValidationResult {
        validate(String(decoding: bytes, as: UTF8.self), context: context, confirmation: confirmation)
    }
}

/// The context checks: a context value (NFKC + lowercased, ≥ 3 code points) inside the
/// lowercased NFKC password, found by one linear pass over the password's characters.
struct PasswordContextRule: FieldRule {
    let name: String
    let tokens: @Sendable (PasswordContext) -> [String]

    static let minimumTokenLength = 3

    static let all: [any FieldRule] = [
        PasswordContextRule(name: "password.contains-username") { [$0.username].compactMap { $0 } },
        PasswordContextRule(name: "password.contains-email") { context in
            guard let email = context.email else { return [] }
            let local = email.lastIndex(of: "@").map { String(email[..<$0]) } ?? email
            let untagged = local.firstIndex(of: "+").map { String(local[..<$0]) } ?? local
            return [local, untagged]
        },
        PasswordContextRule(name: "password.contains-app-name") { [$0.appName].compactMap { $0 } },
    ]

    func check(_ input: FieldInput) -> [String: String]? {
        let tokens = tokens(input.context)
        guard !tokens.isEmpty else { return nil }
        let password = Array((input.subject("value") ?? Keys.nfkc(input.raw)).lowercased())
        for token in tokens {
            let key = Array(Keys.nfkc(token).lowercased())
            // A key longer than the password cannot be inside it.
            guard key.count <= password.count, key.reduce(0, { $0 + $1.unicodeScalars.count }) >= Self.minimumTokenLength else { continue }
            if CharacterSearch(key).occurs(in: password).found { return [:] }
        }
        return nil
    }
}

/// Knuth-Morris-Pratt search for a sequence of characters: at most `2 × (pattern + text)`
/// comparisons, whatever the input (a plain `contains` compares `pattern × text` times on a
/// password of `a`s and a username of `a`s and one `b`).
///
/// Characters are compared by their UTF-8 bytes, which is canonical equivalence for the
/// normalized strings the context rule searches, and linear where `Character ==` is not (it
/// normalizes, and a run of combining marks is one character).
struct CharacterSearch {
    let pattern: [Character]
    /// For each prefix length, the length of its longest proper border.
    private let borders: [Int]

    init(_ pattern: [Character]) {
        self.pattern = pattern
        var borders = [Int](repeating: 0, count: pattern.count + 1)
        var border = 0
        for index in pattern.indices.dropFirst() {
            while border > 0 && !Self.same(pattern[index], pattern[border]) { border = borders[border] }
            if Self.same(pattern[index], pattern[border]) { border += 1 }
            borders[index + 1] = border
        }
        self.borders = borders
    }

    /// Whether the pattern occurs in `text`, and how many character comparisons it took.
    func occurs(in text: [Character]) -> (found: Bool, comparisons: Int) {
        guard !pattern.isEmpty else { return (true, 0) }
        var matched = 0
        var comparisons = 0
        for character in text {
            // Each failed comparison shortens the match, and each character lengthens it at most
            // once: at most two comparisons per character, amortized.
            while true {
                comparisons += 1
                if Self.same(character, pattern[matched]) {
                    matched += 1
                    break
                }
                guard matched > 0 else { break }
                matched = borders[matched]
            }
            if matched == pattern.count { return (true, comparisons) }
        }
        return (false, comparisons)
    }

    private static func same(_ a: Character, _ b: Character) -> Bool {
        a.utf8.count == b.utf8.count && a.utf8.elementsEqual(b.utf8)
    }
}
