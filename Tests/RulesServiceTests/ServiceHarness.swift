import Availability
import ClaimStoreLocations
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
@testable import RulesService
import RulesTestSupport
import Synchronization
import Testing

/// The repository's root (for `rules/` and `docs/openapi.yaml`).

/// A claim store that forwards to a real one and records every name it is asked about; with
/// `failure` set, it answers nothing and throws that instead (a store that is down).
final class SpyStore: ClaimStore {
    let base: any ClaimStore
    let failure: ClaimStoreError?
    private let askedNames = Mutex<[String]>([])

    init(base: any ClaimStore, failure: ClaimStoreError? = nil) {
        self.base = base
        self.failure = failure
    }

    var policy: any DisplayNamePolicy { base.policy }
    /// Every name the store was asked about, in order.
    var asked: [String] { askedNames.withLock { $0 } }

    private func ask(_ names: String...) throws(ClaimStoreError) {
        askedNames.withLock { $0 += names }
        if let failure { throw failure }
    }

    func availability(of name: String) async throws(ClaimStoreError) -> NameAvailability {
        try ask(name)
        return try await base.availability(of: name)
    }

    func claim(_ name: String, by user: String) async throws(ClaimStoreError) -> ClaimOutcome {
        try ask(name)
        return try await base.claim(name, by: user)
    }

    func release(_ name: String, by user: String) async throws(ClaimStoreError) -> ClaimOutcome {
        try ask(name)
        return try await base.release(name, by: user)
    }

    func rename(from old: String, to new: String, by user: String) async throws(ClaimStoreError) -> ClaimOutcome {
        try ask(old, new)
        return try await base.rename(from: old, to: new, by: user)
    }

    func owner(of name: String) async throws(ClaimStoreError) -> Claim? {
        try ask(name)
        return try await base.owner(of: name)
    }
}

/// Time for the rate limiter, moved by the test.
final class ManualClock: RateLimitClock {
    private let time = Mutex(0.0)

    func now() -> Double { time.withLock { $0 } }

    func advance(by seconds: Double) { time.withLock { $0 += seconds } }
}

/// Collects every log line (message and metadata) a service writes.
final class LogCollector: Sendable {
    private let lines = Mutex<[String]>([])

    var all: String { lines.withLock { $0.joined(separator: "\n") } }

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    /// A logger at trace level writing here.
    var logger: Logger {
        var logger = Logger(label: "test") { _ in CollectingHandler(collector: self) }
        logger.logLevel = .trace
        return logger
    }

    private struct CollectingHandler: LogHandler {
        let collector: LogCollector
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            collector.append("\(event.level) \(event.message) \(metadata.merging(event.metadata ?? [:]) { $1 })")
        }
    }
}

/// One service on a fresh SQLite file, with dev authentication, the app's rules, a manual
/// clock and collected logs.
struct ServiceHarness {
    let store: SpyStore
    let clock = ManualClock()
    let logs = LogCollector()
    var configuration: ServiceConfiguration

    init(limits: ServiceLimits = ServiceLimits(), lookupsPerSecond: Double? = 1000, failure: ClaimStoreError? = nil) async throws {
        let path = NSTemporaryDirectory() + "rulesservice-\(UUID().uuidString).sqlite"
        let base = try await ClaimStoreLocation.open("sqlite:" + path, connectTimeout: .seconds(5))
        store = SpyStore(base: base, failure: failure)
        let rules = try RuleSets.load(files: [], directory: packageRoot.appendingPathComponent("rules").path)
        configuration = ServiceConfiguration(store: store, ruleSets: rules, appName: "Chirp", authenticator: DevAuthenticator(),
                                             limits: limits, lookupsPerSecond: lookupsPerSecond, clock: clock)
    }

    /// Runs `body` against the service in-process.
    func test<Value: Sendable>(_ body: @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value {
        try await RulesServer.application(configuration, logger: logs.logger).test(.router, body)
    }

    /// Runs `body` against the service listening on a free loopback port, run by its own
    /// `run()` as `validate serve` runs it, then stops it.
    ///
    /// Not Hummingbird's `.test(.live)`: that wraps the application in one whose `run()` is
    /// Hummingbird's stock one, which writes Hummingbird's `Date` header instead of the service's
    /// and runs the per-second date service whose swift-async-algorithms `merge` can wedge a
    /// thread on its own lock (``ServiceApplication``); a whole test run once hung there.
    func live<Value: Sendable>(_ body: @Sendable (LiveClient) async throws -> Value) async throws -> Value {
        var configuration = configuration
        configuration.port = 0
        let (ports, listening) = AsyncStream.makeStream(of: Int.self)
        let app = try RulesServer.application(configuration, logger: logs.logger) { port in
            listening.yield(port)
            listening.finish()
        }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // A service that stops before listening ends the wait for its port.
                defer { listening.finish() }
                try await app.run()
            }
            defer { group.cancelAll() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else {
                try await group.next()
                throw CancellationError()
            }
            let client = TestClient(host: "127.0.0.1", port: port, configuration: .init(timeout: .seconds(20)))
            client.connect()
            do {
                let value = try await body(LiveClient(client: client, port: port))
                try await client.shutdown()
                return value
            } catch {
                try? await client.shutdown()
                throw error
            }
        }
    }
}

/// A client of a live service (``ServiceHarness/live(_:)``).
struct LiveClient: Sendable {
    let client: TestClient
    /// The port the service listens on, on 127.0.0.1.
    let port: Int

    /// Sends one request on the client's keep-alive connection.
    func execute(uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil) async throws -> TestClient.Response {
        var headers = headers
        headers[.connection] = "keep-alive"
        return try await client.execute(TestClient.Request(uri, method: method, authority: "localhost", headers: headers, body: body))
    }
}

extension TestClientProtocol {
    /// POSTs `json` as `application/json` (or `contentType`), with a bearer token when `user` is given.
    func post(_ uri: String, json: String, contentType: String = "application/json", user: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: contentType]
        if let user { headers[.authorization] = "Bearer dev:\(user)" }
        return try await execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: json))
    }

    /// Sends `method` to `uri` with a bearer token when `user` is given.
    func send(_ method: HTTPRequest.Method, _ uri: String, user: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let user { headers[.authorization] = "Bearer dev:\(user)" }
        return try await execute(uri: uri, method: method, headers: headers)
    }
}

/// An answer of the service, in-process or live.
protocol ServiceAnswer {
    /// The body as text.
    var text: String { get }
}

extension TestResponse: ServiceAnswer {
    var text: String { String(buffer: body) }
}

extension TestClient.Response: ServiceAnswer {
    var text: String { body.map { String(buffer: $0) } ?? "" }
    var headers: HTTPFields { head.headerFields }
}

extension ServiceAnswer {
    /// The body as a JSON object.
    var object: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
    }

    /// `error.code` of an error body.
    var errorCode: String? { (object["error"] as? [String: Any])?["code"] as? String }
}
