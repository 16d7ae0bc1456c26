// DiffReport: renders `validate rules diff` results as text (a `terraform plan`-style summary),
// one JSON document per compared file, or one SARIF 2.1.0 log (a small self-contained encoder).
import Diagnostics
import Foundation
import RulesLanguage

/// Renderings of ``RulesDiff``.
public enum DiffReport {
    /// The service's name in reports: `firestore` or `storage`.
    public static func serviceName(_ service: ServiceKind) -> String {
        service == .firestore ? "firestore" : "storage"
    }

    /// The compared files' service: `firestore`, `storage` or `database`.
    public static func serviceName(_ diff: RulesDiff) -> String {
        diff.serviceLabel ?? serviceName(diff.service)
    }

    // MARK: - Text

    /// A summary per path and method, each witness on one line, then the verdict.
    public static func text(_ diff: RulesDiff) -> String {
        let old = diff.oldIsEmpty ? "\(diff.old) (absent: deny everything)" : diff.old
        var lines = ["rules diff \(old) -> \(diff.new) (\(serviceName(diff)))"]
        let changes = diff.changes
        for change in changes {
            let mark = switch change.verdict {
            case .wider: "+"
            case .narrower: "-"
            case .incomparable: "~"
            case .unknown, .equivalent: "?"
            }
            lines.append("")
            lines.append("\(mark) \(change.methodName) \(change.path): \(change.verdict.rawValue)")
            if let compact = change.newlyAllowedCompact {
                lines.append("    newly allowed: \(compact)")
                if let by = change.newlyAllowedBy { lines.append("      \(by)") }
            }
            if let compact = change.newlyDeniedCompact {
                lines.append("    newly denied: \(compact)")
                if let by = change.newlyDeniedWasAllowedBy { lines.append("      before: \(by)") }
            }
            if let reason = change.reason { lines.append("    reason: \(reason)") }
            if change.verdict == .unknown, let location = change.location {
                lines.append("    at \(location.file):\(location.line):\(location.column)")
            }
        }
        lines.append("")
        let count = { (verdict: DiffVerdict) in changes.filter { $0.verdict == verdict }.count }
        let total = diff.compared.count
        let equivalent = total - changes.count
        if changes.isEmpty {
            lines.append("no changes: \(total) request shape\(total == 1 ? "" : "s") (path and method), every one equivalent")
        } else {
            lines.append("\(changes.count) change\(changes.count == 1 ? "" : "s"): \(count(.wider)) wider, \(count(.narrower)) narrower, "
                         + "\(count(.incomparable)) incomparable, \(count(.unknown)) unknown; \(equivalent) of \(total) request shapes equivalent")
        }
        lines.append("verdict: \(diff.verdict.rawValue) (\(meaning(diff.verdict)))")
        return lines.joined(separator: "\n")
    }

    /// What a top-level verdict means for the review.
    public static func meaning(_ verdict: DiffVerdict) -> String {
        switch verdict {
        case .equivalent: "no new access: every request gets the same decision"
        case .narrower: "no new access: the new rules only deny requests the old rules allowed"
        case .wider: "new access: the new rules allow requests the old rules deny"
        case .incomparable: "new access: the new rules allow requests the old rules deny, and deny some the old rules allowed"
        case .unknown: "undecided: no new access is proven, and some changes could not be decided"
        }
    }

    // MARK: - JSON

    /// One document: `{"old", "new", "service", "verdict", "changes": [{"path", "method",
    /// "verdict", "newlyAllowed", "newlyDenied", "reason", "location"}]}`; `changes` lists every
    /// shape whose verdict is not `equivalent`.
    public static func json(_ diff: RulesDiff) -> String {
        let changes = diff.changes.map { change in
            let location = change.location.map {
                "{\"file\": \(jsonString($0.file)), \"line\": \($0.line), \"column\": \($0.column)}"
            } ?? "null"
            return "{\"path\": \(jsonString(change.path)), \"method\": \(jsonString(change.methodName)), "
                + "\"verdict\": \(jsonString(change.verdict.rawValue)), \"newlyAllowed\": \(change.newlyAllowed ?? "null"), "
                + "\"newlyDenied\": \(change.newlyDenied ?? "null"), \"reason\": \(change.reason.map(jsonString) ?? "null"), "
                + "\"location\": \(location)}"
        }
        return "{\"old\": \(jsonString(diff.old)), \"new\": \(jsonString(diff.new)), "
            + "\"service\": \(jsonString(serviceName(diff))), \"verdict\": \(jsonString(diff.verdict.rawValue)), "
            + "\"changes\": [\(changes.joined(separator: ", "))]}"
    }

    // MARK: - SARIF

    /// One SARIF 2.1.0 log for all `diffs`: each wider change is a `VF3011` result and each
    /// incomparable one a `VF3012` result, level `error`, located at the NEW rule that grants the
    /// new access, with the witness in the message.
    public static func sarif(_ diffs: [RulesDiff], toolVersion: String? = nil) -> String {
        let codes = [VerificationCodes.newAccess, VerificationCodes.newAndLostAccess]
        let rules: [SARIF] = codes.map { code in
            .object([
                ("id", .string(code.id)),
                ("name", .string(code.name)),
                ("shortDescription", .object([("text", .string(code.summary))])),
                ("fullDescription", .object([("text", .string(code.summary + "."))])),
                ("help", .object([("text", .string(code.help))])),
                ("defaultConfiguration", .object([("level", .string("error"))])),
            ])
        }
        var results: [SARIF] = []
        for diff in diffs {
            for change in diff.changes where change.verdict == .wider || change.verdict == .incomparable {
                let code = change.verdict == .wider ? VerificationCodes.newAccess : VerificationCodes.newAndLostAccess
                var message = "`\(change.methodName) \(change.path)` is \(change.verdict.rawValue): \(code.summary). "
                message += "Newly allowed: \(change.newlyAllowedCompact ?? "(none)")"
                if let denied = change.newlyDeniedCompact { message += ". Newly denied: \(denied)" }
                if let reason = change.reason { message += ". Note: \(reason)" }
                var physical: [(String, SARIF)] = [
                    ("artifactLocation", .object([("uri", .string(artifactURI(change.location?.file ?? diff.new)))])),
                ]
                if let location = change.location {
                    physical.append(("region", .object([("startLine", .integer(location.line)), ("startColumn", .integer(location.column))])))
                }
                results.append(.object([
                    ("ruleId", .string(code.id)),
                    ("ruleIndex", .integer(codes.firstIndex(of: code) ?? 0)),
                    ("level", .string("error")),
                    ("message", .object([("text", .string(message))])),
                    ("locations", .array([.object([("physicalLocation", .object(physical))])])),
                ]))
            }
        }
        var driver: [(String, SARIF)] = [
            ("name", .string("RulesKit validate rules diff")),
        ]
        if let toolVersion { driver.append(("version", .string(toolVersion))) }
        driver.append(("rules", .array(rules)))
        let log = SARIF.object([
            ("$schema", .string("https://json.schemastore.org/sarif-2.1.0.json")),
            ("version", .string("2.1.0")),
            ("runs", .array([.object([
                ("tool", .object([("driver", .object(driver))])),
                ("results", .array(results)),
            ])])),
        ])
        return log.rendered()
    }

    /// A relative path as a relative URI reference (percent-encoded); an absolute one as a
    /// `file:` URI.
    static func artifactURI(_ path: String) -> String {
        if path.hasPrefix("/") { return URL(fileURLWithPath: path).absoluteString }
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: ":")
        return path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
    }
}

/// A JSON value for the SARIF log, with keys kept in order and a stable pretty printing.
indirect enum SARIF: Equatable {
    case string(String)
    case integer(Int)
    case array([SARIF])
    case object([(String, SARIF)])

    static func == (a: SARIF, b: SARIF) -> Bool { a.rendered() == b.rendered() }

    /// Pretty-printed with two spaces per level.
    func rendered(indent: String = "") -> String {
        let inner = indent + "  "
        switch self {
        case .string(let text): return jsonString(text)
        case .integer(let value): return String(value)
        case .array(let items):
            if items.isEmpty { return "[]" }
            return "[\n" + items.map { inner + $0.rendered(indent: inner) }.joined(separator: ",\n") + "\n\(indent)]"
        case .object(let fields):
            if fields.isEmpty { return "{}" }
            return "{\n" + fields.map { "\(inner)\(jsonString($0.0)): \($0.1.rendered(indent: inner))" }.joined(separator: ",\n") + "\n\(indent)}"
        }
    }
}
