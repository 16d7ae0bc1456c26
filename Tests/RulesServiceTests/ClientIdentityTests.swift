import Foundation
import Hummingbird
import HTTPTypes
import HummingbirdTesting
import NIOEmbedded
@testable import RulesService
import Testing

/// Addresses parsed as addresses: the `--dev-auth` bind check, the `Host` check, CIDR networks,
/// and who the client is behind `--trusted-proxy`.
@Suite("Client addresses, loopback checks and trusted proxies")
struct ClientIdentityTests {
    @Test("--dev-auth binds to 127.0.0.0/8 or ::1 only, parsed as an address",
          arguments: [("127.0.0.1", true), ("127.255.0.9", true), ("::1", true), ("[::1]", true), ("::ffff:127.0.0.2", true),
                      ("127.0.0.1.example.com", false), ("localhost", false), ("0.0.0.0", false), ("::", false), ("128.0.0.1", false),
                      ("127.1", false), ("0x7f.0.0.1", false), ("0177.0.0.1", false), ("2130706433", false), ("127.0.0.1:8080", false),
                      ("127.0.0.1\u{0}.example.com", false), ("", false), (" 127.0.0.1", false)])
    func devAuthBindCheck(host: String, allowed: Bool) {
        #expect(DevAuthenticator.isLoopback(host) == allowed)
    }

    @Test("a loopback Host: localhost, 127.x or [::1], with an optional port",
          arguments: [("localhost", true), ("LocalHost:8080", true), ("127.0.0.1", true), ("127.0.0.1:65535", true), ("127.9.9.9:1", true),
                      ("[::1]", true), ("[::1]:8080", true),
                      ("evil.example", false), ("127.0.0.1.example.com", false), ("localhost.evil.example", false), ("::1", false),
                      ("[::1]x", false), ("[::2]", false), ("localhost:", false), ("localhost:123456", false), ("localhost:8o", false),
                      ("127.0.0.1:80:80", false), ("10.0.0.1", false), ("[::ffff:127.0.0.1]", false), ("", false)])
    func hostCheck(host: String, allowed: Bool) {
        #expect(LoopbackHost.accepts(host) == allowed)
    }

    @Test("CIDR networks: parsing and membership")
    func networks() throws {
        let ten = try #require(IPNetwork(cidr: "10.1.2.3/8"))
        #expect(ten.description == "10.0.0.0/8")
        #expect(ten.contains(try #require(IPAddress("10.200.0.1"))))
        #expect(!ten.contains(try #require(IPAddress("11.0.0.1"))))
        #expect(!ten.contains(try #require(IPAddress("::a00:1"))), "an IPv6 address is never in an IPv4 network")
        let v6 = try #require(IPNetwork(cidr: "2001:db8::/32"))
        #expect(v6.contains(try #require(IPAddress("2001:db8:ffff::1"))))
        #expect(!v6.contains(try #require(IPAddress("2001:db9::1"))))
        let one = try #require(IPNetwork(cidr: "192.0.2.7"))
        let seven = try #require(IPAddress("192.0.2.7"))
        #expect(one.prefixLength == 32 && one.contains(seven))
        #expect(try #require(IPNetwork(cidr: "0.0.0.0/0")).contains(try #require(IPAddress("203.0.113.1"))))
        for bad in ["10.0.0.0/33", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/8/8", "2001:db8::/129", "example.com/8", "10.0.0.0/ 8", ""] {
            #expect(IPNetwork(cidr: bad) == nil, "\(bad)")
        }
    }

    @Test("IPv6 clients share a bucket per /64; IPv4-mapped addresses are IPv4")
    func buckets() throws {
        let a = try #require(IPAddress("2001:db8:1:2::1")), b = try #require(IPAddress("2001:db8:1:2:ffff:ffff:ffff:ffff"))
        let c = try #require(IPAddress("2001:db8:1:3::1"))
        #expect(a.bucket == b.bucket && a.bucket == "2001:db8:1:2::/64")
        #expect(a.bucket != c.bucket)
        #expect(try #require(IPAddress("203.0.113.4")).bucket == "203.0.113.4")
        #expect(try #require(IPAddress("::ffff:203.0.113.4")).bucket == "203.0.113.4")
    }

    func request(_ headers: HTTPFields) -> Request {
        Request(head: HTTPRequest(method: .get, scheme: "http", authority: "localhost", path: "/", headerFields: headers),
                body: RequestBody(buffer: ByteBuffer()))
    }

    static let forwarded = HTTPField.Name("Forwarded")!
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!

    @Test("the client is the rightmost hop that is not a trusted proxy, and only a trusted peer's headers count")
    func trustedProxies() throws {
        let proxies = ClientIdentity(trustedProxies: [try #require(IPNetwork(cidr: "10.0.0.0/8")), try #require(IPNetwork(cidr: "::1"))])
        func client(_ headers: HTTPFields, peer: String = "10.0.0.2") -> String? {
            proxies.client(of: request(headers), peer: peer)?.description
        }
        // No header, or a peer that is not a proxy: the peer.
        #expect(client([:]) == "10.0.0.2")
        #expect(client([Self.xForwardedFor: "203.0.113.9"], peer: "198.51.100.1") == "198.51.100.1")
        // X-Forwarded-For: the spoofed first entry is ignored, the one the proxy added counts.
        #expect(client([Self.xForwardedFor: "203.0.113.9"]) == "203.0.113.9")
        #expect(client([Self.xForwardedFor: "1.1.1.1, 203.0.113.9"]) == "203.0.113.9")
        #expect(client([Self.xForwardedFor: "203.0.113.9, 10.0.0.7"]) == "203.0.113.9", "a chain of trusted proxies is skipped")
        #expect(client([Self.xForwardedFor: "[2001:db8::5]:443"]) == "2001:db8::5")
        // Forwarded wins over X-Forwarded-For; quoted IPv6 with a port; other parameters ignored.
        var both: HTTPFields = [Self.forwarded: #"for=192.0.2.60;proto=http;by=203.0.113.43, For="[2001:db8:cafe::17]:4711""#]
        both[Self.xForwardedFor] = "198.51.100.77"
        #expect(client(both) == "2001:db8:cafe::17")
        #expect(client([Self.forwarded: "for=192.0.2.60:8080"]) == "192.0.2.60")
        // A hop that is not an address: the last trusted proxy read stands for the client.
        #expect(client([Self.forwarded: "for=unknown"]) == "10.0.0.2")
        #expect(client([Self.xForwardedFor: "203.0.113.9, garbage, 10.0.0.9"]) == "10.0.0.9")
        #expect(client([Self.xForwardedFor: "127.0.0.1.example.com"]) == "10.0.0.2")
        // Several header lines are read in order.
        var lines = HTTPFields()
        lines.append(HTTPField(name: Self.xForwardedFor, value: "203.0.113.1"))
        lines.append(HTTPField(name: Self.xForwardedFor, value: "203.0.113.2"))
        #expect(client(lines) == "203.0.113.2")
        #expect(proxies.client(of: request([:]), peer: nil) == nil)
    }

    @Test("claims, releases and renames take tokens from the same buckets as lookups: per client")
    func claimsShareTheClientBucket() async throws {
        let harness = try await ServiceHarness(lookupsPerSecond: 2)
        try await harness.test { client in
            #expect(try await client.send(.get, "/v1/names/John.Doe").status == .ok)
            #expect(try await client.send(.get, "/v1/names/Jane.Doe").status == .ok)
            // With the lookups' tokens spent, claims, releases and renames are refused too: the
            // AV1003/AV1004/AV1005/AV1006 answers cannot be used to enumerate names faster.
            for (method, uri) in [(HTTPRequest.Method.post, "/v1/names/John.Doe/claim"), (.delete, "/v1/names/John.Doe/claim")] {
                let limited = try await client.send(method, uri, user: "u1")
                #expect(limited.status == .tooManyRequests && limited.errorCode == "API1501", "\(method) \(uri): \(limited.text)")
                #expect(limited.headers[.retryAfter] == "1")
            }
            let rename = try await client.post("/v1/names/rename", json: #"{"from": "a.b.c", "to": "d.e.f"}"#, user: "u1")
            #expect(rename.status == .tooManyRequests && rename.errorCode == "API1501")
            harness.clock.advance(by: 1)
            #expect(try await client.send(.post, "/v1/names/John.Doe/claim", user: "u1").status == .ok, "the bucket refills")
        }
        #expect(harness.store.asked == ["John.Doe", "Jane.Doe", "John.Doe"], "refused requests never reached the store")
    }

    /// Headers of a request a trusted proxy forwards for `client`, by `user` when given.
    @Sendable static func from(_ client: String, user: String? = nil) -> HTTPFields {
        var headers: HTTPFields = [xForwardedFor: client]
        if let user { headers[.authorization] = "Bearer dev:\(user)" }
        return headers
    }

    @Test("behind a trusted proxy: one bucket per client and one per user; IPv6 per /64", .timeLimit(.minutes(2)))
    func bucketsBehindAProxy() async throws {
        var harness = try await ServiceHarness(lookupsPerSecond: 2)
        harness.configuration.trustedProxies = [try #require(IPNetwork(cidr: "127.0.0.0/8")), try #require(IPNetwork(cidr: "::1"))]
        try await harness.live { client in
            // u1 spends its two tokens from two clients; a third client cannot claim for u1.
            #expect(try await client.execute(uri: "/v1/names/name.one/claim", method: .post, headers: Self.from("203.0.113.1", user: "u1")).status == .ok)
            #expect(try await client.execute(uri: "/v1/names/name.one/claim", method: .delete, headers: Self.from("203.0.113.2", user: "u1")).status == .ok)
            let perUser = try await client.execute(uri: "/v1/names/name.one/claim", method: .post, headers: Self.from("203.0.113.3", user: "u1"))
            #expect(perUser.status == .tooManyRequests && perUser.errorCode == "API1501", "\(perUser.text)")
            // Another user from a fresh client is not affected.
            #expect(try await client.execute(uri: "/v1/names/name.two/claim", method: .post, headers: Self.from("203.0.113.4", user: "u2")).status == .ok)
            // Per client: 203.0.113.5 has two lookups, then none; its /32 neighbour has its own.
            #expect(try await client.execute(uri: "/v1/names/abc", method: .get, headers: Self.from("203.0.113.5")).status == .ok)
            #expect(try await client.execute(uri: "/v1/names/abd", method: .get, headers: Self.from("203.0.113.5")).status == .ok)
            #expect(try await client.execute(uri: "/v1/names/abe", method: .get, headers: Self.from("203.0.113.5")).status == .tooManyRequests)
            #expect(try await client.execute(uri: "/v1/names/abe", method: .get, headers: Self.from("203.0.113.6")).status == .ok)
            // IPv6: the whole /64 is one client.
            #expect(try await client.execute(uri: "/v1/names/abc", method: .get, headers: Self.from("2001:db8:1:2::1")).status == .ok)
            #expect(try await client.execute(uri: "/v1/names/abd", method: .get, headers: Self.from("2001:db8:1:2::ffff")).status == .ok)
            let sameNet = try await client.execute(uri: "/v1/names/abe", method: .get, headers: Self.from("2001:db8:1:2:ab::9"))
            #expect(sameNet.status == .tooManyRequests)
            #expect(try await client.execute(uri: "/v1/names/abe", method: .get, headers: Self.from("2001:db8:1:3::1")).status == .ok)
        }
    }

    @Test("without --trusted-proxy, X-Forwarded-For is ignored: every request is its peer's", .timeLimit(.minutes(2)))
    func untrustedHeadersAreIgnored() async throws {
        let harness = try await ServiceHarness(lookupsPerSecond: 2)
        try await harness.live { client in
            for (index, spoofed) in ["203.0.113.1", "203.0.113.2", "203.0.113.3"].enumerated() {
                let answer = try await client.execute(uri: "/v1/names/abc", method: .get, headers: [Self.xForwardedFor: spoofed])
                #expect(answer.status == (index < 2 ? .ok : .tooManyRequests), "\(spoofed)")
            }
        }
    }

    @Test("with --dev-auth, a Host that is not loopback is 421 API1205 before any route; without it, Host is not checked")
    func devAuthHostCheck() async throws {
        let harness = try await ServiceHarness()
        try await harness.test { client in
            for host in ["evil.example", "127.0.0.1.example.com", "evil.example:8080", "[::2]"] {
                let refused = try await client.execute(uri: "/v1/names/vname/claim", method: .post,
                                                       headers: [HTTPField.Name("Host")!: host, .authorization: "Bearer dev:victim"])
                #expect(refused.status == .misdirectedRequest && refused.errorCode == "API1205", "\(host): \(refused.text)")
            }
            for host in ["localhost:8080", "127.0.0.1", "[::1]:9"] {
                let served = try await client.execute(uri: "/healthz", method: .get, headers: [HTTPField.Name("Host")!: host])
                #expect(served.status == .ok, "\(host)")
            }
        }
        #expect(harness.store.asked.isEmpty, "no refused request reached the store")
        // The authority of the request line or Host header is checked too (as HTTP/1.1 gives it).
        let responder = try RulesServer.router(harness.configuration).buildResponder()
        let request = Request(head: HTTPRequest(method: .get, scheme: "http", authority: "evil.example", path: "/healthz"),
                              body: RequestBody(buffer: ByteBuffer()))
        let context = ServiceRequestContext(source: ApplicationRequestContextSource(channel: NIOAsyncTestingChannel(), logger: harness.logs.logger))
        #expect(try await responder.respond(to: request, context: context).status == .misdirectedRequest)

        var open = try await ServiceHarness()
        open.configuration.authenticator = nil
        try await open.test { client in
            let served = try await client.execute(uri: "/healthz", method: .get, headers: [HTTPField.Name("Host")!: "evil.example"])
            #expect(served.status == .ok, "only --dev-auth checks Host")
        }
    }
}
