// DatabaseCases: case files, the runner and request files for Realtime Database rules
// (`"service": "database"`; format in docs/DATABASE-RULES.md). Kept apart from the
// Firestore/Storage runner; both report per file as a `CaseFileOutcome`, and `CaseFileRunner`
// sends each file to the runner of its service.
import DatabaseRules
import Diagnostics
import Foundation
import RulesLoading

/// One database case: an operation at a path and the decision it must get.
public struct DatabaseTestCase: Sendable {
    /// `read`, `set` or `update`.
    public enum Method: String, Sendable, CaseIterable {
        case read, set, update
    }

    /// Unique within its file.
    public var name: String
    /// The request path, e.g. `/userPresence/alice`.
    public var path: String
    /// The operation.
    public var method: Method
    /// The auth object as rules see it; nil when signed out.
    public var auth: JSONValue?
    /// The root before this case, replacing the file's default; nil to use the default.
    public var data: JSONValue?
    /// The value written by `set`.
    public var value: JSONValue?
    /// The multi-location update of `update`, relative to `path`.
    public var updates: [String: JSONValue]?
    /// The query of a `read` (optional; a plain read by default).
    public var query: DatabaseQuery
    /// `now` in milliseconds since the epoch.
    public var time: Double
    /// The expected decision (`allow` when absent in a request file).
    public var expect: Expectation

    /// The request this case makes.
    public var request: DatabaseRequest {
        let operation: DatabaseRequest.Operation
        switch method {
        case .read: operation = .read(query)
        case .set: operation = .set(value ?? .null)
        case .update: operation = .update(updates ?? [:])
        }
        return DatabaseRequest(path: path, operation: operation, auth: auth, now: time)
    }
}

/// A loaded database case file.
public struct DatabaseCaseFile: Sendable {
    /// The case file's path as given.
    public var path: String
    /// The rules file, resolved against the case file's directory.
    public var rulesPath: String
    /// The default root before each request.
    public var data: JSONValue
    /// The cases, in file order.
    public var cases: [DatabaseTestCase]
}

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

/// Reads database case files and request files.
public enum DatabaseCaseFileLoader {
    /// The default `time`: 2026-01-01T00:00:00Z, as for Firestore and Storage cases.
    public static let defaultTime: Double = 1_767_225_600_000

    /// Whether the JSON file at `path` is a database case file (`"service": "database"`). False
    /// for unreadable or non-JSON files, which the Firestore/Storage loader then reports.
    public static func isDatabaseCaseFile(_ path: String) -> Bool {
        let lowered = path.lowercased()
        guard !lowered.hasSuffix(".yaml"), !lowered.hasSuffix(".yml"),
              let data = try? BoundedFile.data(path),
              let tree = try? LenientJSONReader.parse(bytes: Array(data)),
              case .string(let service)? = tree["service"]?.value else { return false }
        return service.text == "database"
    }

    /// Whether a rules file is database rules (``RulesLoader/isDatabaseRules(_:)``).
    public static func isDatabaseRules(_ source: SourceFile) -> Bool {
        RulesLoader.isDatabaseRules(source)
    }

    /// Reads and decodes a database case file.
    ///
    /// - Throws: ``CaseFileError`` naming `file:line:column` (and the case) at the first problem.
    public static func load(path: String) throws(CaseFileError) -> DatabaseCaseFile {
        let (source, tree) = try read(path)
        var decoder = DatabaseCaseDecoder(source: source)
        guard case .object = tree.value else { throw decoder.fail(tree, "the file must hold an object with `rules`, `service` and `cases`") }
        guard let rules = tree["rules"] else { throw decoder.fail(tree, "missing key `rules` (the path of database.rules.json)") }
        guard case .string(let rulesName) = rules.value, !rulesName.text.isEmpty else {
            throw decoder.fail(rules, "`rules` must be a non-empty string, found \(rules.kindDescription)")
        }
        guard let service = tree["service"], case .string(let s) = service.value, s.text == "database" else {
            throw decoder.fail(tree["service"] ?? tree, "`service` must be `database`")
        }
        let data = tree["data"].map(JSONValue.init) ?? .null
        guard let casesNode = tree["cases"] else { throw decoder.fail(tree, "missing key `cases`") }
        guard case .array(let items) = casesNode.value else { throw decoder.fail(casesNode, "`cases` must be an array, found \(casesNode.kindDescription)") }
        var cases: [DatabaseTestCase] = []
        var names = Set<String>()
        for (index, item) in items.enumerated() {
            let testCase = try decoder.testCase(item, index: index, named: true)
            guard names.insert(testCase.name).inserted else {
                throw decoder.fail(item, "another case in this file has the same name", caseName: testCase.name)
            }
            cases.append(testCase)
        }
        return DatabaseCaseFile(path: path, rulesPath: resolvePath(rulesName.text, relativeTo: path), data: data, cases: cases)
    }

    /// Reads a request file for `validate rules eval`: one case without `name` and `expect`;
    /// its `data` is the root before the request.
    ///
    /// - Throws: ``CaseFileError`` at the first problem.
    public static func loadRequest(path: String) throws(CaseFileError) -> DatabaseTestCase {
        try decodeRequest(try CaseFileLoader.readText(path), path: path)
    }

    /// Decodes request text (see ``loadRequest(path:)``); `path` names it in errors.
    ///
    /// - Throws: ``CaseFileError`` at the first problem.
    public static func decodeRequest(_ text: String, path: String) throws(CaseFileError) -> DatabaseTestCase {
        let (source, tree) = try parse(text, path: path)
        var decoder = DatabaseCaseDecoder(source: source)
        return try decoder.testCase(tree, index: 0, named: false)
    }

    static func read(_ path: String) throws(CaseFileError) -> (SourceFile, JSONNode) {
        try parse(try CaseFileLoader.readText(path), path: path)
    }

    private static func parse(_ text: String, path: String) throws(CaseFileError) -> (SourceFile, JSONNode) {
        let source = SourceFile(name: path, text: text)
        do {
            return (source, try LenientJSONReader.parse(source))
        } catch {
            throw CaseFileError(file: "\(path):\(source.location(of: error.span.start))", message: error.message)
        }
    }
}

struct DatabaseCaseDecoder {
    let source: SourceFile

    func fail(_ node: JSONNode, _ message: String, caseName: String? = nil) -> CaseFileError {
        CaseFileError(file: "\(source.name):\(source.location(of: node.span.start))", caseName: caseName, message: message)
    }

    static let keys: Set<String> = ["name", "path", "method", "auth", "data", "value", "updates", "time", "expect", "query", "note"]

    mutating func testCase(_ node: JSONNode, index: Int, named: Bool) throws(CaseFileError) -> DatabaseTestCase {
        guard case .object(let members) = node.value else { throw fail(node, "case #\(index + 1) must be an object") }
        var name = "#\(index + 1)"
        if named {
            guard let n = node["name"], case .string(let s) = n.value, !s.text.isEmpty else {
                throw fail(node, "case #\(index + 1) needs a non-empty string `name`")
            }
            name = s.text
        }
        for member in members where !Self.keys.contains(member.key.text) && !(named == false && ["rules", "service"].contains(member.key.text)) {
            throw CaseFileError(file: "\(source.name):\(source.location(of: member.key.span.start))", caseName: name,
                                message: "unknown key `\(member.key.text)`")
        }
        guard let pathNode = node["path"], case .string(let path) = pathNode.value, path.text.hasPrefix("/") else {
            throw fail(node["path"] ?? node, "`path` must be a string starting with `/`", caseName: name)
        }
        guard let methodNode = node["method"], case .string(let m) = methodNode.value, let method = DatabaseTestCase.Method(rawValue: m.text) else {
            throw fail(node["method"] ?? node, "`method` must be `read`, `set` or `update`", caseName: name)
        }
        var auth: JSONValue?
        if let a = node["auth"] {
            switch a.value {
            case .null: auth = nil
            case .object: auth = JSONValue(a)
            default: throw fail(a, "`auth` must be null or an object such as {\"uid\": \"alice\"}", caseName: name)
            }
        }
        var expect = Expectation.allow
        if named {
            guard let e = node["expect"], case .string(let s) = e.value, let value = Expectation(rawValue: s.text) else {
                throw fail(node["expect"] ?? node, "`expect` must be `allow` or `deny`", caseName: name)
            }
            expect = value
        }
        var time = DatabaseCaseFileLoader.defaultTime
        if let t = node["time"] {
            guard case .number(let n) = t.value, n == n.rounded(), abs(n) < 9e15 else {
                throw fail(t, "`time` must be an integer number of milliseconds since the epoch", caseName: name)
            }
            time = n
        }
        let value = node["value"].map(JSONValue.init)
        var updates: [String: JSONValue]?
        if let u = node["updates"] {
            guard case .object(let entries) = u.value, !entries.isEmpty else {
                throw fail(u, "`updates` must be a non-empty object of relative paths", caseName: name)
            }
            updates = Dictionary(uniqueKeysWithValues: entries.map { ($0.key.text, JSONValue($0.value)) })
        }
        switch method {
        case .set where value == nil: throw fail(node, "a `set` case needs `value` (null deletes)", caseName: name)
        case .update where updates == nil: throw fail(node, "an `update` case needs `updates`", caseName: name)
        case .read where value != nil || updates != nil: throw fail(node, "a `read` case takes no `value` or `updates`", caseName: name)
        default: break
        }
        var query = DatabaseQuery()
        if let q = node["query"] { query = try decodeQuery(q, caseName: name) }
        return DatabaseTestCase(name: name, path: path.text, method: method, auth: auth, data: node["data"].map(JSONValue.init),
                                value: value, updates: updates, query: query, time: time, expect: expect)
    }

    func decodeQuery(_ node: JSONNode, caseName: String) throws(CaseFileError) -> DatabaseQuery {
        guard case .object(let members) = node.value else { throw fail(node, "`query` must be an object", caseName: caseName) }
        var q = DatabaseQuery()
        for member in members {
            let v = member.value
            func primitive() throws(CaseFileError) -> DataPrimitive? {
                switch v.value {
                case .null: return nil
                case .bool(let b): return .bool(b)
                case .number(let n): return .number(n)
                case .string(let s): return .string(s.text)
                default: throw fail(v, "`query.\(member.key.text)` must be a string, number, boolean or null", caseName: caseName)
                }
            }
            switch (member.key.text, v.value) {
            case ("orderByKey", .bool(let b)): q.orderByKey = b
            case ("orderByValue", .bool(let b)): q.orderByValue = b
            case ("orderByPriority", .bool(let b)): q.orderByPriority = b
            case ("orderByChild", .string(let s)): q.orderByChild = s.text
            case ("startAt", _): q.startAt = try primitive()
            case ("endAt", _): q.endAt = try primitive()
            case ("equalTo", _): q.equalTo = try primitive()
            case ("limitToFirst", .number(let n)): q.limitToFirst = n
            case ("limitToLast", .number(let n)): q.limitToLast = n
            default: throw fail(v, "unknown or mistyped query parameter `\(member.key.text)`", caseName: caseName)
            }
        }
        return q
    }
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

    /// Converts a case's `data` into the root before the request.
    public static func root(_ data: JSONValue, time: Double) throws(DataError) -> DataNode? {
        var budget = 1_000_000
        return try DataTree.node(from: data, existing: nil, now: time, path: "/", budget: &budget)
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
