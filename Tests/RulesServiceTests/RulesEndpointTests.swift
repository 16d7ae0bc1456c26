import Foundation
import Hummingbird
import HummingbirdTesting
@testable import RulesService
import RulesTestSupport
import Testing

@Suite("POST /v1/rules/{ruleset}/decide")
struct RulesEndpointTests {
    static let profileRead = """
        {"path": "/databases/(default)/documents/users/alice", "method": "get", "auth": {"uid": "USER"},
         "existing": {"/databases/(default)/documents/users/alice": {"email": "alice@example.com"}}}
        """

    @Test("the rulesets are the stems of the loaded files")
    func stems() throws {
        #expect(RuleSets.stem(of: "rules/firestore.rules") == "firestore")
        #expect(RuleSets.stem(of: "/x/database.rules.json") == "database")
        #expect(RuleSets.stem(of: "other.txt") == "other")
        let loaded = try RuleSets.load(files: [], directory: packageRoot.appendingPathComponent("rules").path)
        #expect(loaded.byName.keys.sorted() == ["database", "firestore", "storage"])
    }

    @Test("a Firestore case object is decided and explained: the owner reads, another user does not")
    func firestore() async throws {
        try await ServiceHarness().test { client in
            let allowed = try await client.post("/v1/rules/firestore/decide", json: Self.profileRead.replacingOccurrences(of: "USER", with: "alice"))
            #expect(allowed.status == .ok)
            #expect(allowed.object["decision"] as? String == "allow")
            #expect((allowed.object["explanation"] as? String)?.contains("allowed by `allow get`") == true)
            let denied = try await client.post("/v1/rules/firestore/decide", json: Self.profileRead.replacingOccurrences(of: "USER", with: "bob"))
            #expect(denied.object["decision"] as? String == "deny")
            #expect(Set(denied.object.keys) == ["decision", "explanation"])
        }
    }

    @Test("Storage and Realtime Database rulesets decide their own case shapes")
    func storageAndDatabase() async throws {
        try await ServiceHarness().test { client in
            let picture = try await client.post("/v1/rules/storage/decide", json: """
                {"path": "/b/app.appspot.com/o/profile_pictures/alice/avatar.png", "method": "create", "auth": {"uid": "alice"},
                 "requestResource": {"size": 6000000, "contentType": "image/png"}}
                """)
            #expect(picture.object["decision"] as? String == "deny", "over 5 MiB")
            let presence = try await client.post("/v1/rules/database/decide", json: #"{"path": "/userPresence/alice", "method": "read", "auth": {"uid": "bob"}}"#)
            #expect(presence.object["decision"] as? String == "allow")
            let signedOut = try await client.post("/v1/rules/database/decide", json: #"{"path": "/userPresence/alice", "method": "read"}"#)
            #expect(signedOut.object["decision"] as? String == "deny")
        }
    }

    @Test("404 for an unknown ruleset, 400 for malformed JSON or a case that is not one, 415, 413")
    func errors() async throws {
        var limits = ServiceLimits()
        limits.maxBodyBytes = 512
        try await ServiceHarness(limits: limits).test { client in
            let unknown = try await client.post("/v1/rules/realtime/decide", json: Self.profileRead)
            #expect(unknown.status == .notFound && unknown.errorCode == "API1202")
            #expect(unknown.text.contains("database, firestore, storage"))
            let malformed = try await client.post("/v1/rules/firestore/decide", json: #"{"path": "#)
            #expect(malformed.status == .badRequest && malformed.errorCode == "API1001")
            let badMethod = try await client.post("/v1/rules/firestore/decide", json: #"{"path": "/databases/(default)/documents/users/a", "method": "read"}"#)
            #expect(badMethod.status == .badRequest && badMethod.errorCode == "API1003")
            let databaseExtra = try await client.post("/v1/rules/database/decide", json: #"{"path": "/a", "method": "read", "bogus": 1}"#)
            #expect(databaseExtra.status == .badRequest && databaseExtra.errorCode == "API1003")
            let yaml = try await client.post("/v1/rules/firestore/decide", json: "path: /x", contentType: "application/yaml")
            #expect(yaml.status == .unsupportedMediaType)
            let large = try await client.post("/v1/rules/firestore/decide", json: String(repeating: " ", count: 600) + Self.profileRead)
            #expect(large.status == .contentTooLarge)
        }
    }
}
