@testable import FieldValidation
import Testing

/// Password behaviour. Expectations compare codes bound to locals and are labelled with the
/// case, so a failure never prints a password (not even a test literal).
@Suite struct PasswordTests {
    let validator: PasswordValidator

    init() throws {
        validator = try PasswordValidator(appName: "RulesKit")
    }

    /// Checks one password's codes; the failure output shows only codes and `label`.
    func expectCodes(_ password: String, _ expected: [String], _ label: String,
                     context: PasswordContext = .none, validator: PasswordValidator? = nil,
                     sourceLocation: SourceLocation = #_sourceLocation) {
        let actual = (validator ?? self.validator).validate(password, context: context).codes
        #expect(actual == expected, Comment(rawValue: label), sourceLocation: sourceLocation)
    }

    @Test func minimumLengthMessage() {
        let result = validator.validate("abc")
        let codes = result.codes
        let message = result.violations.first?.message
        let minimum = result.violations.first?.parameters["min"]
        #expect(codes == ["PW102"], "short password")
        #expect(message == "Password must be at least 8 characters long.")
        #expect(minimum == "8")
    }

    @Test func lengthCountsCodePointsOfTheNFKCForm() {
        // U+FB03 LATIN SMALL LIGATURE FFI is 1 code point raw, 3 after NFKC.
        expectCodes("\u{FB03}\u{FB03}\u{FB03}", [], "three ligatures = 9 code points")
        expectCodes("\u{FB03}\u{FB03}", ["PW102"], "two ligatures = 6 code points")
        expectCodes("e\u{301}e\u{301}e\u{301}e\u{301}", ["PW102"], "NFKC composes to 4")
    }

    @Test func maximumIsEnforcedNeverTruncated() {
        let atMax = String(repeating: "x", count: 1023) + "y"
        expectCodes(atMax, [], "1024 code points")
        expectCodes(atMax + "z", ["PW103"], "1025 code points")
        let count = validator.validate(atMax + "z").violations.first?.parameters["count"]
        #expect(count == "1", "one too many")
        expectCodes(String(repeating: "q", count: 64) + "w", [], "64+ accepted")
    }

    @Test func presetRequiresFifteen() throws {
        let nist = try PasswordValidator.nistSingleFactor()
        expectCodes("fourteen-chars", ["PW102"], "14 code points", validator: nist)
        expectCodes("fifteen--chars!", [], "15 code points", validator: nist)
        let message = nist.validate("fourteen-chars").violations.first?.message
        #expect(message == "Password must be at least 15 characters long.")
    }

    @Test func commonPasswordsCaseInsensitiveAfterNFKCAndTrim() {
        expectCodes("Password", ["PW104"], "capitalized common")
        expectCodes("  baseball ", ["PW104"], "padded common")
        expectCodes("ｆｏｏｔｂａｌｌ", ["PW104"], "full-width common")
    }

    @Test func contextChecks() {
        let context = PasswordContext(username: "Johnny", email: "jane.roe+news@example.com", appName: nil)
        expectCodes("my-JOHNNY-secret", ["PW105"], "username inside", context: context)
        expectCodes("xx-jane.roe+news-xx", ["PW106"], "local part with tag", context: context)
        expectCodes("xx-jane.roe-xx-yy", ["PW106"], "local part without tag", context: context)
        expectCodes("i-love-ruleskit!", ["PW107"], "app name from validator", context: context)
        expectCodes("ab-ab-ab-ab", [], "short tokens ignored", context: PasswordContext(username: "ab"))
    }

    @Test func controlCharactersAreRejectedWithoutEchoingThem() {
        let result = validator.validate("tab\there-long")
        let codes = result.codes
        let echoes = result.violations.contains { $0.parameters["match"] != nil || $0.parameters["characters"] != nil }
        let normalized = result.normalized
        #expect(codes == ["PW101"], "tab")
        #expect(!echoes, "no matched text")
        #expect(normalized == nil)
    }

    @Test func nothingInTheResultEchoesThePassword() {
        let secret = "Secret-Value-\u{FB03}-1234"
        let context = PasswordContext(username: "value", email: "secret@example.com", appName: "1234")
        let result = validator.validate(secret + "\n" + String(repeating: "z", count: 1024), context: context)
        let isValid = result.isValid
        #expect(!isValid, "invalid on several rules")
        for violation in result.violations {
            let text = violation.message + violation.parameters.values.joined()
            let echoes = text.contains("Secret") || text.contains("ffi")
            #expect(!echoes, "violation \(violation.code) echoes input")
        }
    }

    // MARK: - Confirmation (the sign-up form's "passwords must match")

    @Test func matchingConfirmationAddsNothing() {
        let result = validator.validate("correct horse battery", confirmation: "correct horse battery")
        let codes = result.codes
        #expect(codes == [], "same password twice")
    }

    @Test func mismatchIsPW108WithTheAppsMessage() {
        let result = validator.validate("correct horse battery", confirmation: "correct horse batterz")
        let codes = result.codes
        let message = result.violations.last?.message
        let rule = result.violations.last?.rule
        let parameters = result.violations.last?.parameters
        #expect(codes == ["PW108"], "one character differs")
        #expect(message == "Passwords do not match.")
        #expect(rule == "password.confirmation")
        #expect(parameters == [:], "no parameter can carry either value")
    }

    @Test func mismatchComesAfterThePacksViolations() {
        let codes = validator.validate("abc", context: PasswordContext(username: "abc"), confirmation: "abd").codes
        #expect(codes == ["PW102", "PW105", "PW108"], "short, contains the username, and not confirmed")
    }

    @Test func confirmationComparesNFKCFormsExactly() {
        let ligature = validator.validate("o\u{FB03}ce-party-2026", confirmation: "office-party-2026").codes
        #expect(ligature == [], "U+FB03 and ffi are one password after NFKC")
        let composed = validator.validate("caf\u{E9}-au-lait-99", confirmation: "cafe\u{301}-au-lait-99").codes
        #expect(composed == [], "precomposed and combining forms are one password")
        let caseOnly = validator.validate("Correct horse battery", confirmation: "correct horse battery").codes
        #expect(caseOnly == ["PW108"], "case matters")
        let padded = validator.validate("correct horse battery", confirmation: "correct horse battery ").codes
        #expect(padded == ["PW108"], "a trailing space matters")
        let empty = validator.validate("correct horse battery", confirmation: "").codes
        #expect(empty == ["PW108"], "an empty confirmation")
    }

    @Test func confirmationFromUTF8Bytes() {
        let codes = Array("correct horse battery".utf8).withUnsafeBytes {
            validator.validate(utf8: $0, context: .none, confirmation: "correct horse batter").codes
        }
        #expect(codes == ["PW108"], "byte entry point")
    }

    @Test func nothingInTheResultEchoesEitherValue() {
        let result = validator.validate("Secret-Value-1234", confirmation: "Typo-Value-5678")
        let normalized = result.normalized
        #expect(normalized == nil)
        for violation in result.violations {
            let text = violation.message + violation.rule + violation.parameters.keys.joined() + violation.parameters.values.joined()
            let echoes = text.contains("Secret") || text.contains("Typo") || text.contains("1234") || text.contains("5678")
            #expect(!echoes, "violation \(violation.code) echoes input")
        }
    }
}
