import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// One HTTP/1.1 connection's guard, in the channel pipeline between Hummingbird's HTTP codec and
/// its request handling (with a ``ByteArrivals`` watcher in front of the decoder). It parses
/// nothing itself (NIO's `llhttp` decoder does), and does three things:
///
/// * **Header-read timeout** (`--header-read-timeout`): once the first bytes of a request head
///   arrive while the connection waits for one, the head must be complete within the limit, or
///   the connection is closed. A client that sends part of its headers, or trickles them, cannot
///   hold a connection open.
/// * **Idle timeout** (`--connection-idle-timeout`): a connection that waits for a request and
///   has none of its bytes, from when it opens or from the end of the previous response, is
///   closed after the limit; so is one whose leftover body (a body the route did not read) is
///   still arriving then.
/// * **Framing errors in the service's error shape**: when the decoder refuses the bytes
///   (oversized headers, a malformed chunked body, an unsupported `Transfer-Encoding`, a bad
///   `Content-Length`), Hummingbird answers with an empty 400 and closes. This guard writes that
///   answer as `{"error": {"code", "message"}}` instead: 431 `API1303` for oversized headers,
///   400 `API1005` otherwise. When the request had already been answered before its body turned
///   out to be broken, the second answer is dropped (a client must never read two responses to
///   one request); the connection closes either way.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let headerReadTimeout: TimeAmount
    private let idleTimeout: TimeAmount
    private let maxHeaderBytes: Int
    private let logger: Logger
    private var context: ChannelHandlerContext?
    private var timer: Scheduled<Void>?
    /// Which limit the timer holds.
    private var armed: Limit?
    /// Requests whose head arrived and whose response has not ended.
    private var inFlight = 0
    /// True between a request's head and the end of its body.
    private var readingBody = false
    /// What to do with the empty 400 Hummingbird writes after a decoder error, once it comes.
    private var pending: Pending?
    /// What is being done with it: its head was replaced or dropped, its `.end` is still to come.
    private var answering: Pending?

    private enum Limit {
        case idle, header
    }

    private enum Pending {
        /// Write this error instead (its body before the `.end`).
        case replace(ServiceError)
        /// Drop the answer: the request was already answered.
        case drop
    }

    /// - Parameters:
    ///   - headerReadTimeout: How long a request head may take once its first bytes arrived.
    ///   - idleTimeout: How long a connection may wait without any bytes of a next request.
    ///   - maxHeaderBytes: The decoder's limit on a header section (named in the 431 answer).
    init(headerReadTimeout: Duration, idleTimeout: Duration, maxHeaderBytes: Int, logger: Logger) {
        self.headerReadTimeout = Self.timeAmount(headerReadTimeout)
        self.idleTimeout = Self.timeAmount(idleTimeout)
        self.maxHeaderBytes = maxHeaderBytes
        self.logger = logger
    }

    private static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(max(1, seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
    }

    // MARK: - Timeouts

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        // In front of the HTTP decoder: the first bytes of a head are seen before it is whole.
        let watcher = ByteArrivals { [weak self] in self?.bytesArrived() }
        do {
            try context.pipeline.syncOperations.addHandler(watcher, position: .first)
        } catch {
            logger.error("cannot watch a connection's bytes; its header-read timeout counts from when it waits", metadata: ["error": "\(error)"])
        }
        if context.channel.isActive { arm(.idle) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(.idle)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    /// Bytes arrived from the client: while the connection waits for a head with none of it yet,
    /// they begin one, and the header-read timeout starts.
    private func bytesArrived() {
        if armed == .idle && inFlight == 0 && !readingBody { arm(.header) }
    }

    private func arm(_ limit: Limit) {
        disarm()
        guard let context else { return }
        let (loop, logger) = (context.eventLoop.assumeIsolated(), logger)
        armed = limit
        timer = loop.scheduleTask(in: limit == .header ? headerReadTimeout : idleTimeout) {
            logger.info(limit == .header
                ? "closed a connection whose request head did not arrive within the header-read timeout"
                : "closed a connection that stayed idle for the connection idle timeout")
            context.close(promise: nil)
        }
    }

    private func disarm() {
        timer?.cancel()
        timer = nil
        armed = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            inFlight += 1
            readingBody = true
            disarm()
        case .body:
            break
        case .end:
            readingBody = false
        }
        context.fireChannelRead(data)
    }

    // MARK: - Decoder errors

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? HTTPParserError {
            disarm()
            // A broken body belongs to a request the route answers (Hummingbird writes its 400 only
            // after the route's answer); a broken head has no other answer.
            pending = readingBody ? .drop : .replace(Self.serviceError(for: error, maxHeaderBytes: maxHeaderBytes))
            logger.info("refused bytes that are not valid HTTP/1.1", metadata: ["error": "\(error)"])
        }
        context.fireErrorCaught(error)
    }

    /// The answer to a decoder error.
    static func serviceError(for error: HTTPParserError, maxHeaderBytes: Int?) -> ServiceError {
        switch error {
        case .headerOverflow:
            return .headersTooLarge(limit: maxHeaderBytes ?? HTTP1Channel.Configuration.DecoderConfiguration().maxHeaderListSize)
        case .invalidChunkSize:
            return .malformedHTTP("a chunk size of its chunked body is not a hexadecimal number that fits")
        case .invalidContentLength, .unexpectedContentLength:
            return .malformedHTTP("its Content-Length is not valid, or comes with Transfer-Encoding")
        case .invalidHeaderToken, .invalidCharactersUsed:
            return .malformedHTTP("a header is malformed")
        case .invalidMethod:
            return .malformedHTTP("the method is not a valid token")
        case .invalidURL:
            return .malformedHTTP("the request target is malformed")
        case .invalidVersion:
            return .malformedHTTP("the protocol version is not HTTP/1.x")
        case .invalidConstant, .lfExpected, .strictModeAssertion:
            return .malformedHTTP("its framing is broken (a malformed request line, a missing line end, or a chunk longer or shorter than its size)")
        default:
            return .malformedHTTP("its framing cannot be read (for example a Transfer-Encoding other than chunked)")
        }
    }

    // MARK: - Responses

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        switch (part, answering) {
        case (.head(let head), nil) where pending != nil && Self.isEmptyParseErrorAnswer(head):
            (answering, pending) = (pending, nil)
            switch answering {
            case .replace(let error):
                var head = HTTPResponse(status: error.status, headerFields: error.headers())
                head.headerFields[.contentLength] = String(error.body.count)
                context.write(wrapOutboundOut(.head(head)), promise: promise)
            case .drop, nil:
                promise?.succeed()
            }
        case (.body, .some(.drop)):
            promise?.succeed()
        case (.end, .some(.drop)):
            answering = nil
            promise?.succeed()
        case (.end, .some(.replace(let error))):
            answering = nil
            context.write(wrapOutboundOut(.body(ByteBuffer(bytes: error.body))), promise: nil)
            context.write(data, promise: promise)
        default:
            if case .end = part {
                // Waiting for the next request from here on; what is left of this request's body
                // (read and dropped) must come within the idle limit.
                inFlight = max(0, inFlight - 1)
                if inFlight == 0 { arm(.idle) }
            }
            context.write(data, promise: promise)
        }
    }

    /// Hummingbird's answer to a decoder error: 400 with `Content-Length: 0` and
    /// `Connection: close` (the service's own 400s always have a body).
    private static func isEmptyParseErrorAnswer(_ head: HTTPResponse) -> Bool {
        head.status == .badRequest && head.headerFields[.contentLength] == "0" && head.headerFields[.connection] == "close"
    }
}

@available(*, unavailable)
extension ConnectionGuard: Sendable {}

/// Calls back whenever bytes arrive on the connection, and passes them on untouched: placed in
/// front of the HTTP decoder by ``ConnectionGuard``.
final class ByteArrivals: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let onBytes: () -> Void

    init(_ onBytes: @escaping () -> Void) { self.onBytes = onBytes }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if unwrapInboundIn(data).readableBytes > 0 { onBytes() }
        context.fireChannelRead(data)
    }
}

@available(*, unavailable)
extension ByteArrivals: Sendable {}

extension HTTPServerBuilder {
    /// HTTP/1.1 with a ``ConnectionGuard`` on every connection.
    static func guarded(limits: ServiceLimits, logger: Logger) -> HTTPServerBuilder {
        let decoder = HTTP1Channel.Configuration.DecoderConfiguration()
        let maxHeaderBytes = decoder.maxHeaderListSize
        return .http1(configuration: .init(
            additionalChannelHandlers: [ConnectionGuard(headerReadTimeout: limits.headerReadTimeout, idleTimeout: limits.connectionIdleTimeout,
                                                        maxHeaderBytes: maxHeaderBytes, logger: logger)],
            httpDecoderConfiguration: decoder))
    }
}
