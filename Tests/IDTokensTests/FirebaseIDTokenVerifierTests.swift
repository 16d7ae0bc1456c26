import Foundation
import IDTokens
import IDTokenTesting
import JWTKit
import Testing

@Suite("Firebase ID tokens: what is accepted")
struct AcceptedTokenTests {
    @Test("a valid token gives its sub as uid and every claim")
    func valid() async throws {
        let verifier = try await makeVerifier()
        let token = try await sign(validClaims())
        let verified = try await verifier.verify(token)
        #expect(verified.uid == "user-1")
        #expect(verified.email == "jane@example.com")
        #expect(verified.emailVerified == true)
        #expect(verified.name == "Jane")
        #expect(verified.signInProvider == "password")
        #expect(verified.claims["admin"] == .bool(true))
        #expect(verified.claims["firebase"]?["identities"]?["email"] == .list([.string("jane@example.com")]))
        #expect(verified.claims["iat"] == .int(1_767_225_540))
        #expect(verified.issuedAt == now.addingTimeInterval(-60))
        #expect(verified.expiresAt == now.addingTimeInterval(3540))
        #expect(verified.authTime == now.addingTimeInterval(-600))
        #expect(verified.claims.count == validClaims().count)
    }

    @Test("a token signed by the second key of the set verifies with that key")
    func secondKey() async throws {
        let verifier = try await makeVerifier()
        #expect(verifier.keyIDs == ["key-1", "key-2"])
        let token = try await sign(validClaims(), kid: "key-2", with: .rs256(TestKeys.second))
        #expect(try await verifier.verify(token).uid == "user-1")
        let crossed = try await sign(validClaims(), kid: "key-1", with: .rs256(TestKeys.second))
        await #expect(throws: IDTokenError.badSignature) { _ = try await verifier.verify(crossed) }
    }

    @Test("times within the clock skew are accepted, beyond it refused")
    func clockSkew() async throws {
        let verifier = try await makeVerifier(clockSkew: .seconds(300))
        let t = Int(now.timeIntervalSince1970)
        var claims = validClaims()
        claims["exp"] = .int(t - 299)
        claims["iat"] = .int(t + 299)
        claims["auth_time"] = .int(t + 299)
        #expect(try await verifier.verify(try await sign(claims)).uid == "user-1")
        claims["exp"] = .int(t - 300)
        await #expect(throws: IDTokenError.expired(at: now.addingTimeInterval(-300), now: now)) {
            try await verifier.verify(try await sign(claims))
        }
    }

    @Test("a sub of exactly 128 characters is accepted")
    func longestSubject() async throws {
        let verifier = try await makeVerifier()
        var claims = validClaims()
        claims["sub"] = .string(String(repeating: "u", count: 128))
        #expect(try await verifier.verify(try await sign(claims)).uid.count == 128)
    }

    @Test("decimal times are read as seconds")
    func decimalTimes() async throws {
        let verifier = try await makeVerifier()
        var claims = validClaims()
        claims["exp"] = .decimal(now.timeIntervalSince1970 + 10.5)
        #expect(try await verifier.verify(try await sign(claims)).expiresAt == now.addingTimeInterval(10.5))
    }
}

@Suite("Firebase ID tokens: every rejection has its code")
struct RejectedTokenTests {
    /// Verifies `token` and returns the error, checking it never contains the token or its signature.
    func refusal(_ token: String, verifier: FirebaseIDTokenVerifier? = nil) async throws -> IDTokenError {
        let verifier = if let verifier { verifier } else { try await makeVerifier() }
        do {
            _ = try await verifier.verify(token)
        } catch {
            #expect(!error.message.contains(token))
            if let signature = token.split(separator: ".").dropFirst(2).first, signature.count > 8 {
                #expect(!error.message.contains(signature))
            }
            return error
        }
        Issue.record("token accepted")
        return .badSignature
    }

    func claims(_ change: (inout [String: JWTHeaderField]) -> Void) -> [String: JWTHeaderField] {
        var claims = validClaims()
        change(&claims)
        return claims
    }

    @Test("alg none is refused before any key is used")
    func algNone() async throws {
        let error = try await refusal(try await sign(validClaims(), with: .none))
        #expect(error == .unsupportedAlgorithm("none"))
        #expect(error.code == "AUTH1002")
        #expect(error.message == "The ID token is signed with alg \"none\"; only RS256 is accepted.")
    }

    @Test("HS256 keyed with the public key (key confusion) is refused")
    func hmacWithPublicKey() async throws {
        let pem = TestKeys.first.publicKey.pemRepresentation
        let error = try await refusal(try await sign(validClaims(), with: .hs256(secret: pem)))
        #expect(error == .unsupportedAlgorithm("HS256"))
    }

    @Test("RS384 and PS256 with the right key are refused: RS256 only")
    func otherRSAAlgorithms() async throws {
        #expect(try await refusal(try await sign(validClaims(), with: .rs384(TestKeys.first))) == .unsupportedAlgorithm("RS384"))
        #expect(try await refusal(try await sign(validClaims(), with: .ps256(TestKeys.first))) == .unsupportedAlgorithm("PS256"))
    }

    @Test("a header without alg")
    func noAlgorithm() async throws {
        let header = base64URL(Data(#"{"kid":"key-1","typ":"JWT"}"#.utf8))
        let token = try await sign(validClaims())
        let parts = token.split(separator: ".")
        let error = try await refusal("\(header).\(parts[1]).\(parts[2])")
        #expect(error == .unsupportedAlgorithm(nil))
        #expect(error.message == "The ID token's header has no alg; only RS256 is accepted.")
    }

    @Test("no kid, and a kid the key set does not have")
    func keyIDs() async throws {
        #expect(try await refusal(try await sign(validClaims(), kid: nil)) == .missingKeyID)
        let unknown = try await refusal(try await sign(validClaims(), kid: "key-9"))
        #expect(unknown == .unknownKeyID("key-9"))
        #expect(unknown.code == "AUTH1004")
        #expect(unknown.message == "The ID token's kid \"key-9\" is not in the key set.")
    }

    @Test("a kid that is long or has odd characters is not repeated in the message")
    func unshownKeyID() async throws {
        let kid = String(repeating: "k", count: 65)
        let error = try await refusal(try await sign(validClaims(), kid: kid))
        #expect(error.message == "The ID token's kid a value of 65 characters is not in the key set.")
    }

    @Test("signed by a key outside the set under a known kid")
    func strangerKey() async throws {
        let error = try await refusal(try await sign(validClaims(), with: .rs256(TestKeys.stranger)))
        #expect(error == .badSignature)
        #expect(error.code == "AUTH1005")
    }

    @Test("a tampered payload keeps the signature but fails it")
    func tamperedPayload() async throws {
        let token = try await sign(validClaims())
        let forged = try withPayload(token, claims { $0["sub"] = "admin" })
        #expect(try await refusal(forged) == .badSignature)
        // The signature's first character carries six signature bits; its last carries only two
        // (the rest is base64url padding a decoder ignores), so a change there may change nothing.
        let signatureStart = token.index(after: token.lastIndex(of: ".")!)
        var flipped = token
        flipped.replaceSubrange(signatureStart...signatureStart, with: token[signatureStart] == "A" ? "B" : "A")
        #expect(try await refusal(flipped) == .badSignature)
    }

    @Test("wrong issuer")
    func wrongIssuer() async throws {
        let error = try await refusal(try await sign(claims { $0["iss"] = "https://securetoken.google.com/other-project" }))
        #expect(error == .wrongIssuer(expected: "https://securetoken.google.com/ruleskit-test", found: "https://securetoken.google.com/other-project"))
        #expect(error.code == "AUTH1007")
    }

    @Test("wrong audience, and an audience array")
    func wrongAudience() async throws {
        let error = try await refusal(try await sign(claims { $0["aud"] = "other-project" }))
        #expect(error == .wrongAudience(expected: projectID, found: "other-project"))
        #expect(error.message == "The ID token's audience is \"other-project\", not the project id \"ruleskit-test\".")
        let array = try await refusal(try await sign(claims { $0["aud"] = [.string(projectID)] }))
        #expect(array == .malformedClaim(name: "aud", problem: "is an array, not a string"))
        #expect(array.code == "AUTH1006")
    }

    @Test("expired")
    func expired() async throws {
        let t = now.timeIntervalSince1970
        let error = try await refusal(try await sign(claims { $0["exp"] = .int(Int(t) - 3600) }))
        #expect(error == .expired(at: now.addingTimeInterval(-3600), now: now))
        #expect(error.code == "AUTH1009")
        #expect(error.message == "The ID token expired at 2025-12-31T23:00:00Z (now 2026-01-01T00:00:00Z).")
    }

    @Test("issued in the future, authenticated in the future")
    func future() async throws {
        let later = Int(now.timeIntervalSince1970) + 3600
        let issued = try await refusal(try await sign(claims { $0["iat"] = .int(later) }))
        #expect(issued == .issuedInFuture(at: now.addingTimeInterval(3600), now: now))
        #expect(issued.code == "AUTH1010")
        let authenticated = try await refusal(try await sign(claims { $0["auth_time"] = .int(later) }))
        #expect(authenticated == .authenticatedInFuture(at: now.addingTimeInterval(3600), now: now))
        #expect(authenticated.code == "AUTH1011")
    }

    @Test("empty, too long and non-string sub")
    func subject() async throws {
        let empty = try await refusal(try await sign(claims { $0["sub"] = "" }))
        #expect(empty == .invalidSubject(problem: "is empty"))
        #expect(empty.code == "AUTH1012")
        let long = try await refusal(try await sign(claims { $0["sub"] = .string(String(repeating: "u", count: 129)) }))
        #expect(long == .invalidSubject(problem: "is 129 characters long; at most 128 are allowed"))
        let number = try await refusal(try await sign(claims { $0["sub"] = 42 }))
        #expect(number == .malformedClaim(name: "sub", problem: "is a number, not a string"))
    }

    @Test("missing required claims", arguments: ["iss", "aud", "exp", "iat", "auth_time", "sub"])
    func missing(claim: String) async throws {
        let error = try await refusal(try await sign(claims { $0[claim] = nil }))
        #expect(error == .malformedClaim(name: claim, problem: "is missing"))
    }

    @Test("a time that is not a number")
    func textTime() async throws {
        let error = try await refusal(try await sign(claims { $0["exp"] = "tomorrow" }))
        #expect(error == .malformedClaim(name: "exp", problem: "is a string, not seconds since 1970"))
    }

    @Test("not a JWT", arguments: ["", "abc", "a.b", "a.b.c.d", "!!!.???.###", "e30.e30"])
    func notAJWT(token: String) async throws {
        let error = try await refusal(token)
        #expect(error.code == "AUTH1001")
    }

    @Test("a payload that is not a JSON object")
    func payloadNotObject() async throws {
        let token = try await sign(validClaims())
        var parts = token.split(separator: ".").map(String.init)
        parts[1] = base64URL(Data("[1,2]".utf8))
        #expect(try await refusal(parts.joined(separator: ".")) == .malformedToken(reason: "its header, payload or signature is not base64url-encoded JSON"))
    }

    @Test("a token over 16 KiB is not decoded")
    func tooLong() async throws {
        let token = try await sign(claims { $0["padding"] = .string(String(repeating: "x", count: 16 * 1024)) })
        #expect(try await refusal(token) == .malformedToken(reason: "it is longer than 16384 bytes"))
    }

    @Test("a control character in sub is AUTH1012, and the sub is not repeated",
          arguments: ["victim\u{0}x", "victim1\u{0}evil", "a\u{1B}[31mred", "tab\tuser", "line\nbreak", "del\u{7F}", "next\u{85}line"])
    func controlCharacterInSubject(sub: String) async throws {
        let error = try await refusal(try await sign(claims { $0["sub"] = .string(sub) }))
        #expect(error.code == "AUTH1012")
        #expect(error.message.hasPrefix("The ID token's sub (the uid) contains the control character U+"))
        #expect(!error.message.contains("victim") && !error.message.contains("user") && !error.message.contains("red"))
    }

    @Test("a missing claim (AUTH1006) is reported before a wrong value (AUTH1007…), as docs/ID-TOKENS.md orders them")
    func presenceComesFirst() async throws {
        let wrongIssuerNoSub = try await refusal(try await sign(claims {
            $0["iss"] = "https://securetoken.google.com/other-project"
            $0["sub"] = nil
        }))
        #expect(wrongIssuerNoSub == .malformedClaim(name: "sub", problem: "is missing"))
        let expiredNoAuthTime = try await refusal(try await sign(claims {
            $0["exp"] = .int(Int(now.timeIntervalSince1970) - 3600)
            $0["auth_time"] = "yesterday"
        }))
        #expect(expiredNoAuthTime == .malformedClaim(name: "auth_time", problem: "is a string, not seconds since 1970"))
    }

    /// A valid payload's JSON text with `exp` written as `exp`.
    func payload(exp: String, extra: String = "") -> String {
        let t = Int(now.timeIntervalSince1970)
        return #"{"iss": "https://securetoken.google.com/\#(projectID)", "aud": "\#(projectID)", "sub": "user-1", "#
            + #""iat": \#(t - 60), "auth_time": \#(t - 600), "exp": \#(exp)\#(extra)}"#
    }

    @Test("the raw-payload signer makes tokens the verifier accepts (so the refusals below are about the payload)")
    func rawPayloadSigner() async throws {
        let verified = try await makeVerifier().verify(try await sign(rawPayload: payload(exp: "\(Int(now.timeIntervalSince1970) + 3600)")))
        #expect(verified.uid == "user-1")
    }

    @Test("a payload whose claims do not decode is AUTH1013, not a signature problem")
    func undecodablePayload() async throws {
        let huge = try await refusal(try await sign(rawPayload: payload(exp: "1e400")))
        #expect(huge == .malformedPayload(reason: #"at "exp": a number is out of range"#))
        #expect(huge.code == "AUTH1013")
        #expect(!huge.message.contains("signature") && !huge.message.contains("1e400"))

        let depth = 40
        let deep = String(repeating: #"{"a": "#, count: depth) + "1" + String(repeating: "}", count: depth)
        let nested = try await refusal(try await sign(rawPayload: payload(exp: "\(Int(now.timeIntervalSince1970) + 3600)", extra: #", "deep": \#(deep)"#)))
        #expect(nested.code == "AUTH1013")
        #expect(nested == .malformedPayload(reason: #"at "deep": claims nest deeper than 32 levels"#))

        let deepList = String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)
        let list = try await refusal(try await sign(rawPayload: payload(exp: "\(Int(now.timeIntervalSince1970) + 3600)", extra: #", "deep": \#(deepList)"#)))
        #expect(list.code == "AUTH1013")
        #expect(list.message.hasSuffix("claims nest deeper than 32 levels."), "\(list.message)")

        let inList = try await refusal(try await sign(rawPayload: payload(exp: "\(Int(now.timeIntervalSince1970) + 3600)", extra: #", "xs": [1, -1e999]"#)))
        #expect(inList == .malformedPayload(reason: #"at "xs": a number is out of range"#))
    }
}
