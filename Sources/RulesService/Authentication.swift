import Hummingbird

/// Who the bearer of a token is: the seam between the service and token verification.
///
/// Claims act for the user an authenticator names, never for a user named in a body.
public protocol Authenticator: Sendable {
    /// The user id `token` proves, or why it proves none.
    ///
    /// - Parameter token: What follows `Bearer ` in the `Authorization` header.
    /// - Throws: ``AuthenticationError`` (answered with 401).
    func userID(forBearerToken token: String) async throws(AuthenticationError) -> String
}

/// Why a bearer token names no user; the reason is one clause, without the token.
public struct AuthenticationError: Error, Sendable, Hashable {
    /// e.g. "the token has expired".
    public var reason: String

    /// Creates an error.
    public init(reason: String) { self.reason = reason }
}

/// `--dev-auth`: `Authorization: Bearer dev:<uid>` is user `<uid>`. For tests and local
/// development only: the service refuses to start with it unless bound to a loopback address.
public struct DevAuthenticator: Authenticator {
    /// Creates the authenticator.
    public init() {}

    public func userID(forBearerToken token: String) async throws(AuthenticationError) -> String {
        guard token.hasPrefix("dev:") else { throw AuthenticationError(reason: "development tokens look like `dev:<uid>`") }
        let uid = token.dropFirst(4)
        guard !uid.isEmpty, uid.count <= 128, uid.allSatisfy({ $0.isASCII && !$0.isWhitespace && !$0.isNewline }) else {
            throw AuthenticationError(reason: "the uid after `dev:` must be 1 to 128 printable ASCII characters")
        }
        return String(uid)
    }

    /// Whether `host` is a loopback address (`127.0.0.0/8`, `::1`, `localhost`): the only
    /// hosts `--dev-auth` may be bound to.
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }
}

/// An ``Authenticator`` made from a verify function: an ID-token verifier's `verify(_:)`
/// returning the uid. Whatever it throws is answered with 401; its description is the reason
/// (so it must not quote the token).
public struct VerifyingAuthenticator: Authenticator {
    private let verify: @Sendable (String) async throws -> String

    /// Wraps `verify`, which returns the uid a token proves or throws why it proves none.
    public init(_ verify: @escaping @Sendable (String) async throws -> String) {
        self.verify = verify
    }

    public func userID(forBearerToken token: String) async throws(AuthenticationError) -> String {
        do {
            return try await verify(token)
        } catch {
            throw AuthenticationError(reason: "\(error)")
        }
    }
}

/// The user a request is made by, from its `Authorization: Bearer` header.
struct RequestAuthentication: Sendable {
    let authenticator: (any Authenticator)?

    /// The authenticated user's id.
    ///
    /// - Throws: 401 ``ServiceError`` when the header is missing or the token names no user.
    func user(of request: Request) async throws(ServiceError) -> String {
        guard let header = request.headers[.authorization] else { throw .missingToken() }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else { throw .missingToken() }
        guard let authenticator else {
            throw .invalidToken("the server was started without a way to check tokens (--jwks or --dev-auth)")
        }
        do {
            return try await authenticator.userID(forBearerToken: String(parts[1]))
        } catch {
            throw .invalidToken(error.reason)
        }
    }
}
