// DatabaseCaseFile: the case-file and request-file format for Realtime Database rules
// (`"service": "database"`; format in docs/DATABASE-RULES.md): the cases, their reading with
// `file:line:column` errors, and the request and root each case stands for. Running them is
// RulesTesting's `DatabaseTestRunner`.
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

extension DatabaseTestCase {
    /// Converts a case's `data` into the root before the request.
    ///
    /// - Throws: ``DataError`` when `data` is not a valid database value.
    public static func root(_ data: JSONValue, time: Double) throws(DataError) -> DataNode? {
        var budget = 1_000_000
        return try DataTree.node(from: data, existing: nil, now: time, path: "/", budget: &budget)
    }
}
