/// One reason a display name is not acceptable, as reported by a ``DisplayNamePolicy``.
///
/// `code` is the validator's stable code (`DN…`), `rule` its stable rule id
/// (`displayName.consecutive-periods`), `message` an end-user sentence.
public struct NameViolation: Sendable, Hashable, Codable {
    /// Stable code of the violation, e.g. `DN1003`.
    public var code: String
    /// Stable id of the rule that failed, e.g. `displayName.length`.
    public var rule: String
    /// End-user sentence describing the problem.
    public var message: String

    /// Creates a violation.
    public init(code: String, rule: String, message: String) {
        self.code = code
        self.rule = rule
        self.message = message
    }
}

/// What a ``DisplayNamePolicy`` says about one typed name.
public struct NameEvaluation: Sendable, Hashable {
    /// The canonical uniqueness key (e.g. the lowercased name). Stores compare keys, never raw input.
    public var key: String
    /// Every rule the name breaks; empty when the name is well formed.
    public var violations: [NameViolation]
    /// True when the name is reserved (`admin`, `support`…) and can never be claimed.
    public var isReserved: Bool

    /// Creates an evaluation.
    public init(key: String, violations: [NameViolation] = [], isReserved: Bool = false) {
        self.key = key
        self.violations = violations
        self.isReserved = isReserved
    }

    /// True when the name is well formed and not reserved, i.e. worth asking a store about.
    public var isClaimable: Bool { violations.isEmpty && !isReserved }
}

/// The display-name rules, seen from the availability checker and the claim stores.
///
/// The real policy is the FieldValidation display-name validator, adapted in the RulesKit facade;
/// keeping this seam small keeps `Availability` independent of how names are validated.
public protocol DisplayNamePolicy: Sendable {
    /// Evaluates a typed name.
    ///
    /// - Parameter name: The name exactly as typed.
    /// - Returns: Its canonical key, its violations (empty when valid) and whether it is reserved.
    func evaluate(_ name: String) -> NameEvaluation
}
