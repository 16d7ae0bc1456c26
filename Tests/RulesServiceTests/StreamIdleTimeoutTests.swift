import Clocks
import Foundation
import Hummingbird
import NIOCore
import NIOEmbedded
@testable import RulesService
import Synchronization
import Testing

/// Streamed batches whose body stalls, on a virtual clock: the router's responder is called
/// directly with a request body the test feeds (and then stops feeding).
@Suite("--stream-idle-timeout: a stalled batch body ends the stream and gives its slot back")
struct StreamIdleTimeoutTests {
    /// One service with a single batch stream slot, its timeouts on `clock`.
    struct Service {
        let clock = TestClock<Duration>()
        let responder: RouterResponder<ServiceRequestContext>

        init() async throws {
            var limits = ServiceLimits()
            limits.maxBatchStreams = 1
            limits.streamIdleTimeout = .seconds(30)
            // The request timeout runs on the same clock: far enough away not to fire first.
            limits.requestTimeout = .seconds(3_600)
            var harness = try await ServiceHarness(limits: limits)
            harness.configuration.timeoutClock = clock
            responder = try RulesServer.router(harness.configuration).buildResponder()
        }

        /// Sends an NDJSON batch whose body is fed through the returned source.
        func batch() -> (response: Task<Response, any Error>, body: RequestBody.Source) {
            let (body, source) = RequestBody.makeStream()
            let request = Request(head: HTTPRequest(method: .post, scheme: "http", authority: "localhost", path: "/v1/email/validate-batch",
                                                    headerFields: [.contentType: "application/x-ndjson"]),
                                  body: body)
            let context = ServiceRequestContext(source: ApplicationRequestContextSource(channel: NIOAsyncTestingChannel(),
                                                                                          logger: LogCollector().logger))
            let responder = responder
            return (Task { try await responder.respond(to: request, context: context) }, source)
        }

        /// Moves the clock a second at a time until `task` is done. After 10 virtual minutes it
        /// ends the request `body` instead, so a timeout that never fires fails the test's
        /// expectations rather than hanging it.
        func advance<Value: Sendable>(until task: Task<Value, any Error>, else body: RequestBody.Source) async throws -> Value {
            let (clock, done) = (clock, DoneFlag())
            return try await withThrowingTaskGroup(of: Value?.self) { group in
                group.addTask {
                    defer { done.set() }
                    return try await task.value
                }
                group.addTask {
                    for _ in 0..<600 where !done.isSet {
                        await clock.advance(by: .seconds(1))
                    }
                    if !done.isSet { body.finish() }
                    return nil
                }
                var value: Value?
                for try await result in group where result != nil { value = result }
                return try #require(value)
            }
        }
    }

    @Test("rows already complete stay; the stream ends with one input.idle-timeout row for the line that never came")
    func stallAfterRows() async throws {
        let service = try await Service()
        let (response, source) = service.batch()
        await source.yield(ByteBuffer(string: "{\"value\": \"a@b.c\"}\n{\"value\": \"John..Doe@example.com\"}\n{\"value\": \"par"))
        // The first rows make the head: no time passes for them.
        let head = try await response.value
        #expect(head.status == .ok)
        let writer = CollectingWriter()
        let written = Task { try await head.body.write(writer) }
        try await service.advance(until: written, else: source)
        let rows = writer.text.split(separator: "\n").map(String.init)
        #expect(rows.count == 3)
        #expect(rows.first?.hasPrefix(#"{"record": 1, "valid": true"#) == true)
        #expect(rows.dropFirst().first?.hasPrefix(#"{"record": 2, "valid": false"#) == true)
        #expect(rows.last == #"{"record": 3, "valid": false, "errors": [{"code": "input.idle-timeout", "rule": "input.idle-timeout", "#
            + #""message": "No more input arrived for 30 seconds; the input ends before this record."}]}"#)
        #expect(writer.isFinished)

        // The slot came back: the single slot serves the next batch.
        let (next, nextSource) = service.batch()
        await nextSource.yield(ByteBuffer(string: "{\"value\": \"a@b.c\"}\n"))
        nextSource.finish()
        #expect(try await next.value.status == .ok)
    }

    @Test("a body that stalls before its first row gets 408 API1602, and the slot comes back")
    func stallBeforeRows() async throws {
        let service = try await Service()
        let (response, source) = service.batch()
        await source.yield(ByteBuffer(string: "{\"value\": \"a@b"))
        let refused = try await service.advance(until: response, else: source)
        #expect(refused.status == .requestTimeout)
        let writer = CollectingWriter()
        try await refused.body.write(writer)
        let error = try JSONSerialization.jsonObject(with: Data(writer.text.utf8)) as? [String: [String: String]]
        #expect(error?["error"]?["code"] == "API1602")
        #expect(error?["error"]?["message"] == "No more of the request body arrived for 30 seconds.")

        let (next, nextSource) = service.batch()
        nextSource.finish()
        let served = try await next.value
        #expect(served.status == .ok, "the stalled batch gave its slot back")
    }

    /// Feeds `bytes` one byte per virtual second until `task` is done (at most 10 virtual
    /// minutes; then the body ends, so a minimum rate that never bites fails the expectations).
    func trickle<Value: Sendable>(_ bytes: [UInt8], into body: RequestBody.Source, on clock: TestClock<Duration>,
                                  until task: Task<Value, any Error>) async throws -> (value: Result<Value, any Error>, fed: Int) {
        let done = DoneFlag()
        let watcher = Task {
            defer { done.set() }
            return await task.result
        }
        var fed = 0
        while !done.isSet && fed < 600 {
            await body.yield(ByteBuffer(bytes: [bytes[fed % bytes.count]]))
            fed += 1
            await clock.advance(by: .seconds(1))
        }
        // Ended either way: a source must be finished before it goes.
        body.finish()
        return (await watcher.value, fed)
    }

    @Test("a body trickled a byte at a time before its first row gets 408 API1603, and the slot comes back")
    func trickleBeforeRows() async throws {
        let service = try await Service()
        let (response, source) = service.batch()
        // One long line that never ends: no row is ever ready.
        let (result, fed) = try await trickle(Array("{\"value\": \"".utf8) + Array(repeating: UInt8(ascii: "a"), count: 64),
                                              into: source, on: service.clock, until: response)
        let refused = try result.get()
        #expect(refused.status == .requestTimeout)
        let writer = CollectingWriter()
        try await refused.body.write(writer)
        let error = try JSONSerialization.jsonObject(with: Data(writer.text.utf8)) as? [String: [String: String]]
        #expect(error?["error"]?["code"] == "API1603", "\(writer.text)")
        #expect(error?["error"]?["message"]?.contains("at least 512 bytes per second") == true)
        #expect(fed < 600, "the minimum rate ended the stream, not the test's own end of the body")

        let (next, nextSource) = service.batch()
        nextSource.finish()
        #expect(try await next.value.status == .ok, "the trickling batch gave its slot back")
    }

    @Test("a body trickled a byte at a time after its first rows is cut off (the response ends unfinished), and the slot comes back")
    func trickleAfterRows() async throws {
        let service = try await Service()
        let (response, source) = service.batch()
        await source.yield(ByteBuffer(string: "{\"value\": \"a@b.c\"}\n"))
        let head = try await response.value
        #expect(head.status == .ok)
        let writer = CollectingWriter()
        let written = Task { try await head.body.write(writer) }
        // Whole lines, a byte a second: never idle, always too slow.
        let (result, fed) = try await trickle(Array("{\"value\": \"x@y.z\"}\n".utf8), into: source, on: service.clock, until: written)
        #expect(throws: (any Error).self, "the body writer fails, so the connection closes") { try result.get() }
        #expect(!writer.isFinished, "no end of the response: a client cannot take it for complete")
        #expect(writer.text.hasPrefix(#"{"record": 1, "valid": true"#))
        #expect(!writer.text.contains("input.idle-timeout"))
        #expect(fed < 600)

        let (next, nextSource) = service.batch()
        nextSource.finish()
        #expect(try await next.value.status == .ok, "the trickling batch gave its slot back")
    }

    @Test("a body that ends gets every row and no idle-timeout row")
    func endedBody() async throws {
        let service = try await Service()
        let (response, source) = service.batch()
        await source.yield(ByteBuffer(string: "{\"value\": \"a@b.c\"}\n{\"value\": \"x@y.z\"}"))
        source.finish()
        let head = try await response.value
        let writer = CollectingWriter()
        try await head.body.write(writer)
        #expect(writer.text.split(separator: "\n").count == 2)
        #expect(!writer.text.contains("input.idle-timeout"))
    }
}

/// Set once a task is done.
final class DoneFlag: Sendable {
    private let state = Mutex(false)

    var isSet: Bool { state.withLock { $0 } }

    func set() { state.withLock { $0 = true } }
}

/// Collects a response body.
final class CollectingWriter: ResponseBodyWriter, Sendable {
    private let state = Mutex<(bytes: [UInt8], finished: Bool)>(([], false))

    var text: String { String(decoding: state.withLock { $0.bytes }, as: UTF8.self) }
    var isFinished: Bool { state.withLock { $0.finished } }

    func write(_ buffer: ByteBuffer) async throws {
        state.withLock { $0.bytes += buffer.readableBytesView }
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {
        state.withLock { $0.finished = true }
    }
}
