import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import RulesService
import RulesTestSupport
import Testing

extension HostileRequestCase: CustomTestStringConvertible {
    public var testDescription: String { id }
}

/// `corpus/hostile/http/`: each hostile request gets its status and error code, and the service
/// still answers `/healthz` after it.
@Suite("validate serve on hostile requests (corpus/hostile/http)")
struct HostileRequestTests {
    static let cases = (try? HostileCorpus.load(HostileRequestCase.self, from: "http")) ?? []

    @Test("every case file reads, and names are unique")
    func caseFilesRead() throws {
        let cases = try HostileCorpus.load(HostileRequestCase.self, from: "http")
        #expect(cases.count >= 10)
        #expect(Set(cases.map(\.id)).count == cases.count)
    }

    @Test("the answer is as the case says", arguments: cases)
    func answer(_ hostile: HostileRequestCase) async throws {
        if let raw = hostile.raw { return try await answerOnTheWire(hostile, raw.bytes) }
        try await ServiceHarness().test { client in
            var headers: HTTPFields = [:]
            if hostile.body != nil { headers[.contentType] = "application/json" }
            for (name, value) in hostile.headers ?? [:] {
                guard let field = HTTPField.Name(name) else { Issue.record("\(hostile.id): bad header name `\(name)`"); continue }
                headers[field] = value
            }
            let answer = try await client.execute(uri: hostile.path, method: HTTPRequest.Method(hostile.method) ?? .get,
                                                  headers: headers, body: hostile.body.map { ByteBuffer(bytes: $0.bytes) })
            #expect(answer.status.code == hostile.status, "\(hostile.id): \(hostile.why)\n\(answer.text.prefix(600))")
            if let code = hostile.code { #expect(answer.errorCode == code, "\(hostile.id): \(answer.text.prefix(600))") }
            let health = try await client.execute(uri: "/healthz", method: .get)
            #expect(health.status == .ok, "\(hostile.id): the service still answers")
        }
    }

    /// A `raw` case: its bytes to a live service on 127.0.0.1, one answer in the error shape
    /// back, then `/healthz` on a new connection.
    func answerOnTheWire(_ hostile: HostileRequestCase, _ bytes: Data) async throws {
        let harness = try await ServiceHarness()
        try await harness.live { client in
            let port = client.port
            let answer = RawResponse(try await RawConnection.exchange(port: port, Array(bytes)))
            #expect(answer.status == hostile.status, "\(hostile.id): \(hostile.why)\n\(answer.text.prefix(600))")
            #expect(answer.count == 1, "\(hostile.id): exactly one answer")
            if let code = hostile.code { #expect(answer.errorCode == code && answer.isJSON, "\(hostile.id): \(answer.text.prefix(600))") }
            // On the wire too: the test client gives up after 20 s, which a loaded machine can reach.
            let health = RawResponse(try await RawConnection.exchange(
                port: port, Array("GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".utf8)))
            #expect(health.status == 200, "\(hostile.id): the service still answers")
        }
    }
}
