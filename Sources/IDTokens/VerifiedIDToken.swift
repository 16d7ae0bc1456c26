import Foundation

/// A Firebase ID token whose signature and claims were verified: who the caller is.
public struct VerifiedIDToken: Sendable, Hashable {
    /// The user id: the token's `sub`.
    public let uid: String
    /// Every claim of the payload, as Firebase rules see them in `request.auth.token` (`email`,
    /// `email_verified`, `phone_number`, `name`, `firebase.sign_in_provider`, custom claims, …).
    public let claims: [String: ClaimValue]
    /// `iat`.
    public let issuedAt: Date
    /// `exp`.
    public let expiresAt: Date
    /// `auth_time`: when the user signed in.
    public let authTime: Date

    /// The `email` claim.
    public var email: String? { claims["email"]?.stringValue }
    /// The `email_verified` claim.
    public var emailVerified: Bool? { claims["email_verified"]?.boolValue }
    /// The `phone_number` claim.
    public var phoneNumber: String? { claims["phone_number"]?.stringValue }
    /// The `name` claim.
    public var name: String? { claims["name"]?.stringValue }
    /// `firebase.sign_in_provider` (`password`, `google.com`, `anonymous`, `custom`, …).
    public var signInProvider: String? { claims["firebase"]?["sign_in_provider"]?.stringValue }
}
