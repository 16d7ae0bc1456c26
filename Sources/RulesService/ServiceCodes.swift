// ServiceCodes: the catalogue of the service's own error codes (`API…`). Every ServiceError names
// its code through this table; claims and stores answer with their `AV…` codes
// (AvailabilityCodes). Wording may change; a code never does, and a retired code is never reused.
// docs/SERVE.md ("Errors") lists the same codes with their HTTP statuses.
import Diagnostics

/// One code of the catalogue: the entry type every module's catalogue shares.
public typealias ServiceCode = DiagnosticCode

/// Every `API…` code of `validate serve`.
///
/// `API10xx`: a request that cannot be read (400). `API11xx`: who the caller is (401).
/// `API12xx`: what was asked for does not exist here (404, 405, 421). `API13xx`, `API14xx`: the
/// request's size and type (413, 415, 431). `API15xx`: rate and stream limits (429).
/// `API16xx`: time limits (503, 408). `API19xx`: the server's own failures.
public enum ServiceCodes {
    // MARK: - The request cannot be read (API10xx)

    /// 400: the body is not JSON.
    public static let malformedJSON = ServiceCode(
        id: "API1001", summary: "the request body is not valid JSON", help: "send a JSON body")
    /// 400: the body is JSON of the wrong shape.
    public static let invalidBody = ServiceCode(
        id: "API1002", summary: "a body member is missing or of the wrong type",
        help: "the message names the member; docs/openapi.yaml gives the shape")
    /// 400: a rules decision request is not a valid case object.
    public static let invalidCase = ServiceCode(
        id: "API1003", summary: "the request is not a valid case object",
        help: "send a case as a rules case file holds one (docs/RULES-TESTING.md)")
    /// 400: the body names a key twice in one object.
    public static let duplicateKey = ServiceCode(
        id: "API1004", summary: "the body names a key twice in one object",
        help: "send each key once: parsers disagree on which value wins")
    /// 400: the request is not valid HTTP/1.1 framing; the connection closes.
    public static let malformedHTTP = ServiceCode(
        id: "API1005", summary: "the request is not valid HTTP/1.1 framing",
        help: "fix the client's chunked encoding, `Content-Length` or request line; the connection is closed")
    /// 400: a breached-range prefix that is not five hex digits.
    public static let invalidRangePrefix = ServiceCode(
        id: "API1006", summary: "the range prefix is not five hexadecimal digits",
        help: "ask for the first five hex digits of the password's SHA-1")

    // MARK: - Who the caller is (API11xx)

    /// 401: no bearer token.
    public static let missingToken = ServiceCode(
        id: "API1101", summary: "the request has no `Authorization: Bearer` token",
        help: "send the user's ID token as a bearer token")
    /// 401: a token that does not prove who the caller is.
    public static let invalidToken = ServiceCode(
        id: "API1102", summary: "the bearer token does not prove who the caller is",
        help: "the message says why (an `AUTH…` or `AV1008` reason); get a fresh token")

    // MARK: - Nothing here by that name (API12xx)

    /// 404: no such field.
    public static let unknownField = ServiceCode(
        id: "API1201", summary: "there is no such field", help: "use email, password or display-name")
    /// 404: no such ruleset.
    public static let unknownRuleset = ServiceCode(
        id: "API1202", summary: "there is no such ruleset", help: "the message lists the loaded rulesets")
    /// 404: no such endpoint.
    public static let unknownEndpoint = ServiceCode(
        id: "API1203", summary: "there is no such endpoint", help: "see /openapi.yaml")
    /// 405: the endpoint does not take this method.
    public static let methodNotAllowed = ServiceCode(
        id: "API1204", summary: "the path does not take this method", help: "use a method the `Allow` header lists")
    /// 421: with `--dev-auth`, the request's `Host` is not a loopback name or address.
    public static let misdirected = ServiceCode(
        id: "API1205", summary: "the request's `Host` is not a loopback name or address (`--dev-auth`)",
        help: "ask through localhost, 127.0.0.1 or [::1]")
    /// 404: the service has no breached-password store.
    public static let noBreachedStore = ServiceCode(
        id: "API1206", summary: "the server has no breached-password store",
        help: "start `validate serve` with `--breached STORE`")

    // MARK: - Size and type (API13xx, API14xx)

    /// 413: the body is larger than its limit.
    public static let bodyTooLarge = ServiceCode(
        id: "API1301", summary: "the request body is over `--max-body-bytes`",
        help: "send a smaller body, or a streamed batch")
    /// 431: the header section is over its limit; the connection closes.
    public static let headersTooLarge = ServiceCode(
        id: "API1303", summary: "the request's headers are over their limit",
        help: "send fewer or shorter headers; the connection is closed")
    /// 415: the body's content type is not the one the endpoint reads.
    public static let unsupportedMediaType = ServiceCode(
        id: "API1401", summary: "the body's `Content-Type` is not the one the endpoint reads",
        help: "send `application/json` (batches: `application/x-ndjson`)")

    // MARK: - Rate and stream limits (API15xx)

    /// 429: lookups, claims, releases and renames over the rate limit.
    public static let rateLimited = ServiceCode(
        id: "API1501", summary: "the client's or user's name requests are over `--rate-limit`",
        help: "wait for `Retry-After` seconds")
    /// 429: every batch stream slot is taken.
    public static let tooManyStreams = ServiceCode(
        id: "API1502", summary: "every batch stream slot is taken (`--max-batch-streams`)",
        help: "wait for `Retry-After` seconds")

    // MARK: - Time limits (API16xx)

    /// 503: the request took longer than the request timeout.
    public static let timedOut = ServiceCode(
        id: "API1601", summary: "the request took longer than `--request-timeout`",
        help: "wait for `Retry-After` seconds, or send less work at once")
    /// 408: a streamed batch's body stalled before its first row.
    public static let bodyIdle = ServiceCode(
        id: "API1602", summary: "a streamed batch's body stalled before its first row (`--stream-idle-timeout`)",
        help: "send the body without pauses")
    /// 408: a streamed batch's body came slower than the minimum rate before its first row.
    public static let bodyTooSlow = ServiceCode(
        id: "API1603", summary: "a streamed batch's body came slower than `--stream-min-rate` before its first row",
        help: "send the body faster")

    // MARK: - The server's own failures (API19xx)

    /// 500: an internal failure (never details: they could hold request values).
    public static let internalFailure = ServiceCode(
        id: "API1901", summary: "the server failed to answer",
        help: "report it with the time of the request")
    /// Any other status an HTTP error of the framework carries, answered with that status.
    public static let otherHTTPError = ServiceCode(
        id: "API1902", summary: "the request cannot be answered (an HTTP error with another status)",
        help: "the status says what went wrong")

    /// Every code, in order.
    public static let all: [ServiceCode] = [
        malformedJSON, invalidBody, invalidCase, duplicateKey, malformedHTTP, invalidRangePrefix,
        missingToken, invalidToken,
        unknownField, unknownRuleset, unknownEndpoint, methodNotAllowed, misdirected, noBreachedStore,
        bodyTooLarge, headersTooLarge, unsupportedMediaType,
        rateLimited, tooManyStreams,
        timedOut, bodyIdle, bodyTooSlow,
        internalFailure, otherHTTPError,
    ]
}
