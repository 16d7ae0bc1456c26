import Foundation
import RulesTestSupport
import Testing

/// Requests whose HTTP framing is broken, and connections that never finish their head, against
/// a built `validate serve` over raw sockets on 127.0.0.1.
@Suite("validate serve at the HTTP edges: framing errors, oversized headers, the header-read timeout", .serialized)
struct HTTPEdgeTests {
    static let chunked = "POST /v1/email/validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"

    @Test("a malformed chunked body, an unknown Transfer-Encoding or a bad Content-Length is 400 API1005 in the error shape, and the server goes on",
          arguments: [
              ("chunk size zz", chunked + "zz\r\nabc\r\n0\r\n\r\n"),
              ("chunk size -1", chunked + "-1\r\nabc\r\n0\r\n\r\n"),
              ("chunk size of 17 hex digits", chunked + "10000000000000000\r\nabc\r\n0\r\n\r\n"),
              ("chunk longer than its size", chunked + "3\r\n{\"value\": \"a@b.c\"}\r\n0\r\n\r\n"),
              ("Transfer-Encoding gzip", "POST /v1/email/validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip\r\n\r\n{}"),
              ("two Content-Lengths", "POST /v1/email/validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}"),
              ("Content-Length and Transfer-Encoding", "POST /v1/email/validate HTTP/1.1\r\nHost: localhost\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
              ("a space in the request target", "GET /he lthz HTTP/1.1\r\nHost: localhost\r\n\r\n"),
          ])
    func framingErrors(name: String, request: String) async throws {
        let server = try ServerProcess(["--store", "sqlite:" + temporaryPath(".sqlite")])
        let answer = RawResponse(try await RawConnection.exchange(port: server.port, Array(request.utf8)))
        #expect(answer.status == 400 && answer.errorCode == "API1005", "\(name): \(answer.text.prefix(400))")
        #expect(answer.isJSON && answer.count == 1, "\(name): one answer, in the error shape")
        #expect(answer.text.lowercased().contains("\r\nconnection: close\r\n"))
        try await expectHealthy(server)
        #expect(server.terminate() == 0)
    }

    @Test("headers over the decoder's limit are 431 API1303 in the error shape")
    func oversizedHeaders() async throws {
        let server = try ServerProcess(["--store", "sqlite:" + temporaryPath(".sqlite")])
        let request = "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: " + String(repeating: "a", count: 90_000) + "\r\n\r\n"
        let answer = RawResponse(try await RawConnection.exchange(port: server.port, Array(request.utf8)))
        #expect(answer.status == 431 && answer.errorCode == "API1303", "\(answer.text.prefix(400))")
        #expect(answer.isJSON && answer.text.contains("81920 bytes"))
        try await expectHealthy(server)
        #expect(server.terminate() == 0)
    }

    @Test("a request answered before its body turned out broken gets exactly one answer")
    func oneAnswerPerRequest() async throws {
        let server = try ServerProcess(["--store", "sqlite:" + temporaryPath(".sqlite")])
        let request = "GET /healthz HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"
        let answer = RawResponse(try await RawConnection.exchange(port: server.port, Array(request.utf8)))
        #expect(answer.status == 200 && answer.count == 1, "\(answer.text.prefix(400))")
        #expect(server.terminate() == 0)
    }

    @Test("--header-read-timeout: a connection that sends only part of its head is closed; a whole head in time is served")
    func headerReadTimeout() async throws {
        let server = try ServerProcess(["--store", "sqlite:" + temporaryPath(".sqlite"), "--header-read-timeout", "1"])
        // The server closes the connection (end of file) without answering; the read's guard is 60 s.
        #expect(try await RawConnection.exchange(port: server.port, Array("GET /healthz HTTP/1.1\r\nHost: loc".utf8)).isEmpty)
        try await expectHealthy(server)
        #expect(server.log.contains("within the header-read timeout"))
        #expect(server.terminate() == 0)
    }

    @Test("--connection-idle-timeout: a connection that sends nothing, or nothing after its answer, is closed")
    func idleTimeout() async throws {
        let server = try ServerProcess(["--store", "sqlite:" + temporaryPath(".sqlite"), "--connection-idle-timeout", "1"])
        #expect(try await RawConnection.exchange(port: server.port, []).isEmpty, "nothing sent: closed without an answer")
        // One request kept alive: its answer, then the connection closes once it has idled.
        let answer = RawResponse(try await RawConnection.exchange(port: server.port, Array("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)))
        #expect(answer.status == 200 && answer.count == 1)
        #expect(server.log.contains("stayed idle for the connection idle timeout"))
        #expect(server.terminate() == 0)
    }

    @Test("--dev-auth: a request whose Host is not loopback is 421 API1205 (DNS rebinding); a loopback Host is served")
    func devAuthHost() async throws {
        let server = try ServerProcess(["--store", "sqlite:" + temporaryPath(".sqlite"), "--dev-auth"])
        for (host, status) in [("evil.example", 421), ("127.0.0.1.example.com", 421), ("127.0.0.1:\(server.port)", 200), ("localhost", 200)] {
            let request = "POST /v1/names/vname/claim HTTP/1.1\r\nHost: \(host)\r\nAuthorization: Bearer dev:victim\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
            let answer = RawResponse(try await RawConnection.exchange(port: server.port, Array(request.utf8)))
            #expect(answer.status == status, "\(host): \(answer.text.prefix(300))")
            if status == 421 { #expect(answer.errorCode == "API1205" && answer.isJSON) }
        }
        #expect(server.terminate() == 0)
    }

    @Test("start-up refuses --dev-auth on a host that is not a loopback address, and a malformed --trusted-proxy, as usage errors",
          arguments: [
              (["--host", "127.0.0.1.example.com", "--dev-auth"], "127.0.0.0/8 or ::1"),
              (["--host", "localhost", "--dev-auth"], "127.0.0.0/8 or ::1"),
              (["--host", "0.0.0.0", "--dev-auth"], "127.0.0.0/8 or ::1"),
              (["--trusted-proxy", "10.0.0.0/33"], "CIDR"),
              (["--trusted-proxy", "10.0.0.0/8", "proxy.example"], "CIDR"),
              (["--header-read-timeout", "0"], "--header-read-timeout"),
              (["--connection-idle-timeout", "0"], "--connection-idle-timeout"),
              (["--stream-min-rate", "-1"], "--stream-min-rate"),
          ])
    func usageErrors(arguments: [String], message: String) throws {
        let run = try runValidate(["serve", "--port", "0", "--store", "sqlite:" + temporaryPath(".sqlite")] + arguments)
        #expect(run.status == 64, "\(arguments): \(run.stderr)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    /// `GET /healthz` on a new connection answers 200.
    func expectHealthy(_ server: ServerProcess) async throws {
        let request = "GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
        let answer = RawResponse(try await RawConnection.exchange(port: server.port, Array(request.utf8)))
        #expect(answer.status == 200, "the server still answers: \(answer.text.prefix(200))")
    }
}
