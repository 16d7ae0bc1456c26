import Foundation
import RulesCases
import RulesLanguage
@testable import RulesVerification
import Testing

@Suite("`{x=**}` in property paths: every length of the rest")
struct RecursivePathTests {
    /// Rules with a private subtree under each profile and a public tree; `version` is the
    /// `rules_version` line (empty for version 1).
    static func rules(version: String = "rules_version = '2';") -> String {
        """
        \(version)
        service cloud.firestore {
          match /databases/{database}/documents {
            match /users/{userId} {
              allow read, write: if request.auth != null && request.auth.uid == userId;
              match /private/{doc=**} {
                allow read, write: if request.auth != null && request.auth.uid == userId;
              }
            }
            match /public/{doc=**} {
              allow get: if doc[0] != 'hidden';
            }
          }
        }
        """
    }

    func verdict(_ rules: String, _ property: String) throws -> PropertyResult {
        try verifyOne(rules, property)
    }

    /// The request path of a witness.
    func witnessPath(_ result: PropertyResult) throws -> String {
        let witness = try #require(result.witness)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(witness.utf8)) as? [String: Any])
        return try #require(object["path"] as? String)
    }

    @Test("the shapes cover every length once: 1…head+tail spelled out, then a gap")
    func shapes() throws {
        let program = try compile(Self.rules())
        let file = try properties(propertyFile(["""
            {"name": "p", "path": "/databases/{database}/documents/users/{userId}/{rest=**}", "methods": ["get"], "kind": "never"}
            """]))
        let shapes = PathShape.shapes(for: file.properties[0], rules: program.file)
        // Longest prefix before a `**` is 6 (databases … private); the property spells out 5.
        #expect(shapes.map(\.rest) == [.segments(1), .segments(2), .long(head: 1, tail: 1)])
    }

    @Test("only-if holds over every depth below a profile")
    func onlyIfHoldsAtEveryDepth() throws {
        let result = try verdict(Self.rules(), """
            {"name": "only the owner touches anything below a profile",
             "path": "/databases/{database}/documents/users/{userId}/{rest=**}",
             "methods": ["get", "list", "create", "update", "delete"], "kind": "only-if",
             "condition": "request.auth != null && request.auth.uid == userId"}
            """)
        #expect(result.verdict == .holds, "\(result.reason ?? "") \(result.witness ?? "")")
    }

    @Test("the rest variable is a path: comparable with request.path and indexable")
    func restIsAPath() throws {
        let result = try verdict(Self.rules(), """
            {"name": "rest is the rest", "path": "/databases/{database}/documents/public/{rest=**}", "methods": ["get"],
             "kind": "only-if",
             "condition": "rest is path && request.path == /databases/$(database)/documents/public/$(rest) && rest[0] != 'hidden'"}
            """)
        #expect(result.verdict == .holds, "\(result.reason ?? "") \(result.witness ?? "")")
    }

    @Test("never is violated with a witness below a recursive wildcard")
    func neverViolated() throws {
        let result = try verdict(Self.rules(), """
            {"name": "nothing is deleted", "path": "/databases/{database}/documents/{rest=**}", "methods": ["delete"], "kind": "never"}
            """)
        #expect(result.verdict == .violated)
        #expect(try witnessPath(result).hasPrefix("/databases/(default)/documents/users/"))
    }

    @Test("possible finds a deep witness whose rest satisfies the condition")
    func possibleDeep() throws {
        let result = try verdict(Self.rules(), """
            {"name": "a deep public read", "path": "/databases/{database}/documents/public/{rest=**}", "methods": ["get"],
             "kind": "possible", "condition": "rest == /a/b/c"}
            """)
        #expect(result.verdict == .holds)
        #expect(try witnessPath(result) == "/databases/(default)/documents/public/a/b/c")
    }

    @Test("a rest longer than the spelled-out lengths is found through the gap")
    func possibleThroughTheGap() throws {
        let program = try compile(Self.rules())
        let property = """
            {"name": "six deep", "path": "/databases/{database}/documents/public/{rest=**}", "methods": ["get"],
             "kind": "possible", "condition": "rest == /a/b/c/d/e/f"}
            """
        let file = try properties(propertyFile([property]))
        // Up to three segments are spelled out; six are only reached through the gap.
        #expect(PathShape.shapes(for: file.properties[0], rules: program.file).map(\.rest)
                == [.segments(1), .segments(2), .segments(3), .long(head: 2, tail: 1)])
        let result = try verdict(Self.rules(), property)
        #expect(result.verdict == .holds, "\(result.reason ?? "")")
        #expect(try witnessPath(result) == "/databases/(default)/documents/public/a/b/c/d/e/f")
    }

    @Test("version 2: `{doc=**}` matches zero segments; version 1: one or more")
    func recursiveSemanticsByVersion() throws {
        let property = """
            {"name": "the private collection itself", "path": "/databases/{database}/documents/users/{userId}/{rest=**}",
             "methods": ["get"], "kind": "possible", "condition": "rest == /private"}
            """
        let version2 = try verdict(Self.rules(), property)
        #expect(version2.verdict == .holds)
        #expect(try witnessPath(version2).hasSuffix("/private"))
        // Version 1: `/users/u/private` matches no block, so the property is proven impossible.
        let version1 = try verdict(Self.rules(version: ""), property)
        #expect(version1.verdict == .violated, "\(version1.reason ?? "") \(version1.witness ?? "")")
    }

    @Test("a pattern that reaches into the unspelled segments gives unknown, naming it")
    func patternIntoTheGap() throws {
        // Two recursive wildcards in one chain: where the first ends inside a long rest is not
        // spelled out. Only a read that the rules never allow is over-approximated.
        let rules = """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                match /{a=**} {
                  match /x/{b=**} {
                    allow get: if false;
                  }
                }
              }
            }
            """
        let result = try verdict(rules, """
            {"name": "nothing is read", "path": "/databases/{database}/documents/{rest=**}", "methods": ["get"], "kind": "never"}
            """)
        #expect(result.verdict == .unknown)
        #expect(result.reason?.contains("a match pattern that reaches into the segments of `{rest=**}` at test.rules:5:") == true,
                "\(result.reason ?? "")")
        #expect(result.witness == nil)
    }

    @Test("a catch-all `{document=**}` that grants too much is caught at any depth")
    func catchAllHole() throws {
        let hole = """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                match /users/{userId} {
                  allow read, write: if request.auth != null && request.auth.uid == userId;
                }
                match /{document=**} {
                  allow read: if request.auth != null;
                }
              }
            }
            """
        let property = """
            {"name": "only the owner reads below a profile", "path": "/databases/{database}/documents/users/{userId}/{rest=**}",
             "methods": ["get"], "kind": "only-if", "condition": "request.auth != null && request.auth.uid == userId"}
            """
        let result = try verdict(hole, property)
        #expect(result.verdict == .violated)
        #expect(try witnessPath(result).contains("/documents/users/"))
        let intact = try verdict(hole.replacingOccurrences(of: "allow read: if request.auth != null;", with: "allow read: if false;"), property)
        #expect(intact.verdict == .holds, "\(intact.reason ?? "")")
    }
}
