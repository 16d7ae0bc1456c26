import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
@testable import RulesService
import RulesKitHummingbird
import Testing

/// Errors as RFC 9457 problems: a request whose `Accept` lists `application/problem+json` gets
/// the error as a problem document (written by RulesKitHummingbird, as its 422s are) that still
/// carries `error.code`; any other request gets `{"error": {"code", "message"}}` alone.
@Suite("Errors as application/problem+json on request")
struct ProblemDocumentTests {
    @Test("an error is a problem document when Accept lists application/problem+json, and {\"error\"} otherwise")
    func negotiated() async throws {
        try await ServiceHarness().test { client in
            let uri = "/v1/phone/validate"
            let body = ByteBuffer(string: #"{"value": "1"}"#)
            for accept in ["application/problem+json", "application/json, application/problem+json;q=0.5", "APPLICATION/PROBLEM+JSON"] {
                let answer = try await client.execute(uri: uri, method: .post, headers: [.contentType: "application/json", .accept: accept], body: body)
                #expect(answer.status == .notFound, "\(accept)")
                #expect(answer.headers[.contentType] == "application/problem+json", "\(accept)")
                let document = answer.object
                #expect(document["type"] as? String == "urn:ruleskit:problem:API1201")
                #expect(document["title"] as? String == ServiceError.unknownField("phone").title)
                #expect((document["title"] as? String)?.isEmpty == false)
                #expect(document["status"] as? Int == 404)
                #expect(document["code"] as? String == "API1201")
                #expect(answer.errorCode == "API1201")
                let message = (document["error"] as? [String: Any])?["message"] as? String
                #expect(message != nil && document["detail"] as? String == message)
            }
            for accept in [nil, "application/json", "*/*", "application/problem+json;q=0", "application/problem+xml"] {
                var headers: HTTPFields = [.contentType: "application/json"]
                if let accept { headers[.accept] = accept }
                let answer = try await client.execute(uri: uri, method: .post, headers: headers, body: body)
                #expect(answer.headers[.contentType] == "application/json", "\(String(describing: accept))")
                #expect(Set(answer.object.keys) == ["error"], "\(String(describing: accept))")
                #expect(answer.errorCode == "API1201")
            }
        }
    }

    @Test("a claims refusal keeps its AV code and its catalogue's summary as the title")
    func availabilityCodes() async throws {
        try await ServiceHarness().test { client in
            var headers: HTTPFields = [.authorization: "Bearer dev:u1", .accept: "application/problem+json"]
            let first = try await client.execute(uri: "/v1/names/carol.k/claim", method: .post, headers: headers)
            #expect(first.status == .ok)
            headers[.authorization] = "Bearer dev:u2"
            let taken = try await client.execute(uri: "/v1/names/carol.k/claim", method: .post, headers: headers)
            #expect(taken.status == .conflict)
            #expect(taken.headers[.contentType] == "application/problem+json")
            #expect(taken.object["code"] as? String == "AV1003" && taken.object["type"] as? String == "urn:ruleskit:problem:AV1003")
            #expect(taken.object["title"] as? String != HTTPResponse.Status.conflict.reasonPhrase, "the title is the catalogue's, not the status's")
        }
    }
}
