import Availability
import FieldValidation

/// The email rules as a claim policy keyed by mailbox (`ValidationResult.mailboxKey`), for
/// one account per mailbox.
///
/// A claim store built with this policy (a store of its own: another SQLite file, or another
/// PostgreSQL `schema=`, beside the display names') keeps one claim per mailbox key, so once one
/// user has claimed `Jane.Doe+promo@gmail.com`, a claim of `janedoe@googlemail.com` by another
/// user is refused as taken (`AV1003`), and one user holds one mailbox. The address the app
/// stores is untouched: the key is only what the store compares. An invalid address is refused
/// with its `EM…` violations before it reaches the store.
public struct MailboxClaimPolicy: DisplayNamePolicy {
    /// The validator doing the work.
    public let validator: EmailValidator

    /// Wraps a validator.
    public init(validator: EmailValidator) {
        self.validator = validator
    }

    /// Uses the shipped email rule packs and mailbox providers.
    ///
    /// - Throws: `RulePackError` when the packs do not load (a packaging bug).
    public init() throws(RulePackError) {
        self.init(validator: try EmailValidator())
    }

    /// Validates `address` and gives its mailbox key and its violations.
    ///
    /// - Parameter address: The address as typed.
    /// - Returns: The mailbox key (the address itself when it has none) and every `EM…`
    ///   violation; an address is never reserved.
    public func evaluate(_ address: String) -> NameEvaluation {
        let result = validator.validate(address)
        return NameEvaluation(
            key: result.mailboxKey ?? address,
            violations: result.violations.map { NameViolation(code: $0.code, rule: $0.rule, message: $0.message) })
    }
}
