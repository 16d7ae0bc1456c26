import Hummingbird
import HummingbirdTesting
@testable import RulesService
import Testing

@Suite("405 for a known path asked with a wrong method, 404 for an unknown path")
struct MethodNotAllowedTests {
    @Test("a wrong method on every known path gets 405 API1204 with the path's methods in Allow", arguments: [
        (HTTPRequest.Method.get, "/v1/email/validate", "OPTIONS, POST"),
        (.put, "/v1/email/validate", "OPTIONS, POST"),
        (.get, "/v1/display-name/validate-batch", "OPTIONS, POST"),
        (.put, "/v1/names/x/claim", "DELETE, OPTIONS, POST"),
        (.get, "/v1/names/x/claim", "DELETE, OPTIONS, POST"),
        (.post, "/v1/names/John.Doe", "GET, HEAD, OPTIONS"),
        (.delete, "/v1/names/John.Doe", "GET, HEAD, OPTIONS"),
        (.get, "/v1/names/rename", "OPTIONS, POST"),
        (.patch, "/v1/rules/firestore/decide", "OPTIONS, POST"),
        (.post, "/healthz", "GET, HEAD, OPTIONS"),
        (.delete, "/readyz", "GET, HEAD, OPTIONS"),
        (.put, "/metrics", "GET, HEAD, OPTIONS"),
        (.post, "/openapi.yaml", "GET, HEAD, OPTIONS"),
        (.post, "/healthz/", "GET, HEAD, OPTIONS"),
    ])
    func wrongMethod(method: HTTPRequest.Method, path: String, allow: String) async throws {
        try await ServiceHarness().test { client in
            let response = try await client.send(method, path, user: "alice")
            #expect(response.status == .methodNotAllowed, "\(method) \(path)")
            #expect(response.errorCode == "API1204", "\(method) \(path)")
            #expect(response.headers[.allow] == allow, "\(method) \(path)")
        }
    }

    @Test("unknown paths stay 404 API1203 whatever the method, without Allow")
    func unknownPath() async throws {
        try await ServiceHarness().test { client in
            for (method, path) in [(HTTPRequest.Method.get, "/v2/nothing"), (.post, "/v1/email"), (.put, "/v1/names/a/b/c"),
                                   (.options, "/nothing"), (.get, "/")] {
                let response = try await client.send(method, path)
                #expect(response.status == .notFound && response.errorCode == "API1203", "\(method) \(path)")
                #expect(response.headers[.allow] == nil, "\(method) \(path)")
            }
        }
    }

    @Test("OPTIONS answers 204 with Allow; HEAD answers a GET path like GET without a body")
    func optionsAndHead() async throws {
        try await ServiceHarness().test { client in
            let options = try await client.send(.options, "/v1/names/x/claim")
            #expect(options.status == .noContent && options.headers[.allow] == "DELETE, OPTIONS, POST")
            let head = try await client.send(.head, "/healthz")
            #expect(head.status == .ok && head.body.readableBytes == 0)
            let headOfPost = try await client.send(.head, "/v1/email/validate")
            #expect(headOfPost.status == .methodNotAllowed && headOfPost.headers[.allow] == "OPTIONS, POST")
        }
    }

    @Test("the right method still reaches its route (the rename route is not a name's)")
    func rightMethod() async throws {
        try await ServiceHarness().test { client in
            #expect(try await client.send(.get, "/healthz").status == .ok)
            _ = try await client.send(.post, "/healthz")
            let metrics = try await client.send(.get, "/metrics").text
            #expect(metrics.contains(#"http_requests_total{method="POST",route="/healthz",status="405"} 1"#))
            let rename = try await client.post("/v1/names/rename", json: #"{"from": "a.b", "to": "c.d"}"#, user: "alice")
            #expect(rename.status != .methodNotAllowed && rename.status != .notFound)
        }
    }

    @Test("the route table resolves a path as the router does: a constant segment before a parameter")
    func tableResolution() {
        var table = RouteTable()
        table.add(.get, "v1/names/:name")
        table.add(.post, "v1/names/rename")
        table.add(.post, "v1/names/:name/claim")
        table.add(.delete, "v1/names/:name/claim")
        #expect(table.entry(forPath: "/v1/names/rename")?.allowed == [.options, .post])
        #expect(table.entry(forPath: "/v1/names/renamed")?.allowed == [.get, .head, .options])
        #expect(table.entry(forPath: "/v1/names/renamed")?.route == "/v1/names/{name}")
        #expect(table.entry(forPath: "/v1/names/rename/claim")?.allowed == [.delete, .options, .post])
        #expect(table.entry(forPath: "/v1/names") == nil)
        #expect(table.entry(forPath: "/v1/other/x") == nil)
    }
}
