import Foundation
import IDTokens
import IDTokenTesting
import Testing

@Suite("Firebase ID tokens: key set and project id errors at start-up")
struct KeySetTests {
    func refusal(_ data: Data, projectID: String = projectID) async -> IDTokenError? {
        do {
            _ = try await FirebaseIDTokenVerifier(jwks: data, source: "keys.json", projectID: projectID)
            return nil
        } catch {
            return error
        }
    }

    func temporaryFile(_ data: Data) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID().uuidString).json").path
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("a key set file is loaded from disk")
    func loadsFile() async throws {
        let path = try temporaryFile(standardKeySet())
        defer { try? FileManager.default.removeItem(atPath: path) }
        let verifier = try await FirebaseIDTokenVerifier(jwksFile: path, projectID: projectID, now: { now })
        #expect(verifier.keyIDs == ["key-1", "key-2"])
        #expect(verifier.issuer == "https://securetoken.google.com/ruleskit-test")
        #expect(try await verifier.verify(try await sign(validClaims())).uid == "user-1")
    }

    @Test("a missing file names its path and the reason")
    func missingFile() async {
        let path = "/nonexistent/jwks.json"
        do {
            _ = try await FirebaseIDTokenVerifier(jwksFile: path, projectID: projectID)
            Issue.record("loaded a missing file")
        } catch {
            #expect(error == .unreadableKeySet(path: path, reason: "no such file"))
            #expect(error.code == "AUTH1101")
            #expect(error.description == "AUTH1101: Cannot read the key set /nonexistent/jwks.json: no such file.")
        }
    }

    @Test("not JSON, and JSON that is not a key set")
    func malformed() async {
        #expect(await refusal(Data("not json".utf8)) == .malformedKeySet(path: "keys.json", reason: "not valid JSON"))
        #expect(await refusal(Data("{}".utf8)) == .malformedKeySet(path: "keys.json", reason: "missing \"keys\""))
        let noType = await refusal(Data(#"{"keys": [{"kid": "a"}]}"#.utf8))
        #expect(noType == .malformedKeySet(path: "keys.json", reason: "at keys[0]: missing \"kty\""))
        #expect(noType?.code == "AUTH1102")
    }

    @Test("a key set without keys")
    func empty() async {
        let error = await refusal(jwks([]))
        #expect(error == .emptyKeySet(path: "keys.json"))
        #expect(error?.code == "AUTH1103")
    }

    @Test("each unusable key is named by its index and what is wrong")
    func invalidKeys() async {
        let good = jwk(kid: "key-1", TestKeys.first)
        func invalid(_ keys: [[String: String]], _ index: Int, _ reason: String) async {
            let error = await refusal(jwks(keys))
            #expect(error == .invalidKey(path: "keys.json", index: index, reason: reason))
            #expect(error?.code == "AUTH1104")
        }
        let ec = jwk(kid: "ec", TestKeys.second, extra: ["kty": "EC", "crv": "P-256", "x": "AA", "y": "AA"])
        await invalid([good, ec], 1,
                      "has kty \"EC\"; only RSA keys verify RS256 tokens")
        await invalid([jwk(kid: nil, TestKeys.first)], 0, "has no kid")
        await invalid([jwk(kid: "", TestKeys.first)], 0, "has no kid")
        await invalid([good, jwk(kid: "key-1", TestKeys.second)], 1, "repeats kid \"key-1\"")
        await invalid([jwk(kid: "k", TestKeys.first, extra: ["alg": "RS384"])], 0, "has alg \"RS384\"; only RS256 is accepted")
        await invalid([jwk(kid: "k", TestKeys.first, extra: ["d": "AQAB"])], 0,
                      "holds a private key (d, p or q); a key set for verification holds public keys only")
        var noModulus = good
        noModulus["n"] = nil
        await invalid([noModulus], 0, "has no modulus (n) or exponent (e)")
        await invalid([jwk(kid: "k", TestKeys.first, extra: ["n": "***"])], 0, "has a modulus (n) that is not base64url")
        await invalid([jwk(kid: "k", TestKeys.first, extra: ["e": "***"])], 0,
                      "is not an RSA public key (n and e must be base64url big-endian numbers)")
        let short = try! TestKeys.short.publicKey.getKeyPrimitives()
        await invalid([jwk(kid: "short", modulus: short.modulus, exponent: short.publicExponent)], 0, "is 1024 bits; at least 2048 are required")
    }

    @Test("a key without alg is used as RS256")
    func keyWithoutAlgorithm() async throws {
        var key = jwk(kid: "key-1", TestKeys.first)
        key["alg"] = nil
        let verifier = try await FirebaseIDTokenVerifier(jwks: jwks([key]), source: "keys.json", projectID: projectID, now: { now })
        #expect(try await verifier.verify(try await sign(validClaims())).uid == "user-1")
        await #expect(throws: IDTokenError.unsupportedAlgorithm("RS384")) {
            try await verifier.verify(try await sign(validClaims(), with: .rs384(TestKeys.first)))
        }
    }

    @Test("an empty or spaced project id")
    func projectIDs() async {
        #expect(await refusal(standardKeySet(), projectID: "") == .invalidProjectID(reason: "is empty"))
        let spaced = await refusal(standardKeySet(), projectID: "my project")
        #expect(spaced == .invalidProjectID(reason: "contains a space, a slash or a control character"))
        #expect(spaced?.code == "AUTH1105")
    }
}
