import IDTokens

/// `--jwks FILE --project-id ID`: the bearer token is a Firebase ID token, and the user is its
/// `sub`. A refused token is answered with 401 `API1102`, its message naming the `AUTH10xx`
/// reason (docs/ID-TOKENS.md).
public struct FirebaseAuthenticator: Authenticator {
    /// The verifier the tokens go through.
    public let verifier: FirebaseIDTokenVerifier

    /// Uses `verifier`.
    public init(verifier: FirebaseIDTokenVerifier) { self.verifier = verifier }

    /// Loads the key set file and checks the project id.
    ///
    /// - Throws: `AUTH1101`…`AUTH1105` when the file or the project id cannot be used.
    public init(jwksFile: String, projectID: String) async throws(IDTokenError) {
        self.init(verifier: try await FirebaseIDTokenVerifier(jwksFile: jwksFile, projectID: projectID))
    }

    public func userID(forBearerToken token: String) async throws(AuthenticationError) -> String {
        do {
            return try await verifier.verify(token).uid
        } catch {
            throw AuthenticationError(reason: "\(error.reason) (\(error.code))")
        }
    }
}
