// RequestModelCheck: the facts production guarantees about a request, checked on each case of a
// case file: a Storage object's size is not negative, its `name` is the path after `/o/` and its
// `bucket` the bucket segment; a Firestore `resource` is the document at the case's `path` (a
// `__name__` field naming another document is not).
import RulesLanguage

/// A case that states a request production never makes (`RL4001`).
struct RequestModelProblem {
    var caseName: String
    /// Where in the file: `cases`, the case's index, then keys.
    var at: [DocumentStep]
    var message: String
}

enum RequestModelCheck {
    /// The first case of `file` that breaks the request model, or nil.
    static func firstProblem(in file: RulesCaseFile) -> RequestModelProblem? {
        for (index, testCase) in file.cases.enumerated() {
            let at: [DocumentStep] = [.key("cases"), .index(index)]
            if let (key, message) = problem(testCase, service: file.service) {
                return RequestModelProblem(caseName: testCase.name, at: at + key, message: message)
            }
        }
        return nil
    }

    private static func problem(_ testCase: RulesTestCase, service: CaseService) -> ([DocumentStep], String)? {
        switch service {
        case .storage:
            // `/b/{bucket}/o/{object}`: the decoder checked the first three segments.
            let segments = testCase.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
            let bucket = segments.count > 1 ? segments[1] : ""
            let name = segments.dropFirst(3).joined(separator: "/")
            for (key, object) in [("resource", testCase.resource), ("requestResource", testCase.requestResource)] {
                guard case .map(let fields)? = object else { continue }
                if let size = fields["size"], isNegative(size) {
                    return ([.key(key), .key("size")], "`\(key).size` is negative; an object's size is its length in bytes, at least 0")
                }
                if let value = fields["name"], value != .string(name) {
                    return ([.key(key), .key("name")], "`\(key).name` is not the object's path after `/o/` (`\(name)`)")
                }
                if let value = fields["bucket"], value != .string(bucket) {
                    return ([.key(key), .key("bucket")], "`\(key).bucket` is not the path's bucket segment (`\(bucket)`)")
                }
            }
        case .firestore:
            // The runner names `resource` and `request.resource` by `path` (`__name__`); a field
            // `__name__` (a name Firestore reserves) naming another document states a resource
            // that is not the one at `path`.
            for (key, document) in [("resource", testCase.resource), ("requestResource", testCase.requestResource)] {
                guard case .map(let fields)? = document, let name = fields["__name__"] else { continue }
                guard name != .string(testCase.path), name != .path(testCase.path) else { continue }
                return ([.key(key), .key("__name__")], "`\(key).__name__` is not the case's `path` (`\(testCase.path)`): a resource is the document at the request path")
            }
        }
        return nil
    }

    private static func isNegative(_ value: CaseValue) -> Bool {
        switch value {
        case .int(let n): n < 0
        case .float(let x): x < 0
        default: false
        }
    }
}
