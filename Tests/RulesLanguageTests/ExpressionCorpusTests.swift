import Foundation
import RulesLanguage
import RulesTestSupport
import Testing

/// Runs `corpus/rules/expressions/*.txt` with the test regex engine; `regex.txt` needs RE2
/// semantics and runs in RulesPatternsTests instead.
@Suite struct ExpressionCorpusTests {
    static let skippedFiles: Set<String> = ["regex.txt"]

    static func cases() -> [ExpressionCase] {
        ExpressionCase.loadFiles(in: RepositoryFiles.root.appendingPathComponent("corpus/rules/expressions"), skipping: skippedFiles)
    }

    @Test func corpusIsNotEmpty() {
        #expect(Self.cases().count > 150)
    }

    @Test(arguments: cases())
    func expression(_ testCase: ExpressionCase) {
        let failure = testCase.run(regexEngine: TestRegexEngine())
        #expect(failure == nil, "\(testCase.name): `\(testCase.expression)`: \(failure ?? "")")
    }
}

@Suite struct ExpressionRunnerTests {
    @Test func runnerReportsMismatches() {
        let engine = TestRegexEngine()
        #expect(ExpressionCase(name: "a", expression: "1 + 1", expectation: .value("3")).run(regexEngine: engine) != nil)
        #expect(ExpressionCase(name: "b", expression: "1", expectation: .value("1.0")).run(regexEngine: engine) != nil)
        #expect(ExpressionCase(name: "c", expression: "1 / 0", expectation: .evaluationError("RL3001")).run(regexEngine: engine) != nil)
        #expect(ExpressionCase(name: "d", expression: "1 +", expectation: .compileError("RL1005")).run(regexEngine: engine) != nil)
        #expect(ExpressionCase(name: "e", expression: "[1, 2.0]", expectation: .value("[1, 2]")).run(regexEngine: engine) != nil)
        #expect(ExpressionCase(name: "f", expression: "1 + 1", expectation: .value("2")).run(regexEngine: engine) == nil)
    }

    @Test func malformedFileIsRejected() {
        guard case .failure(let error) = ExpressionCase.load("## s\n1 + 1\n", file: "bad.txt") else {
            Issue.record("a line without `=>` must be rejected")
            return
        }
        #expect(error.message == "bad.txt:2: expected `EXPRESSION => EXPECTED`")
    }
}
