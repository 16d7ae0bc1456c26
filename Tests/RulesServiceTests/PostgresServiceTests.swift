import Availability
import ClaimStoreLocations
import Foundation
import HummingbirdTesting
@testable import RulesService
import Testing

/// The PostgreSQL test database: `RULESKIT_POSTGRES_URL` (printed by `scripts/postgres start`).
private let postgresURL = ProcessInfo.processInfo.environment["RULESKIT_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

@Suite("The service on PostgreSQL", .enabled(if: postgresURL != nil, """
    RULESKIT_POSTGRES_URL is not set, so the service's PostgreSQL tests are skipped. \
    To run them: eval "$(scripts/postgres start)"; export RULESKIT_POSTGRES_URL
    """))
struct PostgresServiceTests {
    @Test("claim, taken, release and rename through the service on a PostgreSQL store; readyz is ready")
    func claims() async throws {
        let base = postgresURL ?? ""
        let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        let store = try await ClaimStoreLocation.open(base + (base.contains("?") ? "&" : "?") + "schema=\(schema)",
                                                      connectTimeout: .seconds(90))
        defer { ClaimStoreLocation.close(store) }
        var harness = try await ServiceHarness()
        harness.configuration.store = store
        try await harness.test { client in
            #expect(try await client.send(.get, "/readyz").status == .ok)
            let claimed = try await client.send(.post, "/v1/names/John.Doe/claim", user: "u1")
            #expect(claimed.text == #"{"claimed":true,"key":"john.doe","name":"John.Doe","owner":"u1"}"#)
            let taken = try await client.send(.post, "/v1/names/john.doe/claim", user: "u2")
            #expect(taken.status == .conflict && taken.errorCode == "AV1003")
            let renamed = try await client.post("/v1/names/rename", json: #"{"from": "John.Doe", "to": "Jane.Doe"}"#, user: "u1")
            #expect(renamed.status == .ok)
            let lookup = try await client.send(.get, "/v1/names/john.doe")
            #expect(lookup.object["available"] as? Bool == true)
            let released = try await client.send(.delete, "/v1/names/jane.doe/claim", user: "u1")
            #expect(released.status == .ok)
        }
        #expect(try await store.owner(of: "jane.doe") == nil)
    }
}
