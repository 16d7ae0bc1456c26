import Foundation
import RulesLanguage
import Testing

/// The deepest trees the limits allow must evaluate, or stop with a limit error, without
/// exhausting the stack.
@Suite struct StressTests {
    /// `levels` nested `(true && …)` around `inner`.
    static func nested(_ inner: String, levels: Int) -> String {
        String(repeating: "(true && ", count: levels) + inner + String(repeating: ")", count: levels)
    }

    /// `calls` chained functions f0 … f(calls), each body nested `levels` deep; the last returns `last`.
    static func chain(calls: Int, levels: Int, last: String = "true") -> String {
        (0..<calls).map { "function f\($0)() { return \(nested("f\($0 + 1)()", levels: levels)); }" }.joined(separator: "\n")
            + "\nfunction f\(calls)() { return \(last); }"
    }

    static let generous = RulesLimits(evaluationStepLimit: 1_000_000)

    @Test func deepestAllowedNestingStopsWithALimitNotACrash() throws {
        // 57 levels per body is the most the parser accepts here; 20 calls deep.
        let source = firestoreRules("match /a/{id} { allow read: if \(Self.nested("f0()", levels: 57)); }",
                                    functions: Self.chain(calls: 20, levels: 57))
        let result = RulesCompiler.compile(source, limits: Self.generous)
        let program = try #require(result.program, "\(result.diagnostics.map(\.message))")
        let decision = program.evaluate(firestoreRequest("/a/b", .get))
        #expect(!decision.allowed)
        #expect(decision.requestError?.code == "RL3019")
    }

    @Test func deepButBoundedNestingEvaluatesAndExplains() throws {
        let allowed = firestoreRules("match /a/{id} { allow read: if \(Self.nested("f0()", levels: 30)); }",
                                     functions: Self.chain(calls: 5, levels: 30))
        let program = try #require(RulesCompiler.compile(allowed, limits: Self.generous).program)
        #expect(program.evaluate(firestoreRequest("/a/b", .get)).allowed)

        // A false at the bottom is explained from inside the last function.
        let denied = firestoreRules("match /a/{id} { allow read: if \(Self.nested("f0()", levels: 30)); }",
                                    functions: Self.chain(calls: 5, levels: 30, last: "1 > 2"))
        let decision = try #require(RulesCompiler.compile(denied, limits: Self.generous).program).evaluate(firestoreRequest("/a/b", .get))
        guard case .denied(let blame)? = decision.candidates.first?.verdict else {
            Issue.record("expected a denial")
            return
        }
        #expect(blame.message == "`1 > 2` is false")
    }

    @Test(arguments: [(7, 31), (8, 30), (8, 31), (9, 28), (4, 57)])
    func explanationsAtTheDepthBoundaryDoNotCrash(calls: Int, levels: Int) throws {
        let source = firestoreRules("match /a/{id} { allow read: if \(Self.nested("f0()", levels: levels)); }",
                                    functions: Self.chain(calls: calls, levels: levels, last: "1 > 2"))
        let decision = try #require(RulesCompiler.compile(source, limits: Self.generous).program).evaluate(firestoreRequest("/a/b", .get))
        #expect(!decision.allowed)
        #expect(decision.candidates.count == 1)
    }

    @Test func callDepthLimitComesBeforeTheStack() throws {
        let source = firestoreRules("match /a/{id} { allow read: if f0(); }", functions: Self.chain(calls: 25, levels: 2))
        let decision = try #require(RulesCompiler.compile(source, limits: Self.generous).program).evaluate(firestoreRequest("/a/b", .get))
        #expect(decision.requestError?.code == "RL3010")
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
