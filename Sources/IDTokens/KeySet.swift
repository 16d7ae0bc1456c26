import Foundation
import JWTKit

/// The RSA public keys of a JSON Web Key Set, ready to verify RS256 signatures by `kid`.
///
/// Every key must be `"kty": "RSA"` with a unique, non-empty `kid`, an `alg` of `RS256` or none,
/// no private material, and a modulus of at least 2048 bits. Each is registered in jwt-kit as an
/// RS256 key under its `kid`, and the collection has no default key, so a token is only ever
/// checked with the key its own `kid` names.
struct KeySet: Sendable {
    /// The smallest RSA modulus accepted, in bits.
    static let minimumKeyBits = 2048

    let keys: JWTKeyCollection
    let keyIDs: Set<String>

    /// Reads and checks the key set at `path`.
    static func load(path: String) async throws(IDTokenError) -> KeySet {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadableKeySet(path: path, reason: Self.fileProblem(error))
        }
        return try await make(from: data, source: path)
    }

    /// Checks the key set in `data`; `source` names it in errors.
    static func make(from data: Data, source: String) async throws(IDTokenError) -> KeySet {
        let set: JWKS
        do {
            set = try JSONDecoder().decode(JWKS.self, from: data)
        } catch {
            throw .malformedKeySet(path: source, reason: Self.decodingProblem(error))
        }
        guard !set.keys.isEmpty else { throw .emptyKeySet(path: source) }

        let collection = JWTKeyCollection()
        var keyIDs = Set<String>()
        for (index, jwk) in set.keys.enumerated() {
            func invalid(_ reason: String) -> IDTokenError {
                .invalidKey(path: source, index: index, reason: reason)
            }
            guard jwk.keyType == .rsa else {
                throw invalid("has kty \"\(jwk.keyType.rawValue)\"; only RSA keys verify RS256 tokens")
            }
            guard let kid = jwk.keyIdentifier?.string, !kid.isEmpty else { throw invalid("has no kid") }
            guard !keyIDs.contains(kid) else { throw invalid("repeats kid \(IDTokenError.shown(kid))") }
            if let alg = jwk.algorithm, alg != .rs256 {
                throw invalid("has alg \"\(alg.rawValue)\"; only RS256 is accepted")
            }
            guard jwk.privateExponent == nil, jwk.prime1 == nil, jwk.prime2 == nil else {
                throw invalid("holds a private key (d, p or q); a key set for verification holds public keys only")
            }
            guard let modulus = jwk.modulus, let exponent = jwk.exponent else {
                throw invalid("has no modulus (n) or exponent (e)")
            }
            guard let bits = Self.bitLength(ofBase64URL: modulus) else {
                throw invalid("has a modulus (n) that is not base64url")
            }
            guard bits >= Self.minimumKeyBits else {
                throw invalid("is \(bits) bits; at least \(Self.minimumKeyBits) are required")
            }
            let key: Insecure.RSA.PublicKey
            do {
                key = try Insecure.RSA.PublicKey(modulus: modulus, exponent: exponent)
            } catch {
                throw invalid("is not an RSA public key (n and e must be base64url big-endian numbers)")
            }
            await collection.add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
            keyIDs.insert(kid)
        }
        // INVARIANT: no default key. jwt-kit falls back to the default for an unknown kid; the
        // verifier refuses unknown kids before asking, and without a default jwt-kit refuses too.
        await collection.clearDefault()
        return KeySet(keys: collection, keyIDs: keyIDs)
    }

    /// The bit length of a base64url big-endian number (leading zero bits not counted).
    static func bitLength(ofBase64URL text: String) -> Int? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let bytes = Data(base64Encoded: base64) else { return nil }
        guard let first = bytes.firstIndex(where: { $0 != 0 }) else { return 0 }
        return (bytes.endIndex - first) * 8 - bytes[first].leadingZeroBitCount
    }

    private static func fileProblem(_ error: any Error) -> String {
        let cocoa = error as NSError
        if let posix = cocoa.userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain,
           let code = POSIXErrorCode(rawValue: Int32(posix.code)) {
            return String(cString: strerror(code.rawValue))
        }
        switch CocoaError.Code(rawValue: cocoa.code) {
        case .fileReadNoSuchFile, .fileNoSuchFile: return "no such file"
        case .fileReadNoPermission: return "permission denied"
        default: return cocoa.localizedDescription
        }
    }

    private static func decodingProblem(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        let (path, what): ([any CodingKey], String) = switch error {
        case .dataCorrupted(let context):
            (context.codingPath, context.codingPath.isEmpty ? "not valid JSON" : context.debugDescription)
        case .keyNotFound(let key, let context):
            (context.codingPath, "missing \"\(key.stringValue)\"")
        case .typeMismatch(let type, let context):
            (context.codingPath, "expected \(type)")
        case .valueNotFound(let type, let context):
            (context.codingPath, "expected \(type), found null")
        @unknown default:
            ([], "\(error)")
        }
        return path.isEmpty ? what : "at \(Self.render(path)): \(what)"
    }

    private static func render(_ path: [any CodingKey]) -> String {
        path.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
            .trimmingCharacters(in: CharacterSet(charactersIn: "."))
    }
}
