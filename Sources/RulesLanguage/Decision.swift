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

    /// Creates a reference.
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
    /// For `a || b`: why the other alternatives failed too (each with its own blame).
    public var alternatives: [Blame] = []

    /// One labelled value involved in the blamed sub-expression.
    public struct Operand: Sendable, Hashable {
        /// The operand's source text, e.g. `request.auth.uid`.
        public var label: String
        /// Its value rendered like a rules literal, e.g. `'bob'`.
        public var value: String

        /// Creates an operand.
        public init(label: String, value: String) {
            self.label = label
            self.value = value
        }
    }

    /// Creates a blame.
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
    /// The `allow` statement.
    public var allow: AllowReference
    /// How it fared.
    public var verdict: AllowVerdict

    /// Creates a candidate.
    public init(allow: AllowReference, verdict: AllowVerdict) {
        self.allow = allow
        self.verdict = verdict
    }
}

/// A value passed to `debug()`, in evaluation order.
public struct DebugEntry: Sendable, Hashable {
    /// Where `debug()` was called.
    public var span: SourceSpan
    /// What it was given (and returned).
    public var value: Value

    /// Creates an entry.
    public init(span: SourceSpan, value: Value) {
        self.span = span
        self.value = value
    }
}

/// A `match` block whose full pattern matched the request path, and what its rules grant.
public struct CompleteMatch: Sendable, Hashable {
    /// The full pattern, e.g. `/databases/{database}/documents/users/{userId}`.
    public var pattern: String
    /// The methods its `allow` statements name (as written), without repeats.
    public var methods: [RuleMethod]

    /// Creates a record.
    public init(pattern: String, methods: [RuleMethod]) {
        self.pattern = pattern
        self.methods = methods
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
    /// Filled only when no `allow` applied: the blocks that matched the path anyway, so the
    /// explanation can say which methods they do grant.
    public var completeMatches: [CompleteMatch]
    /// Units of work the built-ins did for the request (``RulesLimits/evaluationWorkLimit``),
    /// explanations not counted: a work counter for tests and tools.
    public var workUnits = 0

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
                if completeMatches.isEmpty {
                    lines.append("  no `match` block matches this path (default deny)")
                } else {
                    lines.append("  no `allow` covers this method (default deny); matching blocks:")
                    for match in completeMatches {
                        let methods = match.methods.isEmpty ? "no rules" : "allows " + match.methods.map(\.rawValue).joined(separator: ", ")
                        lines.append("    match \(match.pattern): \(methods)")
                    }
                }
            }
            for candidate in candidates {
                let allow = candidate.allow
                let header = "  `allow \(allow.methods.map(\.rawValue).joined(separator: ", "))` at \(source.name):\(source.location(of: allow.span.start)) (match \(allow.matchPattern))"
                switch candidate.verdict {
                case .granted: lines.append(header + ": granted")
                case .notEvaluated: lines.append(header + ": not evaluated")
                case .denied(let blame):
                    lines.append(header + ":")
                    lines += blame.lines(in: source, prefix: "    ")
                }
            }
        }
        for entry in debugOutput {
            lines.append("debug \(source.name):\(source.location(of: entry.span.start)): \(entry.value.renderedForPeople())")
        }
        return lines.joined(separator: "\n")
    }
}

// MARK: - Rendering

extension Blame {
    /// The blame as indented lines: location and message, operand values, then each failed
    /// alternative prefixed with `or`.
    func lines(in source: SourceFile, prefix: String) -> [String] {
        var out = ["\(prefix)\(source.name):\(source.location(of: span.start)): \(message)"]
        for operand in values { out.append("\(prefix)  \(operand.label) = \(operand.value)") }
        for alternative in alternatives {
            var nested = alternative.lines(in: source, prefix: prefix)
            if let first = nested.first { nested[0] = prefix + "or " + first.dropFirst(prefix.count) }
            out += nested
        }
        return out
    }
}

// MARK: - JSON

extension Decision {
    /// The decision as one JSON object (for `--format json` outputs):
    /// `{"allowed", "grantedBy", "candidates": [{…, "verdict", "blame"}], "debug", "requestError", "lookups",
    /// "completeMatches"}`.
    public func json(in source: SourceFile) -> String {
        func location(_ span: SourceSpan) -> String {
            let start = source.location(of: span.start)
            return "\"line\": \(start.line), \"column\": \(start.column)"
        }
        func allowJSON(_ allow: AllowReference) -> String {
            "\(location(allow.span)), \"methods\": [\(allow.methods.map { jsonString($0.rawValue) }.joined(separator: ", "))], "
                + "\"match\": \(jsonString(allow.matchPattern))"
        }
        func errorJSON(_ error: EvaluationError) -> String {
            var fields = "\"code\": \(jsonString(error.code)), \"message\": \(jsonString(error.message))"
            if let span = error.span { fields += ", " + location(span) }
            return "{\(fields)}"
        }
        func blameJSON(_ blame: Blame) -> String {
            let values = blame.values.map { "{\"label\": \(jsonString($0.label)), \"value\": \(jsonString($0.value))}" }
            var fields = "\(location(blame.span)), \"expression\": \(jsonString(blame.expression)), \"message\": \(jsonString(blame.message))"
            if let error = blame.error { fields += ", \"error\": \(errorJSON(error))" }
            fields += ", \"values\": [\(values.joined(separator: ", "))]"
            if !blame.alternatives.isEmpty {
                fields += ", \"alternatives\": [\(blame.alternatives.map(blameJSON).joined(separator: ", "))]"
            }
            return "{\(fields)}"
        }
        var fields = ["\"allowed\": \(allowed)"]
        fields.append("\"grantedBy\": " + (grantedBy.map { "{\(allowJSON($0))}" } ?? "null"))
        let candidateItems = candidates.map { candidate -> String in
            switch candidate.verdict {
            case .granted: return "{\(allowJSON(candidate.allow)), \"verdict\": \"granted\"}"
            case .notEvaluated: return "{\(allowJSON(candidate.allow)), \"verdict\": \"notEvaluated\"}"
            case .denied(let blame):
                return "{\(allowJSON(candidate.allow)), \"verdict\": \"denied\", \"blame\": \(blameJSON(blame))}"
            }
        }
        fields.append("\"candidates\": [\(candidateItems.joined(separator: ", "))]")
        let debugItems = debugOutput.map { "{\(location($0.span)), \"value\": \(jsonString($0.value.renderedForPeople()))}" }
        fields.append("\"debug\": [\(debugItems.joined(separator: ", "))]")
        fields.append("\"requestError\": " + (requestError.map(errorJSON) ?? "null"))
        fields.append("\"lookups\": \(lookupCount)")
        let matches = completeMatches.map {
            "{\"match\": \(jsonString($0.pattern)), \"methods\": [\($0.methods.map { jsonString($0.rawValue) }.joined(separator: ", "))]}"
        }
        fields.append("\"completeMatches\": [\(matches.joined(separator: ", "))]")
        return "{" + fields.joined(separator: ", ") + "}"
    }
}
