import Hummingbird

/// Every endpoint's path template and methods. Routes are registered on the router through a
/// ``RouteRegistrar``, which fills this table, so the methods a path accepts (the `Allow` of a
/// 405) come from the same place as the routes themselves.
struct RouteTable: Sendable {
    /// One path template (`v1/names/:name/claim`) and the methods it answers.
    struct Entry: Sendable {
        /// The template's segments: a constant, or a parameter (`:name`) that matches any one segment.
        let segments: [Substring]
        /// The template as the router names it in metrics and logs (`/v1/names/{name}/claim`).
        let route: String
        var methods: Set<HTTPRequest.Method>

        /// The methods the path answers, sorted: `HEAD` wherever `GET` is (the router generates
        /// it), and `OPTIONS` (answered by ``MethodNotAllowedMiddleware``).
        var allowed: [HTTPRequest.Method] {
            var methods = methods
            if methods.contains(.get) { methods.insert(.head) }
            methods.insert(.options)
            return methods.sorted { $0.rawValue < $1.rawValue }
        }
    }

    private(set) var entries: [Entry] = []

    /// Records that `method` answers `path`.
    mutating func add(_ method: HTTPRequest.Method, _ path: String) {
        let segments = Self.segments(of: path)
        if let index = entries.firstIndex(where: { $0.segments == segments }) {
            entries[index].methods.insert(method)
        } else {
            entries.append(Entry(segments: segments, route: RouterPath(path).description, methods: [method]))
        }
    }

    /// The entry whose template the request path matches, or nil when no route has this path.
    ///
    /// The path is resolved as the router resolves it: segment by segment, a constant before a
    /// parameter (`/v1/names/rename` is the rename route's path, not a name's).
    func entry(forPath path: String) -> Entry? {
        let request = Self.segments(of: path)
        let matching = entries.filter { entry in
            entry.segments.count == request.count
                && zip(entry.segments, request).allSatisfy { template, segment in Self.isParameter(template) || template == segment }
        }
        // The most specific: compared segment by segment, a constant wins over a parameter.
        return matching.max { lhs, rhs in
            lhs.segments.map { !Self.isParameter($0) }.lexicographicallyPrecedes(rhs.segments.map { !Self.isParameter($0) }) { !$0 && $1 }
        }
    }

    /// A path's non-empty segments (the router ignores empty ones too).
    private static func segments(of path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }

    private static func isParameter(_ segment: Substring) -> Bool { segment.first == ":" }
}

/// Adds routes to a router and records each in a ``RouteTable``.
final class RouteRegistrar {
    let router: Router<ServiceRequestContext>
    private(set) var table = RouteTable()

    init(router: Router<ServiceRequestContext>) { self.router = router }

    /// Answers `method` on `path` with `handler`.
    func on(_ method: HTTPRequest.Method, _ path: String,
            use handler: @escaping @Sendable (Request, ServiceRequestContext) async throws -> Response) {
        router.on(RouterPath(path), method: method, use: handler)
        table.add(method, path)
    }
}

/// Answers a known path asked with a method it does not take: 405 `API1204` with `Allow`, and
/// `OPTIONS` with 204 and `Allow`. Unknown paths stay 404 `API1203`.
///
/// Added to the router after every route, so it wraps only the router's not-found answer (a
/// router's middleware applies to the routes added after it, and to the not-found answer).
struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
    let table: RouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            guard let entry = table.entry(forPath: request.uri.path) else { throw error }
            // Metrics and logs name the path's route, not "NotFound".
            context.coreContext.endpointPath.value = entry.route
            let allow = entry.allowed.map(\.rawValue).joined(separator: ", ")
            if request.method == .options {
                return Response(status: .noContent, headers: [.allow: allow])
            }
            throw ServiceError.methodNotAllowed(allow: allow)
        }
    }
}
