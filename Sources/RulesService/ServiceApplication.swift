import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Synchronization

/// The service's Hummingbird application: `Application`'s request loop, run without its
/// per-second date service.
///
/// Hummingbird's `Application.run()` adds a service that refreshes the `Date` header every
/// second through `cancelOnGracefulShutdown()`, which is swift-async-algorithms' `merge`. On
/// Swift 6.x, `merge` can deadlock a cooperative thread on its own lock (its storage holds the
/// lock across a continuation's registration; swift-async-algorithms 1.1.4 has the defect),
/// and a wedged thread can stop every request. This application writes the same `Date`
/// header from a clock read per request, cached per second, and uses no `merge`.
struct ServiceApplication<Responder: HTTPResponder>: ApplicationProtocol
where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
    let responder: Responder
    let server: HTTPServerBuilder
    let configuration: ApplicationConfiguration
    let logger: Logger
    let onListening: @Sendable (any Channel) async -> Void

    var eventLoopGroup: any EventLoopGroup { EventLoopGroupProvider.singleton.eventLoopGroup }
    var services: [any Service] { [] }
    var processesRunBeforeServerStart: [@Sendable () async throws -> Void] { [] }

    @Sendable func onServerRunning(_ channel: any Channel) async { await onListening(channel) }

    func run() async throws {
        let responder = self.responder
        let logger = self.logger
        let serverName = configuration.serverName
        let dates = HTTPDates()
        let server = try self.server.buildServer(
            configuration: ServerConfiguration(
                address: configuration.address, serverName: serverName, backlog: configuration.backlog,
                reuseAddress: configuration.reuseAddress, availableConnectionsDelegate: configuration.availableConnectionsDelegate),
            eventLoopGroup: eventLoopGroup, logger: logger
        ) { (request, responseWriter: consuming ResponseWriter, channel) in
            let context = Responder.Context(source: .init(channel: channel, logger: logger))
            var response: Response
            do {
                response = try await responder.respond(to: request, context: context)
            } catch let error as HTTPParserError {
                throw error
            } catch {
                logger.debug("unrecognised error", metadata: ["error.type": "\(error)"])
                response = Response(status: .internalServerError, body: .init())
            }
            response.headers[.date] = dates.now()
            if let serverName { response.headers[.server] = serverName }
            do {
                try await responseWriter.write(response: response.head, body: response.body)
            } catch is HTTPParserError {
                // The request broke after its answer began: close the connection rather than
                // answer twice.
                throw ResponseAlreadyStarted()
            }
        } onServerRunning: {
            await self.onServerRunning($0)
        }
        try await ServiceGroup(configuration: .init(services: [server], logger: logger)).run()
    }

    /// Thrown when a request's framing breaks while its response is written; the connection
    /// closes.
    struct ResponseAlreadyStarted: Error {}
}

/// `Date` header values (RFC 9110's IMF-fixdate), formatted once per second.
final class HTTPDates: Sendable {
    private let cache = Mutex<(second: Int, text: String)>((-1, ""))

    func now() -> String {
        let now = Date()
        let second = Int(now.timeIntervalSince1970.rounded(.down))
        return cache.withLock { cached in
            if cached.second != second { cached = (second, Self.format(now)) }
            return cached.text
        }
    }

    static func format(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: date)
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        return "\(weekdays[(parts.weekday ?? 1) - 1]), \(two(parts.day)) \(months[(parts.month ?? 1) - 1]) \(parts.year ?? 1970) "
            + "\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)) GMT"
    }
}
