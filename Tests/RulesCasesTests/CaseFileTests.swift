import Testing
import RulesLanguage
@testable import RulesCases

@Suite("Case-file reading")
struct CaseFileTests {
    // MARK: Numbers keep int and float apart

    @Test("JSON numbers: no fraction or exponent is an int, others are floats",
          arguments: [("2", DocumentTree.int(2)), ("-7", .int(-7)), ("2.0", .float(2.0)), ("1e3", .float(1000)),
                      ("0.5", .float(0.5)), ("-0", .int(0)), ("9223372036854775807", .int(Int64.max))])
    func jsonNumbers(text: String, expected: DocumentTree) throws {
        #expect(try JSONReader.read(text) == expected)
    }

    @Test("YAML scalars: plain 2 is an int, 2.0 a float, quoted is a string",
          arguments: [("2", DocumentTree.int(2)), ("2.0", .float(2.0)), ("'2'", .string("2")),
                      ("true", .bool(true)), ("null", .null), ("~", .null), ("image/png", .string("image/png"))])
    func yamlScalars(text: String, expected: DocumentTree) throws {
        #expect(try YAMLReader.read("v: \(text)")["v"] == expected)
    }

    @Test("JSON strings decode escapes and surrogate pairs")
    func jsonStrings() throws {
        #expect(try JSONReader.read(#""a\"b\\c\/d\n\u00e9\ud83d\ude00""#) == .string("a\"b\\c/d\né😀"))
    }

    @Test("JSON syntax errors carry line and column",
          arguments: [("{\n  \"a\": 1,\n  \"a\": 2\n}", 3, 3, "duplicate key `a`"),
                      ("[1, 2", 1, 6, "expected `]` or `,` after a list item, found end of input"),
                      ("01", 1, 1, "leading zeros are not allowed in numbers"),
                      ("\"\\ud800\"", 1, 2, "unpaired surrogate in `\\u` escape"),
                      ("99999999999999999999", 1, 1, "integer `99999999999999999999` does not fit in 64 bits"),
                      ("{} x", 1, 4, "unexpected text after the JSON value")])
    func jsonErrors(text: String, line: Int, column: Int, message: String) {
        #expect(throws: DocumentSyntaxError(message: message, line: line, column: column)) {
            try JSONReader.read(text)
        }
    }

    @Test("deep nesting is an error, not a crash")
    func deepNesting() {
        let text = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: DocumentSyntaxError.self) { try JSONReader.read(text) }
    }

    // MARK: Wrappers

    @Test("every __type__ wrapper decodes")
    func wrappers() throws {
        let file = try CaseFileLoader.decode(#"""
        {"rules": "x.rules", "service": "firestore", "cases": [{
          "name": "w", "path": "/databases/(default)/documents/a/b", "method": "create", "expect": "allow",
          "time": "2026-03-01T17:00:00.5+01:00",
          "requestResource": {
            "t": {"__type__": "timestamp", "value": "1970-01-01T00:00:01.000000002Z"},
            "d": {"__type__": "duration", "seconds": 90, "nanos": 5},
            "b": {"__type__": "bytes", "base64": "3q2-7w"},
            "l": {"__type__": "latlng", "latitude": 1, "longitude": -2.5},
            "p": {"__type__": "path", "value": "/a/b"},
            "f": {"__type__": "float", "value": 2},
            "r": {"__type__": "request_time"},
            "n": [1, 2.0, null, {"k": "v"}]
          }}]}
        """#, path: "dir/cases.json")
        #expect(file.rulesPath == "dir/x.rules")
        #expect(try CaseFileLoader.decode(#"{"rules": "../a/./b.rules", "service": "storage", "cases": []}"#, path: "x/y/c.json").rulesPath == "x/a/b.rules")
        #expect(try CaseFileLoader.decode(#"{"rules": "../../r.rules", "service": "storage", "cases": []}"#, path: "c.json").rulesPath == "../../r.rules")
        let testCase = try #require(file.cases.first)
        #expect(testCase.time == Timestamp(seconds: 1_772_380_800, nanos: 500_000_000))
        #expect(testCase.requestResource == .map([
            "t": .timestamp(Timestamp(seconds: 1, nanos: 2)),
            "d": .duration(seconds: 90, nanos: 5),
            "b": .bytes([0xDE, 0xAD, 0xBE, 0xEF]),
            "l": .latlng(latitude: 1, longitude: -2.5),
            "p": .path("/a/b"),
            "f": .float(2),
            "r": .requestTime,
            "n": .list([.int(1), .float(2), .null, .map(["k": .string("v")])]),
        ]))
    }

    @Test("defaults: no auth, default time, token.sub is the uid, unknown keys ignored")
    func defaults() throws {
        let file = try CaseFileLoader.decode("""
            rules: a.rules
            service: storage
            notes: ignored
            cases:
              - {name: a, path: /b/x/o/y, method: get, expect: deny, source: ignored}
              - {name: b, path: /b/x/o/y, method: get, expect: allow, auth: {uid: u1, token: {email: e}}}
            """, path: "cases.yaml")
        #expect(file.lookupMode == .database)
        #expect(file.cases[0].auth == nil)
        #expect(file.cases[0].time == .defaultRequestTime)
        #expect(file.cases[0].time.description == "2026-01-01T00:00:00Z")
        #expect(file.cases[1].auth?.token == ["email": .string("e"), "sub": .string("u1")])
        #expect(file.cases[0].resource == nil)
    }

    @Test("errors name the file and the case", arguments: [
        (#"{"name": "x", "path": "/databases/d/documents/a/b", "method": "read", "expect": "allow"}"#,
         "x", "`method` must be one of get, list, create, update, delete (`read` and `write` are not request methods)"),
        (#"{"name": "x", "path": "/databases/d/documents/a/b", "method": "get", "expect": "maybe"}"#,
         "x", "`expect` must be `allow` or `deny`"),
        (#"{"name": "x", "path": "/users/alice", "method": "get", "expect": "allow"}"#,
         "x", "a Firestore `path` is a full path such as `/databases/(default)/documents/users/alice`"),
        (#"{"name": "x", "path": "/databases/d/documents/a/b", "method": "get", "expect": "allow", "time": "yesterday"}"#,
         "x", "`time` must be an RFC 3339 date-time such as `2026-01-05T10:00:00Z`"),
        (#"{"name": "x", "path": "/databases/d/documents/a/b", "method": "get", "expect": "allow", "resource": {"t": {"__type__": "date"}}}"#,
         "x", "`resource.t` has an unknown `__type__`; use one of timestamp, duration, bytes, latlng, path, float, request_time"),
        (#"{"name": "x", "path": "/databases/d/documents/a/b", "method": "get", "expect": "allow", "resource": {"l": {"__type__": "latlng", "latitude": 91, "longitude": 0}}}"#,
         "x", "`resource.l`: latitude must be in [-90, 90] and longitude in [-180, 180]"),
        (#"{"name": "x", "path": "/databases/d/documents/a/b", "method": "get", "expect": "allow", "existing": {"/databases/d/documents/a": {}}}"#,
         "x", "`existing` key `/databases/d/documents/a` is not a full document path such as `/databases/(default)/documents/users/alice`"),
        (#"{"name": "x", "path": "/databases/d/documents/a/b", "method": "get", "expect": "allow", "resource": [1]}"#,
         "x", "`resource` must be null or a map of document fields"),
        (#"{"name": "x", "path": "/databases/d/documents/a/b", "method": "get", "expect": "allow", "auth": {"token": {}}}"#,
         "x", "`auth.uid` must be a non-empty string"),
        (#"{"path": "/databases/d/documents/a/b", "method": "get", "expect": "allow"}"#,
         "#1", "missing key `name` (a non-empty string)"),
        (#"{"name": "x", "path": "/databases/d/documents/a/b", "method": "create", "expect": "allow", "batch": {"path": "/databases/d/documents/c/d"}}"#,
         "x", "`batch` must be a list of writes `{path, method, data}`"),
        (#"{"name": "x", "path": "/databases/d/documents/a/b", "method": "create", "expect": "allow", "batch": [{"path": "/databases/d/documents/c", "method": "delete"}]}"#,
         "x", "`batch[0].path` must be a full document path such as `/databases/(default)/documents/users/alice`"),
        (#"{"name": "x", "path": "/databases/d/documents/a/b", "method": "create", "expect": "allow", "batch": [{"path": "/databases/d/documents/c/d", "method": "get"}]}"#,
         "x", "`batch[0].method` must be `create`, `update` or `delete`"),
        (#"{"name": "x", "path": "/databases/d/documents/a/b", "method": "create", "expect": "allow", "batch": [{"path": "/databases/d/documents/c/d", "method": "delete", "data": {}}]}"#,
         "x", "`batch[0].data` is not for a `delete`, which leaves no document"),
        (#"{"name": "x", "path": "/databases/d/documents/a/b", "method": "create", "expect": "allow", "batch": [{"path": "/databases/d/documents/c/d", "method": "update"}]}"#,
         "x", "`batch[0].data` must be a map of document fields (the document after the update)"),
        (#"{"name": "x", "path": "/databases/d/documents/a/b", "method": "create", "expect": "allow", "batch": [{"path": "/databases/d/documents/c/d", "method": "delete"}, {"path": "/databases/d/documents/a/b", "method": "delete"}]}"#,
         "x", "`batch[1].path` `/databases/d/documents/a/b` is written twice; a batch writes each document once and the case's own write is `path`"),
    ])
    func caseErrors(caseJSON: String, caseName: String, message: String) {
        let text = #"{"rules": "r.rules", "service": "firestore", "cases": ["# + caseJSON + "]}"
        #expect(throws: CaseFileError(file: "f.json", caseName: caseName, message: message)) {
            try CaseFileLoader.decode(text, path: "f.json")
        }
    }

    @Test("batch: the other writes of the request's batch, in order")
    func batchWrites() throws {
        let file = try CaseFileLoader.decode("""
            rules: r.rules
            service: firestore
            cases:
              - name: x
                path: /databases/d/documents/users/alice
                method: create
                requestResource: {displayName: Alice}
                expect: allow
                batch:
                  - {path: /databases/d/documents/names/alice, method: create, data: {userId: alice}}
                  - {path: /databases/d/documents/names/old, method: delete, data: null}
            """, path: "f.yaml")
        let testCase = try #require(file.cases.first)
        #expect(testCase.batch == [
            BatchWrite(path: "/databases/d/documents/names/alice", method: .create, data: .map(["userId": .string("alice")])),
            BatchWrite(path: "/databases/d/documents/names/old", method: .delete),
        ])
        #expect(testCase.request(service: .firestore).isBatched)
        let lookup = CaseDocumentLookup(testCase: testCase, mode: .mocksOnly)
        #expect(lookup.lookup(path: "/databases/d/documents/names/alice", afterWrite: true) == .document(["userId": .string("alice")]))
        #expect(lookup.lookup(path: "/databases/d/documents/names/old", afterWrite: true) == .missing)
        guard case .failure = lookup.lookup(path: "/databases/d/documents/names/alice", afterWrite: false) else {
            Issue.record("the batch's writes must not be seen before the write")
            return
        }
    }

    @Test("batch is for Firestore cases only")
    func batchInStorage() {
        let text = #"{"rules": "r", "service": "storage", "cases": [{"name": "a", "path": "/b/x/o/y", "method": "create", "expect": "allow", "batch": []}]}"#
        #expect(throws: CaseFileError(file: "f.json", caseName: "a", message: "`batch` is for Firestore cases; Storage has no batched writes")) {
            try CaseFileLoader.decode(text, path: "f.json")
        }
    }

    @Test("`requestResource` on a get, list or delete is kept as given, never refused", arguments: ["get", "list", "delete"])
    func requestResourceOnReadsAndDeletes(method: String) throws {
        let text = #"{"rules": "r.rules", "service": "firestore", "cases": [{"name": "x", "path": "/databases/d/documents/a/b", "#
            + #""method": ""# + method + #"", "expect": "allow", "requestResource": {"k": 1}}]}"#
        let file = try CaseFileLoader.decode(text, path: "f.json")
        #expect(file.cases.map(\.requestResource) == [.map(["k": .int(1)])])
        #expect(file.cases[0].request(service: .firestore).requestResource == .map(["k": .int(1)]))
    }

    @Test("duplicate case names are an error")
    func duplicateNames() {
        let text = #"{"rules": "r", "service": "storage", "cases": [{"name": "a", "path": "/b/x/o/y", "method": "get", "expect": "allow"}, {"name": "a", "path": "/b/x/o/y", "method": "get", "expect": "allow"}]}"#
        #expect(throws: CaseFileError(file: "f.json", caseName: "a", message: "another case in this file has the same name")) {
            try CaseFileLoader.decode(text, path: "f.json")
        }
    }

    @Test("RFC 3339 parsing (the engine's parser, used for `time` and timestamp wrappers)", arguments: [
        ("1970-01-01T00:00:00Z", Timestamp(seconds: 0)),
        ("2026-01-05T12:00:00+02:00", Timestamp(seconds: 1_767_607_200)),
        ("2024-02-29t23:59:59.999999999z", Timestamp(seconds: 1_709_251_199, nanos: 999_999_999)),
        ("1969-12-31T23:59:59.5-00:00", Timestamp(seconds: -1, nanos: 500_000_000)),
    ])
    func rfc3339(text: String, expected: Timestamp) {
        #expect(Timestamp(rfc3339: text) == expected)
    }

    @Test("invalid RFC 3339 is rejected", arguments: [
        "2026-02-29T00:00:00Z", "2026-01-05T24:00:00Z", "2026-01-05T10:00:00", "2026-01-05", "2026-01-05T10:00:00.Z",
        "2026-1-5T10:00:00Z", "2026-13-01T00:00:00Z", "2026-01-05T10:00:00+2:00",
    ])
    func rfc3339Invalid(text: String) {
        #expect(Timestamp(rfc3339: text) == nil)
    }

    @Test("timestamps print back as RFC 3339 UTC")
    func timestampDescription() throws {
        let instant = try #require(Timestamp(rfc3339: "2026-03-01T17:00:00.120+01:00"))
        #expect(instant.description == "2026-03-01T16:00:00.12Z")
        #expect(Timestamp(seconds: -1).description == "1969-12-31T23:59:59Z")
    }
}
