import Availability
import ClaimStoreTesting
import RulesTestSupport
import Foundation
import RulesKit
import Testing

/// The rule-guarded store against the app's real rules (rules/firestore.rules) and policy.
struct RuleGuardedClaimStoreTests {
    static func appRules() throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent("rules/firestore.rules"), encoding: .utf8)
    }

    func guarded(_ rules: String) throws -> (RuleGuardedClaimStore, MemoryClaimStore) {
        let base = MemoryClaimStore(policy: try AppDisplayNamePolicy())
        let compiled = RuleGuardedClaimStore.compile(rules: rules, base: base)
        guard let store = compiled.store else {
            throw CheckFailure("rules do not compile: \(compiled.diagnostics.map(\.message))")
        }
        return (store, base)
    }

    @Test func theAppRulesAllowOwnClaimsReleasesAndRenames() async throws {
        let (store, base) = try guarded(Self.appRules())
        #expect(try await store.claim("Alice.B", by: "u1").claimed)
        #expect(try await store.rename(from: "alice.b", to: "alice.c", by: "u1").claimed)
        #expect(try await base.owner(of: "alice.c")?.owner == "u1")
        let released = try await store.release("alice.c", by: "u1")
        #expect(released.succeeded && !released.claimed)
        #expect(try await base.allClaims().isEmpty)
    }

    @Test func theAppRulesDenyReleasingSomeoneElsesName() async throws {
        let (store, base) = try guarded(Self.appRules())
        _ = try await store.claim("carol", by: "u1")
        let outcome = try await store.release("carol", by: "u2")
        #expect(outcome.problems.map(\.code) == ["AV1007"])
        #expect(try await base.owner(of: "carol")?.owner == "u1")
    }

    @Test func theAppRulesRefuseAWriteOverAHeldClaim() async throws {
        let (store, base) = try guarded(Self.appRules())
        #expect(try await store.claim("Carol.K", by: "u1").claimed)
        // `CAROL.K` has the key `carol.k`: the write lands on u1's claim, an update, never allowed.
        #expect(try await store.claim("CAROL.K", by: "u2").problems.map(\.code) == ["AV1007"])
        #expect(try await base.owner(of: "carol.k")?.owner == "u1")
    }

    @Test func claimingTheNameOneHoldsAgainSucceedsWithoutAWrite() async throws {
        let (store, base) = try guarded(Self.appRules())
        #expect(try await store.claim("Carol.K", by: "u1").claimed)
        for spelling in ["Carol.K", "carol.k"] {
            let again = try await store.claim(spelling, by: "u1")
            #expect(again.claimed && again.owner == "u1" && again.problems.isEmpty, "\(spelling): \(again.problems.map(\.code))")
        }
        #expect(try await base.allClaims().map(\.name) == ["Carol.K"])
    }

    @Test func aDenyingRuleStopsTheWriteBeforeTheStore() async throws {
        let rules = """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                match /displayNames/{name} {
                  allow create: if request.auth.uid == 'trusted';
                  allow delete: if false;
                }
              }
            }
            """
        let (store, base) = try guarded(rules)
        #expect(try await store.claim("dave", by: "u1").problems.map(\.code) == ["AV1007"])
        #expect(try await base.allClaims().isEmpty, "a denied claim reached the store")
        #expect(try await store.claim("dave", by: "trusted").claimed)
        #expect(try await store.release("dave", by: "trusted").problems.map(\.code) == ["AV1007"])
        #expect(try await store.rename(from: "dave", to: "dave2", by: "trusted").problems.map(\.code) == ["AV1007"])
        #expect(try await base.owner(of: "dave")?.owner == "trusted")
    }
}
