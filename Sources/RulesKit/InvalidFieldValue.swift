/// A value that a validated type (``DisplayName``, ``EmailAddress``) refused.
///
/// The error keeps the validator's whole result, so every violation's code, rule id, message and
/// parameters are there to show or localize. It never holds the value itself.
public struct InvalidFieldValue: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of value that was refused.
    public enum Kind: String, Sendable, Hashable {
        /// A ``DisplayName``.
        case displayName = "display name"
        /// An ``EmailAddress``.
        case email = "email address"
        /// A ``Password`` (see ``Password/validated(by:context:)``).
        case password
    }

    /// What kind of value was refused.
    public var kind: Kind
    /// The validator's result: every violation, in pack order (never empty).
    public var result: ValidationResult

    /// Creates an error from a validator's result.
    public init(kind: Kind, result: ValidationResult) {
        self.kind = kind
        self.result = result
    }

    /// `invalid display name: DN106 Username cannot contain two periods in a row.` (every
    /// violation, codes first).
    public var description: String {
        let violations = result.violations.map { "\($0.code) \($0.message)" }.joined(separator: " ")
        return "invalid \(kind.rawValue): \(violations)"
    }
}
