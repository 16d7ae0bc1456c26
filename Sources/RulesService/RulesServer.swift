import Availability
import FieldCheckers
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// Builds the service's Hummingbird application from a ``ServiceConfiguration`` and runs it.
public enum RulesServer {
    /// The router with every endpoint, behind the metrics, error and timeout middleware (and,
    /// with `--dev-auth`, the loopback `Host` check).
    ///
    /// - Throws: ``ServiceSetupError`` when a validator cannot be built or `--dev-auth` is not
    ///   bound to a loopback address.
    public static func router(_ configuration: ServiceConfiguration) throws(ServiceSetupError) -> Router<ServiceRequestContext> {
        if configuration.authenticator is DevAuthenticator, !DevAuthenticator.isLoopback(configuration.host) {
            throw ServiceSetupError(message: "--dev-auth is for tests and local development: bind to a loopback address (127.0.0.0/8 or ::1), not \(configuration.host)")
        }
        let fields: FieldRoutes
        do {
            fields = try FieldRoutes(appName: configuration.appName, limits: configuration.limits, timeoutClock: configuration.timeoutClock)
        } catch {
            throw ServiceSetupError(message: error.description)
        }
        let metrics = ServiceMetrics()
        // HEAD is answered wherever GET is, without a body.
        let router = Router(context: ServiceRequestContext.self, options: .autoGenerateHeadEndpoints)
        // Middleware first (outermost first): routes added later are wrapped by all of it.
        router.add(middleware: MetricsMiddleware(metrics: metrics))
        router.add(middleware: RequestLogMiddleware())
        router.add(middleware: ErrorMiddleware())
        if configuration.authenticator is DevAuthenticator { router.add(middleware: LoopbackHostMiddleware()) }
        router.add(middleware: TimeoutMiddleware(timeout: configuration.limits.requestTimeout, clock: configuration.timeoutClock))
        let routes = RouteRegistrar(router: router)
        OperationsRoutes(store: configuration.store, metrics: metrics).add(to: routes)
        fields.add(to: routes)
        let limiter = configuration.lookupsPerSecond.map { RateLimiter(rate: $0, clock: configuration.clock) }
        NameRoutes(store: configuration.store, authentication: RequestAuthentication(authenticator: configuration.authenticator),
                   limiter: limiter, clients: ClientIdentity(trustedProxies: configuration.trustedProxies),
                   maxBodyBytes: configuration.limits.maxBodyBytes).add(to: routes)
        RulesRoutes(ruleSets: configuration.ruleSets, maxBodyBytes: configuration.limits.maxBodyBytes).add(to: routes)
        // Last: it wraps only the not-found answer, which it turns into 405 for a known path.
        router.add(middleware: MethodNotAllowedMiddleware(table: routes.table))
        return router
    }

    /// The application, bound to the configuration's host and port.
    ///
    /// - Parameter onListening: Called once the server listens, with the port it listens on
    ///   (the system's choice when the configured port is 0).
    public static func application(_ configuration: ServiceConfiguration, logger: Logger,
                                   onListening: @escaping @Sendable (_ port: Int) async -> Void = { _ in })
        throws(ServiceSetupError) -> some ApplicationProtocol {
        ServiceApplication(
            responder: try router(configuration).buildResponder(),
            server: .guarded(limits: configuration.limits, logger: logger),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "ruleskit"),
            logger: logger,
            onListening: { channel in await onListening(channel.localAddress?.port ?? configuration.port) })
    }

    /// Serves until SIGTERM or SIGINT: then stops accepting, lets requests in flight finish,
    /// and returns; the caller closes the store.
    public static func run(_ configuration: ServiceConfiguration, logger: Logger,
                           onListening: @escaping @Sendable (_ port: Int) async -> Void) async throws {
        let app = try application(configuration, logger: logger, onListening: onListening)
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}

/// Why the service cannot start.
public struct ServiceSetupError: Error, Sendable, CustomStringConvertible {
    /// What is wrong and what to do.
    public var message: String

    /// Creates an error.
    public init(message: String) { self.message = message }

    public var description: String { message }
}
