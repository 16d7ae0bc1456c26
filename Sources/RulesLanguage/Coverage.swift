// Coverage: how often each allow condition and each sub-expression was true, false, another
// value, or an error over a set of requests, as JSON, listing the never-evaluated ones.
import Diagnostics

/// Collects coverage while evaluating many requests with one ``Program``.
///
/// Not thread-safe: use one collector per thread and ``merge(_:)`` them.
public final class CoverageCollector {
    /// Outcome counts for one sub-expression.
    public struct Counts: Sendable, Hashable {
        /// Times the expression was `true`.
        public var trueCount = 0
        /// Times it was `false`.
        public var falseCount = 0
        /// Non-boolean values (e.g. `request.auth.uid` evaluating to a string).
        public var valueCount = 0
        /// Times it raised an error.
        public var errorCount = 0
        /// All evaluations.
        public var total: Int { trueCount + falseCount + valueCount + errorCount }

        /// Zero counts.
        public init() {}
    }

    /// Verdict counts for one `allow`.
    public struct AllowCounts: Sendable, Hashable {
        /// Requests this rule granted.
        public var granted = 0
        /// Requests where it applied but did not grant.
        public var denied = 0
        /// Requests where it applied but an earlier rule had already decided.
        public var notEvaluated = 0

        /// Zero counts.
        public init() {}
    }

    enum AllowOutcome { case granted, denied, notEvaluated }

    /// The program whose expressions are tracked.
    public let program: Program
    /// Requests evaluated with this collector.
    public internal(set) var requestCount = 0
    /// Counts keyed by expression span.
    public private(set) var counts: [SourceSpan: Counts] = [:]
    /// Counts keyed by `allow` span.
    public private(set) var allowCounts: [SourceSpan: AllowCounts] = [:]

    /// Creates an empty collector for `program`.
    public init(program: Program) {
        self.program = program
    }

    func record(_ span: SourceSpan, _ value: Value) {
        switch value {
        case .bool(true): counts[span, default: Counts()].trueCount += 1
        case .bool(false): counts[span, default: Counts()].falseCount += 1
        default: counts[span, default: Counts()].valueCount += 1
        }
    }

    func record(_ span: SourceSpan, _ error: EvaluationError) {
        counts[span, default: Counts()].errorCount += 1
    }

    func recordAllow(_ span: SourceSpan, _ outcome: AllowOutcome) {
        switch outcome {
        case .granted: allowCounts[span, default: AllowCounts()].granted += 1
        case .denied: allowCounts[span, default: AllowCounts()].denied += 1
        case .notEvaluated: allowCounts[span, default: AllowCounts()].notEvaluated += 1
        }
    }

    /// Adds another collector's counts (same program) into this one.
    public func merge(_ other: CoverageCollector) {
        requestCount += other.requestCount
        for (span, c) in other.counts {
            counts[span, default: Counts()].trueCount += c.trueCount
            counts[span, default: Counts()].falseCount += c.falseCount
            counts[span, default: Counts()].valueCount += c.valueCount
            counts[span, default: Counts()].errorCount += c.errorCount
        }
        for (span, c) in other.allowCounts {
            allowCounts[span, default: AllowCounts()].granted += c.granted
            allowCounts[span, default: AllowCounts()].denied += c.denied
            allowCounts[span, default: AllowCounts()].notEvaluated += c.notEvaluated
        }
    }

    /// Every `allow` in the program with its full match pattern.
    var allAllows: [(AllowRule, String)] {
        var out: [(AllowRule, String)] = []
        func walk(_ block: MatchBlock, _ prefix: String) {
            let full = prefix + block.patternText
            for allow in block.allows { out.append((allow, full)) }
            for child in block.matches { walk(child, full) }
        }
        for service in program.file.services { for block in service.matches { walk(block, "") } }
        return out
    }

    /// Every sub-expression of every condition, `let` and function body, in source order.
    public var trackedExpressions: [Expr] {
        var out: [Expr] = []
        func add(_ expr: Expr) {
            out.append(expr)
            for child in expr.children { add(child) }
        }
        func addFunction(_ function: FunctionDecl) {
            for binding in function.lets { add(binding.value) }
            add(function.body)
        }
        func walk(_ block: MatchBlock) {
            block.functions.forEach(addFunction)
            for allow in block.allows { if let condition = allow.condition { add(condition) } }
            block.matches.forEach(walk)
        }
        program.file.functions.forEach(addFunction)
        for service in program.file.services {
            service.functions.forEach(addFunction)
            service.matches.forEach(walk)
        }
        var seen = Set<SourceSpan>()
        return out.filter { seen.insert($0.span).inserted }.sorted { ($0.span.start, -$0.span.end) < ($1.span.start, -$1.span.end) }
    }

    /// The report as JSON: `{"file", "requests", "allows": [...], "expressions": [...], "neverEvaluated": [...]}`.
    public func json() -> String {
        let source = program.source
        let location = source.coverageFields
        func text(_ span: SourceSpan) -> String {
            jsonString(String(decoding: source.bytes[max(0, span.start)..<min(source.bytes.count, span.end)], as: UTF8.self))
        }
        var allows: [String] = []
        for (allow, pattern) in allAllows {
            let c = allowCounts[allow.span] ?? AllowCounts()
            let methods = allow.methods.map { jsonString($0.rawValue) }.joined(separator: ", ")
            allows.append("{\(location(allow.span)), \"match\": \(jsonString(pattern)), \"methods\": [\(methods)], "
                          + "\"granted\": \(c.granted), \"denied\": \(c.denied), \"notEvaluated\": \(c.notEvaluated)}")
        }
        var expressions: [String] = []
        var never: [String] = []
        for expr in trackedExpressions {
            let c = counts[expr.span] ?? Counts()
            let entry = "{\(location(expr.span)), \"expression\": \(text(expr.span)), \"true\": \(c.trueCount), "
                + "\"false\": \(c.falseCount), \"value\": \(c.valueCount), \"error\": \(c.errorCount)}"
            expressions.append(entry)
            if c.total == 0 { never.append("{\(location(expr.span)), \"expression\": \(text(expr.span))}") }
        }
        return coverageReport(header: "\"file\": \(jsonString(source.name)), \"requests\": \(requestCount)",
                              sections: [("allows", allows), ("expressions", expressions), ("neverEvaluated", never)])
    }
}
