import Foundation
import JWTKit

/// Verifies Firebase ID tokens against a JSON Web Key Set and a Firebase project id.
///
/// A token is accepted only when, in this order: it is a compact JWS of at most
/// ``maximumTokenLength`` bytes; its header's `alg` is `RS256`; its `kid` names a key of the set;
/// the signature verifies with that key (jwt-kit); its payload reads as claims (numbers within
/// range, nested at most 32 deep); `iss`, `aud`, `sub` are strings and `exp`, `iat`,
/// `auth_time` numbers, all present; `iss` is `https://securetoken.google.com/<projectId>`; `aud`
/// is the project id; `exp` is in the future; `iat` and `auth_time` are in the past; and `sub` is
/// non-empty, at most 128 characters and free of control characters. Times are compared with
/// ``clockSkew`` of slack either way. The first check that fails decides the ``IDTokenError``,
/// in the order of docs/ID-TOKENS.md.
///
/// Immutable and `Sendable`: build one at start-up and share it.
public struct FirebaseIDTokenVerifier: Sendable {
    /// The default slack for `exp`, `iat` and `auth_time`: 5 minutes, as Google's token
    /// verifiers allow.
    public static let defaultClockSkew: Duration = .seconds(300)
    /// The longest token read, in bytes (Firebase ID tokens are about 1 KB).
    public static let maximumTokenLength = 16 * 1024
    /// The longest `sub` accepted, in UTF-16 code units as the Firebase Admin SDK counts.
    public static let maximumSubjectLength = 128

    /// The Firebase project id: the expected `aud`.
    public let projectID: String
    /// The expected `iss`.
    public var issuer: String { "https://securetoken.google.com/\(projectID)" }
    /// The `kid`s of the key set.
    public var keyIDs: Set<String> { keySet.keyIDs }
    /// The slack allowed when comparing token times with the clock.
    public let clockSkew: Duration

    private let keySet: KeySet
    private let now: @Sendable () -> Date

    /// Loads the key set file at `path` (Google publishes Firebase's at
    /// `https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com`).
    ///
    /// - Parameters:
    ///   - path: A JSON Web Key Set file of RSA public keys.
    ///   - projectID: The Firebase project id.
    ///   - clockSkew: Slack for `exp`, `iat` and `auth_time`.
    ///   - now: The clock (tests pass a fixed time).
    /// - Throws: `AUTH1101`…`AUTH1105` when the file or the project id cannot be used.
    public init(
        jwksFile path: String, projectID: String, clockSkew: Duration = defaultClockSkew,
        now: @escaping @Sendable () -> Date = { Date() }
    ) async throws(IDTokenError) {
        try Self.check(projectID: projectID)
        self.init(keySet: try await KeySet.load(path: path), projectID: projectID, clockSkew: clockSkew, now: now)
    }

    /// Uses the key set in `data`; `source` names it in errors.
    ///
    /// - Throws: `AUTH1102`…`AUTH1105` when the key set or the project id cannot be used.
    public init(
        jwks data: Data, source: String, projectID: String, clockSkew: Duration = defaultClockSkew,
        now: @escaping @Sendable () -> Date = { Date() }
    ) async throws(IDTokenError) {
        try Self.check(projectID: projectID)
        self.init(
            keySet: try await KeySet.make(from: data, source: source), projectID: projectID, clockSkew: clockSkew,
            now: now)
    }

    private init(keySet: KeySet, projectID: String, clockSkew: Duration, now: @escaping @Sendable () -> Date) {
        self.keySet = keySet
        self.projectID = projectID
        self.clockSkew = clockSkew
        self.now = now
    }

    /// Verifies `token` (the bearer token, without `Bearer `).
    ///
    /// - Returns: The uid (`sub`) and every claim.
    /// - Throws: `AUTH1001`…`AUTH1013`, the first check that fails.
    public func verify(_ token: String) async throws(IDTokenError) -> VerifiedIDToken {
        let bytes = Array(token.utf8)
        guard bytes.count <= Self.maximumTokenLength else {
            throw .malformedToken(reason: "it is longer than \(Self.maximumTokenLength) bytes")
        }
        let header = try Self.header(of: bytes)
        guard header.alg == "RS256" else {
            throw .unsupportedAlgorithm(header.alg)
        }
        guard let kid = header.kid else { throw .missingKeyID }
        guard keySet.keyIDs.contains(kid) else { throw .unknownKeyID(kid) }

        let payload: SignedClaims
        do {
            payload = try await keySet.keys.verify(bytes, as: SignedClaims.self)
        } catch let error as JWTError where error.errorType == .malformedToken {
            // ``header(of:)`` decoded all three parts, so only the payload's claims can fail here.
            throw .malformedPayload(reason: "it is not a JSON object of claims")
        } catch {
            throw .badSignature
        }
        switch payload.claims {
        case .success(let claims): return try check(claims, at: now())
        case .failure(let problem): throw .malformedPayload(reason: problem.reason)
        }
    }

    // MARK: - Steps

    /// The header, decoded by jwt-kit's parser (the payload must be a JSON object too).
    private static func header(of token: [UInt8]) throws(IDTokenError) -> JWTHeader {
        let parser = DefaultJWTParser()
        do {
            _ = try parser.getTokenParts(token)
        } catch {
            throw .malformedToken(reason: "it does not have three parts separated by periods")
        }
        do {
            return try parser.parse(token, as: UncheckedClaims.self).header
        } catch {
            throw .malformedToken(reason: "its header, payload or signature is not base64url-encoded JSON")
        }
    }

    /// The claim checks, after the signature verified: every required claim present with its
    /// type (`AUTH1006`) before any value is compared (`AUTH1007`…`AUTH1012`).
    private func check(_ claims: [String: ClaimValue], at now: Date) throws(IDTokenError) -> VerifiedIDToken {
        let iss = try Self.string("iss", in: claims)
        let aud = try Self.string("aud", in: claims)
        let sub = try Self.string("sub", in: claims)
        let expiresAt = try Self.time("exp", in: claims)
        let issuedAt = try Self.time("iat", in: claims)
        let authTime = try Self.time("auth_time", in: claims)

        guard iss == issuer else { throw .wrongIssuer(expected: issuer, found: iss) }
        guard aud == projectID else { throw .wrongAudience(expected: projectID, found: aud) }
        let skew = TimeInterval(clockSkew.components.seconds)
            + TimeInterval(clockSkew.components.attoseconds) / 1e18
        guard expiresAt.addingTimeInterval(skew) > now else { throw .expired(at: expiresAt, now: now) }
        guard issuedAt.addingTimeInterval(-skew) <= now else { throw .issuedInFuture(at: issuedAt, now: now) }
        guard authTime.addingTimeInterval(-skew) <= now else {
            throw .authenticatedInFuture(at: authTime, now: now)
        }
        guard !sub.isEmpty else { throw .invalidSubject(problem: "is empty") }
        guard sub.utf16.count <= Self.maximumSubjectLength else {
            throw .invalidSubject(problem: "is \(sub.utf16.count) characters long; at most \(Self.maximumSubjectLength) are allowed")
        }
        // A control character (a NUL above all) would make the uid act as another user wherever
        // it is handled as a C string.
        if let control = sub.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            let hex = String(control.value, radix: 16, uppercase: true)
            throw .invalidSubject(problem: "contains the control character U+\(String(repeating: "0", count: max(0, 4 - hex.count)) + hex)")
        }
        return VerifiedIDToken(uid: sub, claims: claims, issuedAt: issuedAt, expiresAt: expiresAt, authTime: authTime)
    }

    private static func string(_ name: String, in claims: [String: ClaimValue]) throws(IDTokenError) -> String {
        guard let value = claims[name] else { throw .malformedClaim(name: name, problem: "is missing") }
        guard let string = value.stringValue else {
            throw .malformedClaim(name: name, problem: "is \(value.typeName), not a string")
        }
        return string
    }

    private static func time(_ name: String, in claims: [String: ClaimValue]) throws(IDTokenError) -> Date {
        guard let value = claims[name] else { throw .malformedClaim(name: name, problem: "is missing") }
        guard let seconds = value.numberValue, seconds.isFinite else {
            throw .malformedClaim(name: name, problem: "is \(value.typeName), not seconds since 1970")
        }
        return Date(timeIntervalSince1970: seconds)
    }

    private static func check(projectID: String) throws(IDTokenError) {
        guard !projectID.isEmpty else { throw .invalidProjectID(reason: "is empty") }
        guard projectID.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F && $0 != "/" }) else {
            throw .invalidProjectID(reason: "contains a space, a slash or a control character")
        }
    }
}

// MARK: - jwt-kit payloads

/// Any JSON object, unread: used to decode the header before the signature is checked.
private struct UncheckedClaims: JWTPayload {
    init(from decoder: any Decoder) throws { _ = try decoder.container(keyedBy: AnyKey.self) }
    func encode(to encoder: any Encoder) throws {}
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// Every claim of a payload whose signature verified, or why they cannot be read; the claim
/// checks are the verifier's.
private struct SignedClaims: JWTPayload {
    /// Why a payload's claims cannot be read, as a clause.
    struct Problem: Error {
        let reason: String
    }

    let claims: Result<[String: ClaimValue], Problem>

    init(from decoder: any Decoder) throws {
        do {
            claims = .success(try decoder.singleValueContainer().decode([String: ClaimValue].self))
        } catch let error as DecodingError {
            claims = .failure(Self.problem(error))
        }
    }

    func encode(to encoder: any Encoder) throws {}
    func verify(using algorithm: some JWTAlgorithm) async throws {}

    /// `at "exp": a number is out of range`, naming the top-level claim where it went wrong
    /// (quoted only when short and plain).
    private static func problem(_ error: DecodingError) -> Problem {
        let (context, what): (DecodingError.Context?, String) = switch error {
        // Only the verifier's own reasons are repeated: the decoder's could quote the token.
        case .dataCorrupted(let context) where [ClaimValue.nestedTooDeep, ClaimValue.numberOutOfRange].contains(context.debugDescription):
            (context, context.debugDescription)
        case .dataCorrupted(let context): (context, "it is not a JSON object of claims")
        case .typeMismatch(_, let context), .valueNotFound(_, let context): (context, "it is not a JSON object of claims")
        case .keyNotFound(_, let context): (context, "a member is missing")
        @unknown default: (nil, "it is not a JSON object of claims")
        }
        guard let claim = context?.codingPath.first?.stringValue else { return Problem(reason: what) }
        return Problem(reason: "at \(IDTokenError.shown(claim)): \(what)")
    }
}

private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
