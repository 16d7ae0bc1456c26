/// A password as typed, which never shows itself.
///
/// `description`, `debugDescription`, `dump` and string interpolation print `Password(redacted)`,
/// so logging a request that holds one leaks nothing. It is `Decodable` (from a JSON string) but
/// deliberately not `Encodable`: a response can never carry it by accident. Decoding checks
/// nothing, since a sign-in must take passwords an older policy allowed; check a new one with
/// ``validate(by:context:)`` or ``validated(by:context:)`` once its context (username, email) is
/// known. Hand ``revealed`` to the password hasher and nothing else.
public struct Password: Sendable, Decodable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The text, private so that no reflection or printing path reaches it.
    private let text: String

    /// Wraps a typed password.
    public init(_ text: String) {
        self.text = text
    }

    /// Decodes a JSON string (any string: decoding checks no rule).
    public init(from decoder: any Decoder) throws {
        text = try decoder.singleValueContainer().decode(String.self)
    }

    /// The password itself, for the password hasher.
    public var revealed: String { text }

    /// Checks the password policy.
    ///
    /// - Parameters:
    ///   - validator: The policy (the shipped one, a NIST single-factor one, custom packs).
    ///   - context: The username, email and app name the password must not contain.
    /// - Returns: Every violation (`PW…`); the result never holds the password.
    public func validate(by validator: PasswordValidator, context: PasswordContext = .none) -> ValidationResult {
        validator.validate(text, context: context)
    }

    /// Checks the password policy and returns the password when it passes.
    ///
    /// - Parameters:
    ///   - validator: The policy.
    ///   - context: The username, email and app name the password must not contain.
    /// - Returns: This password.
    /// - Throws: ``InvalidFieldValue`` with every violation when it breaks a rule.
    public func validated(by validator: PasswordValidator, context: PasswordContext = .none) throws(InvalidFieldValue) -> Password {
        let result = validate(by: validator, context: context)
        guard result.isValid else { throw InvalidFieldValue(kind: .password, result: result) }
        return self
    }

    /// `Password(redacted)`.
    public var description: String { "Password(redacted)" }

    /// `Password(redacted)`.
    public var debugDescription: String { description }

    /// No children: `dump` and debuggers show ``description`` only.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
