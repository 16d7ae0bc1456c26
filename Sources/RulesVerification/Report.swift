// Report: the text and jsonl renderings of verification results (docs/VERIFICATION.md).
import Diagnostics
import RulesLanguage

/// Renders ``PropertyResult``s for people (text) and programs (jsonl).
public enum VerificationReport {
    /// `{"file", "property", "verdict", "expect", "pass", "witness", "reason"}` on one line.
    /// `expect` is null when the property file gives none; `witness` is the case object or null.
    public static func jsonl(_ result: PropertyResult) -> String {
        "{\"file\": \(jsonString(result.file)), \"property\": \(jsonString(result.property.name)), "
            + "\"verdict\": \(jsonString(result.verdict.rawValue)), "
            + "\"expect\": \(result.property.expect.map { jsonString($0.rawValue) } ?? "null"), "
            + "\"pass\": \(result.passed), \"witness\": \(result.witness ?? "null"), "
            + "\"reason\": \(result.reason.map(jsonString) ?? "null")}"
    }

    /// A line per property; a proof summary, or the witness and the evaluator's explanation.
    public static func text(_ result: PropertyResult) -> String {
        let property = result.property
        let mark = result.passed ? "PASS" : "FAIL"
        var head = "\(mark) \(result.file): \(property.name): \(result.verdict.rawValue)"
        if !result.passed { head += " (expected \(result.expected.rawValue))" }
        var lines = [head]
        let methods = (result.methodNames ?? result.methods.map(\.rawValue)).joined(separator: ", ")
        switch (result.verdict, property.kind) {
        case (.holds, .onlyIf):
            lines.append("    proved: every \(methods) request to \(property.pathText) the rules allow satisfies the condition")
        case (.holds, .never):
            lines.append("    proved: no \(methods) request to \(property.pathText) is allowed")
        case (.violated, .possible):
            lines.append("    proved: no \(methods) request to \(property.pathText) the rules allow \((result.conditionGiven ?? (property.condition != nil)) ? "satisfies the condition" : "exists")")
        case (.unknown, _):
            lines.append("    reason: \(result.reason ?? "unknown")")
        default:
            break
        }
        if let witness = result.witness {
            lines.append("    witness: \(witness)")
            if let explanation = result.explanation {
                lines += explanation.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }
            }
        }
        return lines.joined(separator: "\n")
    }
}

// MARK: - Codes of properties that do not pass (SARIF)

extension VerificationReport {
    /// The codes a property that does not pass is reported with (`rules verify --format sarif`),
    /// by the verdict it got, with their help text.
    public static let failureCodes: [Verdict: (code: String, help: String)] = [
        .violated: (VerificationCodes.propertyViolated.id, VerificationCodes.propertyViolated.help),
        .unknown: (VerificationCodes.propertyUnknown.id, VerificationCodes.propertyUnknown.help),
        .holds: (VerificationCodes.propertyHoldsUnexpectedly.id, VerificationCodes.propertyHoldsUnexpectedly.help),
    ]

    /// The code of a result that did not pass (by its verdict).
    public static func failureCode(_ result: PropertyResult) -> String {
        failureCodes[result.verdict]?.code ?? VerificationCodes.propertyUnknown.id
    }

    /// The one-line message of a result that did not pass: verdict, expectation, and the witness
    /// or the reason.
    public static func failureMessage(_ result: PropertyResult) -> String {
        var message = "property `\(result.property.name)`: \(result.verdict.rawValue) (expected \(result.expected.rawValue))"
        if let witness = result.witness { message += "; witness: \(witness)" }
        if let reason = result.reason { message += "; reason: \(reason)" }
        return message
    }
}
