import Foundation
import RulesLanguage
import Testing
@testable import RulesVerification

@Suite("the evaluator's limits: they only deny, so proofs stand and witnesses are replayed")
struct LimitTests {
    /// Eleven lookups in one `||` chain: the eleventh is past the limit of 10 for one request.
    static let rules: String = {
        let lookups = (1...11).map { "exists(/databases/$(database)/documents/flags/f\($0))" }.joined(separator: " || ")
        return """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                match /items/{id} {
                  allow get: if request.auth != null && (\(lookups));
                }
              }
            }
            """
    }()

    func property(_ kind: String, _ condition: String) -> String {
        """
        {"name": "p", "path": "/databases/{database}/documents/items/{id}", "methods": ["get"], "kind": "\(kind)",
         "condition": "\(condition)"}
        """
    }

    @Test("a proof over rules that may pass the lookup limit holds")
    func proofStands() throws {
        let result = try verifyOne(Self.rules, property("only-if", "request.auth != null"))
        #expect(result.verdict == .holds, "\(result.reason ?? "")")
    }

    @Test("a witness within the limit is shown")
    func witnessWithinLimit() throws {
        let result = try verifyOne(Self.rules, property("possible", "exists(/databases/$(database)/documents/flags/f1)"))
        #expect(result.verdict == .holds, "\(result.reason ?? "")")
        #expect(result.witness?.contains("/documents/flags/f1") == true)
    }

    @Test("a request only the eleventh lookup would allow is never a witness: unknown, naming the limit")
    func witnessBeyondLimit() throws {
        let missing = (1...10).map { "!exists(/databases/$(database)/documents/flags/f\($0))" }.joined(separator: " && ")
        let result = try verifyOne(Self.rules, property("possible", missing))
        #expect(result.verdict == .unknown)
        #expect(result.witness == nil)
        #expect(result.reason?.contains("RL3011") == true, "\(result.reason ?? "")")
    }
}
