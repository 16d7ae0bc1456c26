import Availability
import ClaimStoreLocations
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// The test database: `RULESKIT_POSTGRES_URL` (printed by `scripts/postgres start`).
enum TestDatabase {
    static let url = ProcessInfo.processInfo.environment["RULESKIT_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"
    static let howToStart: Comment = """
        RULESKIT_POSTGRES_URL is not set, so the two-server PostgreSQL test is skipped. \
        To run it: eval "$(scripts/postgres start)"; export RULESKIT_POSTGRES_URL
        """

    /// The test URL with a fresh schema of its own.
    static func freshURL() -> String? {
        guard let url else { return nil }
        let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        return url + (url.contains("?") ? "&" : "?") + "schema=\(schema)"
    }
}

@Suite("Many servers, one database")
struct ManyServersTests {
    static let names = (0..<100).map { "racer\($0)" }
    static let requestsPerName = 10
    static let connectionsPerServer = 8

    @Test("two `validate serve` processes on one PostgreSQL: 1,000 claims for 100 names, exactly one win per name",
          .enabled(if: TestDatabase.url != nil || TestDatabase.isCI, TestDatabase.howToStart))
    func raceThroughTwoServers() async throws {
        guard let url = TestDatabase.freshURL() else {
            Issue.record("CI=true but RULESKIT_POSTGRES_URL is not set: .ci/run must start scripts/postgres")
            return
        }
        // One after the other, so that the second finds the schema the first made. All claims come
        // from 127.0.0.1, and claims share the per-client rate limit: lift it.
        let first = try ServerProcess(["--store", url, "--dev-auth", "--connect-timeout", "90", "--rate-limit", "1000000"])
        let second = try ServerProcess(["--store", url, "--dev-auth", "--connect-timeout", "90", "--rate-limit", "1000000"])

        // Request i claims names[i % 100] as user-i, through server i % 2: each name is wanted by
        // ten different users, five through each server.
        let requests = (0..<(Self.names.count * Self.requestsPerName)).map { (index: $0, name: Self.names[$0 % Self.names.count], uid: "user-\($0)") }
        let ports = [first.port, second.port]
        let lanes = Self.connectionsPerServer * ports.count
        let outcomes = try await withThrowingTaskGroup(of: [(name: String, uid: String, status: Int, code: String?)].self) { group in
            for lane in 0..<lanes {
                let mine = requests.filter { $0.index % lanes == lane }
                let port = ports[lane % ports.count]
                group.addTask {
                    try await TestClient.withClient(host: "127.0.0.1", port: port, configuration: .init(timeout: .seconds(120))) { client in
                        var results: [(name: String, uid: String, status: Int, code: String?)] = []
                        for request in mine {
                            let response = try await client.execute(.init("/v1/names/\(request.name)/claim", method: .post,
                                                                          headers: [.authorization: "Bearer dev:\(request.uid)"]))
                            let code = (response.object["error"] as? [String: Any])?["code"] as? String
                            results.append((request.name, request.uid, response.status.code, code))
                        }
                        return results
                    }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(first.terminate() == 0, "\(first.log)")
        #expect(second.terminate() == 0, "\(second.log)")

        #expect(outcomes.count == 1000)
        let wins = outcomes.filter { $0.status == 200 }
        #expect(wins.count == 100)
        #expect(Set(wins.map(\.name)) == Set(Self.names), "one win per name")
        let losses = outcomes.filter { $0.status != 200 }
        #expect(losses.allSatisfy { $0.status == 409 && $0.code == "AV1003" }, "every other request is 409 AV1003")

        // The database agrees: each name is held by the user whose request won.
        let store = try await ClaimStoreLocation.open(url, connectTimeout: .seconds(90))
        defer { ClaimStoreLocation.close(store) }
        for win in wins {
            #expect(try await store.owner(of: win.name)?.owner == win.uid, "\(win.name)")
        }
    }
}
