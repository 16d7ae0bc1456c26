import Diagnostics
import RulesLanguage
import Testing

/// Built-ins are counted in work, and no operation builds a value past `maxValueSize`: hitting
/// either denies the request with its own code (RL3024, RL3025), and the work stays near the
/// budget. Tests assert on the work counter (`Decision.workUnits`), never on time.
@Suite("evaluation work and value size limits")
struct WorkLimitTests {
    /// One `allow get` on `/t/{id}` with `condition`.
    static func rules(_ condition: String, functions: String = "") -> String {
        """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            \(functions)
            match /t/{id} {
              allow get: if \(condition);
            }
          }
        }
        """
    }

    func decide(_ condition: String, functions: String = "", token: [String: Value] = [:],
                limits: RulesLimits = .default) throws -> Decision {
        let result = RulesCompiler.compile(SourceFile(name: "test.rules", text: Self.rules(condition, functions: functions)),
                                           limits: limits, regexEngine: TestRegexEngine())
        let program = try #require(result.program, "\(result.diagnostics.map(\.message))")
        let request = RulesRequest(service: .firestore, path: firestorePrefix + "/t/x", method: .get,
                                   auth: Auth(uid: "u", token: token), time: Timestamp(seconds: 1_700_000_000))
        return program.evaluate(request, lookup: EmptyDatabase())
    }

    static let long = Value.string(String(repeating: "a", count: 30_000))

    @Test("replace('', s) on a 30,000-character token would build 900 MB: RL3025, denied, nothing built")
    func replaceEmpty() throws {
        let decision = try decide("request.auth.token.s.replace('', request.auth.token.s).size() > 0", token: ["s": Self.long])
        #expect(!decision.allowed)
        #expect(decision.requestError?.code == "RL3025")
        #expect(decision.requestError?.message.hasPrefix("`replace()` would build a value of ") == true)
        #expect(decision.workUnits < 200_000, "\(decision.workUnits) units")
    }

    @Test("split('').join(s): the join is refused before it is built")
    func splitJoin() throws {
        let decision = try decide("request.auth.token.s.split('').join(request.auth.token.s).size() > 0", token: ["s": Self.long])
        #expect(decision.requestError?.code == "RL3025")
        // How many fields `split('')` gives is the regex engine's (here the test engine's) business.
        let message = try #require(decision.requestError?.message)
        #expect(message.hasPrefix("`join()` would build a value of 9000") && message.hasSuffix(" bytes, more than the limit of 1048576"), "\(message)")
    }

    @Test("`+` doubling a string through lets stops at the value limit")
    func doublingConcatenation() throws {
        let functions = """
            function twice(s) { let a = s + s; let b = a + a; let c = b + b; let d = c + c; let e = d + d; return e + e; }
            """
        let decision = try decide("twice(twice(twice(request.auth.token.s))).size() > 0", functions: functions, token: ["s": Self.long])
        #expect(decision.requestError?.code == "RL3025")
        #expect(decision.workUnits <= RulesLimits.default.maxValueSize * 3, "\(decision.workUnits) units")
    }

    @Test("at the value limit a string is built; one byte more is RL3025", arguments: [(10, true), (11, false)])
    func valueSizeBoundary(size: Int, allowed: Bool) throws {
        let limits = RulesLimits(maxValueSize: 10)
        let token: [String: Value] = ["a": .string(String(repeating: "x", count: 5)), "b": .string(String(repeating: "y", count: size - 5))]
        let decision = try decide("(request.auth.token.a + request.auth.token.b).size() == \(size)", token: token, limits: limits)
        #expect(decision.allowed == allowed)
        #expect(decision.requestError?.code == (allowed ? nil : "RL3025"))
    }

    @Test("hasAll of 200,000 strings against themselves is linear (hashed)")
    func hashedMembership() throws {
        let list = Value.list((0..<200_000).map { .string("k\($0)") })
        let decision = try decide("request.auth.token.l.hasAll(request.auth.token.l)", token: ["l": list])
        #expect(decision.allowed)
        #expect(decision.workUnits < 20 * 200_000, "\(decision.workUnits) units")
    }

    @Test("hasAll of 20,000 lists against themselves is quadratic: RL3024 at the budget")
    func quadraticMembership() throws {
        let list = Value.list((0..<20_000).map { .list([.int(Int64($0))]) })
        let decision = try decide("request.auth.token.l.hasAll(request.auth.token.l)", token: ["l": list])
        #expect(!decision.allowed)
        #expect(decision.requestError?.code == "RL3024")
        // Stopped just past the budget, not after the 4 * 10^8 comparisons it would take.
        let limit = RulesLimits.default.evaluationWorkLimit
        #expect(decision.workUnits > limit && decision.workUnits < limit + 1_000, "\(decision.workUnits) units")
    }

    @Test("comparing two values that share parts 2^60 times over stops at the budget")
    func sharedEquality() throws {
        // Each call doubles the value by sharing; written out it would have 2^60 leaves.
        let functions = """
            function d(x) { let a = [x, x]; let b = [a, a]; let c = [b, b]; let e = [c, c]; let f = [e, e]; return [f, f]; }
            """
        let build = "d(d(d(d(d(d(d(d(d(d([request.auth.token.v]))))))))))"
        let decision = try decide("\(build) == \(build.replacingOccurrences(of: "request.auth.token.v", with: "request.auth.token.w"))",
                                  functions: functions, token: ["v": .int(1), "w": .int(1)])
        #expect(decision.requestError?.code == "RL3024")
    }

    @Test("debug() of a value that shares parts renders at most 64 KiB")
    func boundedRendering() throws {
        let functions = """
            function d(x) { let a = [x, x]; let b = [a, a]; let c = [b, b]; let e = [c, c]; let f = [e, e]; return [f, f]; }
            """
        let condition = "debug(d(d(d(d(d(d(['abc'])))))))[0] == null"
        let decision = try decide(condition, functions: functions)
        let rendered = try #require(decision.debugOutput.first).value
        let source = SourceFile(name: "test.rules", text: Self.rules(condition, functions: functions))
        let explanation = decision.explanation(in: source)
        #expect(explanation.utf8.count < 80 * 1024)
        #expect(explanation.contains("…"))
        if case .list = rendered {} else { Issue.record("debug() keeps the value itself") }
    }
}
