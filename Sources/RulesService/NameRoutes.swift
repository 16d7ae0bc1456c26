import Availability
import Hummingbird

/// `/v1/names/…`: availability (rate-limited per client) and claims, releases and renames for
/// the authenticated user.
struct NameRoutes: Sendable {
    let store: any ClaimStore
    let authentication: RequestAuthentication
    let limiter: RateLimiter?
    let maxBodyBytes: Int

    func add(to routes: RouteRegistrar) {
        routes.on(.get, "v1/names/:name") { request, context in try await availability(request, context) }
        routes.on(.post, "v1/names/:name/claim") { request, context in try await claim(request, context) }
        routes.on(.delete, "v1/names/:name/claim") { request, context in try await release(request, context) }
        routes.on(.post, "v1/names/rename") { request, context in try await rename(request, context) }
    }

    /// `{"code", "message"}`.
    struct Problem: Encodable {
        var code: String
        var message: String
    }

    /// `{"name", "key", "available", "errors"}`.
    struct AvailabilityResponse: Encodable {
        var name: String
        var key: String
        var available: Bool
        var errors: [Problem]
    }

    /// `{"name", "key", "claimed", "owner"}`; `owner` is null after a release.
    struct ClaimResponse: Encodable {
        var name: String
        var key: String
        var claimed: Bool
        var owner: String?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(key, forKey: .key)
            try container.encode(claimed, forKey: .claimed)
            try container.encode(owner, forKey: .owner)
        }

        private enum CodingKeys: String, CodingKey { case name, key, claimed, owner }
    }

    private func name(_ context: ServiceRequestContext) -> String {
        context.parameters.decoded("name")
    }

    private func availability(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        if let limiter, let retryAfter = limiter.take(for: context.clientAddress ?? "unknown") {
            throw ServiceError.rateLimited(retryAfter: retryAfter)
        }
        let name = name(context)
        // An invalid name gets its rule violations; the store is never asked about it.
        let evaluation = store.policy.evaluate(name)
        if !evaluation.violations.isEmpty {
            return try JSONResponse.make(AvailabilityResponse(
                name: name, key: evaluation.key, available: false,
                errors: evaluation.violations.map { Problem(code: $0.code, message: $0.message) }))
        }
        let answer = try await store.availability(of: name)
        return try JSONResponse.make(AvailabilityResponse(
            name: answer.name, key: answer.key, available: answer.isAvailable,
            errors: answer.problems.map { Problem(code: $0.code, message: $0.message) }))
    }

    private func claim(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let user = try await authentication.user(of: request)
        return try respond(try await store.claim(name(context), by: user))
    }

    private func release(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let user = try await authentication.user(of: request)
        return try respond(try await store.release(name(context), by: user))
    }

    /// `{"from", "to"}`; unknown members are ignored.
    struct RenameRequest: Decodable {
        var from: String
        var to: String
    }

    private func rename(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let user = try await authentication.user(of: request)
        let body = try await RequestBodyReader.decode(RenameRequest.self, from: request, limit: maxBodyBytes)
        return try respond(try await store.rename(from: body.from, to: body.to, by: user))
    }

    /// 200 with the outcome, or the refusal's error.
    private func respond(_ outcome: ClaimOutcome) throws -> Response {
        if !outcome.problems.isEmpty { throw ServiceError.refused(outcome.problems) }
        return try JSONResponse.make(ClaimResponse(name: outcome.name, key: outcome.key, claimed: outcome.claimed,
                                                   owner: outcome.claimed ? outcome.owner : nil))
    }
}
