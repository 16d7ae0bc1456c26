import Foundation
import IDTokens
import IDTokenTesting
import JWTKit

/// The project id every test token is for.
let projectID = "ruleskit-test"
/// The fixed clock of the tests: 2026-01-01T00:00:00Z.
let now = Date(timeIntervalSince1970: 1_767_225_600)

/// The claims of a valid token at ``now``.
func validClaims() -> [String: JWTHeaderField] { firebaseClaims(projectID: projectID, at: now) }

func makeVerifier(clockSkew: Duration = FirebaseIDTokenVerifier.defaultClockSkew) async throws -> FirebaseIDTokenVerifier {
    try await FirebaseIDTokenVerifier(
        jwks: standardKeySet(), source: "test.jwks.json", projectID: projectID, clockSkew: clockSkew, now: { now })
}

