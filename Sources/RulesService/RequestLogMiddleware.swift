import Hummingbird
import Logging

/// Logs one line per answered request: method, path, route template and status. Never a body
/// or a header (bodies hold passwords, headers tokens).
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        context.logger.info("request", metadata: [
            "method": "\(request.method.rawValue)",
            "path": "\(request.uri.path)",
            "route": "\(context.endpointPath ?? "unmatched")",
            "status": "\(response.status.code)",
        ])
        return response
    }
}
