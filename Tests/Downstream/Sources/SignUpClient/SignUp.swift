// SignUpClient: what an app embedding RulesKit writes — a request body of validated values.
import Foundation
import RulesKit

/// A sign-up form as a client sends it: each field validated when it is decoded.
public struct SignUp: Decodable, Sendable {
    /// The address to store.
    public var email: EmailAddress
    /// The name to show; `displayName.key` is the one to keep unique.
    public var displayName: DisplayName
    /// The password, for the hasher only.
    public var password: Password

    /// Decodes a JSON body with the shipped packs, or with `validators`.
    ///
    /// - Throws: `DecodingError.dataCorrupted` at the first invalid field, its
    ///   `underlyingError` the field's ``InvalidFieldValue``.
    public static func decode(_ body: Data, validators: FieldValidators? = nil) throws -> SignUp {
        let decoder = JSONDecoder()
        if let validators { decoder.userInfo[.ruleKitValidators] = validators }
        return try decoder.decode(SignUp.self, from: body)
    }
}

/// A profile as a client stores it and sends it back: encodes the normalized values.
public struct Profile: Codable, Sendable, Equatable {
    /// The stored address.
    public var email: EmailAddress
    /// The stored name.
    public var displayName: DisplayName

    /// Creates a profile.
    public init(email: EmailAddress, displayName: DisplayName) {
        self.email = email
        self.displayName = displayName
    }
}
