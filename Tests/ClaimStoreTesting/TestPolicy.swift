// ClaimStoreTesting: helpers shared by the claim-store test targets (not a product): a small
// display-name policy implementing the app rule, store conformance checks, concurrency scenarios,
// the `validate` batch killed (BatchKill) or faulted (BatchFault) part-way, and Subprocess for
// helper commands.
import Availability

/// The app's display-name rule, small and self-contained for tests: 3–30 characters from
/// `[A-Za-z0-9._]`, no leading, trailing or consecutive periods; the key is the lowercased name;
/// a few names are reserved.
public struct TestDisplayNamePolicy: DisplayNamePolicy {
    /// Reserved keys.
    public var reserved: Set<String>

    /// Creates the policy.
    public init(reserved: Set<String> = ["admin", "support", "root", "rulekit"]) {
        self.reserved = reserved
    }

    public func evaluate(_ name: String) -> NameEvaluation {
        let key = name.lowercased()
        var violations: [NameViolation] = []
        let count = name.count
        if count < 3 || count > 30 {
            violations.append(NameViolation(code: "DN1001", rule: "displayName.length",
                                            message: "Display names are 3 to 30 characters long; this one has \(count)."))
        }
        if !name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "." || $0 == "_") }) {
            violations.append(NameViolation(code: "DN1002", rule: "displayName.characters",
                                            message: "Display names may only contain letters, digits, periods and underscores."))
        }
        if name.hasPrefix(".") || name.hasSuffix(".") {
            violations.append(NameViolation(code: "DN1003", rule: "displayName.edge-period",
                                            message: "Display names cannot start or end with a period."))
        }
        if name.contains("..") {
            violations.append(NameViolation(code: "DN1004", rule: "displayName.consecutive-periods",
                                            message: "Display names cannot contain two periods in a row."))
        }
        return NameEvaluation(key: key, violations: violations, isReserved: reserved.contains(key))
    }
}
