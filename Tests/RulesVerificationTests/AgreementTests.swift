import FieldValidation
import Foundation
import RulesLanguage
import RulesTestSupport
import Testing
@testable import RulesVerification

/// `validate rules agree`: the app's `isValidDisplayName` against the display-name pack, and
/// planted disagreements made by editing the app's own function.
@Suite("rules agree")
struct AgreementTests {
    static let appRules: String = (try? String(contentsOf: packageRoot.appendingPathComponent("rules/firestore.rules"), encoding: .utf8)) ?? ""

    /// The app's rules with `old` replaced by `new` (which must occur).
    func planted(_ old: String, _ new: String) throws -> String {
        #expect(Self.appRules.contains(old), "the app's rules no longer contain `\(old)`")
        let edited = Self.appRules.replacingOccurrences(of: old, with: new)
        try #require(edited != Self.appRules)
        return edited
    }

    func agree(_ rules: String, function: String = "isValidDisplayName", appName: String? = "RulesKit",
               validator: DisplayNameValidator? = nil) throws -> (AgreementResult, Program, FunctionDecl, DisplayNameValidator) {
        let program = try compile(rules, name: "firestore.rules")
        let declaration = try #require(program.functions(named: function).first)
        let validator = try validator ?? DisplayNameValidator(appName: appName)
        let result = RulesAgreement(timeout: 300).check(program: program, function: declaration, validator: validator)
        return (result, program, declaration, validator)
    }

    /// A `differs` answer whose witness both engines decide as reported, and differently.
    func expectReplayedDifference(_ rules: String, appName: String? = "RulesKit") throws -> AgreementWitness {
        let (result, program, declaration, validator) = try agree(rules, appName: appName)
        #expect(result.verdict == .differs, "reason: \(result.reason ?? "none")")
        let witness = try #require(result.witness)
        let replayed = RulesAgreement.replay(witness.value, program: program, function: declaration, validator: validator)
        #expect(replayed == witness)
        #expect(witness.packAccepts != witness.rulesReturnTrue)
        #expect(result.reason == nil)
        return witness
    }

    @Test("the app's isValidDisplayName is the display-name pack with the app's name")
    func appPairIsEquivalent() throws {
        let (result, _, _, _) = try agree(Self.appRules)
        #expect(result.verdict == .equivalent, "reason: \(result.reason ?? "none")")
        #expect(result.witness == nil)
        #expect(result.verdict.exitStatus == 0)
    }

    @Test("reordering the look-alike steps is still equivalent (the steps commute)")
    func reorderedStepsAreEquivalent() throws {
        let rules = try planted("name.lower().replace('rn', 'm').replace('[1i|]', 'l').replace('0', 'o')",
                                "name.replace('0', 'o').lower().replace('[1i|]', 'l').replace('rn', 'm')")
        let (result, _, _, _) = try agree(rules)
        #expect(result.verdict == .equivalent, "reason: \(result.reason ?? "none")")
    }

    @Test("a different length bound differs, on a name of 31 characters")
    func lengthBound() throws {
        let witness = try expectReplayedDifference(planted("name.size() <= 30", "name.size() <= 31"))
        #expect(witness.value.unicodeScalars.count == 31)
        #expect(!witness.packAccepts && witness.rulesReturnTrue)
    }

    @Test("a reserved key missing from the rules differs, on a spelling of that name")
    func missingReservedKey() throws {
        let witness = try expectReplayedDifference(planted("'ftp', 'admln',", "'ftp',"))
        let validator = try DisplayNameValidator(appName: "RulesKit")
        #expect(validator.lookalikeKey(witness.value) == "admln")
        #expect(!witness.packAccepts && witness.rulesReturnTrue)
    }

    @Test("the pack without the app's name differs from the rules, which reserve it")
    func withoutAppName() throws {
        let witness = try expectReplayedDifference(Self.appRules, appName: nil)
        #expect(try DisplayNameValidator().lookalikeKey(witness.value) == "rulesklt")
        #expect(witness.packAccepts && !witness.rulesReturnTrue)
    }

    @Test("a different pattern differs")
    func differentPattern() throws {
        let witness = try expectReplayedDifference(planted("name.matches('[A-Za-z0-9_]+([.][A-Za-z0-9_]+)*')",
                                                           "name.matches('[A-Za-z0-9_]+([.][A-Za-z0-9_]+)*[.]?')"))
        #expect(witness.value.hasSuffix("."))
        #expect(!witness.packAccepts && witness.rulesReturnTrue)
    }

    @Test("a pack with a Swift rule is unknown, and the reason names the rule")
    func swiftRule() throws {
        let pack = try RulePackSet.parse("""
            pack: mine
            field: display-name
            rules:
              - id: my-app.no-digits-only
                code: DN901
                kind: swift
                message: "Not only digits."
            """, name: "mine.yaml")
        let rule = ClosureFieldRule(name: "my-app.no-digits-only") { input in input.raw.allSatisfy(\.isNumber) ? [:] : nil }
        let validator = try DisplayNameValidator(packs: RulePackSet.shipped.adding(pack), appName: "RulesKit", rules: [rule])
        let (result, _, _, _) = try agree(Self.appRules, validator: validator)
        #expect(result.verdict == .unknown)
        #expect(result.witness == nil)
        #expect(result.reason?.contains("my-app.no-digits-only") == true)
        #expect(result.verdict.exitStatus == 3)
    }

    @Test("JSON has the verdict, the witness and the reason")
    func jsonShape() throws {
        let witness = AgreementWitness(value: "a\"b\n", packAccepts: false, rulesReturnTrue: true)
        let differs = AgreementReport.json(AgreementResult(verdict: .differs, witness: witness, reason: nil))
        let object = try #require(JSONSerialization.jsonObject(with: Data(differs.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["verdict", "witness", "reason"])
        #expect(object["verdict"] as? String == "differs")
        #expect(object["reason"] is NSNull)
        let shown = try #require(object["witness"] as? [String: Any])
        #expect(shown["value"] as? String == "a\"b\n")
        #expect(shown["pack"] as? String == "invalid")
        #expect(shown["rules"] as? Bool == true)
        let unknown = AgreementReport.json(AgreementResult(verdict: .unknown, witness: nil, reason: "why"))
        let other = try #require(JSONSerialization.jsonObject(with: Data(unknown.utf8)) as? [String: Any])
        #expect(other["witness"] is NSNull)
        #expect(other["reason"] as? String == "why")
        #expect([AgreementVerdict.equivalent, .differs, .unknown].map(\.exitStatus) == [0, 1, 3])
    }
}

/// The preimages `rules agree` builds, checked against the engines' own key functions.
@Suite("string-step preimages")
struct PreimageTests {
    /// Strings over an alphabet rich in the look-alike letters, from a fixed linear congruential sequence.
    static let samples: [String] = {
        let alphabet = Array("rnmRNMiIl1|0oOadADK\u{212A}.é")
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var out: [String] = ["", "rn", "rrn", "rnn", "m"]
        for _ in 0..<3000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let length = Int(state >> 60) % 7
            var text = ""
            for _ in 0..<length {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                text.append(alphabet[Int(state >> 33) % alphabet.count])
            }
            out.append(text)
        }
        return out
    }()

    func accepts(_ automaton: CharAutomaton, _ text: String) -> Bool {
        !automaton.reading(automaton.start, text.unicodeScalars.map(\.value)).isDisjoint(with: automaton.finals)
    }

    @Test("the look-alike preimage accepts exactly the strings whose key is listed")
    func lookalike() throws {
        let validator = try DisplayNameValidator()
        let keys: Set<String> = ["admln", "mod", "rm", "oo", "l"]
        var automaton = CharAutomaton.literals(keys.sorted().map { $0.unicodeScalars.map(\.value) }, canonicalEquivalents: false)
        for step in try #require(PackEncoding.keySteps(.lookalike)).reversed() { automaton = automaton.preimage(step) }
        var listed = 0
        for sample in Self.samples {
            let expected = keys.contains(validator.lookalikeKey(sample))
            if expected { listed += 1 }
            #expect(accepts(automaton, sample) == expected, "\(sample.debugDescription)")
        }
        #expect(listed > 10)
    }

    @Test("a literal replacement that overlaps itself is pushed back leftmost first")
    func overlappingLiteral() throws {
        // `aab` in `aaab` is replaced once, at offset 1.
        let step = try #require(Encoder.replaceStep("aab", "X"))
        let automaton = CharAutomaton.literals([Array("aX".unicodeScalars.map(\.value))], canonicalEquivalents: false).preimage(step)
        #expect(accepts(automaton, "aaab"))
        #expect(accepts(automaton, "aX"))
        #expect(!accepts(automaton, "aab"))
        #expect(!accepts(automaton, "aaaab"))
    }

    @Test("equal finite languages are written as the same regex")
    func canonicalText() throws {
        let steps = try #require(PackEncoding.keySteps(.lookalike))
        var one = CharAutomaton.literals([Array("admln".unicodeScalars.map(\.value))], canonicalEquivalents: true)
        for step in steps.reversed() { one = one.preimage(step) }
        var other = CharAutomaton.literals([Array("admln".unicodeScalars.map(\.value))], canonicalEquivalents: true)
        for step in [steps[0], steps[3], steps[1], steps[2]].reversed() { other = other.preimage(step) }
        let text = try #require(one.minimalRegex())
        #expect(text == other.minimalRegex())
        #expect(text != CharAutomaton.literals([Array("admin".unicodeScalars.map(\.value))], canonicalEquivalents: true).minimalRegex())
    }

    @Test("a pattern's anchors: `\\A`/`^` at the start, `\\z` exact and `$`/`\\Z` before a final line feed at the end")
    func anchors() {
        let start = PackEncoding.Anchors(#"\A\."#)
        #expect(start.start && start.end == .none && start.body == #"\."#)
        let end = PackEncoding.Anchors(#"\.\z"#)
        #expect(!end.start && end.end == .exact && end.body == #"\."#)
        let dollar = PackEncoding.Anchors(#"a$"#)
        #expect(dollar.end == .beforeFinalNewline && dollar.body == "a")
        let escaped = PackEncoding.Anchors(#"a\$"#)
        #expect(escaped.end == .none && escaped.body == #"a\$"#)
        #expect(PackEncoding.hasTopLevelAlternation("a|b"))
        #expect(!PackEncoding.hasTopLevelAlternation("(a|b)[|]"))
    }
}
