import RulesLanguage
import Testing

/// Request paths with an empty segment are refused, not collapsed into a shorter path that a
/// rule might match (found by FuzzRulesEval; corpus/regressions/FuzzRulesEval/empty-path-segment).
@Suite struct RequestPathTests {
    static let rules = """
        rules_version = '2';
        service firebase.storage {
          match /b/{bucket}/o {
            match /pictures/{userId}/{fileName} {
              allow read: if true;
            }
          }
        }
        """

    @Test(arguments: ["/b/x/o/pictures//a.png", "/b/x/o/pictures/alice/", "/b/x/o//pictures/alice/a.png"])
    func emptySegmentIsARequestError(_ path: String) throws {
        let program = try #require(RulesCompiler.compile(Self.rules).program)
        let decision = program.evaluate(RulesRequest(service: .storage, path: path, method: .get))
        #expect(!decision.allowed, "\(path)")
        #expect(decision.requestError?.code == "RL3023", "\(path)")
    }

    @Test func wellFormedPathStillMatches() throws {
        let program = try #require(RulesCompiler.compile(Self.rules).program)
        #expect(program.evaluate(RulesRequest(service: .storage, path: "/b/x/o/pictures/alice/a.png", method: .get)).allowed)
    }
}
