import Foundation
import RulesLanguage
import Testing

/// The deepest trees the limits allow must evaluate without exhausting the stack.
@Suite struct StressTests {
    @Test func deepestAllowedNestingEvaluates() throws {
        // 20 chained functions, each body nested close to the height limit.
        let depth = 60
        func nested(_ inner: String) -> String {
            String(repeating: "(true && ", count: depth / 2 - 2) + inner + String(repeating: ")", count: depth / 2 - 2)
        }
        let chain = (0..<20).map { "function f\($0)() { return \(nested("f\($0 + 1)()")); }" }.joined(separator: "\n")
            + "\nfunction f20() { return true; }"
        let limits = RulesLimits(evaluationStepLimit: 100_000)
        let source = firestoreRules("match /a/{id} { allow read: if \(nested("f1()")); }", functions: chain)
        let result = RulesCompiler.compile(source, limits: limits)
        let program = try #require(result.program, "\(result.diagnostics.map(\.message))")
        let decision = program.evaluate(firestoreRequest("/a/b", .get))
        #expect(decision.allowed)
        // One more level trips the call-depth limit instead of the stack.
        let deeper = firestoreRules("match /a/{id} { allow read: if \(nested("f0()")); }", functions: chain)
        let denied = try #require(RulesCompiler.compile(deeper, limits: limits).program).evaluate(firestoreRequest("/a/b", .get))
        #expect(denied.requestError?.code == "RL3010")
        // A false at the bottom of the deepest chain is explained from inside the last function.
        let falseChain = chain.replacingOccurrences(of: "function f20() { return true; }", with: "function f20() { return 1 > 2; }")
        let falseSource = firestoreRules("match /a/{id} { allow read: if \(nested("f1()")); }", functions: falseChain)
        let explained = try #require(RulesCompiler.compile(falseSource, limits: limits).program).evaluate(firestoreRequest("/a/b", .get))
        guard case .denied(let blame)? = explained.candidates.first?.verdict else {
            Issue.record("expected a denial")
            return
        }
        #expect(blame.message == "`1 > 2` is false")
    }
}

@Suite struct PathMatchingLimitTests {
    @Test func nestedRecursiveWildcardsAreBounded() throws {
        let blocks = (0..<8).map { "match /{r\($0)=**} { " }.joined() + "allow read: if true;" + String(repeating: " }", count: 8)
        let program = try #require(compileOrFail(firestoreRules(blocks)))
        let longPath = "/" + (0..<60).map { "s\($0)" }.joined(separator: "/")
        let decision = program.evaluate(firestoreRequest(longPath, .get))
        #expect(!decision.allowed)
        #expect(decision.requestError?.code == "RL3018")
        // Short paths still match normally.
        #expect(program.evaluate(firestoreRequest("/a/b", .get)).allowed)
    }
}

@Suite struct ExplanationBudgetTests {
    @Test func longChainsAreExplainedWithoutHittingTheStepLimit() throws {
        // 60 terms, the last false: evaluating costs ~300 steps, explaining re-evaluates prefixes.
        let terms = (0..<59).map { "request.path[\($0 % 4)] is string" } + ["1 > 2"]
        let program = try #require(compileOrFail(firestoreRules("match /a/{id} { allow read: if \(terms.joined(separator: " && ")); }")))
        let decision = program.evaluate(firestoreRequest("/a/b", .get))
        #expect(decision.requestError == nil)
        guard case .denied(let blame)? = decision.candidates.first?.verdict else {
            Issue.record("expected a denial")
            return
        }
        #expect(blame.message == "`1 > 2` is false")
    }
}
