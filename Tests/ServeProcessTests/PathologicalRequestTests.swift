import Foundation
import Testing

@Suite("pathological requests against a running server")
struct PathologicalRequestTests {
    /// A database write whose value nests 65 levels (it once pinned a worker forever) and a
    /// 64 KB password against a username that almost matches it (once 8 s of CPU each).
    static let bodies: [(path: String, body: String)] = [
        ("/v1/rules/database/decide",
         #"{"path": "/userPresence/alice", "method": "set", "auth": {"uid": "alice"}, "value": "#
             + String(repeating: #"{"a": "#, count: 65) + "1" + String(repeating: "}", count: 65) + "}"),
        ("/v1/password/validate",
         #"{"value": ""# + String(repeating: "a", count: 43_000) + #"", "context": {"username": ""#
             + String(repeating: "a", count: 21_500) + #"b"}}"#),
    ]

    @Test("two of each in flight: every one is answered, /healthz answers, and SIGTERM stops the server")
    func pathologicalRequestsInFlight() throws {
        let server = try ServerProcess(["--store", "sqlite:" + temporaryPath(".sqlite"), "--rules-dir", "rules"])
        let requests = try (Self.bodies + Self.bodies).map { try Curl.post(port: server.port, path: $0.path, json: $0.body) }
        let health = try Curl.get(port: server.port, path: "/healthz")
        #expect(health.wait() == "200", "/healthz while the requests are in flight")
        for (index, request) in requests.enumerated() {
            #expect(request.wait() == "200", "request \(index) was answered")
        }
        #expect(server.terminate() == 0, "\(server.log)")
    }
}

/// One curl run on 127.0.0.1 that prints only the status code; bounded by `--max-time`, so a
/// request the server never answers fails the test instead of hanging it.
struct Curl {
    let process: Process
    let output: Pipe

    static func post(port: Int, path: String, json: String) throws -> Curl {
        try run(["-X", "POST", "-H", "Content-Type: application/json", "--data-binary", json, "http://127.0.0.1:\(port)\(path)"])
    }

    static func get(port: Int, path: String) throws -> Curl {
        try run(["http://127.0.0.1:\(port)\(path)"])
    }

    private static func run(_ arguments: [String]) throws -> Curl {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "120"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        return Curl(process: process, output: output)
    }

    /// The status code, once curl is done (`000` when there was no answer).
    func wait() -> String {
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
