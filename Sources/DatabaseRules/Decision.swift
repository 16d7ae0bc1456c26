// Decision: the outcome of one request with its trace, and explanations for people.
import Diagnostics

/// A `$` binding a rule saw.
public struct RuleBinding: Sendable, Hashable {
    /// `$uid`.
    public var name: String
    /// The key it matched.
    public var value: String
}

/// A rule's result: a boolean, or an error (which counts as false).
public enum RuleOutcome: Sendable, Hashable {
    case value(Bool)
    case error(code: String, message: String)
}

/// Why a rule did not pass: its first failing sub-expression and the values involved.
public struct Blame: Sendable {
    /// The sub-expression's text.
    public var expression: String
    /// Its span in the rules file.
    public var span: SourceSpan
    /// Operand texts and their values, e.g. (`auth.uid`, `'bob'`).
    public var values: [(expression: String, value: String)]
    /// The error message when the sub-expression failed with an error.
    public var error: String?
    /// For `a || b`: the other sides, which failed too.
    public var alternatives: [Blame]
}

/// One rule evaluated for a request. A class, so a decision's lists share one copy.
public final class RuleEvaluation: @unchecked Sendable {
    // INVARIANT: `outcome` and `blame` are set while the rule is evaluated, before the
    // evaluation is stored in a decision; nothing mutates it afterwards.
    /// The rule.
    public let rule: Rule
    /// The keys of the data path it was evaluated at.
    public let locationKeys: [String]
    /// The `$` bindings in scope, outermost first.
    var bindingList: [(name: String, value: String)] {
        rule.wildcards.compactMap { $0.depth < locationKeys.count ? ($0.name, locationKeys[$0.depth]) : nil }
    }
    /// The `$` bindings in scope, by name.
    public var bindingMap: [String: String] {
        Dictionary(bindingList.map { ($0.name, $0.value) }, uniquingKeysWith: { _, inner in inner })
    }
    /// The data path it was evaluated at (`data` and `newData` point here).
    public var location: String { "/" + locationKeys.joined(separator: "/") }
    /// The `$` bindings in scope, sorted by name.
    public var bindings: [RuleBinding] {
        bindingList.sorted { $0.name < $1.name }.map { RuleBinding(name: $0.name, value: $0.value) }
    }
    /// Its result.
    public internal(set) var outcome: RuleOutcome
    /// Why it did not pass, when it did not and explanations were asked for.
    public internal(set) var blame: Blame?

    init(rule: Rule, locationKeys: [String], outcome: RuleOutcome) {
        self.rule = rule
        self.locationKeys = locationKeys
        self.outcome = outcome
    }
}

/// The decision for one request, with every rule evaluated in order.
public struct DatabaseDecision: Sendable {
    /// Whether the operation is allowed.
    public var allowed = false
    /// `read`, `set` or `update`.
    public var operation: String
    /// The request path.
    public var path: String
    /// The auth object as given.
    public var auth: JSONValue
    /// Set when the request itself is invalid (bad path, key or server value): denied outright.
    public var refusal: Diagnostic?
    /// Every rule evaluated, in order.
    public var evaluations: [RuleEvaluation] = []
    /// The granting `.read`/`.write` for each location that was granted.
    public var grants: [RuleEvaluation] = []
    /// Read or write locations no rule granted.
    public var deniedLocations: [String] = []
    /// `.validate` rules that failed.
    public var failedValidations: [RuleEvaluation] = []
    /// Units of string work the request's rules did (``DatabaseLimits/evaluationWorkLimit``),
    /// explanations not counted: a work counter for tests and tools.
    public var workUnits = 0

    init(operation: String, path: String, auth: JSONValue) {
        self.operation = operation
        self.path = path
        self.auth = auth
    }

    /// The decision explained for people: for a grant, which ancestor's rule granted each
    /// location; for a denial, every candidate rule with its first failing sub-expression and the
    /// values involved, and every failed `.validate` with its node.
    public func explanation(in source: SourceFile) -> String {
        func at(_ rule: Rule) -> String {
            "\(source.name):\(source.location(of: rule.span.start))"
        }
        func describe(_ e: RuleEvaluation) -> String {
            let bound = e.bindings.isEmpty ? "" : " with " + e.bindings.map { "\($0.name) = \(renderString($0.value))" }.joined(separator: ", ")
            return "`\(e.rule.kind.rawValue)` at \(at(e.rule)) (\(e.rule.rulePath)) on \(e.location)\(bound)"
        }
        func outcome(_ e: RuleEvaluation) -> String {
            switch e.outcome {
            case .value(let b): b ? "true" : "false"
            case .error(let code, let message): "error[\(code)]: \(message)"
            }
        }
        func blameLines(_ blame: Blame, indent: String) -> [String] {
            var lines: [String] = []
            var head = "\(indent)first failing: `\(shorten(blame.expression))` at \(source.name):\(source.location(of: blame.span.start))"
            if let error = blame.error { head += ": \(error)" }
            lines.append(head)
            for (expression, value) in blame.values { lines.append("\(indent)  \(shorten(expression)) = \(shorten(value))") }
            for alternative in blame.alternatives {
                lines.append("\(indent)or: `\(shorten(alternative.expression))` at \(source.name):\(source.location(of: alternative.span.start))"
                             + (alternative.error.map { ": \($0)" } ?? ""))
                for (expression, value) in alternative.values { lines.append("\(indent)  \(shorten(expression)) = \(shorten(value))") }
            }
            return lines
        }
        if let refusal {
            return "refused: invalid request: \(refusal.message) [\(refusal.code)]"
        }
        var lines: [String] = []
        if allowed {
            // An update's locations are often granted by one rule: say it once.
            for grant in grants {
                let line = "allowed by \(describe(grant))"
                if !lines.contains(line) { lines.append(line) }
            }
            let validated = evaluations.filter { $0.rule.kind == .validate }.count
            if validated > 0 { lines.append("\(validated) `.validate` rule\(validated == 1 ? "" : "s") passed") }
            return lines.joined(separator: "\n")
        }
        let kind = operation == "read" ? ".read" : ".write"
        if !deniedLocations.isEmpty {
            for location in deniedLocations {
                lines.append("denied: no `\(kind)` rule granted the \(operation == "read" ? "read" : "write") of \(location)")
            }
            let candidates = evaluations.filter { $0.rule.kind.rawValue == kind && $0.outcome != .value(true) }
            if candidates.isEmpty { lines.append("  no `\(kind)` rule applies on the path (default deny)") }
            for e in candidates {
                lines.append("  \(describe(e)): \(outcome(e))")
                if let blame = e.blame { lines += blameLines(blame, indent: "    ") }
            }
        } else {
            lines.append("denied: \(failedValidations.count) `.validate` rule\(failedValidations.count == 1 ? "" : "s") rejected the new data")
            for e in failedValidations {
                lines.append("  \(describe(e)): \(outcome(e))")
                if let blame = e.blame { lines += blameLines(blame, indent: "    ") }
            }
        }
        return lines.joined(separator: "\n")
    }

    private func shorten(_ text: String) -> String {
        let flat = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters() }.joined(separator: " ")
        return flat.count > 160 ? String(flat.prefix(157)) + "…" : flat
    }
}

extension Substring {
    func trimmingCharacters() -> Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        return s
    }
}

// MARK: - Blame

extension Evaluator {
    mutating func result(_ expr: CompiledExpression) -> Result<RValue, EvalError> {
        steps = 0
        do { return .success(try eval(expr)) } catch { return .failure(error) }
    }

    /// The first false or erroring sub-expression of a rule that did not pass (re-evaluates;
    /// bounded by the expression depth like evaluation).
    mutating func blame(_ expr: CompiledExpression, rule: Rule) -> Blame {
        switch expr.op {
        case .and(let lhs, let rhs):
            if case .success(.bool(true)) = result(lhs) { return blame(rhs, rule: rule) }
            return blame(lhs, rule: rule)
        case .or(let lhs, let rhs):
            if case .failure = result(lhs) { return blame(lhs, rule: rule) }
            var first = blame(lhs, rule: rule)
            let second = blame(rhs, rule: rule)
            first.alternatives.append(Blame(expression: second.expression, span: second.span, values: second.values,
                                            error: second.error, alternatives: []))
            first.alternatives += second.alternatives
            return first
        case .ternary(let condition, let then, let otherwise):
            switch result(condition) {
            case .success(.bool(true)): return blame(then, rule: rule)
            case .success(.bool(false)): return blame(otherwise, rule: rule)
            default: return blame(condition, rule: rule)
            }
        default:
            if case .failure(let error) = result(expr) {
                return Blame(expression: rule.text(of: error.span), span: rule.fileSpan(error.span),
                             values: operandValues(of: expr.node(at: error.span) ?? expr, rule: rule),
                             error: "error[\(error.code)]: \(error.message)", alternatives: [])
            }
            return Blame(expression: rule.text(of: expr.span), span: rule.fileSpan(expr.span),
                         values: operandValues(of: expr, rule: rule), error: nil, alternatives: [])
        }
    }

    /// The values of a node's non-literal operands.
    mutating func operandValues(of expr: CompiledExpression, rule: Rule) -> [(expression: String, value: String)] {
        var out: [(String, String)] = []
        for operand in expr.operands where !operand.isLiteral {
            let text = rule.text(of: operand.span)
            switch result(operand) {
            case .success(let value): out.append((text, value.rendered))
            case .failure(let error): out.append((text, "error[\(error.code)]: \(error.message)"))
            }
        }
        return out
    }
}
