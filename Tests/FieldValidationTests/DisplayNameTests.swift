@testable import FieldValidation
import Testing

@Suite struct DisplayNameTests {
    let validator: DisplayNameValidator

    init() throws {
        validator = try DisplayNameValidator(appName: "RulesKit")
    }

    @Test("messages are the app's sentences", arguments: [
        ("ab", "DN101", "Username must be at least 3 characters long."),
        (String(repeating: "a", count: 31), "DN102", "Username must be 30 characters or less."),
        ("john doe", "DN103", "Username can only contain letters, numbers, periods, and underscores."),
    ])
    func messages(name: String, code: String, message: String) {
        let result = validator.validate(name)
        #expect(result.violations.map(\.code) == [code])
        #expect(result.violations.first?.message == message)
    }

    @Test func everyViolatedRuleIsReported() {
        let name = String(repeating: "a", count: 29) + ".."
        #expect(validator.validate(name).codes == ["DN102", "DN105", "DN106"])
        #expect(validator.validate(".a..b.").codes == ["DN104", "DN105", "DN106"])
        #expect(validator.validate(".").codes == ["DN101", "DN104", "DN105"])
    }

    @Test func rawInputIsNotRepaired() {
        #expect(validator.validate("john\n").codes == ["DN103"])
        #expect(validator.validate(" john").codes == ["DN103"])
        #expect(validator.validate("ｊｏｈｎ").codes == ["DN103"])
        #expect(validator.validate("\u{212A}elvin").codes == ["DN103"])
    }

    @Test func validNameHasNormalizedValueAndCanonicalKey() {
        let result = validator.validate("John.Doe_1")
        #expect(result.isValid)
        #expect(result.normalized == "John.Doe_1")
        #expect(result.key == "john.doe_1")
        #expect(validator.canonicalKey("john_doe") != validator.canonicalKey("john.doe"))
    }

    @Test func reservedNamesUseCanonicalAndLookalikeKeys() {
        #expect(validator.validate("Admin").codes == ["DN107"])
        #expect(validator.validate("adm1n").codes == ["DN108"])
        #expect(validator.validate("admln").codes == ["DN108"])
        #expect(validator.validate("adrnin").codes == ["DN108"])
        #expect(validator.validate("rulesKIT").codes == ["DN107"])
        #expect(validator.validate("ru1eskit").codes == ["DN108"])
        #expect(validator.lookalikeKey("AdRn1N|0") == "admlnlo")
    }

    @Test func byteEntryPointAgreesWithStringEntryPoint() {
        for name in ["john.doe", "admin", "ab", "jo..hn", "jöhn", "adm1n"] {
            var copy = name
            let bytes = copy.withUTF8 { validator.validate(utf8: UnsafeRawBufferPointer($0)) }
            #expect(bytes.codes == validator.validate(name).codes, "\(name)")
        }
    }

    @Test func shippedPolicyHasTheFastPath() {
        #expect(validator.engine != nil)
    }
}
