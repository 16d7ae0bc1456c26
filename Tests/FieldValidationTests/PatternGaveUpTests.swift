import FieldValidation
import Testing

/// A rule whose pattern gives up on a value (PCRE2's match limit) fails closed on that value
/// alone: the value gets `RP3001` and is never valid, and the next values are decided as usual.
@Suite struct PatternGaveUpTests {
    /// `\A(a+)+(?1)\z` backtracks exponentially on a run of a's that ends in anything else.
    static func pack(field: String, kind: String) throws -> RulePack {
        try RulePackSet.parse("""
        pack: catastrophic
        field: \(field)
        rules:
          - id: test.catastrophic
            code: XX901
            kind: \(kind)
            pattern: '\\A(a+)+(?1)\\z'
            message: "No."
        """, name: "catastrophic.yaml")
    }

    static let runOfA = String(repeating: "a", count: 29)

    @Test func eachDisplayNameTheMatchGivesUpOnGetsItsOwnRP3001() throws {
        let validator = try DisplayNameValidator(packs: RulePackSet.shipped.adding(Self.pack(field: "display-name", kind: "must-not-match")))
        let results = [Self.runOfA + "!", "john.doe", Self.runOfA + "b", "jane", Self.runOfA].map { validator.validate($0) }
        // The last value matches (a run of a's only), so the rule itself is violated: no give-up.
        #expect(results.map(\.codes) == [["DN103", "RP3001"], [], ["RP3001"], [], ["XX901"]])
        for result in [results[0], results[2]] {
            let gaveUp = try #require(result.violations.first { $0.code == "RP3001" })
            #expect(gaveUp.rule == "test.catastrophic")
            #expect(gaveUp.parameters["rule-code"] == "XX901")
            #expect(gaveUp.parameters["error"]?.contains("match limit") == true)
            #expect(gaveUp.message.contains("the check gave up, so the value is not accepted"))
            #expect(!result.isValid && result.key == nil)
        }
    }

    @Test func aMustMatchRuleThatGivesUpRejectsThePasswordWithoutEchoingIt() throws {
        let validator = try PasswordValidator(packs: RulePackSet.shipped.adding(Self.pack(field: "password", kind: "must-match")))
        let secret = Self.runOfA + "Zq7!Zq7!"
        let result = validator.validate(secret)
        let gaveUp = try #require(result.violations.first { $0.code == "RP3001" })
        #expect(!result.isValid)
        let rendered = ([gaveUp.message] + gaveUp.parameters.values).joined(separator: " ")
        #expect(!rendered.contains("Zq7"), "the violation must not carry any part of the password")
    }

    /// The issue's own example: whatever PCRE2 makes of `(a+)+$`, a value is never valid
    /// because a match gave up.
    @Test func aNestedQuantifierIsDecidedOrFailsClosed() throws {
        let pack = try RulePackSet.parse("""
        pack: nested
        field: display-name
        rules:
          - id: test.nested
            code: XX902
            kind: must-match
            pattern: '(a+)+$'
            message: "No."
        """, name: "nested.yaml")
        let validator = try DisplayNameValidator(packs: RulePackSet.shipped.adding(pack))
        let codes = validator.validate(Self.runOfA + "b").codes
        #expect(codes == ["XX902"] || codes == ["RP3001"])
        #expect(validator.validate(Self.runOfA).codes == [])
    }
}
