import Diagnostics

/// Why a rules file cannot be used.
public enum RulesLoadError: Error, Sendable, CustomStringConvertible {
    /// The rules file cannot be read; `namedIn` is the file that names it (a case or property
    /// file), empty when a command line names it.
    case unreadable(path: String, namedIn: String, reason: String)
    /// The rules file has errors; `diagnostics` are rendered against `source`.
    case invalid(source: SourceFile, diagnostics: [Diagnostic])

    /// The problem for people; rules errors are rendered like a compiler
    /// (`firestore.rules:12:18: error[RL2001]: …`, the source line and a caret).
    public var description: String {
        switch self {
        case .unreadable(let path, let namedIn, let reason):
            "\(namedIn): cannot read rules file `\(path)`: \(reason)"
        case .invalid(let source, let diagnostics):
            renderDiagnostics(diagnostics.filter { $0.severity == .error }, in: source)
        }
    }
}

/// A source file could not be read.
public struct SourceReadError: Error, Sendable {
    /// Why, terse and lowercase.
    public var message: String
}
