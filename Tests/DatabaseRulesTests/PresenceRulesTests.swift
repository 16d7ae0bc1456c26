import DatabaseRules
import RulesTestSupport
import RulesTesting
import Testing

/// The app's presence rules against their case file, through the RulesTesting runner.
@Suite struct PresenceRulesTests {
    static let casePath = RepositoryFiles.root.appendingPathComponent("rules/tests/database.cases.json").path

    @Test func everyPresenceCasePasses() throws {
        let file = try DatabaseCaseFileLoader.load(path: Self.casePath)
        #expect(file.cases.count >= 40)
        #expect(file.cases.contains { $0.expect == .deny } && file.cases.contains { $0.expect == .allow })
        let results = try DatabaseTestRunner(collectCoverage: true).run(file)
        #expect(results.count == file.cases.count)
        for result in results where !result.passed {
            Issue.record("\(result.name): expected \(result.expect), got \(result.actual)\n\(result.explanation)")
        }
    }

    @Test func everyPresenceRuleIsCovered() throws {
        let file = try DatabaseCaseFileLoader.load(path: Self.casePath)
        let runner = DatabaseTestRunner(collectCoverage: true)
        _ = try runner.run(file)
        let coverage = try #require(runner.coverage.first?.collector)
        for rule in coverage.program.allRules {
            let counts = coverage.counts(forRule: rule.rulePath)
            #expect(counts.total > 0, "\(rule.rulePath) never evaluated")
            if rule.kind != .read || rule.text != "true" {
                #expect(counts.trueCount > 0 || rule.text == "false", "\(rule.rulePath) never true")
            }
        }
    }

    @Test func caseFileErrorsNameTheLine() {
        do {
            _ = try DatabaseCaseFileLoader.load(path: Self.casePath + ".missing")
            Issue.record("a missing file must fail")
        } catch {
            #expect(error.message == "no such file")
        }
    }
}
