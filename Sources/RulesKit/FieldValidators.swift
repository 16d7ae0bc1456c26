import Foundation

/// The validators that ``DisplayName`` and ``EmailAddress`` decode with, passed through a
/// decoder's `userInfo[.ruleKitValidators]`.
///
/// A validator left nil is the shipped one (the rule packs in `rules/`, built once and shared).
/// `userInfo[.ruleKitValidators]` may also hold one `DisplayNameValidator` or `EmailValidator`
/// alone: the other kind of value then decodes with the shipped packs.
///
/// ```swift
/// let decoder = JSONDecoder()
/// decoder.userInfo[.ruleKitValidators] = FieldValidators(displayName: try DisplayNameValidator(appName: "Chirp"))
/// let signUp = try decoder.decode(SignUp.self, from: body)
/// ```
public struct FieldValidators: Sendable {
    /// Decodes ``DisplayName`` values; nil for the shipped display-name packs.
    public var displayName: DisplayNameValidator?
    /// Decodes ``EmailAddress`` values; nil for the shipped email packs.
    public var email: EmailValidator?

    /// Creates a set of validators; each one left nil is the shipped one.
    public init(displayName: DisplayNameValidator? = nil, email: EmailValidator? = nil) {
        self.displayName = displayName
        self.email = email
    }
}

extension CodingUserInfoKey {
    /// The key of a ``FieldValidators`` value in a decoder's `userInfo`: the validators that
    /// ``DisplayName`` and ``EmailAddress`` decode with (the shipped ones when absent).
    // INVARIANT: CodingUserInfoKey(rawValue:) accepts every string.
    public static let ruleKitValidators = CodingUserInfoKey(rawValue: "RulesKit.FieldValidators")!

    /// Where `JSONDecoder.decodeCollectingInvalidFields(_:from:)` keeps the fields it collects.
    // INVARIANT: CodingUserInfoKey(rawValue:) accepts every string.
    static let ruleKitInvalidFieldCollector = CodingUserInfoKey(rawValue: "RulesKit.InvalidFieldCollector")!
}

// MARK: - The shipped validators

/// The validators built from the shipped packs, once per process, on first use.
enum ShippedValidators {
    static let displayName: Result<DisplayNameValidator, InvalidFieldValue> = build(.displayName) { () throws(RulePackError) in try DisplayNameValidator() }
    static let email: Result<EmailValidator, InvalidFieldValue> = build(.email) { () throws(RulePackError) in try EmailValidator() }

    /// The validator, or the packaging bug that keeps the shipped packs from loading, as a
    /// refusal with the pack error's code (`RP…`) that asks for a report.
    private static func build<Validator>(_ kind: InvalidFieldValue.Kind, _ make: () throws(RulePackError) -> Validator)
        -> Result<Validator, InvalidFieldValue> {
        do {
            return .success(try make())
        } catch {
            let code = error.diagnostics.first?.code ?? RulePackCodes.unnamedLoadFailure.id
            let violation = Violation(
                code: code, rule: "rule-pack.load",
                message: "The shipped \(kind.rawValue) rules did not load (\(code)), so no value can be checked; please report this.")
            return .failure(InvalidFieldValue(kind: kind, result: ValidationResult(violations: [violation])))
        }
    }
}

// MARK: - Decoding support

extension Decoder {
    /// The validators in `userInfo` (a ``FieldValidators``, or one `DisplayNameValidator` or
    /// `EmailValidator` alone), the shipped ones for the rest.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when `userInfo[.ruleKitValidators]` holds
    ///   something else.
    func ruleKitValidators() throws -> FieldValidators {
        switch userInfo[.ruleKitValidators] {
        case nil: return FieldValidators()
        case let validators as FieldValidators: return validators
        case let displayName as DisplayNameValidator: return FieldValidators(displayName: displayName)
        case let email as EmailValidator: return FieldValidators(email: email)
        case let value?:
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "userInfo[.ruleKitValidators] holds a \(type(of: value)), not FieldValidators, "
                    + "DisplayNameValidator or EmailValidator"))
        }
    }

    /// Refuses a value: records it when the decoder collects invalid fields (and returns, so
    /// decoding goes on), or throws.
    ///
    /// - Throws: `DecodingError.dataCorrupted` at this decoder's coding path, whose
    ///   `underlyingError` is `error`.
    func refuse(_ error: InvalidFieldValue) throws {
        if let collector = userInfo[.ruleKitInvalidFieldCollector] as? InvalidFieldCollector {
            collector.record(InvalidField(pointer: JSONPointer.of(codingPath), error: error))
            return
        }
        throw DecodingError.dataCorrupted(DecodingError.Context(
            codingPath: codingPath, debugDescription: error.description, underlyingError: error))
    }
}
