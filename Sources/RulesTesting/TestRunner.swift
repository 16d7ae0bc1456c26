import Diagnostics
import Foundation
import RulesCases
import RulesLanguage
import RulesLoading

/// The outcome of one case.
public struct CaseResult: Sendable {
    /// The case file's path.
    public var file: String
    /// The case's name.
    public var name: String
    /// What the case expects.
    public var expect: Expectation
    /// What the rules decided.
    public var actual: Expectation
    /// The full decision.
    public var decision: Decision
    /// The decision explained for people (which `allow` granted, or why each candidate denied).
    public var explanation: String

    /// True when the decision is the expected one.
    public var passed: Bool { expect == actual }
}

/// Why a case file could not be run.
public enum RulesTestError: Error, Sendable, CustomStringConvertible {
    /// The case file is malformed.
    case caseFile(CaseFileError)
    /// The rules file cannot be read.
    case unreadableRules(path: String, caseFile: String, reason: String)
    /// The rules file has errors; `diagnostics` are rendered against `source`.
    case invalidRules(source: SourceFile, diagnostics: [Diagnostic])
    /// The case file's `service` is not the rules file's service.
    case serviceMismatch(caseFile: String, expected: CaseService, rulesPath: String, actual: ServiceKind)

    /// The problem for people; rules errors are rendered like a compiler.
    public var description: String {
        switch self {
        case .caseFile(let error): error.description
        case .unreadableRules(let path, let caseFile, let reason):
            RulesLoadError.unreadable(path: path, namedIn: caseFile, reason: reason).description
        case .invalidRules(let source, let diagnostics):
            RulesLoadError.invalid(source: source, diagnostics: diagnostics).description
        case .serviceMismatch(let caseFile, let expected, let rulesPath, let actual):
            "\(caseFile): `service` is `\(expected.rawValue)` but `\(rulesPath)` declares `service \(actual.rawValue)`"
        }
    }

    /// The loader's error as the runner reports it.
    init(_ error: RulesLoadError) {
        switch error {
        case .unreadable(let path, let namedIn, let reason): self = .unreadableRules(path: path, caseFile: namedIn, reason: reason)
        case .invalid(let source, let diagnostics): self = .invalidRules(source: source, diagnostics: diagnostics)
        }
    }
}

/// Runs case files against their rules: compiles each rules file once, evaluates every case,
/// and optionally records coverage per rules file.
///
/// Not thread-safe (it caches compiled programs and coverage); use one runner per thread.
public final class RulesTestRunner {
    /// The production `matches()` engine: PCRE2 with RE2 syntax checks, shared by all runners
    /// (``RulesLoader/defaultRegexEngine``).
    public static let defaultRegexEngine: any RegexEngine = RulesLoader.defaultRegexEngine

    private let regexEngine: any RegexEngine
    private let limits: RulesLimits
    private var programs: [String: Program] = [:]
    /// Coverage per rules file path, when created with `collectCoverage: true`.
    public private(set) var coverage: [(rulesPath: String, collector: CoverageCollector)] = []
    private let collectCoverage: Bool

    /// Creates a runner.
    ///
    /// - Parameters:
    ///   - regexEngine: the `matches()` engine; PCRE2 with RE2 syntax checks by default.
    ///   - limits: evaluation limits.
    ///   - collectCoverage: record coverage for every evaluated case.
    public init(regexEngine: any RegexEngine = RulesTestRunner.defaultRegexEngine, limits: RulesLimits = .default, collectCoverage: Bool = false) {
        self.regexEngine = regexEngine
        self.limits = limits
        self.collectCoverage = collectCoverage
    }

    /// Loads and runs the case file at `path`.
    ///
    /// - Throws: ``RulesTestError`` when the case file or its rules cannot be used; no case runs then.
    public func run(caseFileAt path: String) throws(RulesTestError) -> [CaseResult] {
        let file: RulesCaseFile
        do { file = try CaseFileLoader.load(path: path) } catch { throw .caseFile(error) }
        return try run(file)
    }

    /// Loads and runs several case files, in order. A file that cannot be used (its case file
    /// or its rules do not load, or the rules guard another service) is reported in the result
    /// with its error; every other file still runs.
    ///
    /// - Parameter paths: the case files, as the caller names them.
    /// - Returns: one outcome per path, in the same order.
    public func run(caseFilesAt paths: [String]) -> RulesTestReport {
        RulesTestReport(files: paths.map(outcome(caseFileAt:)))
    }

    /// Loads and runs one case file, turning a file that cannot be used into an outcome that
    /// carries its error.
    ///
    /// - Parameter path: the case file.
    /// - Returns: the file's case results, or the error that kept it from running.
    public func outcome(caseFileAt path: String) -> CaseFileOutcome {
        do throws(RulesTestError) {
            return CaseFileOutcome(path: path, cases: try run(caseFileAt: path))
        } catch {
            return CaseFileOutcome(path: path, error: error)
        }
    }

    /// Runs every case of a loaded case file, in file order.
    ///
    /// - Throws: ``RulesTestError`` when the rules cannot be compiled or guard another service.
    public func run(_ file: RulesCaseFile) throws(RulesTestError) -> [CaseResult] {
        let program = try program(for: file)
        let collector = collector(for: file.rulesPath, program: program)
        return file.cases.map { Self.evaluate($0, of: file, with: program, coverage: collector) }
    }

    /// Evaluates one case with an already compiled program (safe to call from any thread).
    ///
    /// - Parameters:
    ///   - testCase: the case.
    ///   - file: the case file it belongs to (service, lookup mode, path for the report).
    ///   - program: the compiled rules the file names.
    ///   - coverage: records sub-expression outcomes when given.
    public static func evaluate(_ testCase: RulesTestCase, of file: RulesCaseFile, with program: Program,
                                coverage: CoverageCollector? = nil) -> CaseResult {
        let decision = program.evaluate(
            testCase.request(service: file.service),
            lookup: CaseDocumentLookup(testCase: testCase, mode: file.lookupMode),
            coverage: coverage)
        return CaseResult(
            file: file.path, name: testCase.name, expect: testCase.expect,
            actual: decision.allowed ? .allow : .deny, decision: decision,
            explanation: decision.explanation(in: program.source))
    }

    /// Compiles (once) the rules file a case file names.
    public func program(for file: RulesCaseFile) throws(RulesTestError) -> Program {
        let program: Program
        if let cached = programs[file.rulesPath] {
            program = cached
        } else {
            program = try Self.compile(rulesPath: file.rulesPath, caseFile: file.path, regexEngine: regexEngine, limits: limits)
            programs[file.rulesPath] = program
        }
        let expected: ServiceKind = file.service == .firestore ? .firestore : .storage
        guard program.service == expected else {
            throw .serviceMismatch(caseFile: file.path, expected: file.service, rulesPath: file.rulesPath, actual: program.service)
        }
        return program
    }

    /// Reads and compiles a rules file (``RulesLoader/loadProgram(path:namedIn:regexEngine:limits:)``).
    ///
    /// - Throws: ``RulesTestError/unreadableRules(path:caseFile:reason:)`` or
    ///   ``RulesTestError/invalidRules(source:diagnostics:)``.
    public static func compile(rulesPath: String, caseFile: String = "", regexEngine: any RegexEngine = RulesTestRunner.defaultRegexEngine,
                               limits: RulesLimits = .default) throws(RulesTestError) -> Program {
        do {
            return try RulesLoader.loadProgram(path: rulesPath, namedIn: caseFile, regexEngine: regexEngine, limits: limits)
        } catch {
            throw RulesTestError(error)
        }
    }

    /// Reads a UTF-8 source file for the compiler (``RulesLoader/readSource(_:)``).
    public static func readSource(_ path: String) throws(SourceReadError) -> SourceFile {
        try RulesLoader.readSource(path)
    }

    private func collector(for rulesPath: String, program: Program) -> CoverageCollector? {
        guard collectCoverage else { return nil }
        if let existing = coverage.first(where: { $0.rulesPath == rulesPath }) { return existing.collector }
        let collector = CoverageCollector(program: program)
        coverage.append((rulesPath, collector))
        return collector
    }

    /// Coverage of all rules files run so far as one JSON document:
    /// `{"rules": [<per-file coverage>, …]}` (see `CoverageCollector.json()`).
    public func coverageJSON() -> String {
        "{\"rules\": [" + coverage.map { $0.collector.json() }.joined(separator: ", ") + "]}"
    }
}

/// What the CLI prints for a case of any service.
public protocol CaseOutcome: Sendable {
    /// The case file's path.
    var file: String { get }
    /// The case's name.
    var name: String { get }
    /// What the case expects.
    var expect: Expectation { get }
    /// What the rules decided.
    var actual: Expectation { get }
    /// True when the decision is the expected one.
    var passed: Bool { get }
    /// The decision explained for people.
    var explanation: String { get }
}

extension CaseResult: CaseOutcome {}

/// What happened to one case file of a run, whatever its service: its case results, or why it
/// could not be used.
public struct CaseFileOutcome: Sendable {
    /// The case file's path as the caller gave it.
    public var path: String
    /// The results of its cases, in file order; empty when the file could not be used.
    public var cases: [any CaseOutcome]
    /// Why the file could not be used (nothing of it ran then); nil when its cases ran.
    public var error: RulesTestError?

    /// The Firestore or Storage results (empty for a database case file).
    public var results: [CaseResult] { cases.compactMap { $0 as? CaseResult } }

    /// An outcome whose cases ran.
    public init(path: String, cases: [any CaseOutcome]) {
        self.path = path
        self.cases = cases
        self.error = nil
    }

    /// An outcome for a file that could not be used.
    public init(path: String, error: RulesTestError) {
        self.path = path
        self.cases = []
        self.error = error
    }
}

/// The outcome of running several case files (``RulesTestRunner/run(caseFilesAt:)``).
public struct RulesTestReport: Sendable {
    /// One outcome per case file, in the order given.
    public var files: [CaseFileOutcome]

    /// Creates a report from outcomes (append more as files run).
    public init(files: [CaseFileOutcome]) {
        self.files = files
    }

    /// Every case result of the files that ran, in order, whatever their service.
    public var cases: [any CaseOutcome] { files.flatMap(\.cases) }
    /// The Firestore and Storage case results, in order.
    public var results: [CaseResult] { files.flatMap(\.results) }
    /// How many files could not be used.
    public var unusableFiles: Int { files.filter { $0.error != nil }.count }
    /// How many cases ran.
    public var caseCount: Int { files.reduce(0) { $0 + $1.cases.count } }
    /// How many cases did not get their expected decision.
    public var failedCases: Int { files.reduce(0) { $0 + $1.cases.filter { !$0.passed }.count } }

    /// The exit status of `validate rules test`: 2 when any file could not be used, otherwise
    /// 1 when any case failed, otherwise 0.
    public var exitStatus: Int32 {
        if unusableFiles > 0 { return 2 }
        return failedCases > 0 ? 1 : 0
    }
}
