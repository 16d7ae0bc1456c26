import Foundation
import RulesLanguage
import RulesTesting
import Testing
@testable import RulesVerification

/// `lower()`/`upper()` of computed strings beyond ASCII are not encoded (Z3 4.8 has no
/// per-character string map, and a regex of the code points the mapping leaves alone made these
/// queries 60 times slower): a witness that needs them is `unknown`, with the construct and its
/// location, never a wrong verdict.
@Suite("lower() and upper() beyond ASCII")
struct CaseMappingTests {
    static func rules(_ condition: String) -> String {
        """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /names/{id} {
              allow get: if \(condition);
            }
          }
        }
        """
    }

    static let get = "{\"name\": \"p\", \"path\": \"/databases/{database}/documents/names/{id}\", \"methods\": [\"get\"], \"kind\": \"possible\"}"

    @Test("a name whose lower()/upper() is non-ASCII: unknown, naming the construct and its location", arguments: [
        ("id.lower() == 'élise'", "lower"), ("id.upper() == 'ÉLISE'", "upper"), ("id.lower() == 'straße' && id.size() == 6", "lower"),
    ])
    func nonASCIIUnknown(condition: String, name: String) throws {
        let result = try verifyOne(Self.rules(condition), Self.get)
        #expect(result.verdict == .unknown)
        #expect(result.witness == nil)
        #expect(result.reason?.contains("\(name)() beyond ASCII at test.rules:5:21") == true, "\(result.reason ?? "")")
    }
}
