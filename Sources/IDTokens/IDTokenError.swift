import Foundation

/// Why an ID token was refused, or why the verifier could not be set up.
///
/// Codes are stable: `AUTH10xx` for a token, `AUTH11xx` for the key set and configuration. A
/// retired code is never reused. Messages say what was wrong and never contain the token; values
/// read from a token (an `alg`, a `kid`, an issuer) appear only when short and plain, see
/// ``IDTokenError/shown(_:)``.
public enum IDTokenError: Error, Sendable, Hashable, CustomStringConvertible {
    // MARK: - The token (AUTH10xx)

    /// `AUTH1001`: not a compact JWS (three base64url parts of JSON), or too long.
    case malformedToken(reason: String)
    /// `AUTH1002`: the header's `alg` is not `RS256` (`nil` when the header has none).
    case unsupportedAlgorithm(String?)
    /// `AUTH1003`: the header has no `kid`.
    case missingKeyID
    /// `AUTH1004`: the header's `kid` names no key of the key set.
    case unknownKeyID(String)
    /// `AUTH1005`: the signature does not verify with the key the `kid` names.
    case badSignature
    /// `AUTH1013`: the payload's signature verified, but its claims cannot be read (a number out
    /// of range such as `1e400`, or arrays and objects nested more than 32 deep). Checked after
    /// `AUTH1005` and before `AUTH1006`.
    case malformedPayload(reason: String)
    /// `AUTH1006`: a required claim is missing or has the wrong JSON type.
    case malformedClaim(name: String, problem: String)
    /// `AUTH1007`: `iss` is not `https://securetoken.google.com/<projectId>`.
    case wrongIssuer(expected: String, found: String)
    /// `AUTH1008`: `aud` is not the project id.
    case wrongAudience(expected: String, found: String)
    /// `AUTH1009`: `exp` has passed (beyond the allowed clock skew).
    case expired(at: Date, now: Date)
    /// `AUTH1010`: `iat` is in the future (beyond the allowed clock skew).
    case issuedInFuture(at: Date, now: Date)
    /// `AUTH1011`: `auth_time` is in the future (beyond the allowed clock skew).
    case authenticatedInFuture(at: Date, now: Date)
    /// `AUTH1012`: `sub` (the uid) is empty, longer than 128 characters or holds a control
    /// character (U+0000–U+001F, U+007F–U+009F).
    case invalidSubject(problem: String)

    // MARK: - The key set and configuration (AUTH11xx)

    /// `AUTH1101`: the key-set file cannot be read.
    case unreadableKeySet(path: String, reason: String)
    /// `AUTH1102`: the file is not a JSON Web Key Set (`{"keys": [...]}`).
    case malformedKeySet(path: String, reason: String)
    /// `AUTH1103`: the key set has no keys.
    case emptyKeySet(path: String)
    /// `AUTH1104`: one key of the set cannot verify RS256 tokens (wrong type, no or duplicate
    /// `kid`, private material, too short, undecodable numbers).
    case invalidKey(path: String, index: Int, reason: String)
    /// `AUTH1105`: the Firebase project id is empty or contains spaces or control characters.
    case invalidProjectID(reason: String)

    /// Stable code.
    public var code: String {
        switch self {
        case .malformedToken: "AUTH1001"
        case .unsupportedAlgorithm: "AUTH1002"
        case .missingKeyID: "AUTH1003"
        case .unknownKeyID: "AUTH1004"
        case .badSignature: "AUTH1005"
        case .malformedPayload: "AUTH1013"
        case .malformedClaim: "AUTH1006"
        case .wrongIssuer: "AUTH1007"
        case .wrongAudience: "AUTH1008"
        case .expired: "AUTH1009"
        case .issuedInFuture: "AUTH1010"
        case .authenticatedInFuture: "AUTH1011"
        case .invalidSubject: "AUTH1012"
        case .unreadableKeySet: "AUTH1101"
        case .malformedKeySet: "AUTH1102"
        case .emptyKeySet: "AUTH1103"
        case .invalidKey: "AUTH1104"
        case .invalidProjectID: "AUTH1105"
        }
    }

    /// What was wrong, as a clause (no capital, no final period), for embedding in a sentence.
    public var reason: String {
        switch self {
        case .malformedToken(let reason):
            "the ID token is not a JWT: \(reason)"
        case .unsupportedAlgorithm(let alg):
            if let alg {
                "the ID token is signed with alg \(Self.shown(alg)); only RS256 is accepted"
            } else {
                "the ID token's header has no alg; only RS256 is accepted"
            }
        case .missingKeyID:
            "the ID token's header has no kid, so no key can verify it"
        case .unknownKeyID(let kid):
            "the ID token's kid \(Self.shown(kid)) is not in the key set"
        case .badSignature:
            "the ID token's signature does not verify with the key its kid names"
        case .malformedPayload(let reason):
            "the ID token's payload cannot be read as claims: \(reason)"
        case .malformedClaim(let name, let problem):
            "the ID token's \(name) claim \(problem)"
        case .wrongIssuer(let expected, let found):
            "the ID token's issuer is \(Self.shown(found)), not \"\(expected)\""
        case .wrongAudience(let expected, let found):
            "the ID token's audience is \(Self.shown(found)), not the project id \"\(expected)\""
        case .expired(let at, let now):
            "the ID token expired at \(Self.stamp(at)) (now \(Self.stamp(now)))"
        case .issuedInFuture(let at, let now):
            "the ID token is issued in the future, at \(Self.stamp(at)) (now \(Self.stamp(now)))"
        case .authenticatedInFuture(let at, let now):
            "the ID token's auth_time is in the future, at \(Self.stamp(at)) (now \(Self.stamp(now)))"
        case .invalidSubject(let problem):
            "the ID token's sub (the uid) \(problem)"
        case .unreadableKeySet(let path, let reason):
            "cannot read the key set \(path): \(reason)"
        case .malformedKeySet(let path, let reason):
            "the key set \(path) is not a JSON Web Key Set: \(reason)"
        case .emptyKeySet(let path):
            "the key set \(path) has no keys"
        case .invalidKey(let path, let index, let reason):
            "the key set \(path): key \(index) \(reason)"
        case .invalidProjectID(let reason):
            "the Firebase project id \(reason)"
        }
    }

    /// One sentence saying what was wrong.
    public var message: String { reason.prefix(1).uppercased() + reason.dropFirst() + "." }

    /// `CODE: message`.
    public var description: String { "\(code): \(message)" }

    /// A value read from a token, quoted when it is at most 64 printable ASCII characters without
    /// quotes or backslashes; otherwise only its length, so that no message carries a long or
    /// crafted string.
    static func shown(_ value: String) -> String {
        let plain = value.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F && $0 != "\"" && $0 != "\\" }
        return plain && value.unicodeScalars.count <= 64 ? "\"\(value)\"" : "a value of \(value.unicodeScalars.count) characters"
    }

    private static func stamp(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
