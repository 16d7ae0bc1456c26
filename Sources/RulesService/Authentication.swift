import Availability
import HTTPTypes
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
/// development only: the service refuses to start with it unless bound to a loopback address,
/// and answers a request whose `Host` is not a loopback name or address with 421 `API1205`
/// (a page elsewhere cannot reach it through DNS rebinding).
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

    /// Whether `host` is a loopback address: an IPv4 address in `127.0.0.0/8` or the IPv6
    /// address `::1` (also as `[::1]`), parsed as an address. These are the only hosts
    /// `--dev-auth` may be bound to; a name (`localhost`, `127.0.0.1.example.com`) is not one.
    public static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return IPAddress(bare)?.isLoopback ?? false
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

    /// The authenticated user's id: whatever the authenticator says, as long as it is a user id
    /// the claim stores take (``UserID``: non-empty, no control characters).
    ///
    /// - Throws: 401 ``ServiceError`` when the header is missing, the token names no user, or the
    ///   user id it names cannot act (`AV1008` in the message).
    func user(of request: Request) async throws(ServiceError) -> String {
        guard let header = request.headers[.authorization] else { throw .missingToken() }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else { throw .missingToken() }
        guard let authenticator else {
            throw .invalidToken("the server was started without a way to check tokens (--jwks or --dev-auth)")
        }
        let user: String
        do {
            user = try await authenticator.userID(forBearerToken: String(parts[1]))
        } catch {
            throw .invalidToken(error.reason)
        }
        if let reason = UserID.reason(user) {
            throw .invalidToken("the user id it names cannot act on claims: \(reason) (AV1008)")
        }
        return user
    }
}

/// With `--dev-auth`: a request whose `Host` (every one, when it has several) is not a
/// loopback name or address gets 421 `API1205` before any route runs, so that a page on another
/// site cannot drive the service through DNS rebinding. A request without `Host` (HTTP/1.0)
/// passes: browsers always send one.
struct LoopbackHostMiddleware<Context: RequestContext>: RouterMiddleware {
    static var hostField: HTTPField.Name? { HTTPField.Name("Host") }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var hosts = request.head.authority.map { [$0] } ?? []
        if let name = Self.hostField { hosts += request.headers[values: name] }
        guard hosts.allSatisfy(LoopbackHost.accepts) else { throw ServiceError.misdirected() }
        return try await next(request, context)
    }
}
