@testable import FieldValidation
import Testing

/// Password behaviour. Failure messages name the case, never the password.
@Suite struct PasswordTests {
    let validator: PasswordValidator

    init() throws {
        validator = try PasswordValidator(appName: "RulesKit")
    }

    @Test func minimumLengthMessage() {
        let result = validator.validate("abc")
        #expect(result.codes == ["PW102"], "short password")
        #expect(result.violations.first?.message == "Password must be at least 8 characters long.")
        #expect(result.violations.first?.parameters["min"] == "8")
    }

    @Test func lengthCountsCodePointsOfTheNFKCForm() {
        // U+FB03 LATIN SMALL LIGATURE FFI is 1 code point raw, 3 after NFKC.
        #expect(validator.validate("\u{FB03}\u{FB03}\u{FB03}").codes == [], "three ligatures = 9 code points")
        #expect(validator.validate("\u{FB03}\u{FB03}").codes == ["PW102"], "two ligatures = 6 code points")
        #expect(validator.validate("e\u{301}e\u{301}e\u{301}e\u{301}").codes == ["PW102"], "NFKC composes to 4")
    }

    @Test func maximumIsEnforcedNeverTruncated() {
        let atMax = String(repeating: "x", count: 1023) + "y"
        #expect(validator.validate(atMax).isValid, "1024 code points")
        let over = validator.validate(atMax + "z")
        #expect(over.codes == ["PW103"], "1025 code points")
        #expect(over.violations.first?.parameters["count"] == "1", "one too many")
        #expect(validator.validate(String(repeating: "q", count: 64) + "w").isValid, "64+ accepted")
    }

    @Test func presetRequiresFifteen() throws {
        let nist = try PasswordValidator.nistSingleFactor()
        #expect(nist.validate("fourteen-chars").codes == ["PW102"], "14 code points")
        #expect(nist.validate("fifteen--chars!").isValid, "15 code points")
        #expect(nist.validate("fourteen-chars").violations.first?.message == "Password must be at least 15 characters long.")
    }

    @Test func commonPasswordsCaseInsensitiveAfterNFKCAndTrim() {
        #expect(validator.validate("Password").codes == ["PW104"], "capitalized common")
        #expect(validator.validate("  baseball ").codes == ["PW104"], "padded common")
        #expect(validator.validate("ｆｏｏｔｂａｌｌ").codes == ["PW104"], "full-width common")
    }

    @Test func contextChecks() {
        let context = PasswordContext(username: "Johnny", email: "jane.roe+news@example.com", appName: nil)
        #expect(validator.validate("my-JOHNNY-secret", context: context).codes == ["PW105"], "username inside")
        #expect(validator.validate("xx-jane.roe+news-xx", context: context).codes == ["PW106"], "local part with tag")
        #expect(validator.validate("xx-jane.roe-xx-yy", context: context).codes == ["PW106"], "local part without tag")
        #expect(validator.validate("i-love-ruleskit!", context: context).codes == ["PW107"], "app name from validator")
        #expect(validator.validate("ab-ab-ab-ab", context: PasswordContext(username: "ab")).isValid, "short tokens ignored")
    }

    @Test func controlCharactersAreRejectedWithoutEchoingThem() {
        let result = validator.validate("tab\there-long")
        #expect(result.codes == ["PW101"], "tab")
        #expect(result.violations.allSatisfy { $0.parameters["match"] == nil }, "no matched text")
        #expect(result.normalized == nil)
    }

    @Test func nothingInTheResultEchoesThePassword() {
        let secret = "Secret-Value-\u{FB03}-1234"
        let context = PasswordContext(username: "value", email: "secret@example.com", appName: "1234")
        let result = validator.validate(secret + "\n" + String(repeating: "z", count: 1024), context: context)
        #expect(!result.isValid, "invalid on several rules")
        for violation in result.violations {
            let text = violation.message + violation.parameters.values.joined()
            #expect(!text.contains("Secret") && !text.contains("ffi"), "violation \(violation.code) echoes input")
        }
    }
}
