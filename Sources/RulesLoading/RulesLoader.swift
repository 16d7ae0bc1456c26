import DatabaseRules
import Diagnostics
import RulesLanguage
import RulesPatterns

/// A compiled rules file, whichever service it guards.
public enum LoadedRules: Sendable {
    /// Firestore or Storage rules (`Program.service` says which).
    case security(Program)
    /// Realtime Database rules.
    case database(DatabaseProgram)
}

/// Reads and compiles rules files: Firestore and Storage `.rules` files and Realtime Database
/// `database.rules.json` files, with the production `matches()` engines unless told otherwise.
///
/// A file that cannot be used gives a ``RulesLoadError``: unreadable (naming the file, and the
/// file that names it), or its diagnostics, every one at its `file:line:column`.
public enum RulesLoader {
    /// The production `matches()` engine of Firestore and Storage rules: PCRE2 with RE2 syntax
    /// checks, shared by every caller.
    public static let defaultRegexEngine: any RegexEngine = PCRE2RegexEngine()
    /// The production `matches()` engine of database rules (PCRE2), shared by every caller.
    public static let defaultDatabaseRegexEngine: any DatabaseRegexEngine = PCRE2DatabaseRegexEngine()

    /// Reads and compiles the rules file at `path`, as database rules when
    /// ``isDatabaseRules(_:)`` says so and as Firestore or Storage rules otherwise.
    ///
    /// - Parameters:
    ///   - path: the rules file.
    ///   - namedIn: the file that names it (a case or property file), for the error; empty when
    ///     a command line names it.
    /// - Returns: the compiled rules.
    /// - Throws: ``RulesLoadError``.
    public static func load(path: String, namedIn: String = "") throws(RulesLoadError) -> LoadedRules {
        let source = try source(path, namedIn: namedIn)
        return isDatabaseRules(source) ? .database(try compileDatabase(source)) : .security(try compile(source))
    }

    /// Reads and compiles a Firestore or Storage rules file.
    ///
    /// - Parameters:
    ///   - path: the rules file.
    ///   - namedIn: the file that names it, for the error; empty when a command line names it.
    ///   - regexEngine: the `matches()` engine; PCRE2 with RE2 syntax checks by default.
    ///   - limits: the compiler's and evaluator's limits.
    /// - Returns: the program.
    /// - Throws: ``RulesLoadError``.
    public static func loadProgram(path: String, namedIn: String = "", regexEngine: any RegexEngine = defaultRegexEngine,
                                   limits: RulesLimits = .default) throws(RulesLoadError) -> Program {
        try compile(try source(path, namedIn: namedIn), regexEngine: regexEngine, limits: limits)
    }

    /// Compiles Firestore or Storage rules source.
    ///
    /// - Returns: the program.
    /// - Throws: ``RulesLoadError/invalid(source:diagnostics:)`` when the source has errors.
    public static func compile(_ source: SourceFile, regexEngine: any RegexEngine = defaultRegexEngine,
                               limits: RulesLimits = .default) throws(RulesLoadError) -> Program {
        let result = RulesCompiler.compile(source, limits: limits, regexEngine: regexEngine)
        guard let program = result.program else { throw .invalid(source: source, diagnostics: result.diagnostics) }
        return program
    }

    /// Compiles database rules source, whatever its shape (``load(path:namedIn:)`` decides by it).
    ///
    /// - Returns: the program.
    /// - Throws: ``RulesLoadError/invalid(source:diagnostics:)`` when the source has errors.
    public static func compileDatabase(_ source: SourceFile, regexEngine: any DatabaseRegexEngine = defaultDatabaseRegexEngine,
                                       limits: DatabaseLimits = .default) throws(RulesLoadError) -> DatabaseProgram {
        let result = DatabaseRulesCompiler.compile(source, limits: limits, regexEngine: regexEngine)
        guard let program = result.program else { throw .invalid(source: source, diagnostics: result.diagnostics) }
        return program
    }

    /// Whether a rules file is database rules: its first character after comments and
    /// whitespace is `{` (Firestore and Storage rules start with `rules_version` or `service`).
    public static func isDatabaseRules(_ source: SourceFile) -> Bool {
        var i = 0
        let b = source.bytes
        while i < b.count {
            switch b[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            case UInt8(ascii: "/") where i + 1 < b.count && b[i + 1] == UInt8(ascii: "/"):
                while i < b.count, b[i] != 0x0A { i += 1 }
            case UInt8(ascii: "/") where i + 1 < b.count && b[i + 1] == UInt8(ascii: "*"):
                i += 2
                while i + 1 < b.count, !(b[i] == UInt8(ascii: "*") && b[i + 1] == UInt8(ascii: "/")) { i += 1 }
                i += 2
            default: return b[i] == UInt8(ascii: "{")
            }
        }
        return false
    }

    /// Reads a UTF-8 source file for the compiler.
    ///
    /// At most ``BoundedFile/maxBytes`` are read; a longer file is refused with the line and
    /// column where the bound falls.
    ///
    /// - Throws: ``SourceReadError``.
    public static func readSource(_ path: String) throws(SourceReadError) -> SourceFile {
        do {
            return SourceFile(name: path, text: try BoundedFile.text(path))
        } catch .unreadable {
            throw SourceReadError(message: "the file cannot be read")
        } catch {
            throw SourceReadError(message: error.location.isEmpty ? error.message : "\(path)\(error.location): \(error.message)")
        }
    }

    /// ``readSource(_:)`` with its failure as a ``RulesLoadError``.
    static func source(_ path: String, namedIn: String) throws(RulesLoadError) -> SourceFile {
        do { return try readSource(path) } catch { throw .unreadable(path: path, namedIn: namedIn, reason: error.message) }
    }
}
