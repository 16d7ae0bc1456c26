// DatabaseCases: the runner for Realtime Database case files (`"service": "database"`; the
// format is RulesCases' `DatabaseCaseFile`, described in docs/DATABASE-RULES.md). Kept apart from
// the Firestore/Storage runner; both report per file as a `CaseFileOutcome`, and `CaseFileRunner`
// sends each file to the runner of its service.
import DatabaseRules
import Diagnostics
import Foundation
import RulesCases
import RulesLoading

/// The outcome of one database case.
public struct DatabaseCaseResult: Sendable {
    /// The case file's path.
    public var file: String
    /// The case's name.
    public var name: String
    /// What the case expects.
    public var expect: Expectation
    /// What the rules decided.
    public var actual: Expectation
    /// The full decision.
    public var decision: DatabaseDecision
    /// The decision explained for people.
    public var explanation: String
    /// True when the decision is the expected one.
    public var passed: Bool { expect == actual }
}

/// Runs database case files: compiles each rules file once and decides every case.
///
/// Not thread-safe (it caches programs and coverage); use one runner per thread.
public final class DatabaseTestRunner {
    /// The production `matches()` engine (PCRE2), shared by all runners
    /// (``RulesLoader/defaultDatabaseRegexEngine``).
    public static let defaultRegexEngine: any DatabaseRegexEngine = RulesLoader.defaultDatabaseRegexEngine

    private let regexEngine: any DatabaseRegexEngine
    private let limits: DatabaseLimits
    private var programs: [String: DatabaseProgram] = [:]
    /// Coverage per rules file, when created with `collectCoverage: true`.
    public private(set) var coverage: [(rulesPath: String, collector: DatabaseCoverage)] = []
    private let collectCoverage: Bool

    /// Creates a runner.
    public init(regexEngine: any DatabaseRegexEngine = DatabaseTestRunner.defaultRegexEngine, limits: DatabaseLimits = .default,
                collectCoverage: Bool = false) {
        self.regexEngine = regexEngine
        self.limits = limits
        self.collectCoverage = collectCoverage
    }

    /// Compiles (once) the rules a case file names.
    ///
    /// - Throws: ``RulesTestError`` when the rules cannot be read or compiled, or are not database rules.
    public func program(for file: DatabaseCaseFile) throws(RulesTestError) -> DatabaseProgram {
        if let cached = programs[file.rulesPath] { return cached }
        let program = try Self.compile(rulesPath: file.rulesPath, caseFile: file.path, regexEngine: regexEngine, limits: limits)
        programs[file.rulesPath] = program
        return program
    }

    /// Loads and runs one case file, turning a file that cannot be used (the case file, its
    /// rules or a case's `data`) into an outcome that carries its error.
    ///
    /// - Parameter path: the case file.
    /// - Returns: the file's case results, or the error that kept it from running.
    public func outcome(caseFileAt path: String) -> CaseFileOutcome {
        do throws(RulesTestError) {
            let file: DatabaseCaseFile
            do { file = try DatabaseCaseFileLoader.load(path: path) } catch { throw .caseFile(error) }
            return CaseFileOutcome(path: path, cases: try run(file))
        } catch {
            return CaseFileOutcome(path: path, error: error)
        }
    }

    /// Runs every case of a loaded file, in file order.
    ///
    /// - Throws: ``RulesTestError`` when the rules cannot be used or the file's `data` is invalid.
    public func run(_ file: DatabaseCaseFile) throws(RulesTestError) -> [DatabaseCaseResult] {
        let program = try program(for: file)
        var collector: DatabaseCoverage?
        if collectCoverage {
            if let existing = coverage.first(where: { $0.rulesPath == file.rulesPath }) {
                collector = existing.collector
            } else {
                let created = DatabaseCoverage(program: program)
                coverage.append((file.rulesPath, created))
                collector = created
            }
        }
        var results: [DatabaseCaseResult] = []
        for testCase in file.cases {
            let root: DataNode?
            do {
                root = try Self.root(testCase.data ?? file.data, time: testCase.time)
            } catch {
                throw .caseFile(CaseFileError(file: file.path, caseName: testCase.name, message: "invalid `data`: \(error.message)"))
            }
            results.append(Self.evaluate(testCase, file: file.path, root: root, program: program, coverage: collector))
        }
        return results
    }

    /// Converts a case's `data` into the root before the request (``DatabaseTestCase/root(_:time:)``).
    public static func root(_ data: JSONValue, time: Double) throws(DataError) -> DataNode? {
        try DatabaseTestCase.root(data, time: time)
    }

    /// Decides one case.
    public static func evaluate(_ testCase: DatabaseTestCase, file: String, root: DataNode?, program: DatabaseProgram,
                                coverage: DatabaseCoverage? = nil) -> DatabaseCaseResult {
        let decision = program.evaluate(testCase.request, data: root, coverage: coverage)
        return DatabaseCaseResult(file: file, name: testCase.name, expect: testCase.expect, actual: decision.allowed ? .allow : .deny,
                                  decision: decision, explanation: decision.explanation(in: program.source))
    }

    /// Reads and compiles a database rules file.
    ///
    /// - Throws: ``RulesTestError/unreadableRules(path:caseFile:reason:)`` or
    ///   ``RulesTestError/invalidRules(source:diagnostics:)``.
    public static func compile(rulesPath: String, caseFile: String = "", regexEngine: any DatabaseRegexEngine = DatabaseTestRunner.defaultRegexEngine,
                               limits: DatabaseLimits = .default) throws(RulesTestError) -> DatabaseProgram {
        let source: SourceFile
        do { source = try RulesLoader.readSource(rulesPath) } catch {
            throw .unreadableRules(path: rulesPath, caseFile: caseFile, reason: error.message)
        }
        // The case file says `database`; rules of another service are the case file's mistake.
        guard RulesLoader.isDatabaseRules(source) else {
            throw .unreadableRules(path: rulesPath, caseFile: caseFile,
                                   reason: "not a database rules file (expected `{\"rules\": …}`); `service` is `database`")
        }
        do { return try RulesLoader.compileDatabase(source, regexEngine: regexEngine, limits: limits) } catch { throw RulesTestError(error) }
    }

    /// The per-file coverage objects as JSON texts (see `DatabaseCoverage.json()`).
    public var coverageEntries: [String] { coverage.map { $0.collector.json() } }
}

extension DatabaseCaseResult: CaseOutcome {}

extension DatabaseCaseFileLoader {
    /// Whether a rules file is database rules (``RulesLoader/isDatabaseRules(_:)``).
    public static func isDatabaseRules(_ source: SourceFile) -> Bool {
        RulesLoader.isDatabaseRules(source)
    }
}

// MARK: - Every service

/// Runs case files of every service: each file goes to the runner of its `service`, and every
/// file's outcome has the same shape, so one ``RulesTestReport`` counts cases and decides the
/// exit status for all of them.
///
/// Not thread-safe (its runners cache programs and coverage); use one per thread.
public final class CaseFileRunner {
    /// Runs Firestore and Storage case files.
    public let rules: RulesTestRunner
    /// Runs Realtime Database case files.
    public let database: DatabaseTestRunner

    /// Creates a runner with the production regular-expression engines.
    ///
    /// - Parameter collectCoverage: record coverage for every evaluated case.
    public init(collectCoverage: Bool = false) {
        rules = RulesTestRunner(collectCoverage: collectCoverage)
        database = DatabaseTestRunner(collectCoverage: collectCoverage)
    }

    /// Loads and runs one case file with the runner of its service.
    ///
    /// - Parameter path: the case file.
    /// - Returns: the file's case results, or the error that kept it from running.
    public func outcome(caseFileAt path: String) -> CaseFileOutcome {
        DatabaseCaseFileLoader.isDatabaseCaseFile(path) ? database.outcome(caseFileAt: path) : rules.outcome(caseFileAt: path)
    }

    /// Loads and runs several case files, in order; a file that cannot be used is reported in
    /// the result and every other file still runs.
    public func run(caseFilesAt paths: [String]) -> RulesTestReport {
        RulesTestReport(files: paths.map(outcome(caseFileAt:)))
    }

    /// Coverage of every rules file run so far, `{"rules": [<per-file coverage>, …]}`:
    /// Firestore and Storage files first, then database files.
    public func coverageJSON() -> String {
        "{\"rules\": [" + (rules.coverage.map { $0.collector.json() } + database.coverageEntries).joined(separator: ", ") + "]}"
    }
}
