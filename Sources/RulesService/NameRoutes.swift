import Availability
import Hummingbird

/// `/v1/names/…`: availability and claims, releases and renames for the authenticated user.
///
/// All four share one rate limit: every request takes a token from its client's bucket (the
/// client as ``ClientIdentity`` finds it; IPv6 per /64), and a claim, release or rename takes one
/// from its user's bucket too. So claims, whose refusals say whether a name is held, cannot
/// enumerate names faster than lookups can.
struct NameRoutes: Sendable {
    let store: any ClaimStore
    let authentication: RequestAuthentication
    let limiter: RateLimiter?
    let clients: ClientIdentity
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

    /// Takes a token from the client's bucket.
    ///
    /// - Throws: 429 `API1501` when the bucket is empty.
    private func limitClient(_ request: Request, _ context: ServiceRequestContext) throws(ServiceError) {
        if let limiter, let retryAfter = limiter.take(for: clients.bucket(of: request, peer: context.clientAddress)) {
            throw .rateLimited(retryAfter: retryAfter)
        }
    }

    /// The authenticated user, after a token from the client's bucket and one from the user's.
    ///
    /// - Throws: 429 `API1501` when either bucket is empty; 401 when the request names no user.
    private func limitedUser(_ request: Request, _ context: ServiceRequestContext) async throws(ServiceError) -> String {
        try limitClient(request, context)
        let user = try await authentication.user(of: request)
        if let limiter, let retryAfter = limiter.take(for: "user " + user) {
            throw .rateLimited(retryAfter: retryAfter)
        }
        return user
    }

    private func availability(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        try limitClient(request, context)
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
        let user = try await limitedUser(request, context)
        return try respond(try await store.claim(name(context), by: user))
    }

    private func release(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let user = try await limitedUser(request, context)
        return try respond(try await store.release(name(context), by: user))
    }

    /// `{"from", "to"}`; unknown members are ignored.
    struct RenameRequest: Decodable {
        var from: String
        var to: String
    }

    private func rename(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let user = try await limitedUser(request, context)
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
