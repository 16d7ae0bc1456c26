import Availability

/// The app's display-name policy as the availability checker and claim stores see it.
///
/// The app rule: 3–30 characters from `[A-Za-z0-9._]`, no leading, trailing or consecutive
/// periods; the uniqueness key is the lowercased name; a few names are reserved.
///
/// PROVISIONAL: this small implementation stands in until FieldValidation's
/// `DisplayNameValidator` lands; then this type becomes a one-file adapter over it, keeping its
/// name and API.
public struct AppDisplayNamePolicy: DisplayNamePolicy {
    /// Names no user can claim (compared by key).
    public static let reservedKeys: Set<String> = ["admin", "administrator", "support", "root", "system", "ruleskit"]

    /// Shortest and longest display name, in characters (the app's product rule).
    public static let lengthLimits = 3...30

    /// Creates the policy.
    public init() {}

    public func evaluate(_ name: String) -> NameEvaluation {
        let count = name.count
        var violations: [NameViolation] = []
        if !Self.lengthLimits.contains(count) {
            let limits = Self.lengthLimits
            violations.append(NameViolation(
                code: "DN1001", rule: "displayName.length",
                message: "Display names must be \(limits.lowerBound) to \(limits.upperBound) characters long; this one has \(count)."))
        }
        let allowed = name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "." || scalar == "_")
        }
        if !allowed {
            violations.append(NameViolation(
                code: "DN1002", rule: "displayName.characters",
                message: "Display names may only contain letters A–Z, digits, periods and underscores."))
        }
        if name.hasPrefix(".") || name.hasSuffix(".") {
            violations.append(NameViolation(
                code: "DN1003", rule: "displayName.edge-period", message: "Display names cannot start or end with a period."))
        }
        if name.contains("..") {
            violations.append(NameViolation(
                code: "DN1004", rule: "displayName.consecutive-periods",
                message: "Display names cannot contain two periods in a row."))
        }
        let key = name.lowercased()
        return NameEvaluation(key: key, violations: violations, isReserved: Self.reservedKeys.contains(key))
    }
}
