import Foundation
import Hummingbird
import HummingbirdTesting
import IDTokenTesting
import JWTKit
import Testing

@Suite("validate serve --jwks FILE --project-id ID")
struct IDTokenFlagsTests {
    static let projectID = "ruleskit-test"

    @Test("a valid ID token claims as its sub; an expired one is 401")
    func endToEnd() async throws {
        let jwksFile = temporaryPath(".jwks.json")
        try standardKeySet().write(to: URL(fileURLWithPath: jwksFile))
        defer { try? FileManager.default.removeItem(atPath: jwksFile) }
        let server = try ServerProcess(["--store", "sqlite:" + temporaryPath(".sqlite"), "--jwks", jwksFile, "--project-id", Self.projectID])

        let valid = try await sign(firebaseClaims(projectID: Self.projectID, uid: "firebase-uid-1", at: Date()))
        let expired = try await sign(firebaseClaims(projectID: Self.projectID, uid: "firebase-uid-2", at: Date().addingTimeInterval(-7200)))
        let dev = "dev:firebase-uid-2"
        try await TestClient.withClient(host: "127.0.0.1", port: server.port) { client in
            let claimed = try await client.execute(.init("/v1/names/Token.Holder/claim", method: .post, headers: [.authorization: "Bearer \(valid)"]))
            #expect(claimed.status == .ok)
            #expect(claimed.object["owner"] as? String == "firebase-uid-1")
            for token in [expired, dev] {
                let refused = try await client.execute(.init("/v1/names/Other.Name/claim", method: .post, headers: [.authorization: "Bearer \(token)"]))
                #expect(refused.status == .unauthorized)
                let error = refused.object["error"] as? [String: Any]
                #expect(error?["code"] as? String == "API1102")
                #expect((error?["message"] as? String)?.contains(token) == false)
            }
        }
        #expect(server.terminate() == 0, "\(server.log)")
    }

    @Test("an unreadable or malformed key set stops start-up with its AUTH code and path, status 2")
    func badKeySet() throws {
        let missing = temporaryPath(".jwks.json")
        let (status, stderr) = try runValidate(["serve", "--port", "0", "--store", "sqlite:" + temporaryPath(".sqlite"),
                                                "--jwks", missing, "--project-id", Self.projectID])
        #expect(status == 2)
        #expect(stderr.contains("AUTH1101: Cannot read the key set \(missing): no such file."), "\(stderr)")

        let malformed = temporaryPath(".jwks.json")
        try Data(#"{"keys": [{"kty": "RSA", "kid": "a"}]}"#.utf8).write(to: URL(fileURLWithPath: malformed))
        defer { try? FileManager.default.removeItem(atPath: malformed) }
        let second = try runValidate(["serve", "--port", "0", "--store", "sqlite:" + temporaryPath(".sqlite"),
                                      "--jwks", malformed, "--project-id", Self.projectID])
        #expect(second.status == 2)
        #expect(second.stderr.contains("AUTH1104: The key set \(malformed): key 0 has no modulus (n) or exponent (e)."), "\(second.stderr)")
    }
}
