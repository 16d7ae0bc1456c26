import Foundation
import RulesKit
import RulesTestSupport
import Testing

/// The code of the DocC getting-started article (Sources/RulesKit/RulesKit.docc/GettingStarted.md),
/// with `import RulesKit` alone, and the values its comments show.
@Suite struct GettingStartedTests {
    struct SignUp: Decodable {
        var email: EmailAddress
        var displayName: DisplayName
        var password: Password
    }

    @Test func validateASignUp() throws {
        let body = Data(#"{"email": "Jane@Example.com", "displayName": "Jane.Doe", "password": "…"}"#.utf8)
        let signUp = try JSONDecoder().decode(SignUp.self, from: body)
        #expect(signUp.email.normalized == "Jane@example.com")
        #expect(signUp.displayName.value == "Jane.Doe")
        #expect(signUp.displayName.key == "jane.doe")
        #expect("\(signUp.password)" == "Password(redacted)")

        let bad = Data(#"{"email": "Jane@Example.com", "displayName": "John..Doe", "password": "…"}"#.utf8)
        var refused: InvalidFieldValue?
        do {
            _ = try JSONDecoder().decode(SignUp.self, from: bad)
        } catch DecodingError.dataCorrupted(let context) {
            refused = context.underlyingError as? InvalidFieldValue
        }
        #expect(refused?.kind == .displayName)
        #expect(refused?.result.violations.map(\.code) == ["DN106"])
        #expect(refused?.result.violations.first?.message == "Username cannot contain two periods in a row.")

        #expect(try DisplayName("John.Doe").key == "john.doe")
        #expect(try EmailAddress("user@Bücher.example").asciiForm == "user@xn--bcher-kva.example")
        let chirp = try DisplayNameValidator(appName: "Chirp")
        var reserved: [String] = []
        do throws(InvalidFieldValue) {
            _ = try DisplayName("Chirp", validator: chirp)
        } catch {
            reserved = error.result.violations.map(\.rule)
        }
        #expect(reserved.contains("display-name.reserved"))

        let policy = try PasswordValidator()
        let result = signUp.password.validate(
            by: policy, context: PasswordContext(username: signUp.displayName.value, email: signUp.email.normalized))
        #expect(!result.isValid && result.codes.allSatisfy { $0.hasPrefix("PW") })
        #expect(throws: InvalidFieldValue.self) { try signUp.password.validated(by: policy) }
    }

    @Test func claimADisplayName() async throws {
        let names = try AppDisplayNamePolicy(appName: "Chirp")
        let store = MemoryClaimStore(policy: names)
        #expect(try await store.availability(of: "Jane.Doe").isAvailable)
        let outcome = try await store.claim("Jane.Doe", by: "u1")
        #expect(outcome.claimed && outcome.key == "jane.doe")
        #expect(try await store.claim("JANE.DOE", by: "u2").problems.map(\.code) == ["AV1003"])

        let rules = try String(contentsOfFile: packageRoot.appendingPathComponent("rules/firestore.rules").path, encoding: .utf8)
        let compiled = RuleGuardedClaimStore.compile(rules: rules, base: store)
        let guarded = try #require(compiled.store, "\(compiled.diagnostics.map(\.message))")
        #expect(try await guarded.release("jane.doe", by: "u2").problems.map(\.code) == ["AV1007"])
    }

    @Test func decideARequestAgainstSecurityRules() throws {
        let source = """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                match /users/{userId} {
                  allow read, write: if request.auth != null && request.auth.uid == userId;
                }
              }
            }
            """
        let compiled = RulesCompiler.compileWithPCRE2(source, name: "firestore.rules")
        let program = try #require(
            compiled.program,
            "\(renderDiagnostics(compiled.diagnostics, in: SourceFile(name: "firestore.rules", text: source)))")
        let request = RulesRequest(
            service: .firestore, path: "/databases/(default)/documents/users/alice", method: .get,
            auth: Auth(uid: "alice"))
        let decision = program.evaluate(request)
        #expect(decision.allowed)
        #expect(!decision.explanation(in: program.source).isEmpty)
    }
}
