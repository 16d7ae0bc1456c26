/// What a rule sees: the field being validated and its named subjects.
///
/// Subjects are the strings a rule's `on:` key selects (see ``Field/targets``): for an email,
/// `address`, `local-part`, `domain`, `ascii-domain` and `ascii-address`; for a password, `value`
/// (NFKC) and `raw`; for a display name, `value`. A subject is absent when an earlier stage could
/// not produce it (no `@`-sign, a domain IDNA rejects), and rules on it are then skipped.
public struct FieldInput: Sendable {
    /// The field being validated.
    public let field: Field
    /// The input exactly as given.
    public let raw: String
    /// Password checks only: the values the password must not contain.
    public let context: PasswordContext
    /// The application's name, when the validator was given one.
    public let appName: String?
    /// Email only: whether only ASCII addresses are accepted.
    public let asciiOnly: Bool
    // A handful of entries: a linear scan beats hashing.
    private let subjects: [(name: String, value: String)]

    /// Creates an input; `subjects` maps target names to strings.
    public init(field: Field, raw: String, subjects: [String: String], context: PasswordContext = .none,
                appName: String? = nil, asciiOnly: Bool = false) {
        self.field = field
        self.raw = raw
        self.subjects = subjects.map { ($0.key, $0.value) }
        self.context = context
        self.appName = appName
        self.asciiOnly = asciiOnly
    }

    /// The named subject, or nil when it could not be produced for this input.
    public func subject(_ name: String) -> String? {
        subjects.first { $0.name == name }?.value
    }

    /// An input with its subjects in order (names are unique).
    init(field: Field, raw: String, subjectList: [(name: String, value: String)], asciiOnly: Bool) {
        self.field = field
        self.raw = raw
        self.subjects = subjectList
        self.context = .none
        self.appName = nil
        self.asciiOnly = asciiOnly
    }

    /// An input whose only subject is `value` (display names).
    init(field: Field, value: String, appName: String?) {
        self.field = field
        self.raw = value
        self.subjects = [("value", value)]
        self.context = .none
        self.appName = appName
        self.asciiOnly = false
    }
}

/// A validation rule written in Swift, for logic a pattern cannot express (IDNA, context checks).
///
/// Register instances with a validator (`rules:` parameter); a pack refers to one with
/// `kind: swift` and `name:` (defaulting to the rule id). The pack still owns the rule's id,
/// code and message, so apps can override or disable Swift rules like any other.
///
/// ```swift
/// struct NoDigitsOnly: FieldRule {
///     let name = "my-app.not-only-digits"
///     func check(_ input: FieldInput) -> [String: String]? {
///         input.raw.allSatisfy(\.isNumber) ? [:] : nil
///     }
/// }
/// ```
public protocol FieldRule: Sendable {
    /// The name pack rules use to refer to this rule.
    var name: String { get }

    /// Checks one input.
    ///
    /// - Parameter input: the input and its subjects.
    /// - Returns: nil when the input passes; otherwise the parameters substituted into the
    ///   rule's message (`{count}`, `{character}`, …), possibly empty.
    func check(_ input: FieldInput) -> [String: String]?
}

/// A ``FieldRule`` made from a closure.
public struct ClosureFieldRule: FieldRule {
    public let name: String
    private let body: @Sendable (FieldInput) -> [String: String]?

    /// Creates a rule named `name` that runs `body`.
    public init(name: String, _ body: @escaping @Sendable (FieldInput) -> [String: String]?) {
        self.name = name
        self.body = body
    }

    public func check(_ input: FieldInput) -> [String: String]? { body(input) }
}
