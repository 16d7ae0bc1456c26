import Foundation
import RulesLanguage
import RulesLoading

/// Turns a case file's text into a ``RulesCaseFile``: picks the reader by extension, checks every
/// key the format defines (unknown keys are ignored) and decodes `__type__` wrappers.
public enum CaseFileLoader {
    /// Reads and decodes the case file at `path`.
    ///
    /// - Parameter path: the file's path; `.yaml`/`.yml` files are read as YAML, others as JSON.
    /// - Returns: the decoded file; `rulesPath` is resolved against `path`'s directory.
    /// - Throws: ``CaseFileError`` naming the file (and the case) at the first problem.
    public static func load(path: String) throws(CaseFileError) -> RulesCaseFile {
        try decode(try readText(path), path: path)
    }

    /// Reads a UTF-8 text file of at most ``BoundedFile/maxBytes``, with platform-independent
    /// error messages.
    static func readText(_ path: String) throws(CaseFileError) -> String {
        do {
            return try BoundedFile.text(path)
        } catch {
            throw CaseFileError(file: path + error.location, message: error.message)
        }
    }

    /// Decodes case-file text. `path` decides JSON or YAML and anchors the `rules` path.
    ///
    /// - Throws: ``CaseFileError`` at the first problem.
    public static func decode(_ text: String, path: String) throws(CaseFileError) -> RulesCaseFile {
        let lowered = path.lowercased()
        let isYAML = lowered.hasSuffix(".yaml") || lowered.hasSuffix(".yml")
        let tree: DocumentTree
        do {
            tree = isYAML ? try YAMLReader.read(text) : try JSONReader.read(text)
        } catch {
            throw CaseFileError(file: "\(path):\(error.line):\(error.column)", message: error.message)
        }
        let file = try CaseFileDecoder(file: path).file(tree)
        if let problem = RequestModelCheck.firstProblem(in: file) {
            let position = DocumentLocator.location(of: problem.at, in: text, yaml: isYAML) ?? (1, 1)
            throw CaseFileError(file: "\(path):\(position.line):\(position.column)", caseName: problem.caseName,
                                message: problem.message, code: RulesLanguageCodes.impossibleRequest.id)
        }
        return file
    }
}

/// Decodes the case-file document tree (see docs/RULES-TESTING.md).
struct CaseFileDecoder {
    let file: String

    func file(_ tree: DocumentTree) throws(CaseFileError) -> RulesCaseFile {
        guard case .map = tree else { throw fail("the file must hold a map with `rules`, `service` and `cases`") }
        guard let rules = tree["rules"] else { throw fail("missing key `rules` (the path of the .rules file)") }
        guard case .string(let rulesName) = rules, !rulesName.isEmpty else {
            throw fail("`rules` must be a non-empty string, found \(rules.kindDescription)")
        }
        let service: CaseService = try choice(tree["service"], key: "service", required: true) ?? .firestore
        let lookupMode: LookupMode = try choice(tree["lookupMode"], key: "lookupMode", required: false) ?? .database
        guard let casesTree = tree["cases"] else { throw fail("missing key `cases`") }
        guard case .list(let items) = casesTree else { throw fail("`cases` must be a list, found \(casesTree.kindDescription)") }
        var cases: [RulesTestCase] = []
        var names = Set<String>()
        for (index, item) in items.enumerated() {
            var decoder = CaseDecoder(file: file, index: index, service: service)
            let testCase = try decoder.decode(item)
            guard names.insert(testCase.name).inserted else {
                throw CaseFileError(file: file, caseName: testCase.name, message: "another case in this file has the same name")
            }
            cases.append(testCase)
        }
        return RulesCaseFile(path: file, rulesPath: resolvePath(rulesName, relativeTo: file), service: service, lookupMode: lookupMode, cases: cases)
    }

    private func choice<T: RawRepresentable & CaseIterable>(_ value: DocumentTree?, key: String, required: Bool) throws(CaseFileError) -> T? where T.RawValue == String {
        guard let value else {
            if required { throw fail("missing key `\(key)`") }
            return nil
        }
        let allowed = T.allCases.map { "`\($0.rawValue)`" }.joined(separator: " or ")
        guard case .string(let text) = value, let result = T(rawValue: text) else {
            throw fail("`\(key)` must be \(allowed)")
        }
        return result
    }

    private func fail(_ message: String) -> CaseFileError {
        CaseFileError(file: file, message: message)
    }
}

/// Decodes one case; every error names the case.
struct CaseDecoder {
    let file: String
    let index: Int
    let service: CaseService
    private var caseName: String

    init(file: String, index: Int, service: CaseService) {
        self.file = file
        self.index = index
        self.service = service
        self.caseName = "#\(index + 1)"
    }

    mutating func decode(_ tree: DocumentTree) throws(CaseFileError) -> RulesTestCase {
        guard case .map = tree else { throw fail("a case must be a map, found \(tree.kindDescription)") }
        if case .string(let name)? = tree["name"], !name.isEmpty { caseName = name }
        guard case .string(let name)? = tree["name"], !name.isEmpty else { throw fail("missing key `name` (a non-empty string)") }
        guard case .string(let path)? = tree["path"], path.hasPrefix("/") else {
            throw fail("`path` must be a string starting with `/`")
        }
        try checkPath(path)
        guard case .string(let methodName)? = tree["method"], let method = RequestMethod(rawValue: methodName) else {
            let methods = RequestMethod.allCases.map(\.rawValue).joined(separator: ", ")
            throw fail("`method` must be one of \(methods) (`read` and `write` are not request methods)")
        }
        guard case .string(let expectText)? = tree["expect"], let expect = Expectation(rawValue: expectText) else {
            throw fail("`expect` must be `allow` or `deny`")
        }
        var time = Timestamp.defaultRequestTime
        if let timeTree = tree["time"] {
            guard case .string(let text) = timeTree, let parsed = Timestamp(rfc3339: text) else {
                throw fail("`time` must be an RFC 3339 date-time such as `2026-01-05T10:00:00Z`")
            }
            time = parsed
        }
        // A `get`, `list` or `delete` with `requestResource` is evaluated with what it supplies:
        // the emulator's own runtime tests pass a `request.resource` on reads, and rules may read it.
        let requestResource = try document(tree, key: "requestResource").flatMap { $0 == .null ? nil : $0 }
        return RulesTestCase(
            name: name, path: path, method: method,
            auth: try auth(tree["auth"]),
            resource: try document(tree, key: "resource"),
            requestResource: requestResource,
            existing: try documents(tree["existing"], key: "existing") ?? [:],
            existingAfter: try documents(tree["existingAfter"], key: "existingAfter"),
            batch: try batch(tree["batch"], requestPath: path),
            query: try query(tree["query"]),
            time: time, expect: expect)
    }

    private func checkPath(_ path: String) throws(CaseFileError) {
        switch service {
        case .firestore:
            let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
            guard segments.count >= 3, segments.first == "databases", segments.dropFirst(2).first == "documents" else {
                throw fail("a Firestore `path` is a full path such as `/databases/(default)/documents/users/alice`")
            }
        case .storage:
            let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
            guard segments.count >= 3, segments.first == "b", segments.dropFirst(2).first == "o" else {
                throw fail("a Storage `path` has the form `/b/{bucket}/o/{object}`")
            }
        }
    }

    private func auth(_ tree: DocumentTree?) throws(CaseFileError) -> CaseAuth? {
        guard let tree, tree != .null else { return nil }
        guard case .map = tree else { throw fail("`auth` must be null or a map with `uid`") }
        guard case .string(let uid)? = tree["uid"], !uid.isEmpty else { throw fail("`auth.uid` must be a non-empty string") }
        var token: [String: CaseValue] = [:]
        if let tokenTree = tree["token"], tokenTree != .null {
            guard case .map(let claims) = try value(tokenTree, at: "auth.token") else {
                throw fail("`auth.token` must be a map of claims")
            }
            token = claims
        }
        return CaseAuth(uid: uid, token: token)
    }

    /// `resource` / `requestResource`: absent → nil, `null` → `.null`, else a map.
    private func document(_ tree: DocumentTree, key: String) throws(CaseFileError) -> CaseValue? {
        guard tree.contains(key: key), let documentTree = tree[key] else { return nil }
        let decoded = try value(documentTree, at: key)
        switch decoded {
        case .null, .map: return decoded
        default: throw fail("`\(key)` must be null or a map of \(service == .firestore ? "document fields" : "object metadata")")
        }
    }

    private func documents(_ tree: DocumentTree?, key: String) throws(CaseFileError) -> [String: CaseValue]? {
        guard let tree, tree != .null else { return nil }
        guard case .map(let entries) = tree else { throw fail("`\(key)` must be a map from document path to document") }
        var result: [String: CaseValue] = [:]
        for (path, documentTree) in entries {
            guard Self.isDocumentPath(path) else {
                throw fail("`\(key)` key `\(path)` is not a full document path such as `/databases/(default)/documents/users/alice`")
            }
            let decoded = try value(documentTree, at: "\(key)[\(path)]")
            switch decoded {
            case .null, .map: result[path] = decoded
            default: throw fail("`\(key)[\(path)]` must be null or a map of document fields")
            }
        }
        return result
    }

    /// A full Firestore document path: `/databases/{db}/documents/` then collection/id pairs.
    private static func isDocumentPath(_ path: String) -> Bool {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        return path.hasPrefix("/") && segments.count >= 5 && segments.first == "databases"
            && segments.dropFirst(2).first == "documents" && segments.count % 2 == 1
    }

    /// `batch`: the other writes of the request's batch, `[{path, method, data}]`.
    private func batch(_ tree: DocumentTree?, requestPath: String) throws(CaseFileError) -> [BatchWrite] {
        guard let tree, tree != .null else { return [] }
        guard service == .firestore else { throw fail("`batch` is for Firestore cases; Storage has no batched writes") }
        guard case .list(let items) = tree else { throw fail("`batch` must be a list of writes `{path, method, data}`") }
        var writes: [BatchWrite] = []
        var paths: Set<String> = [requestPath]
        for (index, item) in items.enumerated() {
            let position = "batch[\(index)]"
            guard case .map = item else { throw fail("`\(position)` must be a map `{path, method, data}`") }
            guard case .string(let path)? = item["path"], Self.isDocumentPath(path) else {
                throw fail("`\(position).path` must be a full document path such as `/databases/(default)/documents/users/alice`")
            }
            guard paths.insert(path).inserted else {
                throw fail("`\(position).path` `\(path)` is written twice; a batch writes each document once and the case's own write is `path`")
            }
            guard case .string(let methodName)? = item["method"], let method = RequestMethod(rawValue: methodName),
                  [.create, .update, .delete].contains(method) else {
                throw fail("`\(position).method` must be `create`, `update` or `delete`")
            }
            let data = try item["data"].map { (dataTree) throws(CaseFileError) in try value(dataTree, at: "\(position).data") }
            switch (method, data) {
            case (.delete, nil), (.delete, .null?):
                writes.append(BatchWrite(path: path, method: method))
            case (.delete, _):
                throw fail("`\(position).data` is not for a `delete`, which leaves no document")
            case (_, .map?):
                writes.append(BatchWrite(path: path, method: method, data: data))
            default:
                throw fail("`\(position).data` must be a map of document fields (the document after the \(method.rawValue))")
            }
        }
        return writes
    }

    private func query(_ tree: DocumentTree?) throws(CaseFileError) -> CaseValue? {
        guard let tree, tree != .null else { return nil }
        let decoded = try value(tree, at: "query")
        guard case .map = decoded else { throw fail("`query` must be a map such as `{\"limit\": 20}`") }
        return decoded
    }

    // MARK: Values and wrappers

    /// Decodes a value, turning `{"__type__": …}` maps into typed values. `where` names the
    /// position for errors (`resource.createdAt`).
    func value(_ tree: DocumentTree, at position: String) throws(CaseFileError) -> CaseValue {
        switch tree {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .int(let value): return .int(value)
        case .float(let value): return .float(value)
        case .string(let value): return .string(value)
        case .list(let items):
            var values: [CaseValue] = []
            for (index, item) in items.enumerated() { values.append(try value(item, at: "\(position)[\(index)]")) }
            return .list(values)
        case .map(let entries):
            if let typeTree = tree["__type__"] { return try wrapper(typeTree, tree, at: position) }
            var values: [String: CaseValue] = [:]
            for (key, item) in entries { values[key] = try value(item, at: "\(position).\(key)") }
            return .map(values)
        }
    }

    private func wrapper(_ typeTree: DocumentTree, _ tree: DocumentTree, at position: String) throws(CaseFileError) -> CaseValue {
        let known = ["timestamp", "duration", "bytes", "latlng", "path", "float", "request_time"]
        guard case .string(let type) = typeTree, known.contains(type) else {
            throw fail("`\(position)` has an unknown `__type__`; use one of \(known.joined(separator: ", "))")
        }
        func field(_ name: String) throws(CaseFileError) -> DocumentTree {
            guard let value = tree[name] else { throw fail("`\(position)`: a `\(type)` wrapper needs `\(name)`") }
            return value
        }
        func number(_ name: String) throws(CaseFileError) -> Double {
            switch try field(name) {
            case .int(let value): return Double(value)
            case .float(let value): return value
            default: throw fail("`\(position).\(name)` must be a number")
            }
        }
        func integer(_ name: String, default fallback: Int64? = nil) throws(CaseFileError) -> Int64 {
            if let fallback, tree[name] == nil { return fallback }
            guard case .int(let value) = try field(name) else { throw fail("`\(position).\(name)` must be an integer") }
            return value
        }
        func string(_ name: String) throws(CaseFileError) -> String {
            guard case .string(let value) = try field(name) else { throw fail("`\(position).\(name)` must be a string") }
            return value
        }
        switch type {
        case "timestamp":
            guard let instant = Timestamp(rfc3339: try string("value")) else {
                throw fail("`\(position).value` must be an RFC 3339 date-time such as `2026-01-05T10:00:00Z`")
            }
            return .timestamp(instant)
        case "duration":
            let seconds = try integer("seconds")
            let nanos = try integer("nanos", default: 0)
            guard abs(nanos) < 1_000_000_000, seconds == 0 || nanos == 0 || (seconds < 0) == (nanos < 0) else {
                throw fail("`\(position).nanos` must be in -999999999…999999999 with the same sign as `seconds`")
            }
            return .duration(seconds: seconds, nanos: Int32(nanos))
        case "bytes":
            guard let bytes = Base64.decode(try string("base64")) else {
                throw fail("`\(position).base64` is not valid base64")
            }
            return .bytes(bytes)
        case "latlng":
            let latitude = try number("latitude")
            let longitude = try number("longitude")
            guard (-90...90).contains(latitude), (-180...180).contains(longitude) else {
                throw fail("`\(position)`: latitude must be in [-90, 90] and longitude in [-180, 180]")
            }
            return .latlng(latitude: latitude, longitude: longitude)
        case "path":
            let path = try string("value")
            guard path.hasPrefix("/") || !path.isEmpty else { throw fail("`\(position).value` must be a non-empty path") }
            return .path(path)
        case "float":
            return .float(try number("value"))
        default:
            return .requestTime
        }
    }

    private func fail(_ message: String) -> CaseFileError {
        CaseFileError(file: file, caseName: caseName, message: message)
    }
}

/// Standard and URL-safe base64 (RFC 4648 §4 and §5), padding optional.
enum Base64 {
    static func decode(_ text: String) -> [UInt8]? {
        var normalized = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        let remainder = normalized.utf8.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { normalized += String(repeating: "=", count: 4 - remainder) }
        guard let data = Data(base64Encoded: normalized) else { return nil }
        return Array(data)
    }
}

// MARK: - Request files (`validate rules eval`)

extension CaseFileLoader {
    /// Reads a single request for `validate rules eval`: one case without `name` and `expect`
    /// (both optional), plus an optional `lookupMode`.
    ///
    /// - Returns: the request as a case (named `request` unless it has a name) and its lookup mode.
    /// - Throws: ``CaseFileError`` naming the file at the first problem.
    public static func loadRequest(path: String, service: CaseService) throws(CaseFileError) -> (testCase: RulesTestCase, mode: LookupMode) {
        try decodeRequest(try readText(path), path: path, service: service)
    }

    /// Decodes request-file text (see ``loadRequest(path:service:)``). `path` decides JSON or
    /// YAML and names the file in errors.
    ///
    /// - Throws: ``CaseFileError`` at the first problem.
    public static func decodeRequest(_ text: String, path: String, service: CaseService) throws(CaseFileError) -> (testCase: RulesTestCase, mode: LookupMode) {
        let lowered = path.lowercased()
        let tree: DocumentTree
        do {
            tree = lowered.hasSuffix(".yaml") || lowered.hasSuffix(".yml") ? try YAMLReader.read(text) : try JSONReader.read(text)
        } catch {
            throw CaseFileError(file: "\(path):\(error.line):\(error.column)", message: error.message)
        }
        guard case .map(var entries) = tree else { throw CaseFileError(file: path, message: "the request must be a map") }
        if tree["name"] == nil { entries.append((key: "name", value: .string("request"))) }
        if tree["expect"] == nil { entries.append((key: "expect", value: .string("allow"))) }
        var mode = LookupMode.database
        if let modeTree = tree["lookupMode"] {
            guard case .string(let text) = modeTree, let parsed = LookupMode(rawValue: text) else {
                throw CaseFileError(file: path, message: "`lookupMode` must be `database` or `mocks-only`")
            }
            mode = parsed
        }
        var decoder = CaseDecoder(file: path, index: 0, service: service)
        return (try decoder.decode(.map(entries)), mode)
    }
}
