import Foundation
import RulesLanguage
import RulesTesting
import Testing
@testable import RulesVerification

/// Maps read at a computed key: `m[k]`, `k in m`, `m.get(k, d)` (the role-based pattern of
/// Firebase's docs).
@Suite("maps read at a computed key")
struct ComputedKeyTests {
    static let rules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /docs/{docId} {
              allow update: if resource.data.roles[request.auth.uid] in ['owner', 'writer'];
              allow delete: if resource.data.members is map && request.auth.uid in resource.data.members
                && request.auth.uid == 'bob' && !('bob' in resource.data.members);
              allow get: if resource.data.teams[request.auth.uid].role == 'admin';
              allow list: if resource.data.roles.get(request.auth.uid, 'none') != 'none';
              allow create: if {'alice': 'owner', 'carol': 'writer'}[request.auth.uid] == 'owner';
            }
          }
        }
        """

    func property(_ methods: String, _ kind: String, _ condition: String?) -> String {
        let condition = condition.map { ", \"condition\": \"\($0)\"" } ?? ""
        return "{\"name\": \"p\", \"path\": \"/databases/{database}/documents/docs/{docId}\", \"methods\": [\(methods)], \"kind\": \"\(kind)\"\(condition)}"
    }

    @Test("a role read at the user's uid grants, with a witness that replays")
    func rolePossible() throws {
        let result = try verifyOne(Self.rules, property("\"update\"", "possible", "request.auth != null"))
        #expect(result.verdict == .holds, "\(result.reason ?? "")")
        let witness = try #require(result.witness)
        #expect(witness.contains("\"roles\""), "\(witness)")
    }

    @Test("the entry a computed key reads is the entry of the literal key it equals")
    func roleAliasesLiteralKey() throws {
        let result = try verifyOne(Self.rules, property("\"update\"", "only-if", "request.auth.uid != 'alice' || resource.data.roles['alice'] != 'reader'"))
        #expect(result.verdict == .holds, "\(result.reason ?? "")")
    }

    @Test("a role read at the uid is no proof of another user's role: violated, with a witness")
    func roleOtherUser() throws {
        let result = try verifyOne(Self.rules, property("\"update\"", "only-if", "resource.data.roles['alice'] == 'owner'"))
        #expect(result.verdict == .violated, "\(result.reason ?? "")")
        #expect(result.witness != nil)
    }

    @Test("`in` with a computed key agrees with `in` with the literal key it equals")
    func inComputedKey() throws {
        let result = try verifyOne(Self.rules, property("\"delete\"", "never", nil))
        #expect(result.verdict == .holds, "\(result.reason ?? "")")
    }

    @Test("a field of a map read at a computed key: nested maps are one map")
    func nestedRead() throws {
        let possible = try verifyOne(Self.rules, property("\"get\"", "possible", "request.auth.uid == 'dave'"))
        #expect(possible.verdict == .holds, "\(possible.reason ?? "")")
        #expect(possible.witness != nil)
        let onlyIf = try verifyOne(Self.rules, property("\"get\"", "only-if", "request.auth.uid != 'dave' || resource.data.teams.dave.role == 'admin'"))
        #expect(onlyIf.verdict == .holds, "\(onlyIf.reason ?? "")")
    }

    @Test("map.get() with a computed key")
    func getComputedKey() throws {
        let result = try verifyOne(Self.rules, property("\"list\"", "only-if", "request.auth.uid in resource.data.roles"))
        #expect(result.verdict == .holds, "\(result.reason ?? "")")
    }

    @Test("a literal map read at a computed key")
    func literalMap() throws {
        let result = try verifyOne(Self.rules, property("\"create\"", "only-if", "request.auth.uid == 'alice'"))
        #expect(result.verdict == .holds, "\(result.reason ?? "")")
    }

    @Test("two documents with the same other keys agree on a computed key")
    func equalMapsAgree() throws {
        let rules = """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                match /docs/{docId} {
                  allow update: if request.resource.data.roles == resource.data.roles
                    && resource.data.roles[request.auth.uid] == 'owner'
                    && request.resource.data.roles[request.auth.uid] != 'owner';
                }
              }
            }
            """
        let result = try verifyOne(rules, property("\"update\"", "never", nil))
        #expect(result.verdict == .holds, "\(result.reason ?? "")")
    }

    @Test("`in` on a map's keys() with a computed key")
    func inKeysComputed() throws {
        let rules = """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                match /docs/{docId} {
                  allow get: if request.auth.uid in resource.data.members.keys() && resource.data.members.keys().hasOnly(['alice', 'bob']);
                }
              }
            }
            """
        let onlyIf = try verifyOne(rules, property("\"get\"", "only-if", "request.auth.uid == 'alice' || request.auth.uid == 'bob'"))
        #expect(onlyIf.verdict == .holds, "\(onlyIf.reason ?? "")")
        let possible = try verifyOne(rules, property("\"get\"", "possible", "request.auth.uid == 'bob'"))
        #expect(possible.verdict == .holds, "\(possible.reason ?? "")")
        #expect(possible.witness?.contains("\"bob\"") == true)
    }

    @Test("a Storage metadata map read at a computed key")
    func storageMetadata() throws {
        let rules = """
            rules_version = '2';
            service firebase.storage {
              match /b/{bucket}/o {
                match /files/{file} {
                  allow get: if resource.metadata[request.auth.uid] == 'reader';
                }
              }
            }
            """
        let property = "{\"name\": \"p\", \"path\": \"/b/{bucket}/o/files/{file}\", \"methods\": [\"get\"], \"kind\": \"possible\", \"condition\": \"request.auth.uid == 'erin'\"}"
        let result = try verifyOne(rules, property, service: "storage")
        #expect(result.verdict == .holds, "\(result.reason ?? "")")
        #expect(result.witness != nil)
    }
}
