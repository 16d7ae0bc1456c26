import Foundation
import RulesCases
import RulesLanguage
@testable import RulesVerification
import Testing

@Suite("verdicts on small rulesets")
struct VerifierTests {
    static let ownerRules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /notes/{userId} {
              allow read: if request.auth != null && request.auth.uid == userId;
              allow create: if request.auth != null && request.resource.data.owner == request.auth.uid;
              allow delete: if resource.data.owner == request.auth.uid || request.auth.token.admin == true;
            }
          }
        }
        """

    func verdict(_ rules: String, _ property: String, service: String = "firestore") throws -> PropertyResult {
        try verifyOne(rules, property, service: service, timeout: 30)
    }

    @Test("only-if holds when every allowed request satisfies the condition")
    func onlyIfHolds() throws {
        let result = try verdict(Self.ownerRules, """
            {"name": "owner reads", "path": "/databases/{database}/documents/notes/{userId}", "methods": ["get", "list"],
             "kind": "only-if", "condition": "request.auth.uid == userId"}
            """)
        #expect(result.verdict == .holds)
        #expect(result.witness == nil)
        #expect(result.passed)
    }

    @Test("only-if is violated with a witness when some allowed request breaks it")
    func onlyIfViolated() throws {
        let result = try verdict(Self.ownerRules, """
            {"name": "owner creates", "path": "/databases/{database}/documents/notes/{userId}", "methods": ["create"],
             "kind": "only-if", "condition": "request.auth.uid == userId"}
            """)
        #expect(result.verdict == .violated)
        let witness = try #require(result.witness)
        #expect(witness.contains("\"method\": \"create\""))
        #expect(witness.contains("\"expect\": \"allow\""))
        #expect(!result.passed)
    }

    @Test("error absorption: an error on one side of || does not deny when the other side is true")
    func errorAbsorption() throws {
        // Signed out, `resource.data.owner == request.auth.uid` errors; the admin claim cannot be
        // read either, so a signed-out delete is denied: only-if signed-in holds.
        let signedIn = try verdict(Self.ownerRules, """
            {"name": "deletes are signed in", "path": "/databases/{database}/documents/notes/{userId}", "methods": ["delete"],
             "kind": "only-if", "condition": "request.auth != null"}
            """)
        #expect(signedIn.verdict == .holds)
        // An admin deletes a note whose document has no `owner`: the left side errors, the right is true.
        let admin = try verdict(Self.ownerRules, """
            {"name": "admin deletes an ownerless note", "path": "/databases/{database}/documents/notes/{userId}", "methods": ["delete"],
             "kind": "possible", "condition": "resource != null && !('owner' in resource.data)"}
            """)
        #expect(admin.verdict == .holds)
        #expect(admin.witness?.contains("\"admin\": true") == true)
    }

    @Test("never holds for an ungranted method and is violated for a granted one")
    func never() throws {
        let update = try verdict(Self.ownerRules, """
            {"name": "no updates", "path": "/databases/{database}/documents/notes/{userId}", "methods": ["update"], "kind": "never"}
            """)
        #expect(update.verdict == .holds)
        let read = try verdict(Self.ownerRules, """
            {"name": "no reads", "path": "/databases/{database}/documents/notes/{userId}", "methods": ["get"], "kind": "never",
             "expect": "violated"}
            """)
        #expect(read.verdict == .violated)
        #expect(read.passed)
    }

    @Test("possible is violated when no allowed request satisfies the condition")
    func possibleViolated() throws {
        let result = try verdict(Self.ownerRules, """
            {"name": "a stranger reads", "path": "/databases/{database}/documents/notes/{userId}", "methods": ["get"],
             "kind": "possible", "condition": "request.auth != null && request.auth.uid != userId"}
            """)
        #expect(result.verdict == .violated)
        #expect(result.witness == nil)
    }

    @Test("get() is a function of the path: the same path gives the same document")
    func lookupsAreConsistent() throws {
        let rules = """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                match /posts/{id} {
                  allow create: if get(/databases/$(database)/documents/admins/$(request.auth.uid)).data.on == true
                      && get(/databases/$(database)/documents/admins/$(request.auth.uid)).data.on == false;
                  allow update: if exists(/databases/$(database)/documents/admins/$(request.auth.uid));
                }
              }
            }
            """
        let never = try verdict(rules, """
            {"name": "contradictory lookups never grant", "path": "/databases/{database}/documents/posts/{id}", "methods": ["create"], "kind": "never"}
            """)
        #expect(never.verdict == .holds)
        let admin = try verdict(rules, """
            {"name": "admins update", "path": "/databases/{database}/documents/posts/{id}", "methods": ["update"], "kind": "possible"}
            """)
        #expect(admin.verdict == .holds)
        #expect(admin.witness?.contains("/documents/admins/") == true)
    }

    @Test("getAfter() of the request's own path sees the write")
    func getAfterSeesOwnWrite() throws {
        let rules = """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                match /items/{id} {
                  allow create: if getAfter(/databases/$(database)/documents/items/$(id)).data.n == 1;
                }
              }
            }
            """
        let result = try verdict(rules, """
            {"name": "created items have n == 1", "path": "/databases/{database}/documents/items/{id}", "methods": ["create"],
             "kind": "only-if", "condition": "request.resource.data.n == 1"}
            """)
        #expect(result.verdict == .holds)
    }

    @Test("a construct the encoding does not model gives unknown with the construct and file:line:column")
    func unmodelled() throws {
        let rules = """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                match /x/{id} {
                  allow get: if hashing.sha256(request.auth.uid) == b'\\x01';
                }
              }
            }
            """
        let result = try verdict(rules, """
            {"name": "no reads", "path": "/databases/{database}/documents/x/{id}", "methods": ["get"], "kind": "never"}
            """)
        #expect(result.verdict == .unknown)
        let reason = try #require(result.reason)
        #expect(reason.contains("`hashing.sha256()` at test.rules:5:"), "\(reason)")
    }

    /// `ownerRules` compiled, and a file whose one property is `owner <method>s only their note`.
    func ownerProperty(_ method: String) throws -> (Program, PropertyFile) {
        let program = try compile(Self.ownerRules)
        let file = try properties(propertyFile(["""
            {"name": "owner \(method)s", "path": "/databases/{database}/documents/notes/{userId}", "methods": ["\(method)"],
             "kind": "only-if", "condition": "request.auth.uid == userId"}
            """]))
        return (program, file)
    }

    @Test("running out of solver time gives unknown with a timeout reason")
    func timeout() throws {
        let (program, file) = try ownerProperty("get")
        // A budget below the verifier's 50 ms floor: no solver call is made.
        let result = RulesVerifier(timeout: 0.01).verify(file.properties[0], in: file, program: program)
        #expect(result.verdict == .unknown)
        #expect(result.reason?.hasPrefix("timeout after") == true, "\(result.reason ?? "")")
    }

    @Test("running out of solver resources gives unknown with a VF2002 reason, whatever the time left")
    func resourceLimit() throws {
        let (program, file) = try ownerProperty("create")
        // Violated with a witness by default (see onlyIfViolated); with 100 units, no answer.
        var verifier = RulesVerifier(timeout: 600)
        verifier.solverResourceLimit = 100
        let result = verifier.verify(file.properties[0], in: file, program: program)
        #expect(result.verdict == .unknown)
        #expect(result.reason == "VF2002 a solver query needs more than 100 units of Z3's resource limit (rlimit)")
    }

    @Test("the same property gets the same witness every time")
    func sameWitness() throws {
        let (program, file) = try ownerProperty("create")
        let witnesses = (0..<3).map { _ in RulesVerifier(timeout: 600).verify(file.properties[0], in: file, program: program).witness }
        #expect(witnesses[0] != nil)
        #expect(Set(witnesses).count == 1, "\(witnesses)")
    }

    @Test("a recursive wildcard in a property path covers every depth")
    func recursivePropertyPath() throws {
        let result = try verdict(Self.ownerRules, """
            {"name": "anything", "path": "/databases/{database}/documents/{rest=**}", "methods": ["get"], "kind": "never"}
            """)
        // The owner reads a note: a `never` over every path is violated, at the notes' depth.
        #expect(result.verdict == .violated)
        #expect(result.witness?.contains("/documents/notes/") == true)
    }

    @Test("Storage: size, contentType and the object name from the path")
    func storage() throws {
        let rules = """
            rules_version = '2';
            service firebase.storage {
              match /b/{bucket}/o {
                match /uploads/{file} {
                  allow create: if request.resource.size < 1024 && request.resource.contentType.matches('text/.*')
                      && request.resource.name == 'uploads/' + file;
                }
              }
            }
            """
        let small = try verdict(rules, """
            {"name": "small", "path": "/b/{bucket}/o/uploads/{file}", "methods": ["create"], "kind": "only-if",
             "condition": "request.resource.size < 1024"}
            """, service: "storage")
        #expect(small.verdict == .holds)
        // `size` is an integer (a length in bytes): `< 1024` is `<= 1023`.
        let integral = try verdict(rules, """
            {"name": "at most 1023", "path": "/b/{bucket}/o/uploads/{file}", "methods": ["create"], "kind": "only-if",
             "condition": "request.resource.size <= 1023"}
            """, service: "storage")
        #expect(integral.verdict == .holds)
        let text = try verdict(rules, """
            {"name": "a text upload", "path": "/b/{bucket}/o/uploads/{file}", "methods": ["create"], "kind": "possible",
             "condition": "request.resource.contentType == 'text/plain'"}
            """, service: "storage")
        #expect(text.verdict == .holds)
    }

    @Test("request.time and timestamps")
    func time() throws {
        let rules = """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                match /events/{id} {
                  allow create: if request.resource.data.at > request.time
                      && request.resource.data.at < request.time + duration.value(1, 'd');
                }
              }
            }
            """
        let result = try verdict(rules, """
            {"name": "events are in the next day", "path": "/databases/{database}/documents/events/{id}", "methods": ["create"],
             "kind": "only-if", "condition": "request.resource.data.at is timestamp && request.resource.data.at - request.time < duration.value(86400, 's')"}
            """)
        #expect(result.verdict == .holds)
        let possible = try verdict(rules, """
            {"name": "an event", "path": "/databases/{database}/documents/events/{id}", "methods": ["create"], "kind": "possible"}
            """)
        #expect(possible.verdict == .holds)
        #expect(possible.witness?.contains("\"__type__\": \"timestamp\"") == true)
    }
}
