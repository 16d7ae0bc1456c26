import Diagnostics
import RulesLanguage
import RulesLoading
import Testing
@testable import RulesLinting

/// The linter's call analysis is memoised: its work grows with the text, never with the number of
/// call paths, and "never called" comes from the call graph at every depth.
@Suite("rules linter: call analysis on hostile rules")
struct LinterAnalysisTests {
    /// `levels` functions in a chain, each calling the next `calls` times (`x + 'k'` arguments
    /// when `distinct`), the last comparing the uid; one `allow write` calls the first.
    static func chain(levels: Int, calls: Int, distinct: Bool = false) -> String {
        var functions: [String] = []
        for level in 0..<levels {
            let body = level == levels - 1
                ? "request.auth.uid == x"
                : (0..<calls).map { distinct ? "f\(level + 1)(x + '\($0)')" : "f\(level + 1)(x)" }.joined(separator: " && ")
            functions.append("    function f\(level)(x) { return \(body); }")
        }
        return """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
            \(functions.joined(separator: "\n"))
                match /users/{userId} {
                  allow write: if f0(userId);
                }
              }
            }
            """
    }

    static func tree(_ text: String) -> RulesFile {
        RulesCompiler.compile(text, regexEngine: RulesLoader.defaultRegexEngine).tree
    }

    @Test("nine functions calling the next ten times: linear work, the comparison found, nothing reported")
    func tenWayChain() {
        let file = Self.tree(Self.chain(levels: 9, calls: 10))
        // Without memoising, the body of f8 alone is walked 10^8 times.
        let work = RulesLinter.analysisWork(file)
        #expect(work < 1_000, "\(work) units")
        #expect(RulesLinter.lint(file).isEmpty)
    }

    @Test("the work grows with the calls written, not with the call paths", arguments: [false, true])
    func linearInCalls(distinct: Bool) {
        let ten = RulesLinter.analysisWork(Self.tree(Self.chain(levels: 9, calls: 10, distinct: distinct)))
        let twenty = RulesLinter.analysisWork(Self.tree(Self.chain(levels: 9, calls: 20, distinct: distinct)))
        #expect(twenty < 3 * ten, "10 calls: \(ten) units, 20 calls: \(twenty) units")
    }

    @Test("a function called only deeper than the analysis follows is still called (no RL8004)")
    func deepChainIsUsed() {
        let findings = RulesLinter.lint(Self.tree(Self.chain(levels: 30, calls: 1)))
        #expect(!findings.contains { $0.code == RulesLanguageCodes.unusedFunction.id }, "\(findings.map(\.message))")
        // The comparison sits 29 calls deep, past the 20 evaluation allows: the hole is real.
        #expect(findings.map(\.code) == [RulesLanguageCodes.ownershipHole.id])
    }

    @Test("a function nothing calls is still RL8004")
    func unusedStillReported() {
        let text = Self.chain(levels: 3, calls: 2).replacingOccurrences(of: "    function f0(x)", with: "    function spare() { return true; }\n    function f0(x)")
        let findings = RulesLinter.lint(Self.tree(text))
        #expect(findings.filter { $0.code == RulesLanguageCodes.unusedFunction.id }.map(\.message) == ["function `spare` is never called"])
    }

    @Test("past the work limit calls are no longer followed and a note RL8005 says so")
    func workLimitNote() {
        let file = Self.tree(Self.chain(levels: 9, calls: 10, distinct: true))
        let findings = RulesLinter.lint(file, analysisWorkLimit: 40)
        let note = findings.first { $0.code == RulesLanguageCodes.analysisLimit.id }
        #expect(note?.severity == .note)
        #expect(note?.message == "calls were followed for 40 units of work and no further; findings may be incomplete")
        #expect(!RulesLinter.lint(file).contains { $0.code == RulesLanguageCodes.analysisLimit.id })
    }
}
