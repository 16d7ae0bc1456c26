import Foundation
import Hummingbird
import HummingbirdTesting
import IDTokens
import IDTokenTesting
import JWTKit
@testable import RulesService
import Testing

/// `--jwks FILE --project-id ID` in-process: Firebase ID tokens decide who claims.
@Suite("Firebase ID tokens at the claim endpoints")
struct FirebaseAuthenticationTests {
    static let projectID = "ruleskit-test"
    static let now = Date(timeIntervalSince1970: 1_767_225_600)

    /// A service whose authenticator verifies ID tokens against `key-1`/`key-2` at ``now``.
    func harness() async throws -> ServiceHarness {
        var harness = try await ServiceHarness()
        let verifier = try await FirebaseIDTokenVerifier(jwks: standardKeySet(), source: "test.jwks.json",
                                                         projectID: Self.projectID, now: { Self.now })
        harness.configuration.authenticator = FirebaseAuthenticator(verifier: verifier)
        return harness
    }

    func token(uid: String = "user-1", _ change: (inout [String: JWTHeaderField]) -> Void = { _ in },
               with signing: Signing = .rs256(TestKeys.first)) async throws -> String {
        var claims = firebaseClaims(projectID: Self.projectID, uid: uid, at: Self.now)
        change(&claims)
        return try await sign(claims, with: signing)
    }

    @Test("a valid ID token claims as its sub, whatever the body says")
    func validToken() async throws {
        let harness = try await harness()
        let alice = try await token(uid: "alice-uid")
        let bob = try await token(uid: "bob-uid")
        try await harness.test { client in
            let claimed = try await client.execute(uri: "/v1/names/John.Doe/claim", method: .post,
                                                   headers: [.authorization: "Bearer \(alice)", .contentType: "application/json"],
                                                   body: ByteBuffer(string: #"{"user": "bob-uid"}"#))
            #expect(claimed.status == .ok)
            #expect(claimed.text == #"{"claimed":true,"key":"john.doe","name":"John.Doe","owner":"alice-uid"}"#)
            let taken = try await client.execute(uri: "/v1/names/john.doe/claim", method: .post, headers: [.authorization: "Bearer \(bob)"])
            #expect(taken.status == .conflict && taken.errorCode == "AV1003")
            let released = try await client.execute(uri: "/v1/names/John.Doe/claim", method: .delete, headers: [.authorization: "Bearer \(alice)"])
            #expect(released.status == .ok)
        }
        #expect(harness.store.asked == ["John.Doe", "john.doe", "John.Doe"])
    }

    @Test("an invalid ID token is 401 API1102 naming the AUTH code, and the store is never asked")
    func invalidTokens() async throws {
        let harness = try await harness()
        let later = Int(Self.now.timeIntervalSince1970) + 7200
        let cases: [(String, String)] = [
            (try await token { $0["exp"] = .int(later - 7200 - 3600) }, "AUTH1009"),
            (try await token { $0["aud"] = "other-project" }, "AUTH1008"),
            (try await token { $0["iss"] = "https://securetoken.google.com/other-project" }, "AUTH1007"),
            (try await token { $0["iat"] = .int(later) }, "AUTH1010"),
            (try await token { $0["sub"] = "" }, "AUTH1012"),
            (try await token(with: .none), "AUTH1002"),
            (try await token(with: .hs256(secret: TestKeys.first.publicKey.pemRepresentation)), "AUTH1002"),
            (try await token(with: .rs256(TestKeys.stranger)), "AUTH1005"),
            (try withPayload(try await token(), firebaseClaims(projectID: Self.projectID, uid: "admin", at: Self.now)), "AUTH1005"),
            ("dev:alice", "AUTH1001"),
        ]
        try await harness.test { client in
            for (token, code) in cases {
                let response = try await client.execute(uri: "/v1/names/John.Doe/claim", method: .post,
                                                        headers: [.authorization: "Bearer \(token)"])
                #expect(response.status == .unauthorized, "\(code)")
                #expect(response.errorCode == "API1102", "\(code)")
                let error = response.object["error"] as? [String: Any]
                #expect(error?.count == 2 && response.object.count == 1, "only {\"error\": {\"code\", \"message\"}}")
                let message = error?["message"] as? String ?? ""
                #expect(message.hasPrefix("The bearer token is not valid: the ID token"), "\(message)")
                #expect(message.hasSuffix("(\(code))."), "\(message)")
                #expect(!message.contains(token), "the message never quotes the token")
            }
        }
        #expect(harness.store.asked.isEmpty)
    }
}
