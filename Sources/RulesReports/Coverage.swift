// Coverage: a rules file's coverage in lcov's terms (statements and condition outcomes), the lcov
// tracefile, and the exact share of condition outcomes that `--min-coverage` compares.
import DatabaseRules
import Diagnostics
import RulesLanguage

/// One rules file's coverage as lcov counts it: a statement per `allow` (or per database rule),
/// and two outcomes, true and false, per condition.
///
/// The conditions of a Cloud Firestore or Storage rules file are each `allow` condition and each
/// function body, and inside them every operand of `&&`, `||` and `!` and every `?:` test;
/// literals `true` and `false` are left out (they have one outcome only), and so is an expression
/// that evaluated to something other than a boolean (a function returning a string). Those of a
/// database rules file are each rule written as an expression, and every operand of `&&`, `||`
/// and `!` inside it.
public struct FileCoverage: Sendable, Hashable {
    /// An `allow` statement or a database rule: its line and how many requests evaluated it.
    public struct Statement: Sendable, Hashable {
        /// 1-based line.
        public var line: Int
        /// Requests that evaluated it (an `allow`: it granted or denied; a database rule: any
        /// outcome, errors included).
        public var hits: Int
    }

    /// A condition and how often it came out true and false.
    public struct Condition: Sendable, Hashable {
        /// 1-based line where it starts.
        public var line: Int
        /// 1-based column where it starts (characters).
        public var column: Int
        /// Its source text.
        public var text: String
        /// Times it was true.
        public var trueCount: Int
        /// Times it was false.
        public var falseCount: Int
        /// Times it was evaluated at all (errors included).
        public var evaluations: Int
    }

    /// The rules file's path as the coverage names it.
    public var file: String
    /// The statements, in source order.
    public var statements: [Statement]
    /// The conditions, in source order.
    public var conditions: [Condition]

    /// Creates a file's coverage from its parts.
    public init(file: String, statements: [Statement], conditions: [Condition]) {
        self.file = file
        self.statements = statements
        self.conditions = conditions
    }

    /// Condition outcomes seen at least once.
    public var coveredOutcomes: Int {
        conditions.reduce(0) { $0 + ($1.trueCount > 0 ? 1 : 0) + ($1.falseCount > 0 ? 1 : 0) }
    }

    /// Condition outcomes in all: two per condition.
    public var outcomes: Int { 2 * conditions.count }

    /// The file's lcov record: `TN:`, `SF:`, a `BRDA:line,block,branch,taken` per outcome (block
    /// the condition's index, branch 0 true and 1 false, taken `-` when the condition never ran),
    /// `BRF:`/`BRH:`, a `DA:line,hits` per statement line, `LF:`/`LH:`, `end_of_record`.
    ///
    /// Statements sharing a line share one `DA:` line with their hits added up.
    public func lcov() -> String {
        var lines = ["TN:", "SF:\(file)"]
        for (block, condition) in conditions.enumerated() {
            let ran = condition.evaluations > 0
            lines.append("BRDA:\(condition.line),\(block),0,\(ran ? String(condition.trueCount) : "-")")
            lines.append("BRDA:\(condition.line),\(block),1,\(ran ? String(condition.falseCount) : "-")")
        }
        lines.append("BRF:\(outcomes)")
        lines.append("BRH:\(coveredOutcomes)")
        var hitsByLine: [Int: Int] = [:]
        var order: [Int] = []
        for statement in statements {
            if hitsByLine[statement.line] == nil { order.append(statement.line) }
            hitsByLine[statement.line, default: 0] += statement.hits
        }
        for line in order { lines.append("DA:\(line),\(hitsByLine[line] ?? 0)") }
        lines.append("LF:\(order.count)")
        lines.append("LH:\(order.filter { (hitsByLine[$0] ?? 0) > 0 }.count)")
        lines.append("end_of_record")
        return lines.joined(separator: "\n") + "\n"
    }
}

extension FileCoverage {
    /// The coverage a Cloud Firestore or Storage collector holds.
    public init(_ collector: CoverageCollector) {
        let source = collector.program.source
        var statements: [Statement] = []
        var roots: [Expr] = []
        func walk(_ block: MatchBlock) {
            roots += block.functions.map(\.body)
            for allow in block.allows {
                let counts = collector.allowCounts[allow.span] ?? CoverageCollector.AllowCounts()
                statements.append(Statement(line: source.location(of: allow.span.start).line, hits: counts.granted + counts.denied))
                if let condition = allow.condition { roots.append(condition) }
            }
            block.matches.forEach(walk)
        }
        let file = collector.program.file
        roots += file.functions.map(\.body)
        for service in file.services {
            roots += service.functions.map(\.body)
            service.matches.forEach(walk)
        }
        var nodes: [Expr] = []
        func addCondition(_ expr: Expr) {
            nodes.append(expr)
            switch expr.kind {
            case .binary(.and, let lhs, let rhs), .binary(.or, let lhs, let rhs):
                addCondition(lhs)
                addCondition(rhs)
            case .unary(.not, let operand):
                addCondition(operand)
            case .ternary(let test, let then, let otherwise):
                addCondition(test)
                // The branches are conditions only where they hold `&&`, `||` or `!`.
                for branch in [then, otherwise] { addNested(branch) }
            default:
                expr.children.forEach(addNested)
            }
        }
        // Below a value (a call's arguments, a comparison's operands), only a nested `&&`,
        // `||`, `!` or `?:` starts conditions again.
        func addNested(_ expr: Expr) {
            switch expr.kind {
            case .binary(.and, _, _), .binary(.or, _, _), .unary(.not, _), .ternary: addCondition(expr)
            default: expr.children.forEach(addNested)
            }
        }
        roots.forEach(addCondition)
        var seen = Set<SourceSpan>()
        var conditions: [Condition] = []
        for expr in nodes.sorted(by: { ($0.span.start, -$0.span.end) < ($1.span.start, -$1.span.end) })
        where seen.insert(expr.span).inserted {
            if case .bool = expr.kind { continue }
            let counts = collector.counts[expr.span] ?? CoverageCollector.Counts()
            guard counts.valueCount == 0 else { continue }
            let location = source.location(of: expr.span.start)
            let text = String(decoding: source.bytes[max(0, expr.span.start)..<min(source.bytes.count, expr.span.end)], as: UTF8.self)
            conditions.append(Condition(line: location.line, column: location.column, text: text,
                                        trueCount: counts.trueCount, falseCount: counts.falseCount, evaluations: counts.total))
        }
        statements.sort { $0.line < $1.line }
        self.init(file: source.name, statements: statements, conditions: conditions)
    }

    /// The coverage a Realtime Database collector holds.
    public init(_ coverage: DatabaseCoverage) {
        let source = coverage.program.source
        var statements: [Statement] = []
        var conditions: [Condition] = []
        for rule in coverage.program.allRules {
            let ruleCounts = coverage.counts(forRule: rule.rulePath)
            statements.append(Statement(line: source.location(of: rule.span.start).line, hits: ruleCounts.total))
            guard case .expression(let expr) = rule.body else { continue }
            var nodes = [expr]
            expr.forEachNode { node in
                switch node.kind {
                case .binary(.and, let l, let r), .binary(.or, let l, let r): nodes += [l, r]
                case .unary(.not, let o): nodes.append(o)
                default: break
                }
            }
            for node in nodes {
                if case .bool = node.kind { continue }
                let counts = coverage.counts(forExpression: node.span, inRule: rule.rulePath)
                let location = source.location(of: rule.fileSpan(node.span).start)
                conditions.append(Condition(line: location.line, column: location.column, text: rule.text(of: node.span),
                                            trueCount: counts.trueCount, falseCount: counts.falseCount, evaluations: counts.total))
            }
        }
        self.init(file: source.name, statements: statements, conditions: conditions)
    }
}

// MARK: - The share of condition outcomes

/// The covered share of condition outcomes over some files, as an exact fraction.
public struct CoverageShare: Sendable, Hashable, CustomStringConvertible {
    /// Outcomes seen at least once.
    public var covered: Int
    /// Outcomes in all.
    public var total: Int

    /// The share over `files`.
    public init(_ files: [FileCoverage]) {
        covered = files.reduce(0) { $0 + $1.coveredOutcomes }
        total = files.reduce(0) { $0 + $1.outcomes }
    }

    /// Creates a share from its counts.
    public init(covered: Int, total: Int) {
        self.covered = covered
        self.total = total
    }

    /// Whether the share is at least `threshold`, compared exactly (`covered / total >=
    /// threshold / 100` as integers, no rounding); no outcomes at all meets every threshold.
    public func meets(_ threshold: Percentage) -> Bool {
        guard total > 0 else { return true }
        // covered / total >= numerator / (100 * scale)  ⇔  covered * 100 * scale >= numerator * total.
        let (left, leftOverflow) = covered.multipliedReportingOverflow(by: 100 * threshold.scale)
        let (right, rightOverflow) = threshold.numerator.multipliedReportingOverflow(by: total)
        // INVARIANT: Percentage keeps numerator ≤ 100 * scale ≤ 10^8 and counts are far below
        // 2^63 / 10^8, so neither product overflows; compare as doubles if one ever did.
        if leftOverflow || rightOverflow { return Double(covered) * 100 * Double(threshold.scale) >= Double(threshold.numerator) * Double(total) }
        return left >= right
    }

    /// The share as a percentage cut (never rounded up) to two decimals: `99.99` for 9,999 of
    /// 10,000, never `100` below 100%.
    public var percentText: String {
        guard total > 0 else { return "100" }
        let hundredths = covered * 10_000 / total
        let whole = hundredths / 100, fraction = hundredths % 100
        return fraction == 0 ? "\(whole)" : "\(whole)." + (fraction < 10 ? "0" : "") + (fraction % 10 == 0 ? "\(fraction / 10)" : "\(fraction)")
    }

    /// `7 of 8 condition outcomes covered (87.5%)`.
    public var description: String {
        "\(covered) of \(total) condition outcome\(total == 1 ? "" : "s") covered (\(percentText)%)"
    }
}

/// A percentage written in decimal (`80`, `87.5`, `99.99`), kept exact as `numerator / scale`.
public struct Percentage: Sendable, Hashable, CustomStringConvertible {
    /// The value times ``scale``.
    public let numerator: Int
    /// A power of ten: 10^(digits after the point).
    public let scale: Int
    /// The text as written.
    public let description: String

    /// The most digits after the point.
    public static let maxFractionDigits = 6

    /// Parses `DIGITS[.DIGITS]` from 0 to 100, with at most ``maxFractionDigits`` after the
    /// point; nil for anything else (a sign, an exponent, `nan`, more than 100).
    public init?(_ text: String) {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0]
        let fraction = parts.count == 2 ? parts[1] : ""
        guard !whole.isEmpty, whole.count <= 3, whole.allSatisfy(\.isASCII), whole.allSatisfy(\.isNumber),
              parts.count == 1 || !fraction.isEmpty, fraction.count <= Self.maxFractionDigits,
              fraction.allSatisfy(\.isASCII), fraction.allSatisfy(\.isNumber),
              let wholeValue = Int(whole) else { return nil }
        var scale = 1
        for _ in fraction { scale *= 10 }
        let numerator = wholeValue * scale + (Int(fraction) ?? 0)
        guard numerator <= 100 * scale else { return nil }
        self.numerator = numerator
        self.scale = scale
        self.description = text
    }
}
