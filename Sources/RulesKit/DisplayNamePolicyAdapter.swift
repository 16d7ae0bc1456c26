import Availability
import FieldValidation

/// The app's display-name rules (FieldValidation's `DisplayNameValidator` and its rule packs)
/// as the availability checker and the claim stores see them.
///
/// The uniqueness key is the validator's canonical key; a name is reserved when it breaks
/// `display-name.reserved` or `display-name.reserved-lookalike`.
public struct AppDisplayNamePolicy: DisplayNamePolicy {
    /// Rule ids whose violation means "reserved" rather than "malformed".
    public static let reservedRules: Set<String> = ["display-name.reserved", "display-name.reserved-lookalike"]

    /// The validator doing the work.
    public let validator: DisplayNameValidator

    /// Wraps a validator.
    public init(validator: DisplayNameValidator) {
        self.validator = validator
    }

    /// Uses the shipped display-name rule packs.
    ///
    /// - Parameter appName: The application's name, reserved like the names in the reserved list.
    /// - Throws: `RulePackError` when the packs do not load (a packaging bug).
    public init(appName: String? = nil) throws(RulePackError) {
        self.init(validator: try DisplayNameValidator(appName: appName))
    }

    /// Validates `name` and gives its key, its violations and whether it is reserved.
    ///
    /// - Parameter name: The name as typed.
    /// - Returns: The validator's canonical key (the name itself when it has none), every
    ///   violation, and `isReserved` when a reserved-name rule is among them.
    public func evaluate(_ name: String) -> NameEvaluation {
        let result = validator.validate(name)
        return NameEvaluation(
            key: result.key ?? validator.canonicalKey(name),
            violations: result.violations.map { NameViolation(code: $0.code, rule: $0.rule, message: $0.message) },
            isReserved: result.violations.contains { Self.reservedRules.contains($0.rule) })
    }
}
