// Decision: the verdict for one request and why — the granting `allow`, or for a denial every
// candidate `allow` with the first false or erroring sub-expression and the values involved.
import Diagnostics

/// An `allow` statement, located.
public struct AllowReference: Sendable, Hashable {
    /// The `allow` statement's span.
    public var span: SourceSpan
    /// Its methods as written.
    public var methods: [RuleMethod]
    /// The full pattern of the enclosing matches, e.g. `/databases/{database}/documents/users/{userId}`.
    public var matchPattern: String

    public init(span: SourceSpan, methods: [RuleMethod], matchPattern: String) {
        self.span = span
        self.methods = methods
        self.matchPattern = matchPattern
    }
}

/// Why a condition did not grant: the first false or erroring sub-expression.
public struct Blame: Sendable, Hashable {
    /// The sub-expression's span.
    public var span: SourceSpan
    /// Its source text.
    public var expression: String
    /// What went wrong, e.g. "`request.auth.uid == userId` is false".
    public var message: String
    /// The error, when the sub-expression errored rather than being false.
    public var error: EvaluationError?
    /// Operand values as `(label, value)`, e.g. `("left", "'bob'")`, `("right", "'alice'")`.
    public var values: [Operand]

    /// One labelled value involved in the blamed sub-expression.
    public struct Operand: Sendable, Hashable {
        public var label: String
        public var value: String

        public init(label: String, value: String) {
            self.label = label
            self.value = value
        }
    }

    public init(span: SourceSpan, expression: String, message: String, error: EvaluationError?, values: [Operand]) {
        self.span = span
        self.expression = expression
        self.message = message
        self.error = error
        self.values = values
    }
}

/// How one candidate `allow` fared.
public enum AllowVerdict: Sendable, Hashable {
    /// The condition was true (or absent): this rule granted.
    case granted
    /// The condition was false, not a bool, or errored.
    case denied(Blame)
    /// Not evaluated because an earlier rule already granted or a limit stopped evaluation.
    case notEvaluated
}

/// One `allow` that applied to the request's path and method.
public struct Candidate: Sendable, Hashable {
    public var allow: AllowReference
    public var verdict: AllowVerdict

    public init(allow: AllowReference, verdict: AllowVerdict) {
        self.allow = allow
        self.verdict = verdict
    }
}

/// A value passed to `debug()`, in evaluation order.
public struct DebugEntry: Sendable, Hashable {
    public var span: SourceSpan
    public var value: Value

    public init(span: SourceSpan, value: Value) {
        self.span = span
        self.value = value
    }
}

/// The verdict for one request, with its explanation.
public struct Decision: Sendable {
    /// True when some `allow` granted.
    public var allowed: Bool
    /// The `allow` that granted, when allowed.
    public var grantedBy: AllowReference?
    /// Every `allow` whose match completely matched the path and whose methods cover the request.
    public var candidates: [Candidate]
    /// Everything passed to `debug()`.
    public var debugOutput: [DebugEntry]
    /// A limit (lookups, call depth, steps) or request-level problem that denied the whole request.
    public var requestError: EvaluationError?
    /// Number of distinct document lookups made.
    public var lookupCount: Int

    /// A multi-line explanation for people: the verdict, then each candidate with its location.
    public func explanation(in source: SourceFile) -> String {
        var lines: [String] = []
        if allowed, let grant = grantedBy {
            lines.append("allowed by `allow \(grant.methods.map(\.rawValue).joined(separator: ", "))` at \(source.name):\(source.location(of: grant.span.start)) (match \(grant.matchPattern))")
        } else {
            lines.append("denied")
            if let requestError {
                let location = requestError.span.map { " at \(source.name):\(source.location(of: $0.start))" } ?? ""
                lines.append("  \(requestError.description)\(location)")
            }
            if candidates.isEmpty && requestError == nil {
                lines.append("  no `allow` matches this path and method (default deny)")
            }
            for candidate in candidates {
                let allow = candidate.allow
                let header = "  `allow \(allow.methods.map(\.rawValue).joined(separator: ", "))` at \(source.name):\(source.location(of: allow.span.start)) (match \(allow.matchPattern))"
                switch candidate.verdict {
                case .granted: lines.append(header + ": granted")
                case .notEvaluated: lines.append(header + ": not evaluated")
                case .denied(let blame):
                    lines.append(header + ":")
                    lines.append("    \(source.name):\(source.location(of: blame.span.start)): \(blame.message)")
                    for operand in blame.values { lines.append("      \(operand.label) = \(operand.value)") }
                }
            }
        }
        for entry in debugOutput {
            lines.append("debug \(source.name):\(source.location(of: entry.span.start)): \(entry.value)")
        }
        return lines.joined(separator: "\n")
    }
}
