/// Validates passwords against the `password` rule packs (NIST SP 800-63B practice).
///
/// Rejects control characters (Cc) in the raw input; normalizes with NFKC; counts length in
/// code points of the NFKC form (minimum 8, configurable, maximum 1024, never truncated);
/// rejects common passwords and passwords containing the username, the email's local part or
/// the app's name. No character-class rules.
///
/// The password and its normalized form never appear in a result, message or parameter:
/// ``ValidationResult/normalized`` is always nil.
public struct PasswordValidator: Sendable {
    let rules: CompiledRuleSet
    /// The app's name, used when a ``PasswordContext`` gives none.
    public let appName: String?
    /// The minimum length in code points in force.
    public let minimumLength: Int?

    /// NIST SP 800-63B rev 4 section 3.1.1.2: passwords used as a single factor have at least 15 characters.
    public static let nistSingleFactorMinimumLength = 15

    /// Compiles the password rules of `packs`.
    ///
    /// - Parameters:
    ///   - packs: the rule packs (the shipped ones by default).
    ///   - minimumLength: replaces `min` of `password.min-length` (8 in the shipped pack).
    ///   - appName: the app's name for `password.contains-app-name`.
    ///   - rules: extra Swift rules the packs may refer to.
    /// - Throws: ``RulePackError`` when the packs do not load or compile.
    public init(packs: RulePackSet = .shipped, minimumLength: Int? = nil, appName: String? = nil,
                rules: [any FieldRule] = []) throws(RulePackError) {
        self.rules = try CompiledRuleSet.compile(
            packs, field: .password, library: PasswordContextRule.all + rules, appName: appName
        ) { definition in
            if definition.id == "password.min-length", let minimumLength { definition.min = minimumLength }
        }
        self.appName = appName
        self.minimumLength = minimumLength
    }

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
}

/// The context checks: a context value (NFKC + lowercased, ≥ 3 code points) inside the
/// lowercased NFKC password.
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
        let password = (input.subject("value") ?? Keys.nfkc(input.raw)).lowercased()
        for token in tokens(input.context) {
            let key = Keys.nfkc(token).lowercased()
            if key.unicodeScalars.count >= Self.minimumTokenLength, password.contains(key) { return [:] }
        }
        return nil
    }
}
