// AgreementReport: `validate rules agree`'s output, as a short text or one JSON document.
import Diagnostics

/// Renders an ``AgreementResult``.
public enum AgreementReport {
    /// `{"verdict": …, "witness": {"value": …, "pack": "valid|invalid", "rules": true|false}|null, "reason": …|null}`.
    public static func json(_ result: AgreementResult) -> String {
        let witness = result.witness.map { w in
            "{\"value\": \(jsonString(w.value)), \"pack\": \"\(w.packAccepts ? "valid" : "invalid")\", \"rules\": \(w.rulesReturnTrue)}"
        } ?? "null"
        let reason = result.reason.map(jsonString) ?? "null"
        return "{\"verdict\": \"\(result.verdict.rawValue)\", \"witness\": \(witness), \"reason\": \(reason)}"
    }

    /// A short summary: the verdict, then the witness or the reason.
    ///
    /// - Parameters:
    ///   - function: the function's name.
    ///   - rules: the rules file's path.
    public static func text(_ result: AgreementResult, function: String, rules: String) -> String {
        let subject = "`\(function)` (\(rules)) and the display-name pack"
        switch result.verdict {
        case .equivalent:
            return "equivalent: \(subject) accept exactly the same strings"
        case .differs:
            guard let w = result.witness else { return "differs: \(subject)" }
            return "differs: \(subject) disagree on \(jsonString(w.value))\n"
                + "  pack:  \(w.packAccepts ? "valid" : "invalid")\n"
                + "  rules: `\(function)` returns \(w.rulesReturnTrue ? "true" : "not true (false or an error)")"
        case .unknown:
            return "unknown: \(subject) could not be compared\n  reason: \(result.reason ?? "none given")"
        }
    }
}
