@testable import FieldValidation
import Testing

/// Every `examples:` entry of every shipped rule: valid examples must not produce the rule's
/// code, invalid ones must.
@Suite struct RulePackExampleTests {
    struct Example: CustomTestStringConvertible, Sendable {
        let field: Field
        let rule: String
        let code: String
        let value: String
        let index: Int
        let expectViolation: Bool
        var testDescription: String {
            // Password examples are named by index, never by value.
            let shown = field == .password ? "#\(index)" : value.debugDescription
            return "\(rule)/\(expectViolation ? "invalid" : "valid")/\(shown)"
        }
    }

    static let examples: [Example] = {
        var all: [Example] = []
        for field in Field.allCases {
            guard let rules = try? RulePackSet.shipped.rules(for: field) else { continue }
            for rule in rules {
                for (index, value) in (rule.validExamples ?? []).enumerated() {
                    all.append(Example(field: field, rule: rule.id, code: rule.code ?? "", value: value, index: index, expectViolation: false))
                }
                for (index, value) in (rule.invalidExamples ?? []).enumerated() {
                    all.append(Example(field: field, rule: rule.id, code: rule.code ?? "", value: value, index: index, expectViolation: true))
                }
            }
        }
        return all
    }()

    @Test func shippedPacksLoad() throws {
        for field in Field.allCases {
            _ = try RulePackSet.shipped.rules(for: field)
        }
        #expect(!Self.examples.isEmpty)
    }

    @Test(arguments: examples)
    func example(_ example: Example) throws {
        let codes = try ExampleValidators.shared.codes(example.field, example.value)
        #expect(codes.contains(example.code) == example.expectViolation, "\(example.testDescription): got \(codes)")
    }
}

/// One validator per field, built once from the shipped packs.
struct ExampleValidators: Sendable {
    static let shared = ExampleValidators()
    let displayName = Result { () throws(RulePackError) in try DisplayNameValidator(appName: "RulesKit") }
    // Rules shipped off are switched on, so their examples are checked too (password.breached
    // has none: its store is the user's own).
    let email = Result { () throws(RulePackError) in try EmailValidator(rejectDisposable: true) }
    let password = Result { () throws(RulePackError) in try PasswordValidator(appName: "RulesKit") }

    func codes(_ field: Field, _ value: String) throws -> [String] {
        switch field {
        case .displayName: try displayName.get().validate(value).codes
        case .password: try password.get().validate(value).codes
        case .email: try email.get().validate(value).codes
        }
    }
}
