import Diagnostics
import RulesLanguage
import Testing

/// Behaviour recorded in production that the evaluator reproduces (issue 32 §5); the hashing and
/// `math.sqrt` cases live in `corpus/rules/expressions/methods.txt`.
@Suite struct ProductionFidelityTests {
    // MARK: - Unknown functions

    static let unknownFunctionRules = """
    rules_version = '2';
    service cloud.firestore {
      match /databases/{database}/documents {
        match /open/{id} {
          allow read: if id == 'public' || bool('true');
          allow write: if math.isInfinite(1.0) || request.auth != null;
        }
      }
    }
    """

    @Test func unknownFunctionsCompileWithAWarning() throws {
        let result = RulesCompiler.compile(Self.unknownFunctionRules, name: "t.rules", regexEngine: TestRegexEngine())
        #expect(result.program != nil)
        let unknown = result.diagnostics.filter { $0.code == "RL2002" }
        #expect(unknown.map(\.message) == ["unknown function `bool`", "unknown function `math.isInfinite`"])
        #expect(unknown.allSatisfy { $0.severity == .warning })
    }

    @Test func onlyRequestsReachingAnUnknownFunctionFail() throws {
        let program = try #require(RulesCompiler.compile(Self.unknownFunctionRules, regexEngine: TestRegexEngine()).program)
        // `id == 'public'` decides before the call is reached.
        #expect(program.evaluate(firestoreRequest("/open/public", .get)).allowed)
        let reached = program.evaluate(firestoreRequest("/open/private", .get))
        #expect(!reached.allowed)
        guard case .denied(let blame)? = reached.candidates.first?.verdict else {
            Issue.record("expected a denial")
            return
        }
        #expect(errors(blame).map(\.message) == ["function not found: `bool`"])
        // `error || true` grants, as any absorbed error does.
        #expect(program.evaluate(firestoreRequest("/open/private", .create, uid: "alice", requestResource: [:])).allowed)
        #expect(!program.evaluate(firestoreRequest("/open/private", .create, requestResource: [:])).allowed)
    }

    @Test func firestoreLookupsInStorageRulesAreUnknownFunctions() throws {
        let rules = """
        rules_version = '2';
        service firebase.storage {
          match /b/{bucket}/o {
            match /{file} { allow read: if file == 'a' || get(/databases/(default)/documents/u/v) != null || firestore.getAfter(/databases/(default)/documents/u/v) != null; }
          }
        }
        """
        let program = try #require(RulesCompiler.compile(rules, regexEngine: TestRegexEngine()).program)
        let storage = { (file: String) in RulesRequest(service: .storage, path: "/b/bucket/o/\(file)", method: .get) }
        #expect(program.evaluate(storage("a")).allowed)
        let denied = program.evaluate(storage("b"), lookup: InMemoryDatabase(documents: ["/databases/(default)/documents/u/v": [:]]))
        #expect(!denied.allowed)
        #expect(denied.lookupCount == 0)
        guard case .denied(let blame)? = denied.candidates.first?.verdict else {
            Issue.record("expected a denial")
            return
        }
        #expect(errors(blame).map(\.code) == ["RL3006", "RL3006"])
    }

    // MARK: - A Storage object's absent name

    static let storageNameRules = """
    rules_version = '2';
    service firebase.storage {
      match /b/{bucket}/o {
        match /{dir}/{file} {
          allow get: if resource.name != 'forbidden/x.png';
          allow list: if !(resource.bucket == 'other');
        }
      }
    }
    """

    @Test(arguments: [
        (RequestMethod.get, ["size": Value.int(1)], false),
        (.get, ["name": .string("dir/x.png"), "size": .int(1)], true),
        (.get, ["name": .string("forbidden/x.png")], false),
        (.list, ["size": .int(1)], false),
        (.list, ["bucket": .string("bucket")], true),
    ])
    func absentNameOrBucketOfTheStoredObjectDenies(_ method: RequestMethod, _ metadata: [String: Value], _ allowed: Bool) throws {
        let program = try #require(RulesCompiler.compile(Self.storageNameRules, regexEngine: TestRegexEngine()).program)
        let request = RulesRequest(service: .storage, path: "/b/bucket/o/dir/x.png", method: method, resource: .map(metadata))
        let decision = program.evaluate(request)
        #expect(decision.allowed == allowed)
        if !allowed && metadata["name"] == nil && metadata["bucket"] == nil {
            guard case .denied(let blame)? = decision.candidates.first?.verdict else {
                Issue.record("expected a denial")
                return
            }
            #expect(errors(blame).map(\.code) == ["RL3001"])
        }
    }

    /// The errors a blame and its alternatives name, in order.
    func errors(_ blame: Blame) -> [EvaluationError] {
        (blame.error.map { [$0] } ?? []) + blame.alternatives.flatMap(errors)
    }
}
