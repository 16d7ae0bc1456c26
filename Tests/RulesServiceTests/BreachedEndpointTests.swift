import BreachedPasswords
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import RulesService
import Testing

/// `GET /v1/breached/range/{prefix}` and PW109 on the password endpoint with `--breached`.
@Suite("GET /v1/breached/range/{prefix}")
struct BreachedEndpointTests {
    static let password = "hunter2"
    /// SHA-1 of "hunter2" (sha1sum).
    static let sha1 = "F3BBBD66A63D4BF1747940578EC3D0103530E21D"

    /// A store with "hunter2" and 30 more hashes under its prefix F3BBB, and 30 elsewhere.
    static func store() throws -> BreachedStore {
        var entries = [BreachedStore.Entry(hash: PasswordHash.sha1(password), count: 9_545_824)]
        for index in 0..<60 {
            let high = index < 30 ? UInt64(0xF3BBB) << 44 | UInt64(index * 977) << 20 : UInt64(index) << 50
            entries.append(BreachedStore.Entry(hash: SHA1Digest(high: high, middle: UInt64(index), low: UInt32(index)), count: UInt32(index + 1)))
        }
        let bytes = BreachedStore.bytes(of: entries)
        return try bytes.withUnsafeBytes { try BreachedStore(bytes: $0) }
    }

    func harness(store: BreachedStore?) async throws -> ServiceHarness {
        var harness = try await ServiceHarness()
        harness.configuration.breached = store
        return harness
    }

    @Test("text/plain SUFFIX:COUNT lines joined by CRLF, the prefix in either case, as the store answers it")
    func range() async throws {
        let store = try Self.store()
        let expected = String(decoding: try RangeAnswer.text(prefix: 0xF3BBB, store: store, padded: false), as: UTF8.self)
        try await harness(store: store).test { client in
            for prefix in ["F3BBB", "f3bbb", "f3BbB", "%46%33BBB"] {
                let answer = try await client.send(.get, "/v1/breached/range/\(prefix)")
                #expect(answer.status == .ok)
                #expect(answer.headers[.contentType] == "text/plain")
                #expect(answer.text == expected)
            }
            let lines = expected.components(separatedBy: "\r\n")
            #expect(lines.count == 31)
            let holdsPassword = lines.contains(String(Self.sha1.dropFirst(5)) + ":9545824")
            #expect(holdsPassword, "the password's line")
            #expect(lines.allSatisfy { $0.range(of: "^[0-9A-F]{35}:[0-9]+$", options: .regularExpression) != nil })
            let empty = try await client.send(.get, "/v1/breached/range/00001")
            #expect(empty.status == .ok && empty.text.isEmpty)
        }
    }

    @Test("Add-Padding: true pads with count-0 lines; the real lines are unchanged")
    func padding() async throws {
        let store = try Self.store()
        let plain = String(decoding: try RangeAnswer.text(prefix: 0xF3BBB, store: store, padded: false), as: UTF8.self)
        try await harness(store: store).test { client in
            for value in ["true", "True"] {
                let answer = try await client.execute(uri: "/v1/breached/range/F3BBB", method: .get,
                                                      headers: [HTTPField.Name("Add-Padding")!: value])
                #expect(answer.status == .ok)
                let lines = answer.text.components(separatedBy: "\r\n")
                #expect(lines.count >= 800 && lines.count <= 1_000)
                #expect(lines.filter { !$0.hasSuffix(":0") }.joined(separator: "\r\n") == plain)
            }
            let unpadded = try await client.execute(uri: "/v1/breached/range/F3BBB", method: .get,
                                                    headers: [HTTPField.Name("Add-Padding")!: "false"])
            #expect(unpadded.text == plain)
        }
    }

    @Test("an invalid prefix is 400 API1006 in the service's error shape, never echoed", arguments: [
        "5BAA", "5BAA61", "5BAAG", "zzzzz", "5BA%20A", "5BAA6.txt", "5BAA6%00", "%E2%91%A4BAA6",
    ])
    func invalidPrefix(_ prefix: String) async throws {
        try await harness(store: try Self.store()).test { client in
            let answer = try await client.send(.get, "/v1/breached/range/\(prefix)")
            #expect(answer.status == .badRequest)
            #expect(answer.errorCode == "API1006")
            #expect(answer.headers[.contentType] == "application/json")
            #expect(!answer.text.contains(prefix))
        }
    }

    @Test("without --breached: 404 API1206 for a valid prefix, and PW109 is off")
    func noStore() async throws {
        try await harness(store: nil).test { client in
            let answer = try await client.send(.get, "/v1/breached/range/F3BBB")
            #expect(answer.status == .notFound)
            #expect(answer.errorCode == "API1206")
            let password = try await client.post("/v1/password/validate", json: #"{"value": "\#(Self.password)"}"#)
            #expect(!password.text.contains("PW109"))
        }
    }

    @Test("with --breached the password endpoints reject a breached password with PW109; no password or hash in answers or logs")
    func passwordEndpoint() async throws {
        let harness = try await harness(store: try Self.store())
        try await harness.test { client in
            let answer = try await client.post("/v1/password/validate", json: #"{"value": "\#(Self.password)"}"#)
            let codes = (answer.object["errors"] as? [[String: Any]])?.compactMap { $0["code"] as? String } ?? []
            #expect(codes.contains("PW109"))
            let fine = try await client.post("/v1/password/validate", json: #"{"value": "a-passphrase-nobody-used-4411"}"#)
            #expect(!fine.text.contains("PW109"))
            let rows = try await client.post("/v1/password/validate-batch", json: #"{"value": "\#(Self.password)"}"#,
                                             contentType: "application/x-ndjson")
            #expect(rows.text.contains("PW109"))
            for (index, text) in [answer.text, fine.text, rows.text].enumerated() {
                let leaked = text.contains(Self.password) || text.uppercased().contains(Self.sha1.dropFirst(5))
                #expect(!leaked, "answer #\(index)")
            }
        }
        let logged = harness.logs.all.contains(Self.password) || harness.logs.all.uppercased().contains(Self.sha1.dropFirst(5))
        #expect(!logged, "the logs hold the password or its hash")
    }

    @Test("a --bits 64 store is refused at start-up: the range API needs whole hashes")
    func sixtyFourBitStoreRefused() async throws {
        let bytes = BreachedStore.bytes(of: [BreachedStore.Entry(hash: PasswordHash.sha1(Self.password), count: 1)], hashBits: 64)
        let store = try bytes.withUnsafeBytes { try BreachedStore(bytes: $0) }
        let harness = try await harness(store: store)
        #expect(throws: ServiceSetupError.self) { _ = try RulesServer.router(harness.configuration) }
    }
}
