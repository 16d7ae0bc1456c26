// Coverage: how often each rule and each boolean sub-expression came out true, false or error.
import Diagnostics

/// Collects coverage over many decisions of one program. Not thread-safe: one per thread, then
/// ``merge(_:)``.
public final class DatabaseCoverage {
    /// Counts of one rule or sub-expression.
    public struct Counts: Sendable, Hashable {
        public var trueCount = 0
        public var falseCount = 0
        public var errorCount = 0
        public var total: Int { trueCount + falseCount + errorCount }
    }

    enum Outcome { case `true`, `false`, error }

    struct Key: Hashable {
        var rulePath: String
        var start: Int
        var end: Int
    }

    /// The program covered.
    public let program: DatabaseProgram
    /// Decisions recorded.
    public internal(set) var requestCount = 0
    private(set) var rules: [String: Counts] = [:]
    private(set) var expressions: [Key: Counts] = [:]

    /// Creates an empty collector.
    public init(program: DatabaseProgram) {
        self.program = program
    }

    func record(rule: Rule, outcome: RuleOutcome) {
        switch outcome {
        case .value(true): rules[rule.rulePath, default: Counts()].trueCount += 1
        case .value(false): rules[rule.rulePath, default: Counts()].falseCount += 1
        case .error: rules[rule.rulePath, default: Counts()].errorCount += 1
        }
    }

    func record(rulePath: String, span: SourceSpan, outcome: Outcome) {
        let key = Key(rulePath: rulePath, start: span.start, end: span.end)
        switch outcome {
        case .true: expressions[key, default: Counts()].trueCount += 1
        case .false: expressions[key, default: Counts()].falseCount += 1
        case .error: expressions[key, default: Counts()].errorCount += 1
        }
    }

    /// Adds another collector's counts (same program).
    public func merge(_ other: DatabaseCoverage) {
        requestCount += other.requestCount
        for (k, c) in other.rules {
            rules[k, default: Counts()].trueCount += c.trueCount
            rules[k, default: Counts()].falseCount += c.falseCount
            rules[k, default: Counts()].errorCount += c.errorCount
        }
        for (k, c) in other.expressions {
            expressions[k, default: Counts()].trueCount += c.trueCount
            expressions[k, default: Counts()].falseCount += c.falseCount
            expressions[k, default: Counts()].errorCount += c.errorCount
        }
    }

    /// Counts of the rule at `rulePath` (`/rules/users/$uid/.write`).
    public func counts(forRule rulePath: String) -> Counts { rules[rulePath] ?? Counts() }

    /// Counts of the boolean sub-expression at `span` (bytes of the rule's expression text) of
    /// the rule at `rulePath`: the expression itself, or an operand of `&&`, `||` or `!`.
    public func counts(forExpression span: SourceSpan, inRule rulePath: String) -> Counts {
        expressions[Key(rulePath: rulePath, start: span.start, end: span.end)] ?? Counts()
    }

    /// Coverage as JSON: `{"file", "service": "database", "requests", "rules": [{"rule", "line",
    /// "column", "expression", "true", "false", "error"}], "expressions": [… per boolean
    /// sub-expression …], "neverEvaluated": [rules never evaluated]}`.
    public func json() -> String {
        let source = program.source
        let location = source.coverageFields
        var ruleEntries: [String] = []
        var never: [String] = []
        var expressionEntries: [String] = []
        for rule in program.allRules {
            let c = rules[rule.rulePath] ?? Counts()
            ruleEntries.append("{\"rule\": \(jsonString(rule.rulePath)), \(location(rule.span)), \"expression\": \(jsonString(rule.text)), "
                               + "\"true\": \(c.trueCount), \"false\": \(c.falseCount), \"error\": \(c.errorCount)}")
            if c.total == 0 { never.append("{\"rule\": \(jsonString(rule.rulePath)), \(location(rule.span))}") }
            guard case .expression(let expr) = rule.body else { continue }
            var nodes: [DatabaseExpression] = []
            expr.forEachNode { node in
                switch node.kind {
                case .binary(.and, let l, let r), .binary(.or, let l, let r): nodes += [l, r]
                case .unary(.not, let o): nodes.append(o)
                default: break
                }
            }
            if !nodes.isEmpty { nodes.insert(expr, at: 0) }
            for node in nodes {
                let c = expressions[Key(rulePath: rule.rulePath, start: node.span.start, end: node.span.end)] ?? Counts()
                expressionEntries.append("{\"rule\": \(jsonString(rule.rulePath)), \(location(rule.fileSpan(node.span))), "
                                         + "\"expression\": \(jsonString(rule.text(of: node.span))), "
                                         + "\"true\": \(c.trueCount), \"false\": \(c.falseCount), \"error\": \(c.errorCount)}")
            }
        }
        return coverageReport(header: "\"file\": \(jsonString(source.name)), \"service\": \"database\", \"requests\": \(requestCount)",
                              sections: [("rules", ruleEntries), ("expressions", expressionEntries), ("neverEvaluated", never)])
    }
}
