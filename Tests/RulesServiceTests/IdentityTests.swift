import Availability
import ClaimStoreLocations
import Foundation
import Hummingbird
import HummingbirdTesting
import IDTokens
import IDTokenTesting
import JWTKit
@testable import RulesService
import Testing

/// The PostgreSQL test database (`RULESKIT_POSTGRES_URL`), and whether a missing one must fail.
enum ServiceTestDatabase {
    static let url = ProcessInfo.processInfo.environment["RULESKIT_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

    /// A store on a fresh schema of the test database.
    static func store() async throws -> any ClaimStore {
        let base = url ?? ""
        let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        return try await ClaimStoreLocation.open(base + (base.contains("?") ? "&" : "?") + "schema=\(schema)", connectTimeout: .seconds(90))
    }
}

/// Who acts is decided byte for byte: a uid with a NUL, or one that is only canonically
/// equivalent to another (`jose\u{301}` and `josé`), never acts as that other user, on SQLite
/// and on PostgreSQL, with Firebase ID tokens and with any other authenticator.
@Suite("Identity is exact at the claim endpoints")
struct IdentityTests {
    static let projectID = "ruleskit-test"
    static let now = Date(timeIntervalSince1970: 1_767_225_600)
    static let (composed, decomposed) = ("jos\u{E9}", "jose\u{301}")

    /// A service on `store` (the harness's SQLite file when nil) whose users are ID tokens' `sub`s.
    func harness(store: (any ClaimStore)? = nil) async throws -> ServiceHarness {
        var harness = try await ServiceHarness()
        if let store { harness.configuration.store = store }
        let verifier = try await FirebaseIDTokenVerifier(jwks: standardKeySet(), source: "test.jwks.json",
                                                         projectID: Self.projectID, now: { Self.now })
        harness.configuration.authenticator = FirebaseAuthenticator(verifier: verifier)
        return harness
    }

    func bearer(_ uid: String) async throws -> HTTPFields {
        let token = try await sign(firebaseClaims(projectID: Self.projectID, uid: uid, at: Self.now))
        return [.authorization: "Bearer \(token)", .contentType: "application/json"]
    }

    /// `josé` holds `vname`; `jose\u{301}` tries to claim, release and rename it, and to rename
    /// into it: each is refused as another user's, never a 503, and the store is unchanged.
    func equivalentUserNeverActsAsAnother(_ harness: ServiceHarness, store: any ClaimStore) async throws {
        let (jose, impostor) = (try await bearer(Self.composed), try await bearer(Self.decomposed))
        try await harness.test { client in
            let held = try await client.execute(uri: "/v1/names/vname/claim", method: .post, headers: jose)
            #expect(held.status == .ok, "\(held.text)")
            let claim = try await client.execute(uri: "/v1/names/vname/claim", method: .post, headers: impostor)
            #expect(claim.status == .conflict && claim.errorCode == "AV1003", "\(claim.text)")
            let release = try await client.execute(uri: "/v1/names/vname/claim", method: .delete, headers: impostor)
            #expect(release.status == .forbidden && release.errorCode == "AV1005", "\(release.text)")
            let renameAway = try await client.execute(uri: "/v1/names/rename", method: .post, headers: impostor,
                                                      body: ByteBuffer(string: #"{"from": "vname", "to": "wname"}"#))
            #expect(renameAway.status == .forbidden && renameAway.errorCode == "AV1005", "\(renameAway.text)")
            let own = try await client.execute(uri: "/v1/names/dname/claim", method: .post, headers: impostor)
            #expect(own.status == .ok, "the equivalent uid is a user of its own: \(own.text)")
            let renameInto = try await client.execute(uri: "/v1/names/rename", method: .post, headers: impostor,
                                                      body: ByteBuffer(string: #"{"from": "dname", "to": "VName"}"#))
            #expect(renameInto.status == .conflict && renameInto.errorCode == "AV1003", "not a 503 store fault: \(renameInto.text)")
        }
        let vname = try await store.owner(of: "vname")
        #expect(vname.map { Array($0.owner.utf8) } == Array(Self.composed.utf8))
        let dname = try await store.owner(of: "dname")
        #expect(dname.map { Array($0.owner.utf8) } == Array(Self.decomposed.utf8))
        #expect(try await store.owner(of: "wname") == nil)
    }

    /// `victim` holds `vic.name`, `victim1` holds `v1.name`; tokens for `victim\0x` and
    /// `victim1\0evil` are refused (AUTH1012) and nothing changes.
    func nulUserNeverActsAsAnother(_ harness: ServiceHarness, store: any ClaimStore) async throws {
        let (victim, victim1) = (try await bearer("victim"), try await bearer("victim1"))
        let (asVictim, asVictim1) = (try await bearer("victim\u{0}x"), try await bearer("victim1\u{0}evil"))
        try await harness.test { client in
            #expect(try await client.execute(uri: "/v1/names/vic.name/claim", method: .post, headers: victim).status == .ok)
            #expect(try await client.execute(uri: "/v1/names/v1.name/claim", method: .post, headers: victim1).status == .ok)
            for (headers, uri, method) in [(asVictim, "/v1/names/vname/claim", HTTPRequest.Method.post),
                                           (asVictim, "/v1/names/vic.name/claim", .delete),
                                           (asVictim1, "/v1/names/other/claim", .post)] {
                let refused = try await client.execute(uri: uri, method: method, headers: headers)
                #expect(refused.status == .unauthorized && refused.errorCode == "API1102", "\(refused.text)")
                #expect(refused.text.contains("AUTH1012") && !refused.text.contains("victim") && !refused.text.contains("v1.name"))
            }
            let again = try await client.execute(uri: "/v1/names/vic.name/claim", method: .post, headers: victim)
            #expect(again.status == .ok && again.object["owner"] as? String == "victim", "\(again.text)")
        }
        #expect(try await store.owner(of: "vname") == nil)
        #expect(try await store.owner(of: "other") == nil)
        #expect(try await store.owner(of: "vic.name")?.owner == "victim")
    }

    @Test("SQLite: a Unicode-equivalent uid never acts as the user it resembles")
    func equivalentUserOnSQLite() async throws {
        let harness = try await harness()
        try await equivalentUserNeverActsAsAnother(harness, store: harness.store.base)
    }

    @Test("SQLite: a uid with a NUL is refused and never acts as the user before the NUL")
    func nulUserOnSQLite() async throws {
        let harness = try await harness()
        try await nulUserNeverActsAsAnother(harness, store: harness.store.base)
    }

    @Test("PostgreSQL: a Unicode-equivalent uid never acts as the user it resembles",
          .enabled(if: ServiceTestDatabase.url != nil || ServiceTestDatabase.isCI, "RULESKIT_POSTGRES_URL is not set"))
    func equivalentUserOnPostgres() async throws {
        try #require(ServiceTestDatabase.url != nil, "CI=true but RULESKIT_POSTGRES_URL is not set: .ci/run must start scripts/postgres")
        let store = try await ServiceTestDatabase.store()
        defer { ClaimStoreLocation.close(store) }
        try await equivalentUserNeverActsAsAnother(try await harness(store: store), store: store)
    }

    @Test("PostgreSQL: a uid with a NUL is refused and never acts as the user before the NUL",
          .enabled(if: ServiceTestDatabase.url != nil || ServiceTestDatabase.isCI, "RULESKIT_POSTGRES_URL is not set"))
    func nulUserOnPostgres() async throws {
        try #require(ServiceTestDatabase.url != nil, "CI=true but RULESKIT_POSTGRES_URL is not set: .ci/run must start scripts/postgres")
        let store = try await ServiceTestDatabase.store()
        defer { ClaimStoreLocation.close(store) }
        try await nulUserNeverActsAsAnother(try await harness(store: store), store: store)
    }

    /// An authenticator that names whatever user the token text is.
    struct EchoAuthenticator: Authenticator {
        func userID(forBearerToken token: String) async throws(AuthenticationError) -> String {
            token.removingPercentEncoding ?? token
        }
    }

    @Test("whatever the authenticator, a user id with a control character or none at all is 401 (AV1008)",
          arguments: ["victim%00x", "%00", "tab%09x", "esc%1B%5B2J", "del%7F"])
    func anyAuthenticatorIsChecked(token: String) async throws {
        var harness = try await ServiceHarness()
        harness.configuration.authenticator = EchoAuthenticator()
        try await harness.test { client in
            let refused = try await client.execute(uri: "/v1/names/vname/claim", method: .post, headers: [.authorization: "Bearer \(token)"])
            #expect(refused.status == .unauthorized && refused.errorCode == "API1102", "\(refused.text)")
            #expect(refused.text.contains("AV1008"))
        }
        #expect(harness.store.asked.isEmpty, "the store is never asked")
    }
}
