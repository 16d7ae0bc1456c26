/// An email address that passed the email rules, in the form to store.
///
/// Building one validates it. Decoding reads a JSON string and validates it with the validator
/// in `userInfo[.ruleKitValidators]` (``FieldValidators``), or the shipped packs; encoding
/// writes ``normalized``.
///
/// ```swift
/// let email = try EmailAddress("user@Bücher.example")
/// email.normalized   // "user@bücher.example"
/// email.asciiForm    // "user@xn--bcher-kva.example"
/// ```
public struct EmailAddress: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The address to store: the local part in NFC, the domain lowercased.
    public let normalized: String
    /// The address with its domain in ASCII (`xn--`) form, for mail servers; nil when the local
    /// part is not ASCII.
    public let asciiForm: String?

    /// Validates `raw` with the shipped email packs.
    ///
    /// - Parameter raw: The address as typed.
    /// - Throws: ``InvalidFieldValue`` with every violation when the address breaks a rule.
    public init(_ raw: String) throws(InvalidFieldValue) {
        try self.init(raw, validator: ShippedValidators.email.get())
    }

    /// Validates `raw` with `validator`.
    ///
    /// - Parameters:
    ///   - raw: The address as typed.
    ///   - validator: The email rules to apply (ASCII only, custom packs).
    /// - Throws: ``InvalidFieldValue`` with every violation when the address breaks a rule.
    public init(_ raw: String, validator: EmailValidator) throws(InvalidFieldValue) {
        let result = validator.validate(raw)
        guard result.isValid else { throw InvalidFieldValue(kind: .email, result: result) }
        self.init(normalized: result.normalized ?? raw, asciiForm: result.asciiForm)
    }

    /// An address that is not checked (a refused value standing in while decoding goes on).
    private init(normalized: String, asciiForm: String?) {
        self.normalized = normalized
        self.asciiForm = asciiForm
    }

    /// Decodes a JSON string and validates it.
    ///
    /// - Throws: `DecodingError.dataCorrupted` at the field's coding path, whose
    ///   `underlyingError` is ``InvalidFieldValue``, when the address breaks a rule; the usual
    ///   `DecodingError` when the value is not a string.
    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(String.self)
        let validators = try decoder.ruleKitValidators()
        do throws(InvalidFieldValue) {
            let validator = if let custom = validators.email { custom } else { try ShippedValidators.email.get() }
            self = try EmailAddress(raw, validator: validator)
        } catch {
            try decoder.refuse(error)
            self.init(normalized: raw, asciiForm: nil)
        }
    }

    /// Encodes ``normalized`` as a string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(normalized)
    }

    /// ``normalized``.
    public var description: String { normalized }
}
