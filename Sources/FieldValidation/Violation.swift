/// One violated validation rule, ready to show to an end user.
///
/// `code` and `rule` are stable identifiers (never reused for another meaning); `message` is a
/// full English sentence; `parameters` carries the values substituted into the message
/// (`{"min": "3"}`) so apps can localize.
public struct Violation: Sendable, Hashable {
    /// Stable code: `DN1xx` display name, `PW1xx` password, `EM1xx` email.
    public var code: String { storage.code }
    /// Stable dotted rule id, e.g. `display-name.consecutive-periods`.
    public var rule: String { storage.rule }
    /// End-user sentence, e.g. "Username must be at least 3 characters long."
    public var message: String { storage.message }
    /// The message parameters (`min`, `max`, `count`, …), for localization.
    public var parameters: [String: String] { storage.parameters }

    /// The identity of this violation's storage: validators build the violations of fixed
    /// wording once and share them, so equal identities mean equal violations (equal violations
    /// may still have different identities). Lets callers memoize per violation cheaply.
    package var identity: ObjectIdentifier { ObjectIdentifier(storage) }

    // One reference instead of four: violations are copied around on every invalid value.
    private let storage: Storage

    private final class Storage: Sendable {
        let code: String
        let rule: String
        let message: String
        let parameters: [String: String]

        init(code: String, rule: String, message: String, parameters: [String: String]) {
            self.code = code
            self.rule = rule
            self.message = message
            self.parameters = parameters
        }
    }

    /// Creates a violation.
    public init(code: String, rule: String, message: String, parameters: [String: String] = [:]) {
        storage = Storage(code: code, rule: rule, message: message, parameters: parameters)
    }

    public static func == (lhs: Violation, rhs: Violation) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.code == rhs.code && lhs.rule == rhs.rule && lhs.message == rhs.message && lhs.parameters == rhs.parameters)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(rule)
        hasher.combine(message)
        hasher.combine(parameters)
    }
}

/// A rule as a validator's rule bit sets name it (bit `i` is rule `i` of the compiled pack).
package struct IndexedRule: Sendable, Hashable {
    /// The code of the rule's violations.
    package let code: String
    /// The violation every value that breaks the rule gets — the same code, rule id and
    /// message; only its parameters may differ — or nil when the wording depends on the value.
    package let fixedViolation: Violation?

    /// Creates an entry.
    package init(code: String, fixedViolation: Violation? = nil) {
        self.code = code
        self.fixedViolation = fixedViolation
    }
}

/// What a validator's line scan found out about one line, in the same pass that found its end.
package enum LineVerdict: Sendable, Hashable {
    /// Valid as it is: the normalized value is the line itself, and its key (where there is
    /// one) the line with ASCII letters lowercased.
    case validAsIs
    /// The rules the line broke, as a bit set over the validator's `indexedRules`: what its
    /// `violatedRules(utf8:)` returns for the line (0 means valid, but not known to be as is).
    case violated(UInt64)
    /// Left to the validator.
    case undecided
}

/// The outcome of validating one value: every violated rule plus the normalized value.
///
/// Validators never throw for bad input; they return every violation in pack order.
public struct ValidationResult: Sendable, Hashable {
    /// Every violated rule, in pack order. Empty when the value is valid.
    public var violations: [Violation]
    /// The value to store: NFC local part + lowercased domain for emails, the input itself for
    /// display names. Always nil for passwords, whose normalized form is never exposed.
    public var normalized: String?
    /// Canonical uniqueness key (display names only): `John.Doe` and `john.doe` share one.
    public var key: String? {
        get { derivesKey ? normalized.map(Keys.canonical) : forms?.key }
        set {
            forms = Forms.of(key: newValue, asciiForm: asciiForm)
            derivesKey = false
        }
    }
    /// Email only: the address with its domain in ASCII (`xn--`) form; nil when the local part
    /// is not ASCII or the address is invalid.
    public var asciiForm: String? {
        get { forms?.asciiForm }
        set { forms = Forms.of(key: derivesKey ? nil : forms?.key, asciiForm: newValue) }
    }

    // The key and ASCII form, which most results lack, sit behind one reference: a result of
    // two references and a flag is built and copied with no outlined copy of the whole struct,
    // as a larger one was (the display-name validator builds one per name).
    private var forms: Forms?
    /// True when ``key`` is ``Keys/canonical(_:)`` of ``normalized``, built only when asked for,
    /// as most callers never do.
    private var derivesKey: Bool

    private final class Forms: Sendable {
        let key: String?
        let asciiForm: String?

        private init(key: String?, asciiForm: String?) {
            self.key = key
            self.asciiForm = asciiForm
        }

        /// Nil, with nothing allocated, when both are nil.
        static func of(key: String?, asciiForm: String?) -> Forms? {
            key == nil && asciiForm == nil ? nil : Forms(key: key, asciiForm: asciiForm)
        }
    }

    /// True when no rule was violated.
    public var isValid: Bool { violations.isEmpty }

    /// The violation codes in order, e.g. `["DN101", "DN105"]`.
    public var codes: [String] { violations.map(\.code) }

    /// Creates a result.
    public init(violations: [Violation] = [], normalized: String? = nil, key: String? = nil, asciiForm: String? = nil) {
        self.violations = violations
        self.normalized = normalized
        self.forms = Forms.of(key: key, asciiForm: asciiForm)
        self.derivesKey = false
    }

    /// A valid display name: `name` is the normalized value and its canonical key the key.
    init(validDisplayName name: String) {
        violations = []
        normalized = name
        forms = nil
        derivesKey = true
    }

    public static func == (lhs: ValidationResult, rhs: ValidationResult) -> Bool {
        lhs.violations == rhs.violations && lhs.normalized == rhs.normalized && lhs.key == rhs.key
            && lhs.asciiForm == rhs.asciiForm
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(violations)
        hasher.combine(normalized)
        hasher.combine(key)
        hasher.combine(asciiForm)
    }
}

/// Context for password checks: values the password must not contain.
public struct PasswordContext: Sendable, Hashable {
    /// The account's username / display name.
    public var username: String?
    /// The account's email address (its local part, with and without `+tag`, is checked).
    public var email: String?
    /// The application's name.
    public var appName: String?
    /// More words the password should not be built from (a name, a birthday…): the strength
    /// estimate's user dictionary only, after the username, email and app name.
    public var userInputs: [String]

    /// Creates a context; every value is optional.
    public init(username: String? = nil, email: String? = nil, appName: String? = nil, userInputs: [String] = []) {
        self.username = username
        self.email = email
        self.appName = appName
        self.userInputs = userInputs
    }

    /// No context.
    public static let none = PasswordContext()
}
