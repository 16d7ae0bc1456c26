import Diagnostics

/// Why rule packs could not be loaded or compiled: every problem found, each a ``Diagnostic``
/// pointing into its pack file.
///
/// Codes: `RP1xxx` reading and parsing a pack file, `RP2xxx` combining and compiling packs.
public struct RulePackError: Error, Sendable, CustomStringConvertible {
    /// One problem and the file it is in.
    public struct Entry: Sendable {
        public var diagnostic: Diagnostic
        public var file: SourceFile?
    }

    /// Every problem, in the order found.
    public var entries: [Entry]

    /// The diagnostics alone.
    public var diagnostics: [Diagnostic] { entries.map(\.diagnostic) }

    /// Creates an error from entries.
    public init(_ entries: [Entry]) { self.entries = entries }

    /// An error with one diagnostic.
    init(code: String, _ message: String, file: SourceFile?, span: SourceSpan? = nil, help: String? = nil) {
        self.entries = [Entry(diagnostic: Diagnostic(code: code, message: message, span: span, help: help), file: file)]
    }

    /// Rendered like compiler output: `file:line:column: error[RPxxxx]: message`.
    public var description: String {
        entries.map { $0.diagnostic.rendered(in: $0.file) }.joined(separator: "\n\n")
    }
}

/// Collects diagnostics while a stage keeps going, so one run reports every problem.
struct DiagnosticSink {
    var entries: [RulePackError.Entry] = []

    mutating func error(_ code: String, _ message: String, file: SourceFile?, span: SourceSpan? = nil, help: String? = nil) {
        entries.append(.init(diagnostic: Diagnostic(code: code, message: message, span: span, help: help), file: file))
    }

    mutating func append(_ error: RulePackError) { entries += error.entries }

    func check() throws(RulePackError) {
        if !entries.isEmpty { throw RulePackError(entries) }
    }
}
