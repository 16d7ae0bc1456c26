import Foundation
import RulesLanguage
import RulesTesting
import Testing
@testable import RulesVerification

/// What production guarantees about a request holds in the encoding: a Storage object's size is
/// a non-negative integer, and its `name` and `bucket` come from the path.
@Suite("the request model")
struct RequestModelTests {
    static let rules = """
        rules_version = '2';
        service firebase.storage {
          match /b/{bucket}/o {
            match /files/{file} {
              allow get: if resource.size < 10;
              allow create: if request.resource.size < 10 && request.resource.size != 3;
            }
          }
        }
        """

    func property(_ methods: String, _ kind: String, _ condition: String) -> String {
        "{\"name\": \"p\", \"path\": \"/b/{bucket}/o/files/{file}\", \"methods\": [\(methods)], \"kind\": \"\(kind)\", \"condition\": \"\(condition)\"}"
    }

    @Test("an allowed request's object size is a non-negative integer (no witness has a negative size)")
    func sizeNonNegative() throws {
        for method in ["\"get\"", "\"create\""] {
            let object = method == "\"get\"" ? "resource" : "request.resource"
            let result = try verifyOne(Self.rules, property(method, "only-if", "\(object).size is int && \(object).size >= 0"), service: "storage")
            #expect(result.verdict == .holds, "\(method): \(result.reason ?? "") \(result.witness ?? "")")
        }
    }

    @Test("the sizes the rules allow are exactly 0 to 9 but 3: a witness for each end")
    func sizeWitnesses() throws {
        let zero = try verifyOne(Self.rules, property("\"create\"", "possible", "request.resource.size == 0"), service: "storage")
        #expect(zero.verdict == .holds)
        #expect(zero.witness?.contains("\"size\": 0") == true, "\(zero.witness ?? "")")
        let three = try verifyOne(Self.rules, property("\"create\"", "possible", "request.resource.size == 3"), service: "storage")
        #expect(three.verdict == .violated)
        let nine = try verifyOne(Self.rules, property("\"create\"", "only-if", "request.resource.size <= 9"), service: "storage")
        #expect(nine.verdict == .holds)
    }

    @Test("a Storage object's name and bucket are its path after /o/ and the bucket segment")
    func nameAndBucket() throws {
        let result = try verifyOne(Self.rules, property("\"get\"", "only-if", "resource.name == 'files/' + file && resource.bucket == bucket"), service: "storage")
        #expect(result.verdict == .holds, "\(result.reason ?? "")")
    }
}
