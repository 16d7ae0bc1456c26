import Availability
import Clocks
import Foundation
import Hummingbird
import HummingbirdTesting
@testable import RulesService
import RulesTestSupport
import Testing

@Suite("Operations, contract, limits and start-up checks")
struct OperationsTests {
    @Test("healthz, readyz, metrics (per route template and status) and 404 for anything else")
    func operations() async throws {
        try await ServiceHarness().test { client in
            #expect(try await client.send(.get, "/healthz").text == #"{"status":"alive"}"#)
            #expect(try await client.send(.get, "/readyz").text == #"{"status":"ready"}"#)
            _ = try await client.send(.get, "/v1/names/John.Doe")
            _ = try await client.send(.get, "/v1/names/Jane.Doe")
            let missing = try await client.send(.get, "/v2/nothing")
            #expect(missing.status == .notFound && missing.errorCode == "API1203")
            let metrics = try await client.send(.get, "/metrics")
            #expect(metrics.status == .ok)
            #expect(metrics.headers[.contentType]?.hasPrefix("text/plain") == true)
            #expect(metrics.text.contains(#"http_requests_total{method="GET",route="/v1/names/{name}",status="200"} 2"#))
            #expect(metrics.text.contains(#"status="404"} 1"#))
        }
    }

    @Test("GET /openapi.yaml serves docs/openapi.yaml exactly (run scripts/embed-openapi after editing it)")
    func openAPI() async throws {
        let document = try String(contentsOf: packageRoot.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        #expect(OpenAPIDocument.yaml + "\n" == document)
        try await ServiceHarness().test { client in
            let served = try await client.send(.get, "/openapi.yaml")
            #expect(served.status == .ok && served.headers[.contentType] == "application/yaml")
            #expect(served.text + "\n" == document)
        }
    }

    @Test("every path and error code the routes use is in the OpenAPI document")
    func contractNamesEveryRoute() {
        let document = OpenAPIDocument.yaml
        for path in ["/v1/{field}/validate:", "/v1/{field}/validate-batch:", "/v1/names/{name}:", "/v1/names/{name}/claim:",
                     "/v1/names/rename:", "/v1/rules/{ruleset}/decide:", "/healthz:", "/readyz:", "/metrics:", "/openapi.yaml:"] {
            #expect(document.contains("\n  \(path)\n"), "\(path) is not documented")
        }
        for code in ["API1001", "API1002", "API1003", "API1101", "API1102", "API1201", "API1202", "API1203", "API1204", "API1301", "API1401",
                     "API1501", "API1502", "API1601", "API1602", "AV1001", "AV1002", "AV1003", "AV1004", "AV1005", "AV1006", "AV1007",
                     "API1005", "API1205", "API1303", "API1603", "AV1008"] {
            #expect(document.contains(code), "\(code) is not documented")
        }
    }

    @Test("503 API1601 when a request outlasts the timeout (a store that never answers)")
    func timeout() async throws {
        var harness = try await ServiceHarness()
        harness.configuration.store = StuckStore(policy: harness.store.policy)
        // The timeout's sleep ends at once; the store never answers, so the timeout always wins.
        harness.configuration.timeoutClock = ImmediateClock()
        try await harness.test { client in
            let stuck = try await client.send(.get, "/v1/names/John.Doe")
            #expect(stuck.status == .serviceUnavailable && stuck.errorCode == "API1601")
            #expect(stuck.headers[.retryAfter] == "1")
        }
    }

    @Test("--dev-auth is refused unless bound to a loopback address (127.0.0.0/8, ::1)")
    func devAuthNeedsLoopback() async throws {
        var harness = try await ServiceHarness()
        for host in ["127.0.0.1", "127.3.2.1", "::1"] {
            harness.configuration.host = host
            #expect(throws: Never.self) { try RulesServer.router(harness.configuration) }
        }
        for host in ["0.0.0.0", "127.0.0.1.example.com", "localhost", "::"] {
            harness.configuration.host = host
            #expect(throws: ServiceSetupError.self, "\(host)") { try RulesServer.router(harness.configuration) }
        }
        harness.configuration.authenticator = nil
        #expect(throws: Never.self) { try RulesServer.router(harness.configuration) }
    }

    @Test("without an authenticator, claims are refused with 401 API1102")
    func noAuthenticator() async throws {
        var harness = try await ServiceHarness()
        harness.configuration.authenticator = nil
        try await harness.test { client in
            let refused = try await client.send(.post, "/v1/names/John.Doe/claim", user: "u1")
            #expect(refused.status == .unauthorized && refused.errorCode == "API1102")
        }
    }

    @Test("the token bucket: a burst of `rate`, then one token per 1/rate seconds; quiet clients are forgotten")
    func tokenBucket() {
        let clock = ManualClock()
        let limiter = RateLimiter(rate: 4, clock: clock, maxClients: 2)
        #expect((0..<4).map { _ in limiter.take(for: "a") } == [nil, nil, nil, nil])
        #expect(limiter.take(for: "a") == 1)
        #expect(limiter.take(for: "b") == nil, "clients have buckets of their own")
        clock.advance(by: 0.25)
        #expect(limiter.take(for: "a") == nil)
        #expect(limiter.take(for: "a") == 1)
        let slow = RateLimiter(rate: 0.1, clock: clock)
        #expect(slow.take(for: "a") == nil)
        #expect(slow.take(for: "a") == 10, "a token every ten seconds")
        clock.advance(by: 100)
        _ = limiter.take(for: "c")
        #expect(limiter.take(for: "a") == nil, "a refilled bucket was dropped and starts full")
    }

    @Test("DevAuthenticator: `dev:<uid>` only")
    func devTokens() async throws {
        let authenticator = DevAuthenticator()
        #expect(try await authenticator.userID(forBearerToken: "dev:alice") == "alice")
        for token in ["alice", "dev:", "dev:a b", "dev:\(String(repeating: "x", count: 129))"] {
            await #expect(throws: AuthenticationError.self) { try await authenticator.userID(forBearerToken: token) }
        }
    }
}

/// A store whose lookups never answer until cancelled.
struct StuckStore: ClaimStore {
    let policy: any DisplayNamePolicy

    private func never<T>() async throws(ClaimStoreError) -> T {
        try? await Task.sleep(for: .seconds(86_400))
        throw ClaimStoreError(.shutDown, "cancelled")
    }

    func availability(of name: String) async throws(ClaimStoreError) -> NameAvailability { try await never() }
    func claim(_ name: String, by user: String) async throws(ClaimStoreError) -> ClaimOutcome { try await never() }
    func release(_ name: String, by user: String) async throws(ClaimStoreError) -> ClaimOutcome { try await never() }
    func rename(from old: String, to new: String, by user: String) async throws(ClaimStoreError) -> ClaimOutcome { try await never() }
    func owner(of name: String) async throws(ClaimStoreError) -> Claim? { try await never() }
}

@Suite("The ID-token seam")
struct VerifyingAuthenticatorTests {
    struct Refusal: Error, CustomStringConvertible {
        var description: String { "AUTH1007: the token has expired" }
    }

    @Test("a verify function's uid authenticates; what it throws is a 401 with its description as the reason")
    func verifying() async throws {
        var harness = try await ServiceHarness()
        harness.configuration.authenticator = VerifyingAuthenticator { token in
            guard token == "good-token" else { throw Refusal() }
            return "uid-7"
        }
        try await harness.test { client in
            let good = try await client.execute(uri: "/v1/names/John.Doe/claim", method: .post, headers: [.authorization: "Bearer good-token"])
            #expect(good.object["owner"] as? String == "uid-7")
            let bad = try await client.execute(uri: "/v1/names/John.Doe/claim", method: .post, headers: [.authorization: "Bearer bad-token"])
            #expect(bad.status == .unauthorized && bad.errorCode == "API1102")
            #expect(bad.text.contains("AUTH1007: the token has expired") && !bad.text.contains("bad-token"))
        }
    }
}
