import Availability
import Foundation
import Hummingbird
import RulesKitHummingbird

/// A request the service answers with an error: a status, a stable code and a sentence, sent
/// as `{"error": {"code", "message"}}`, or as an RFC 9457 problem that also carries that member
/// when the request's `Accept` lists `application/problem+json` (see ``problem``). Messages never
/// quote a request's values.
public struct ServiceError: Error, Sendable, HTTPResponseError {
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// Stable code (`API…` for the service's own, `AV…` for claims and stores).
    public var code: String
    /// One sentence for the client's developer.
    public var message: String
    /// Seconds after which a retry can succeed (429, 503): sent as `Retry-After`.
    public var retryAfter: Int?
    /// The methods the path accepts (405): sent as `Allow`.
    public var allow: String?
    /// True when the connection is closed after the answer (`Connection: close`): the request's
    /// framing is broken, so nothing after it can be read.
    public var closesConnection: Bool

    /// Creates an error.
    public init(_ status: HTTPResponse.Status, code: String, message: String, retryAfter: Int? = nil, allow: String? = nil,
                closesConnection: Bool = false) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
        self.allow = allow
        self.closesConnection = closesConnection
    }

    /// The answer: ``problem`` as `application/problem+json` when the request's `Accept` lists
    /// that type, else ``body`` as `application/json`.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let asProblem = ProblemMediaType.isAccepted(by: request.headers[.accept])
        return Response(status: status, headers: headers(problem: asProblem),
                        body: .init(byteBuffer: ByteBuffer(bytes: asProblem ? problem : body)))
    }

    /// `Content-Type` (`application/problem+json` when `problem`), and `Retry-After`, `Allow`,
    /// `Connection: close` when they apply.
    func headers(problem: Bool = false) -> HTTPFields {
        var headers: HTTPFields = [.contentType: problem ? ProblemMediaType.name : "application/json"]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        if let allow { headers[.allow] = allow }
        if closesConnection { headers[.connection] = "close" }
        return headers
    }

    /// `{"error": {"code": …, "message": …}}`.
    var body: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // INVARIANT: a dictionary of strings always encodes.
        return (try? encoder.encode(["error": ["code": code, "message": message]])).map(Array.init) ?? []
    }

    /// The error as an RFC 9457 problem, written by RulesKitHummingbird's ``ProblemDetails`` as
    /// every problem RulesKit answers: `{"type": "urn:ruleskit:problem:CODE", "title", "status",
    /// "detail", "code"}` (`title` the code's summary, `detail` the message), with ``body``'s
    /// `error` member as well, so a client reads the code the same way in both.
    var problem: [UInt8] {
        struct Members: Encodable, Sendable {
            var code: String
            var error: [String: String]
        }
        return ProblemDetails(type: "urn:ruleskit:problem:\(code)", title: title, status: Int(status.code), detail: message,
                              extensions: Members(code: code, error: ["code": code, "message": message])).json
    }

    /// The code's summary from its catalogue, as a sentence; the status's reason phrase for a
    /// code no catalogue lists.
    var title: String {
        let summary = ServiceCodes.all.first { $0.id == code }?.summary ?? AvailabilityCodes.all.first { $0.id == code }?.summary
        guard let summary, let first = summary.first else { return status.reasonPhrase }
        return first.uppercased() + summary.dropFirst() + "."
    }
}

// MARK: - The service's codes

extension ServiceError {
    /// 400 `API1001`: the body is not JSON.
    static func malformedJSON() -> ServiceError {
        ServiceError(.badRequest, code: ServiceCodes.malformedJSON.id, message: "The request body is not valid JSON.")
    }

    /// 400 `API1002`: the body is JSON of the wrong shape; `detail` names the member, never its value.
    static func invalidBody(_ detail: String) -> ServiceError {
        ServiceError(.badRequest, code: ServiceCodes.invalidBody.id, message: "The request body does not have the expected shape: \(detail).")
    }

    /// 400 `API1003`: a rules decision request is not a valid case object.
    static func invalidCase(_ detail: String) -> ServiceError {
        ServiceError(.badRequest, code: ServiceCodes.invalidCase.id, message: "The request is not a valid case object: \(detail).")
    }

    /// 400 `API1004`: the body names a key twice in one object; `detail` names the key.
    static func duplicateKey(_ detail: String) -> ServiceError {
        ServiceError(.badRequest, code: ServiceCodes.duplicateKey.id, message: "The request body repeats a key: \(detail).")
    }

    /// 400 `API1006`: a range prefix that is not five hex digits (never quoted).
    static func invalidRangePrefix() -> ServiceError {
        ServiceError(.badRequest, code: ServiceCodes.invalidRangePrefix.id,
                     message: "The range prefix must be the first five hexadecimal digits (0-9, A-F, either case) of a SHA-1 hash.")
    }

    /// 404 `API1206`: the service has no breached-password store.
    static func noBreachedStore() -> ServiceError {
        ServiceError(.notFound, code: ServiceCodes.noBreachedStore.id,
                     message: "This server has no breached-password store; start it with --breached STORE.")
    }

    /// 401 `API1101`: no bearer token.
    static func missingToken() -> ServiceError {
        ServiceError(.unauthorized, code: ServiceCodes.missingToken.id, message: "This request needs an `Authorization: Bearer` token.")
    }

    /// 401 `API1102`: a token that does not prove who the caller is.
    static func invalidToken(_ reason: String) -> ServiceError {
        ServiceError(.unauthorized, code: ServiceCodes.invalidToken.id, message: "The bearer token is not valid: \(reason).")
    }

    /// 404 `API1201`: no such field.
    static func unknownField(_ field: String) -> ServiceError {
        ServiceError(.notFound, code: ServiceCodes.unknownField.id, message: "There is no field `\(field)`; use email, password or display-name.")
    }

    /// 404 `API1202`: no such ruleset.
    static func unknownRuleset(_ name: String, known: [String]) -> ServiceError {
        let list = known.isEmpty ? "none is loaded" : "loaded: " + known.joined(separator: ", ")
        return ServiceError(.notFound, code: ServiceCodes.unknownRuleset.id, message: "There is no ruleset `\(name)` (\(list)).")
    }

    /// 404 `API1203`: no such endpoint.
    static func unknownEndpoint() -> ServiceError {
        ServiceError(.notFound, code: ServiceCodes.unknownEndpoint.id, message: "There is no such endpoint; see /openapi.yaml.")
    }

    /// 405 `API1204`: the endpoint exists, not with this method; `allow` lists the methods it
    /// takes (`GET, HEAD, OPTIONS`), nil when unknown.
    static func methodNotAllowed(allow: String?) -> ServiceError {
        let methods = allow.map { " (it takes \($0))" } ?? ""
        return ServiceError(.methodNotAllowed, code: ServiceCodes.methodNotAllowed.id,
                            message: "The endpoint does not accept this method\(methods); see /openapi.yaml.", allow: allow)
    }

    /// 421 `API1205`: with `--dev-auth`, the request's `Host` is not a loopback name or address.
    static func misdirected() -> ServiceError {
        ServiceError(.misdirectedRequest, code: ServiceCodes.misdirected.id,
                     message: "This server runs with --dev-auth and answers only requests to a loopback host (localhost, 127.0.0.1, [::1]).")
    }

    /// 400 `API1005`: the request is not valid HTTP/1.1 framing (a malformed chunked body, an
    /// unsupported `Transfer-Encoding`, a bad `Content-Length`); `reason` says what, as a clause.
    /// The connection is closed after the answer: nothing after the error can be trusted.
    static func malformedHTTP(_ reason: String) -> ServiceError {
        ServiceError(.badRequest, code: ServiceCodes.malformedHTTP.id, message: "The request is not valid HTTP/1.1: \(reason).", closesConnection: true)
    }

    /// 431 `API1303`: the request's header section is over its limit; the connection is closed.
    static func headersTooLarge(limit: Int) -> ServiceError {
        ServiceError(.requestHeaderFieldsTooLarge, code: ServiceCodes.headersTooLarge.id,
                     message: "The request's headers are larger than the limit of \(limit) bytes.", closesConnection: true)
    }

    /// 408 `API1603`: a streamed batch's body arrived slower than `--stream-min-rate` before its
    /// first row.
    static func bodyTooSlow(bytes: Int, seconds: Int, minimum: Int) -> ServiceError {
        ServiceError(.requestTimeout, code: ServiceCodes.bodyTooSlow.id,
                     message: "The request body arrived too slowly: \(bytes) bytes in \(seconds) seconds, where at least \(minimum) bytes per second are needed.")
    }

    /// 408 `API1602`: a streamed batch's body stalled before its first row.
    static func bodyIdle(after limit: Duration) -> ServiceError {
        let seconds = limit.components.seconds
        return ServiceError(.requestTimeout, code: ServiceCodes.bodyIdle.id,
                            message: "No more of the request body arrived for \(seconds) second\(seconds == 1 ? "" : "s").")
    }

    /// 413 `API1301`: the body is larger than its limit.
    static func bodyTooLarge(limit: Int?) -> ServiceError {
        let limit = limit.map { " of \($0) bytes" } ?? ""
        return ServiceError(.contentTooLarge, code: ServiceCodes.bodyTooLarge.id, message: "The request body is larger than the limit\(limit).")
    }

    /// 415 `API1401`: the body's content type is not the one the endpoint reads.
    static func unsupportedMediaType(expected: String) -> ServiceError {
        ServiceError(.unsupportedMediaType, code: ServiceCodes.unsupportedMediaType.id, message: "The request body must be sent as `Content-Type: \(expected)`.")
    }

    /// 429 `API1501`: the client's (or user's) lookups, claims, releases and renames are over
    /// the rate limit they share.
    static func rateLimited(retryAfter: Int) -> ServiceError {
        ServiceError(.tooManyRequests, code: ServiceCodes.rateLimited.id,
                     message: "Too many name lookups and claims; try again in \(retryAfter) second\(retryAfter == 1 ? "" : "s").",
                     retryAfter: retryAfter)
    }

    /// 429 `API1502`: every batch stream slot is taken.
    static func tooManyStreams(limit: Int) -> ServiceError {
        ServiceError(.tooManyRequests, code: ServiceCodes.tooManyStreams.id,
                     message: "The server already streams \(limit) batch\(limit == 1 ? "" : "es"); try again in a moment.", retryAfter: 1)
    }

    /// 503 `API1601`: the request took longer than the request timeout.
    static func timedOut(after limit: Duration) -> ServiceError {
        ServiceError(.serviceUnavailable, code: ServiceCodes.timedOut.id, message: "The request took longer than \(limit.components.seconds) seconds.",
                     retryAfter: 1)
    }

    /// 500 `API1901`: an internal failure (never details: they could hold request values).
    static func internalFailure() -> ServiceError {
        ServiceError(.internalServerError, code: ServiceCodes.internalFailure.id, message: "The server failed to answer; please report it with the time of the request.")
    }

    /// 503 with the store's code: the store could not answer.
    static func storeDown(_ error: ClaimStoreError) -> ServiceError {
        ServiceError(.serviceUnavailable, code: error.code, message: "The claims store cannot answer: \(error.help)", retryAfter: 1)
    }

    /// The status and error for a refused claim, release or rename: the first problem's code,
    /// every problem's message (an invalid name's `AV1001` is followed by its rule violations).
    static func refused(_ problems: [ClaimProblem]) -> ServiceError {
        let code = problems.first?.code ?? AvailabilityCodes.taken.id
        let status: HTTPResponse.Status = switch code {
        case AvailabilityCodes.invalidUser.id: .unauthorized
        case AvailabilityCodes.invalidName.id, AvailabilityCodes.reservedName.id: .unprocessableContent
        case AvailabilityCodes.notOwner.id, AvailabilityCodes.rulesDeny.id: .forbidden
        default: .conflict
        }
        return ServiceError(status, code: code, message: problems.map(\.message).joined(separator: " "))
    }
}
