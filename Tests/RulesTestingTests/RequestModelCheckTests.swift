import Testing
import RulesLanguage
@testable import RulesTesting

/// A case that states a request production never makes is an `RL4001` error at the value that
/// breaks the request model, in JSON and in YAML.
@Suite("Case files: the request model")
struct RequestModelCheckTests {
    static let code = RulesLanguageCodes.impossibleRequest.id

    static func storage(_ resourceKey: String, _ fields: String) -> String {
        """
        {"rules": "s.rules", "service": "storage", "cases": [
          {"name": "fine", "path": "/b/bkt/o/a/b.png", "method": "get", "resource": {"size": 0, "name": "a/b.png", "bucket": "bkt"}, "expect": "allow"},
          {"name": "bad", "path": "/b/bkt/o/a/b.png", "method": "create",
           "\(resourceKey)": \(fields), "expect": "deny"}
        ]}
        """
    }

    @Test("Storage: a negative size, a name that is not the object path, a bucket that is not the bucket segment",
          arguments: [
            ("resource", #"{"size": -1}"#, 4, 17, "`resource.size` is negative; an object's size is its length in bytes, at least 0"),
            ("requestResource", #"{"size": 10, "name": "a/c.png"}"#, 4, 36, "`requestResource.name` is not the object's path after `/o/` (`a/b.png`)"),
            ("resource", #"{"bucket": "other"}"#, 4, 17, "`resource.bucket` is not the path's bucket segment (`bkt`)"),
            ("requestResource", #"{"size": {"__type__": "float", "value": -0.5}}"#, 4, 24, "`requestResource.size` is negative; an object's size is its length in bytes, at least 0"),
          ])
    func storage(key: String, fields: String, line: Int, column: Int, message: String) throws {
        #expect(throws: CaseFileError(file: "f.json:\(line):\(column)", caseName: "bad", message: message, code: Self.code)) {
            try CaseFileLoader.decode(Self.storage(key, fields), path: "f.json")
        }
    }

    @Test("Storage: what production has loads (sizes from 0, the path's own name and bucket, other types left to the rules)")
    func storageFine() throws {
        let file = try CaseFileLoader.decode(Self.storage("requestResource", #"{"size": "100", "name": "a/b.png", "bucket": "bkt"}"#), path: "f.json")
        #expect(file.cases.count == 2)
    }

    @Test("Firestore: a resource named (`__name__`) other than the request path; an explicit resource still wins over existing")
    func firestoreResource() throws {
        let text = """
            rules: f.rules
            service: firestore
            cases:
              - name: explicit
                path: /databases/(default)/documents/c/d
                method: get
                resource: {a: 1, __name__: /databases/(default)/documents/c/d}
                existing: {/databases/(default)/documents/c/d: {a: 2}}
                expect: allow
              - name: other
                path: /databases/(default)/documents/c/d
                method: update
                requestResource: {a: 1, __name__: /databases/(default)/documents/c/e}
                expect: allow
            """
        let message = "`requestResource.__name__` is not the case's `path` (`/databases/(default)/documents/c/d`): a resource is the document at the request path"
        let error = CaseFileError(file: "f.yaml:13:29", caseName: "other", message: message, code: Self.code)
        #expect(throws: error) { try CaseFileLoader.decode(text, path: "f.yaml") }
        #expect(error.description == "f.yaml:13:29: case \"other\": error[RL4001]: " + message)
    }

    @Test("YAML: the negative size is located at its key")
    func yamlSize() throws {
        let text = "rules: s.rules\nservice: storage\ncases:\n  - name: bad\n    path: /b/bkt/o/x\n    method: get\n    resource: {size: -5}\n    expect: deny\n"
        #expect(throws: CaseFileError(file: "f.yml:7:16", caseName: "bad", message: "`resource.size` is negative; an object's size is its length in bytes, at least 0", code: Self.code)) {
            try CaseFileLoader.decode(text, path: "f.yml")
        }
    }
}
