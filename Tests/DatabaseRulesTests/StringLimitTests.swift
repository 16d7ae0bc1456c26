import DatabaseRules
import Diagnostics
import Testing

/// String operations in database rules: no string past `maxStringBytes` is built (RD5008) and
/// the request's string work is counted (RD5009); either makes the rule false. Tests assert on
/// the work counter (`DatabaseDecision.workUnits`), never on time.
@Suite("database rules: string size and work limits")
struct StringLimitTests {
    static func rules(_ expression: String) -> String {
        "{\"rules\": {\"x\": {\".read\": \"\(expression)\"}}}"
    }

    func decide(_ expression: String, token: [String: JSONValue], limits: DatabaseLimits = .default) throws -> DatabaseDecision {
        let result = DatabaseRulesCompiler.compile(SourceFile(name: "database.rules.json", text: Self.rules(expression)),
                                                   limits: limits, regexEngine: pcre2)
        let program = try #require(result.program, "\(result.diagnostics.map(\.message))")
        let request = DatabaseRequest(path: "/x", operation: .read(DatabaseQuery()),
                                      auth: .object(["uid": .string("u"), "token": .object(token)]), now: 0)
        return program.evaluate(request, data: nil)
    }

    func outcome(_ decision: DatabaseDecision) -> RuleOutcome? { decision.evaluations.first?.outcome }

    @Test("replace('', s) with a 30,000-character token would build 900 MB: RD5008 before anything is built")
    func replaceEmpty() throws {
        let decision = try decide("auth.token.s.replace('', auth.token.s).length > 0", token: ["s": .string(String(repeating: "a", count: 30_000))])
        #expect(!decision.allowed)
        #expect(outcome(decision) == .error(code: "RD5008", message: "`replace()` would build a string of 900060000 bytes, more than the limit of 10485760"))
        #expect(decision.workUnits < 100_000, "\(decision.workUnits) units")
    }

    @Test("two nested replaces of a 2,000-character token: the second is refused")
    func nestedReplace() throws {
        let decision = try decide("auth.token.s.replace('', auth.token.s).replace('', auth.token.s).length > 0",
                                  token: ["s": .string(String(repeating: "b", count: 2_000))])
        #expect(!decision.allowed)
        if case .error(let code, _)? = outcome(decision) { #expect(code == "RD5008") } else { Issue.record("not an error") }
        // The first replace builds 4,006,000 bytes; the second is sized and refused.
        #expect(decision.workUnits < 3 * 4_006_000, "\(decision.workUnits) units")
    }

    @Test("at the string limit `+` builds; one byte more is RD5008", arguments: [(10, true), (11, false)])
    func sizeBoundary(size: Int, allowed: Bool) throws {
        let token: [String: JSONValue] = ["a": .string("xxxxx"), "b": .string(String(repeating: "y", count: size - 5))]
        let decision = try decide("(auth.token.a + auth.token.b).length == \(size)", token: token, limits: DatabaseLimits(maxStringBytes: 10))
        #expect(decision.allowed == allowed)
        if !allowed {
            #expect(outcome(decision) == .error(code: "RD5008", message: "`+` would build a string of 11 bytes, more than the limit of 10"))
        }
    }

    @Test("contains() searches in linear time: the work is the two lengths")
    func linearSearch() throws {
        let hay = String(repeating: "a", count: 100_000)
        let needle = String(repeating: "a", count: 50_000) + "b"
        let decision = try decide("!auth.token.h.contains(auth.token.n)", token: ["h": .string(hay), "n": .string(needle)])
        #expect(decision.allowed)
        #expect(decision.workUnits == 100_000 + 50_001)
    }

    @Test("the request's string work is bounded: RD5009, and the rule is false", arguments: [150_001, 150_000])
    func workBoundary(limit: Int) throws {
        let hay = String(repeating: "a", count: 100_000)
        let needle = String(repeating: "a", count: 50_000) + "b"
        let decision = try decide("!auth.token.h.contains(auth.token.n)", token: ["h": .string(hay), "n": .string(needle)],
                                  limits: DatabaseLimits(evaluationWorkLimit: limit))
        #expect(decision.allowed == (limit == 150_001))
        if limit == 150_000 {
            #expect(outcome(decision) == .error(code: "RD5009", message: "the request's string operations did more than 150000 units of work"))
        }
    }

    @Test("replace() of a non-empty substring finds every match in linear time")
    func replaceMatches() throws {
        let decision = try decide("auth.token.s.replace('ab', 'c') == 'cccc'", token: ["s": .string("abababab")])
        #expect(decision.allowed)
    }
}
