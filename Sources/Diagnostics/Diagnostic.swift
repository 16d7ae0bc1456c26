// Diagnostics: one shape for every problem RulesKit reports about a source text
// (rule packs, security rules, case files): a stable code, a severity, a span and help.
// Owns rendering (human and JSON); knows nothing about what produced the diagnostic.

/// How serious a diagnostic is.
public enum Severity: String, Sendable, Hashable, Codable, Comparable {
    case note, warning, error

    public static func < (lhs: Severity, rhs: Severity) -> Bool {
        lhs.rank < rhs.rank
    }

    private var rank: Int {
        switch self {
        case .note: 0
        case .warning: 1
        case .error: 2
        }
    }
}

/// One problem found in a source text.
///
/// `code` is stable (`RL1003`); `message` is a terse lowercase developer-facing line with user
/// text in backticks; `help` says how to fix it.
public struct Diagnostic: Sendable, Hashable {
    /// Stable identifier, never reused for another meaning.
    public var code: String
    /// How serious the problem is.
    public var severity: Severity
    /// One-line description.
    public var message: String
    /// Where in the source the problem is; nil for problems about the file as a whole.
    public var span: SourceSpan?
    /// How to fix it, when there is something useful to say.
    public var help: String?

    /// Creates a diagnostic.
    public init(code: String, severity: Severity = .error, message: String, span: SourceSpan? = nil, help: String? = nil) {
        self.code = code
        self.severity = severity
        self.message = message
        self.span = span
        self.help = help
    }
}

/// A half-open range of UTF-8 byte offsets into a ``SourceFile``.
public struct SourceSpan: Sendable, Hashable {
    /// Offset of the first byte.
    public var start: Int
    /// Offset one past the last byte.
    public var end: Int

    /// Creates a span; `end` is clamped to be at least `start`.
    public init(start: Int, end: Int) {
        self.start = start
        self.end = max(start, end)
    }

    /// A span covering both spans.
    public func union(_ other: SourceSpan) -> SourceSpan {
        SourceSpan(start: min(start, other.start), end: max(end, other.end))
    }
}

/// A line and column, both 1-based; the column counts characters, not bytes.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "\(line):\(column)" }
}
