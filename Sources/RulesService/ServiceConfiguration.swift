// RulesService: the HTTP/JSON service behind `validate serve`: validation, availability, claims
// and rules decisions over HTTP, for clients that cannot embed RulesKit.
//
// Owns: routes (one file per area), error mapping to `{"error": {"code", "message"}}`, request
// limits, the per-client rate limiter, metrics, the authentication seam and the application
// built from a ``ServiceConfiguration``.
// Does not own: validation (FieldValidation through FieldCheckers), batch rows
// (BatchValidation), claims (Availability and its stores), rules evaluation (RulesLanguage,
// DatabaseRules, RulesCases' case decoding) or token cryptography (an ``Authenticator``).
import Availability
import BreachedPasswords

/// Everything the service is built from; the CLI fills it from `validate serve`'s flags.
public struct ServiceConfiguration: Sendable {
    /// The host to bind (`127.0.0.1` by default: loopback only).
    public var host: String
    /// The port to bind; 0 lets the system choose.
    public var port: Int
    /// Where display-name claims live (already opened).
    public var store: any ClaimStore
    /// The loaded rules, by ruleset name (the rules file's stem).
    public var ruleSets: RuleSets
    /// The app's name, reserved as a display name and part of every password's context.
    public var appName: String?
    /// Who the bearer of a token is; nil refuses every authenticated request with 401.
    public var authenticator: (any Authenticator)?
    /// Body, line, stream and time limits.
    public var limits: ServiceLimits
    /// Name lookups, claims, releases and renames allowed per second (token bucket), per client
    /// and, for claims, releases and renames, per user too; nil for no limit.
    public var lookupsPerSecond: Double?
    /// The peers whose `Forwarded` / `X-Forwarded-For` headers say who the client is
    /// (`--trusted-proxy`); empty: the peer is the client.
    public var trustedProxies: [IPNetwork]
    /// `--breached STORE`: answers `GET /v1/breached/range/{prefix}` and switches
    /// `password.breached` (PW109) on for passwords; nil: neither.
    public var breached: BreachedStore?
    /// The clock the rate limiter reads (tests pass a manual one).
    public var clock: any RateLimitClock
    /// The clock the request timeout and a streamed batch's idle timeout run on (tests pass a test clock).
    public var timeoutClock: any Clock<Duration>

    /// Creates a configuration.
    public init(host: String = "127.0.0.1", port: Int = 8080, store: any ClaimStore, ruleSets: RuleSets = RuleSets(),
                appName: String? = nil, authenticator: (any Authenticator)? = nil, limits: ServiceLimits = ServiceLimits(),
                lookupsPerSecond: Double? = 20, trustedProxies: [IPNetwork] = [], breached: BreachedStore? = nil,
                clock: any RateLimitClock = SystemRateLimitClock(), timeoutClock: any Clock<Duration> = ContinuousClock()) {
        self.host = host
        self.port = port
        self.store = store
        self.ruleSets = ruleSets
        self.appName = appName
        self.authenticator = authenticator
        self.limits = limits
        self.lookupsPerSecond = lookupsPerSecond
        self.trustedProxies = trustedProxies
        self.breached = breached
        self.clock = clock
        self.timeoutClock = timeoutClock
    }
}
