/// A display name that passed the display-name rules: what the app stores and shows.
///
/// Building one validates it, so a `DisplayName` in hand is always valid under the validator
/// that built it. Decoding reads a JSON string and validates it with the validator in
/// `userInfo[.ruleKitValidators]` (``FieldValidators``), or the shipped packs; encoding
/// writes ``value``.
///
/// ```swift
/// let name = try DisplayName("John.Doe")
/// name.value   // "John.Doe"
/// name.key     // "john.doe": store it unique
/// ```
public struct DisplayName: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The name to store and show: the validator's normalized form.
    public let value: String
    /// The canonical uniqueness key (`John.Doe` and `john.doe` share `john.doe`).
    public let key: String

    /// Validates `raw` with the shipped display-name packs.
    ///
    /// - Parameter raw: The name as typed.
    /// - Throws: ``InvalidFieldValue`` with every violation when the name breaks a rule.
    public init(_ raw: String) throws(InvalidFieldValue) {
        try self.init(raw, validator: ShippedValidators.displayName.get())
    }

    /// Validates `raw` with `validator`.
    ///
    /// - Parameters:
    ///   - raw: The name as typed.
    ///   - validator: The display-name rules to apply (an app name reserved, custom packs).
    /// - Throws: ``InvalidFieldValue`` with every violation when the name breaks a rule.
    public init(_ raw: String, validator: DisplayNameValidator) throws(InvalidFieldValue) {
        let result = validator.validate(raw)
        guard result.isValid else { throw InvalidFieldValue(kind: .displayName, result: result) }
        let value = result.normalized ?? raw
        self.init(value: value, key: result.key ?? validator.canonicalKey(value))
    }

    /// A name that is not checked (a refused value standing in while decoding goes on).
    private init(value: String, key: String) {
        self.value = value
        self.key = key
    }

    /// Decodes a JSON string and validates it.
    ///
    /// - Throws: `DecodingError.dataCorrupted` at the field's coding path, whose
    ///   `underlyingError` is ``InvalidFieldValue``, when the name breaks a rule; the usual
    ///   `DecodingError` when the value is not a string.
    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(String.self)
        let validators = try decoder.ruleKitValidators()
        do throws(InvalidFieldValue) {
            let validator = if let custom = validators.displayName { custom } else { try ShippedValidators.displayName.get() }
            self = try DisplayName(raw, validator: validator)
        } catch {
            try decoder.refuse(error)
            self.init(value: raw, key: raw)
        }
    }

    /// Encodes ``value`` as a string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }

    /// ``value``.
    public var description: String { value }
}
