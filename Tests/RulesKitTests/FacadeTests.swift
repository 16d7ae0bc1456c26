import RulesKit
import Testing

/// The facade alone is enough for the app's two everyday jobs: checking a typed name and
/// deciding a request against rules that use `matches()`.
@Suite struct FacadeTests {
    @Test func validatesADisplayNameThroughTheFacade() throws {
        let validator = try DisplayNameValidator()
        #expect(validator.validate("john.doe").key == "john.doe")
        #expect(validator.validate("John..Doe").codes.isEmpty == false)
    }

    @Test func compilesRulesWithTheRE2RegexLibrary() throws {
        let source = """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                match /names/{name} {
                  allow get: if name.matches('[a-z]{3,5}');
                }
              }
            }
            """
        let compiled = RulesCompiler.compileWithPCRE2(source)
        let program = try #require(compiled.program, "\(compiled.diagnostics)")
        func decide(_ name: String) -> Bool {
            program.evaluate(RulesRequest(service: .firestore, path: "/databases/(default)/documents/names/\(name)", method: .get)).allowed
        }
        #expect(decide("abcd"))
        #expect(!decide("abcdef"))
        #expect(!decide("ab1"))
    }
}
