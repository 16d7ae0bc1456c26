@testable import FieldValidation
import Foundation
import PasswordStrength
import RulesTestSupport
import Testing

/// `PasswordValidator.strength` and the rule `password.strength` (PW110).
@Suite struct PasswordStrengthRuleTests {
    @Test func theRuleIsShippedOff() throws {
        let validator = try PasswordValidator()
        #expect(validator.minimumStrengthScore == nil)
        // A password long and uncommon enough for the pack, but weak: no PW110 without a minimum.
        let weak = "jenniferjennifer"
        #expect(validator.strength(weak).score <= 1)
        #expect(!validator.validate(weak).codes.contains("PW110"))
    }

    @Test func aMinimumScoreRejectsWeakerPasswordsWithoutEchoingThem() throws {
        let validator = try PasswordValidator(minimumStrengthScore: 3)
        let weak = "jenniferjennifer"
        let result = validator.validate(weak)
        let violation = try #require(result.violations.first { $0.code == "PW110" })
        let score = validator.strength(weak).score
        #expect(violation.rule == "password.strength")
        #expect(violation.message == "This password is too easy to guess: its strength is \(score) of 4, and at least 3 is needed.")
        #expect(violation.parameters == ["score": String(score), "min-score": "3"])
        let leaked = violation.message.contains("jennifer") || violation.parameters.values.contains { $0.contains("jennifer") }
        #expect(!leaked, "the violation holds part of the password")
        #expect(validator.validate("violet-kettle-marathon-ostrich").isValid)
    }

    @Test func aPackSwitchesTheStrengthKindOnWithItsOwnMinimum() throws {
        let shipped = try #require(RulePackSet.shipped.packs.flatMap(\.rules).first { $0.id == PasswordValidator.strengthRule })
        #expect(shipped.kind == .strength && shipped.enabled == false && shipped.minScore == 3)
        let weak = "jenniferjennifer"
        let score = try PasswordValidator().strength(weak).score
        for minimum in [score, score + 1] {
            let pack = try RulePackSet.parse("""
            pack: strength
            field: password
            rules:
              - {id: password.strength, override: true, enabled: true, min-score: \(minimum)}
            """, name: "strength.yaml")
            let validator = try PasswordValidator(packs: RulePackSet.shipped.adding(pack))
            let violation = validator.validate(weak).violations.first { $0.code == "PW110" }
            // A score equal to the minimum passes; one below it fails, with the pack's minimum.
            #expect((violation != nil) == (score < minimum))
            if let violation { #expect(violation.parameters == ["score": String(score), "min-score": String(minimum)]) }
            #expect(validator.plan.rules.first { $0.id == PasswordValidator.strengthRule }?.strategy == .swift)
        }
        // The validator's minimum wins over the pack's.
        let pack = try RulePackSet.parse("""
        pack: strength
        field: password
        rules:
          - {id: password.strength, override: true, enabled: true, min-score: 0}
        """, name: "strength.yaml")
        let strict = try PasswordValidator(packs: RulePackSet.shipped.adding(pack), minimumStrengthScore: 4)
        #expect(strict.validate(weak).codes.contains("PW110"))
    }

    @Test func strengthRulesAreCheckedWhenThePackCompiles() throws {
        func codes(_ yaml: String, field: String = "password") -> [String] {
            do {
                let pack = try RulePackSet.parse("pack: s\nfield: \(field)\nrules:\n" + yaml, name: "s.yaml")
                switch field {
                case "password": _ = try PasswordValidator(packs: RulePackSet.shipped.adding(pack))
                default: _ = try DisplayNameValidator(packs: RulePackSet.shipped.adding(pack))
                }
                return []
            } catch {
                return error.diagnostics.map(\.code)
            }
        }
        #expect(codes("  - {id: s.a, code: S1, kind: strength, min-score: 2, message: m}\n").isEmpty)
        #expect(codes("  - {id: s.a, code: S1, kind: strength, message: m}\n") == ["RP2005"])
        #expect(codes("  - {id: s.a, code: S1, kind: strength, min-score: 5, message: m}\n") == ["RP2005"])
        #expect(codes("  - {id: s.a, code: S1, kind: strength, min-score: -1, message: m}\n") == ["RP1004"])
        #expect(codes("  - {id: s.a, code: S1, kind: strength, min-score: 2, pattern: x, message: m}\n") == ["RP2007"])
        #expect(codes("  - {id: s.a, code: S1, kind: strength, min-score: 2, message: m}\n", field: "display-name") == ["RP2012"])
    }

    @Test func theContextIsTheUserDictionary() throws {
        let validator = try PasswordValidator(appName: "Chirp")
        let context = PasswordContext(username: "zorblax", email: "quuxly+news@example.com", userInputs: ["flumph"])
        #expect(validator.strengthUserInputs(context) == ["zorblax", "quuxly+news@example.com", "quuxly+news", "quuxly", "Chirp", "flumph"])
        // Words no dictionary holds become cheap once they are the account's own.
        for password in ["zorblaxquuxly", "flumphchirp"] {
            let alone = validator.strength(password)
            let withContext = validator.strength(password, context: context)
            #expect(withContext.guesses < alone.guesses / 1_000)
            #expect(withContext.sequence.contains { $0.kind == .userInput })
        }
        // The same estimate from the bytes entry point.
        let bytes = Array("zorblaxquuxly".utf8)
        let fromBytes = bytes.withUnsafeBytes { validator.strength(utf8: $0, context: context) }
        #expect(fromBytes == validator.strength("zorblaxquuxly", context: context))
    }

    @Test func aRulesDirectoryCanReplaceADictionary() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strength-lists-\(getpid())")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("lists"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(!StrengthDictionaries.overridden(in: directory.path))
        try Data("# our own\nzorblax\n".utf8).write(to: directory.appendingPathComponent("lists/strength-passwords.txt"))
        #expect(StrengthDictionaries.overridden(in: directory.path))
        let dictionaries = try StrengthDictionaries.load(directory: directory.path)
        #expect(dictionaries.map(\.name) == StrengthDictionaries.files.map(\.name))
        #expect(dictionaries[0].count == 1 && dictionaries[1].count == 30_000)
        let estimator = StrengthEstimator(dictionaries: dictionaries)
        let result = estimator.estimate("zorblax")
        #expect(result.guesses == 2 && result.feedback.warning?.code == "PW201")
        #expect(StrengthDictionaries.shippedEstimator.estimate("zorblax").guesses > 1_000)
    }

    @Test func theShippedDictionariesAreTheListFiles() throws {
        let shipped = StrengthDictionaries.shipped()
        #expect(shipped.map(\.count) == [30_000, 30_000, 3_712, 10_000, 19_160, 983])
        for file in StrengthDictionaries.files {
            let text = try repoText("rules/" + file.path)
            #expect(text.hasPrefix("# Strength dictionary:") && text.contains("zxcvbn 4.5.0"), "\(file.path) names its source and version")
        }
    }
}
