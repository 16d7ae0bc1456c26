import Hummingbird
import Metrics
import Prometheus

/// The service's metrics: swift-metrics instruments recorded into a Prometheus registry of
/// the service's own (not the process-wide metrics system, so several services in one process,
/// as in tests, keep separate counts), exported at `GET /metrics`.
final class ServiceMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory

    init() {
        factory = PrometheusMetricsFactory(registry: registry)
    }

    /// Counts one answered request and records how long it took.
    func record(method: String, route: String, status: Int, duration: Duration) {
        let dimensions = [("method", method), ("route", route), ("status", String(status))]
        Counter(label: "http_requests_total", dimensions: dimensions, factory: factory).increment()
        let nanoseconds = duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
        Metrics.Timer(label: "http_request_duration_seconds", dimensions: [("route", route)], factory: factory)
            .recordNanoseconds(nanoseconds)
    }

    /// The Prometheus text exposition of every metric.
    func exposition() -> [UInt8] {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }
}

/// Records every request's route template (not its path: names would make a series each),
/// status and duration.
struct MetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServiceMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        metrics.record(method: request.method.rawValue, route: context.endpointPath ?? "unmatched",
                       status: response.status.code, duration: ContinuousClock.now - start)
        return response
    }
}
