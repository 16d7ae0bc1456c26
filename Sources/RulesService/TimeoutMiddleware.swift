import Hummingbird

/// Answers 503 (`API1601`) when a route has not produced its response within the request
/// timeout; the route's work is cancelled. A streamed response counts as produced once its
/// head is ready.
struct TimeoutMiddleware<Context: RequestContext>: RouterMiddleware {
    let timeout: Duration
    let clock: any Clock<Duration>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await withoutActuallyEscaping(next) { next in
            // INVARIANT: the task group awaits both children before returning, so `next` does not
            // outlive this call.
            nonisolated(unsafe) let next = next
            let (timeout, clock) = (timeout, clock)
            return try await withThrowingTaskGroup(of: Response?.self) { group in
                group.addTask { try await next(request, context) }
                group.addTask {
                    try await clock.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let response = first else {
                    throw ServiceError.timedOut(after: timeout)
                }
                return response
            }
        }
    }
}
