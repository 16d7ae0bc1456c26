@testable import FieldValidation
import Foundation
import Testing

/// The plan says how each rule runs; tests assert on it, never on timing.
@Suite struct ValidatorPlanTests {
    static func plan(_ field: Field, adding rules: String = "") throws -> ValidatorPlan {
        var packs = RulePackSet.shipped
        if !rules.isEmpty {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("plan-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            try "blocked\nwords\n".write(to: directory.appendingPathComponent("extra.txt"), atomically: true, encoding: .utf8)
            packs = packs.adding(try RulePackSet.parse("pack: extra\nfield: \(field.rawValue)\nrules:\n" + rules, name: "extra.yaml",
                                                       baseDirectory: directory.path))
        }
        let noDigitsOnly = ClosureFieldRule(name: "extra.swift") { input in input.raw.allSatisfy(\.isNumber) ? [:] : nil }
        switch field {
        case .displayName: return try DisplayNameValidator(packs: packs, rules: [noDigitsOnly]).plan
        case .email: return try EmailValidator(packs: packs, rules: [noDigitsOnly]).plan
        case .password: return try PasswordValidator(packs: packs, rules: [noDigitsOnly]).plan
        }
    }

    /// One custom rule of each kind.
    static let oneOfEachKind = """
          - {id: extra.must-match, code: X1, kind: must-match, pattern: '[A-Za-z].*', message: m}
          - {id: extra.must-not-match, code: X2, kind: must-not-match, pattern: '__', message: m}
          - {id: extra.length, code: X3, kind: length, unit: code-points, max: 20, message: m}
          - {id: extra.list, code: X4, kind: list, file: extra.txt, key: canonical, message: m}
          - {id: extra.swift, code: X5, kind: swift, message: m}

        """

    @Test(arguments: Field.allCases)
    func theShippedPacksPlusOneRuleOfEachKindRunNothingAloneInPCRE2(_ field: Field) throws {
        let plan = try Self.plan(field, adding: Self.oneOfEachKind)
        let alone = plan.rules.filter { $0.strategy == .pcre2 }.map(\.id)
        #expect(alone.isEmpty, "\(alone) run alone in PCRE2:\n\(plan)")
        let strategies = Dictionary(plan.rules.map { ($0.id, $0.strategy) }, uniquingKeysWith: { first, _ in first })
        #expect(strategies["extra.must-match"] == .automaton)
        #expect(strategies["extra.must-not-match"] == .automaton)
        #expect(strategies["extra.length"] == .length)
        #expect(strategies["extra.list"] == .list)
        #expect(strategies["extra.swift"] == .swift)
        // Every automaton rule names an automaton on its own subject.
        for rule in plan.rules where rule.strategy == .automaton || rule.strategy == .prefilterPCRE2 {
            let automaton = try #require(rule.automaton.map { plan.automata[$0] }, "\(rule.id)")
            #expect(automaton.subject == rule.subject && automaton.rules.contains(rule.id))
        }
    }

    @Test func theShippedDisplayNamePatternsAreOneSmallAutomaton() throws {
        let plan = try Self.plan(.displayName)
        #expect(plan.automata.count == 1)
        let automaton = try #require(plan.automata.first)
        #expect(automaton.rules == ["display-name.characters", "display-name.leading-period", "display-name.trailing-period",
                                    "display-name.consecutive-periods"])
        // The four patterns and the fast path's plain-ASCII check, in one automaton.
        #expect(automaton.states <= 64, "\(automaton.states) states")
    }

    @Test func emailPacksRunTheirPerAddressPatternsOnAutomataAndDecideDomainsOncePerDomain() throws {
        // The shipped pack, and any other (here, one list rule more), run on the email engine:
        // automata for the per-address subjects; the domain rules, the lookahead among them, once per domain.
        let patternRules = try RulePackSet.shipped.rules(for: .email)
            .filter { $0.isEnabled && ($0.kind == .mustMatch || $0.kind == .mustNotMatch) }
        let domainPatterns = patternRules.filter { ["domain", "ascii-domain"].contains($0.target ?? "") }.map(\.id)
        #expect(!domainPatterns.isEmpty && domainPatterns.count < patternRules.count)
        for plan in [try Self.plan(.email),
                     try Self.plan(.email, adding: "  - {id: extra.list, code: X4, kind: list, file: extra.txt, key: canonical, message: m}\n")] {
            #expect(Set(plan.automata.map(\.subject)) == ["address", "local-part"])
            #expect(plan.rules.filter { $0.strategy == .pcre2 }.map(\.id) == domainPatterns, "\(plan)")
            #expect(plan.rules.filter { $0.strategy == .pcre2 }.allSatisfy { $0.reason == EmailEngine.perDomain }, "\(plan)")
            #expect(plan.rules.filter { $0.strategy == .prefilterPCRE2 }.isEmpty, "\(plan)")
        }
    }

    @Test func aCustomRuleWithABackreferenceIsPrefilteredAndOneWithRecursionRunsAlone() throws {
        let plan = try Self.plan(.displayName, adding: """
              - {id: extra.repeat, code: X6, kind: must-not-match, pattern: '(.)\\1', message: m}
              - {id: extra.recursion, code: X7, kind: must-not-match, pattern: '\\((?R)?\\)', message: m}

            """)
        let byID = Dictionary(plan.rules.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(byID["extra.repeat"]?.strategy == .prefilterPCRE2)
        #expect(byID["extra.recursion"]?.strategy == .pcre2)
        #expect(byID["extra.recursion"]?.reason?.contains("recursion") == true)
        #expect(plan.description.contains("extra.recursion  on value: pcre2: recursion or a subroutine call"))
    }
}
