import Availability
import Hummingbird
import NIOCore

/// `GET /healthz` (alive), `GET /readyz` (the store answers), `GET /metrics` (Prometheus) and
/// `GET /openapi.yaml` (the API's contract).
struct OperationsRoutes: Sendable {
    let store: any ClaimStore
    let metrics: ServiceMetrics

    /// A valid name the readiness probe asks the store about (a read; nothing is written).
    static let probeName = "readiness.probe"

    /// `{"status": …}`.
    struct Status: Encodable {
        var status: String
    }

    func add(to routes: RouteRegistrar) {
        routes.on(.get, "healthz") { _, _ in try JSONResponse.make(Status(status: "alive")) }
        routes.on(.get, "readyz") { _, _ in
            _ = try await store.availability(of: Self.probeName)
            return try JSONResponse.make(Status(status: "ready"))
        }
        routes.on(.get, "metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
        }
        routes.on(.get, "openapi.yaml") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/yaml"],
                     body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.yaml)))
        }
    }
}
