import Diagnostics
import RulesLanguage
import Testing

@Suite struct SmokeTests {
    static let rules = """
    rules_version = '2';
    service cloud.firestore {
      match /databases/{database}/documents {
        function signedIn() { return request.auth != null; }
        match /users/{userId} {
          allow read: if signedIn();
          allow write: if signedIn() && request.auth.uid == userId;
        }
        match /displayNames/{name} {
          allow create: if !exists(/databases/$(database)/documents/displayNames/$(name))
            && request.resource.data.userId == request.auth.uid
            && name.matches('[A-Za-z0-9._]{3,30}');
        }
      }
    }
    """

    @Test func ownerCanWriteOthersCannot() throws {
        let program = try #require(compileOrFail(Self.rules))
        #expect(program.evaluate(firestoreRequest("/users/alice", .update, uid: "alice")).allowed)
        let denied = program.evaluate(firestoreRequest("/users/alice", .update, uid: "bob"))
        #expect(!denied.allowed)
        print(denied.explanation(in: program.source))
        #expect(program.evaluate(firestoreRequest("/users/alice", .get, uid: "bob")).allowed)
        #expect(!program.evaluate(firestoreRequest("/users/alice", .get)).allowed)
    }

    @Test func createDisplayNameLooksUpExistence() throws {
        let program = try #require(compileOrFail(Self.rules))
        let request = firestoreRequest("/displayNames/bob.smith", .create, uid: "u1", requestResource: ["userId": .string("u1")])
        #expect(program.evaluate(request).allowed)
        let taken = InMemoryDatabase(documents: [firestorePrefix + "/displayNames/bob.smith": ["userId": .string("u2")]])
        let decision = program.evaluate(request, lookup: taken)
        #expect(!decision.allowed)
        print(decision.explanation(in: program.source))
    }
}
