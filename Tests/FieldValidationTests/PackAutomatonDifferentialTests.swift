@testable import FieldValidation
import Foundation
import Patterns
import RulesTestSupport
import Testing

/// Automaton-backed rule sets against rule-by-rule PCRE2, on generated packs (random patterns,
/// must-match and must-not-match, lengths, `unless`) and generated inputs: the violated rules,
/// in order, must be the same. Inputs on which PCRE2's JIT and interpreter disagree for some rule
/// (PCRE2 10.42 JIT defects; see PatternAutomataTests) are skipped and counted.
@Suite struct PackAutomatonDifferentialTests {
    @Test func generatedDisplayNamePacksAgreeWithPCRE2() throws {
        var checked = 0, invalid = 0, viaAutomaton = 0, viaPrefilter = 0
        for seed in 0..<150 {
            var random = SplitMix(seed: UInt64(50_000 + seed))
            let (pack, hints) = Self.pack(using: &random, ruleCount: 1 + random.below(8))
            guard let validator = try? DisplayNameValidator(packs: RulePackSet(packs: [pack])) else { continue }
            let plan = validator.plan
            viaAutomaton += plan.rules.count { $0.strategy == .automaton }
            viaPrefilter += plan.rules.count { $0.strategy == .prefilterPCRE2 }
            let reference = Reference(validator.rules)
            for _ in 0..<40 {
                let bytes = SubjectGenerator.subject(using: &random, hints: hints)
                // Validators see valid UTF-8 only.
                guard let name = String(validating: bytes, as: UTF8.self), !name.isEmpty else { continue }
                let actual = validator.validate(name).violations.map(\.rule)
                guard let expected = reference.violatedRules(FieldInput(field: .displayName, value: name, appName: nil)) else { continue }
                #expect(actual == expected, "seed \(50_000 + seed): \(name.debugDescription) under\n\(plan)")
                checked += 1
                if !expected.isEmpty { invalid += 1 }
            }
        }
        #expect(checked >= 3_000 && invalid >= 1_000 && checked - invalid >= 200, "\(checked) checked, \(invalid) invalid")
        #expect(viaAutomaton >= 300 && viaPrefilter >= 20, "\(viaAutomaton) rules by automaton, \(viaPrefilter) by prefilter")
    }

    @Test func generatedEmailPacksAgreeOnEverySubject() throws {
        var checked = 0, invalid = 0
        for seed in 0..<100 {
            var random = SplitMix(seed: UInt64(60_000 + seed))
            let (pack, hints) = Self.pack(using: &random, ruleCount: 2 + random.below(10), field: .email)
            guard let rules = try? CompiledRuleSet.compile(RulePackSet(packs: [pack]), field: .email, library: []) else { continue }
            let reference = Reference(rules)
            for _ in 0..<30 {
                var subjects: [(name: String, value: String)] = []
                for subject in Field.email.targets where random.chance(85) {
                    let bytes = SubjectGenerator.subject(using: &random, hints: hints)
                    subjects.append((subject, String(decoding: bytes, as: UTF8.self)))
                }
                let input = FieldInput(field: .email, raw: subjects.first?.value ?? "", subjectList: subjects, asciiOnly: false)
                guard let expected = reference.violatedRules(input) else { continue }
                #expect(rules.evaluate(input).map(\.rule) == expected, "seed \(60_000 + seed): \(subjects)")
                checked += 1
                if !expected.isEmpty { invalid += 1 }
            }
        }
        #expect(checked >= 2_000 && invalid >= 500, "\(checked) checked, \(invalid) invalid")
    }

    /// A pack of `ruleCount` rules: generated patterns (both kinds), a length rule sometimes,
    /// and `unless` naming earlier rules; and the literals its patterns use.
    static func pack(using random: inout SplitMix, ruleCount: Int, field: Field = .displayName) -> (RulePack, [String]) {
        var lines = ["pack: generated", "field: \(field.rawValue)", "rules:"]
        var hints: [String] = []
        var ids: [String] = []
        for index in 0..<ruleCount {
            let id = "generated.rule-\(index)"
            lines.append("  - id: \(id)")
            lines.append("    code: G\(100 + index)")
            lines.append("    message: m\(index)")
            if field == .email { lines.append("    on: \(field.targets[random.below(field.targets.count)])") }
            if random.chance(15) {
                lines.append("    kind: length")
                lines.append("    unit: \(random.chance(50) ? "code-points" : "utf8-octets")")
                lines.append("    min: \(random.below(3))")
                lines.append("    max: \(3 + random.below(8))")
            } else {
                var generator = PatternGenerator(random: random)
                let pattern = generator.pattern()
                random = generator.random
                hints += generator.literals
                lines.append("    kind: \(random.chance(35) ? "must-match" : "must-not-match")")
                // YAML single quotes: a quote is written twice.
                lines.append("    pattern: '\(pattern.replacingOccurrences(of: "'", with: "''"))'")
            }
            if !ids.isEmpty, random.chance(20) { lines.append("    unless: \(ids[random.below(ids.count)])") }
            ids.append(id)
        }
        // A pattern PCRE2 refuses is dropped by the caller (the pack does not compile).
        let pack = (try? RulePackSet.parse(lines.joined(separator: "\n") + "\n", name: "generated.yaml"))
            ?? (try! RulePackSet.parse("pack: generated\nfield: \(field.rawValue)\nrules: []\n", name: "empty.yaml"))
        return (pack, hints)
    }

    /// Rule-by-rule evaluation with PCRE2 alone.
    struct Reference {
        let rules: CompiledRuleSet
        let interpreters: [Pattern?]

        init(_ rules: CompiledRuleSet) {
            self.rules = rules
            interpreters = rules.rules.map { rule in
                switch rule.check {
                case .mustMatch(let pattern): try? Pattern(pattern.source, anchoring: .wholeString, jit: false)
                case .mustNotMatch(let pattern): try? Pattern(pattern.source, anchoring: .search, jit: false)
                default: nil
                }
            }
        }

        /// The ids of the violated rules in order; nil when a match gave up or PCRE2's two
        /// engines disagree.
        func violatedRules(_ input: FieldInput) -> [String]? {
            var violated = [Bool](repeating: false, count: rules.rules.count)
            var ids: [String] = []
            for (index, rule) in rules.rules.enumerated() {
                if rule.unless.contains(where: { violated[$0] }) { continue }
                guard let subject = input.subject(rule.target) else { continue }
                let isViolated: Bool
                switch rule.check {
                case .mustMatch(let pattern), .mustNotMatch(let pattern):
                    guard let matches = try? pattern.matches(subject), let interpreter = interpreters[index],
                          (try? interpreter.matches(subject)) == matches else { return nil }
                    if case .mustMatch = rule.check { isViolated = !matches } else { isViolated = matches }
                default:
                    guard let violation = rule.evaluate(input) else { continue }
                    if violation.code == RulePackCodes.matchGaveUp.id { return nil }
                    isViolated = true
                }
                if isViolated {
                    violated[index] = true
                    ids.append(rule.id)
                }
            }
            return ids
        }
    }
}
