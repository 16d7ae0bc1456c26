// IDTokenTesting: RSA keys, key sets and signed Firebase ID tokens for the tests of IDTokens and
// of the service's token authentication. Keys are generated per test process; nothing secret is
// checked in. Tokens are signed with jwt-kit.
import CryptoExtras
import Foundation
import JWTKit

/// RSA keys generated once per test process (nothing secret is checked in).
public enum TestKeys {
    public static let first = generate(bits: 2048)
    public static let second = generate(bits: 2048)
    /// Not in the key set.
    public static let stranger = generate(bits: 2048)
    public static let short = try! _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: 1024))

    private static func generate(bits: Int) -> JWTKit.Insecure.RSA.PrivateKey {
        try! JWTKit.Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .init(bitCount: bits)))
    }
}

/// base64url without padding (RFC 7515 §2), for building key sets and tampered tokens.
public func base64URL(_ bytes: some DataProtocol) -> String {
    Data(bytes).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

/// One JWK member object for an RSA public key (modulus and exponent as big-endian base64url).
public func jwk(kid: String?, modulus: Data, exponent: Data, extra: [String: String] = [:]) -> [String: String] {
    var key = ["kty": "RSA", "alg": "RS256", "use": "sig", "n": base64URL(modulus), "e": base64URL(exponent)]
    key["kid"] = kid
    key.merge(extra) { _, new in new }
    return key
}

public func jwk(kid: String?, _ key: JWTKit.Insecure.RSA.PrivateKey, extra: [String: String] = [:]) -> [String: String] {
    let (n, e) = try! key.publicKey.getKeyPrimitives()
    return jwk(kid: kid, modulus: n, exponent: e, extra: extra)
}

/// A key set file's bytes: `{"keys": [...]}`.
public func jwks(_ keys: [[String: String]]) -> Data {
    try! JSONSerialization.data(withJSONObject: ["keys": keys], options: [.sortedKeys])
}

/// The key set of the tests: `key-1` and `key-2`.
public func standardKeySet() -> Data {
    jwks([jwk(kid: "key-1", TestKeys.first), jwk(kid: "key-2", TestKeys.second)])
}

/// A payload of arbitrary JSON claims, signed by jwt-kit.
public struct Claims: JWTPayload {
    public var fields: [String: JWTHeaderField]
    public init(_ fields: [String: JWTHeaderField]) { self.fields = fields }
    public init(from decoder: any Decoder) throws { fields = try decoder.singleValueContainer().decode([String: JWTHeaderField].self) }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(fields)
    }
    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// The claims of a valid Firebase ID token for `uid` at `now`, with the usual Firebase claims and
/// a custom `admin` claim.
public func firebaseClaims(projectID: String, uid: String = "user-1", at now: Date) -> [String: JWTHeaderField] {
    let t = Int(now.timeIntervalSince1970)
    return [
        "iss": .string("https://securetoken.google.com/\(projectID)"),
        "aud": .string(projectID),
        "sub": .string(uid),
        "user_id": .string(uid),
        "iat": .int(t - 60),
        "exp": .int(t + 3540),
        "auth_time": .int(t - 600),
        "email": "jane@example.com",
        "email_verified": true,
        "name": "Jane",
        "firebase": ["sign_in_provider": "password", "identities": ["email": ["jane@example.com"]]],
        "admin": true,
    ]
}

/// How a test token is signed.
public enum Signing {
    case rs256(JWTKit.Insecure.RSA.PrivateKey)
    case rs384(JWTKit.Insecure.RSA.PrivateKey)
    case ps256(JWTKit.Insecure.RSA.PrivateKey)
    /// HS256 with the PEM text of a public key as the secret: the classic key-confusion attack.
    case hs256(secret: String)
    case none
}

/// Signs `claims` with jwt-kit; `kid: nil` leaves the header without one.
public func sign(_ claims: [String: JWTHeaderField], kid: String? = "key-1", with signing: Signing = .rs256(TestKeys.first)) async throws -> String {
    let keys = JWTKeyCollection()
    switch signing {
    case .rs256(let key): await keys.add(rsa: key, digestAlgorithm: .sha256)
    case .rs384(let key): await keys.add(rsa: key, digestAlgorithm: .sha384)
    case .ps256(let key): await keys.add(pss: key, digestAlgorithm: .sha256)
    case .hs256(let secret): await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
    case .none: await keys.addUnsecuredNone()
    }
    var header = JWTHeader()
    if let kid { header.kid = kid }
    return try await keys.sign(Claims(claims), header: header)
}

/// `token` with its payload replaced by `claims`, signature kept.
public func withPayload(_ token: String, _ claims: [String: JWTHeaderField]) throws -> String {
    var parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    parts[1] = base64URL(try JSONEncoder().encode(claims))
    return parts.joined(separator: ".")
}

/// Signs `payload`, JSON text used exactly as written (a number out of range, deep nesting,
/// anything jwt-kit's encoder would not write), RS256 with ``TestKeys/first`` under `kid`.
public func sign(rawPayload payload: String, kid: String = "key-1") async throws -> String {
    let keys = JWTKeyCollection()
    await keys.add(rsa: TestKeys.first, digestAlgorithm: .sha256, serializer: RawPayloadSerializer(payload: payload))
    var header = JWTHeader()
    header.kid = kid
    return try await keys.sign(Claims([:]), header: header)
}

/// A serializer that writes a fixed payload text instead of the payload it is given.
private struct RawPayloadSerializer: JWTSerializer {
    let payload: String
    var jsonEncoder: any JWTJSONEncoder { JSONEncoder() }

    func serialize(_ payload: some JWTPayload, header: JWTHeader) throws -> Data {
        Data(base64URL(Data(self.payload.utf8)).utf8)
    }
}
