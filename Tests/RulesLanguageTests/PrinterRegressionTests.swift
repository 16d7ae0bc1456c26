import Diagnostics
import Foundation
import RulesLanguage
import RulesTestSupport
import Testing

/// Round-trip failures the fuzzer found (`parse(print(tree)) == tree`), replayed by name. The raw
/// reproducers are in corpus/regressions/FuzzRulesParser/ (also replayed by CorpusReplayTests).
@Suite struct PrinterRegressionTests {
    /// FuzzRulesParser: `/(` ended a path literal inside `( … )` with its `(` unclosed;
    /// printed as a postfix base, `(/()['']`, the closing parenthesis joined the segment and the
    /// text no longer parsed. An unclosed `(` in a path segment is now RL1019.
    @Test func pathSegmentWithUnclosedParenthesis() throws {
        let url = packageRoot.appendingPathComponent("corpus/regressions/FuzzRulesParser/path-segment-unclosed-parenthesis")
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text == "service cloud.firestore{function f(){return(/([''])}}")
        let result = RulesParser.parse(SourceFile(name: "r.rules", text: text))
        let errors = result.diagnostics.filter { $0.severity == .error }
        // The first error is the unclosed `(`; parsing then recovers and reports what follows.
        #expect(errors.first?.code == "RL1019")
        #expect(errors.first?.message == "unclosed `(` in path segment `(`")
        let start = try #require(Array(text.utf8).firstIndex(of: UInt8(ascii: "/"))) + 1
        #expect(errors.first?.span == SourceSpan(start: start, end: start + 1))
    }

    @Test("balanced parentheses in path segments still print and parse back", arguments: [
        "(/databases/(default)/documents/a())['k']",
        "f(/a/(b)/c(d), /x())",
        "[/(default)/$(x)]",
        "(/a(b)c).size()",
    ])
    func balancedSegmentsRoundTrip(_ expression: String) throws {
        let (tree, diagnostics) = RulesParser.parseExpression(expression)
        #expect(diagnostics.isEmpty, "\(diagnostics.map(\.message))")
        let parsed = try #require(tree)
        let printed = RulesPrinter.print(parsed)
        let (again, againDiagnostics) = RulesParser.parseExpression(printed)
        #expect(againDiagnostics.isEmpty, "printed: \(printed)")
        #expect(again == parsed, "printed: \(printed)")
    }
}
