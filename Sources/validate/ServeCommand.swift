// `validate serve`: the HTTP/JSON service (RulesService) on a claims store and rules files.
// Exit status: 0 after a graceful shutdown (SIGTERM, SIGINT), 2 when the store, the rules or
// the rule packs cannot be used or the address cannot be bound, 64 usage error.
import ArgumentParser
import Availability
import BreachedPasswords
import ClaimStoreLocations
import Foundation
import Logging
import RulesService

/// `validate serve`.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve validation, availability, claims and rules decisions over HTTP/JSON.",
        discussion: """
            Prints `listening on http://HOST:PORT` once ready. SIGTERM or SIGINT stops accepting, \
            lets requests in flight finish, closes the store and exits 0. Exit status: 2 when the \
            store, the rules or the address cannot be used, 64 usage error. The API is \
            docs/openapi.yaml (also served at /openapi.yaml); see docs/SERVE.md.
            """)

    @Option(help: "The address to bind (loopback by default).")
    var host = "127.0.0.1"

    @Option(help: "The port to bind; 0 lets the system choose (the ready line gives it).")
    var port = 8080

    @Option(help: ArgumentHelp("sqlite:PATH or postgres://USER:PASSWORD@HOST:PORT/DATABASE[?sslmode=…&schema=…].", valueName: "STORE"))
    var store = "sqlite:./names.sqlite"

    @Option(parsing: .upToNextOption, help: ArgumentHelp("Rules files to decide with; each is the ruleset named by its stem.", valueName: "FILE"))
    var rules: [String] = []

    @Option(name: .customLong("rules-dir"), help: ArgumentHelp("Load every *.rules and *.rules.json file in this directory.", valueName: "DIR"))
    var rulesDirectory: String?

    @Option(name: .customLong("app-name"), help: "The app's name: reserved as a display name and part of every password's context.")
    var appName: String?

    @Option(help: ArgumentHelp("Verify Firebase ID tokens with the keys in this JWKS file (needs --project-id).", valueName: "FILE"))
    var jwks: String?

    @Option(name: .customLong("project-id"), help: ArgumentHelp("The Firebase project the ID tokens must be for.", valueName: "ID"))
    var projectID: String?

    @Flag(name: .customLong("dev-auth"),
          help: "Accept `Authorization: Bearer dev:<uid>` (bound to 127.0.0.0/8 or ::1 only, and only for requests to a loopback Host; for tests and development).")
    var devAuth = false

    @Option(name: .customLong("rate-limit"),
            help: ArgumentHelp("Name lookups, claims, releases and renames per client (and per user) and second (token bucket).",
                               valueName: "PER_SECOND"))
    var rateLimit: Double = 20

    @Option(name: .customLong("trusted-proxy"), parsing: .upToNextOption,
            help: ArgumentHelp("A proxy network (CIDR, repeatable) whose Forwarded / X-Forwarded-For headers name the client.",
                               valueName: "CIDR"))
    var trustedProxies: [String] = []

    @Option(name: .customLong("max-body-bytes"), help: "Largest JSON request body, in bytes.")
    var maxBodyBytes = ServiceLimits().maxBodyBytes

    @Option(name: .customLong("max-line-bytes"), help: "Longest line of a streamed batch, in bytes (longer: input.too-long).")
    var maxLineBytes = ServiceLimits().maxLineBytes

    @Option(name: .customLong("max-batch-streams"), help: "Batch streams served at once (one more gets 429).")
    var maxBatchStreams = ServiceLimits().maxBatchStreams

    @Option(name: .customLong("request-timeout"), help: ArgumentHelp("Seconds a request may take before 503.", valueName: "SECONDS"))
    var requestTimeout = 30

    @Option(name: .customLong("stream-idle-timeout"),
            help: ArgumentHelp("Seconds a streamed batch waits for more of its body before it ends (input.idle-timeout).",
                               valueName: "SECONDS"))
    var streamIdleTimeout = 30

    @Option(name: .customLong("stream-min-rate"),
            help: ArgumentHelp("The slowest a streamed batch's body may arrive, after --stream-idle-timeout of grace; slower ends it.",
                               valueName: "BYTES_PER_SECOND"))
    var streamMinimumRate = ServiceLimits().streamMinimumBytesPerSecond

    @Option(name: .customLong("header-read-timeout"),
            help: ArgumentHelp("Seconds a request head may take once its first bytes arrived; then the connection is closed.",
                               valueName: "SECONDS"))
    var headerReadTimeout = 10

    @Option(name: .customLong("connection-idle-timeout"),
            help: ArgumentHelp("Seconds a connection may wait without any bytes of a next request; then it is closed.", valueName: "SECONDS"))
    var connectionIdleTimeout = 60

    @Option(help: ArgumentHelp("An exact breached-password store (`validate breached import`): serves GET /v1/breached/range/{prefix} and rejects its passwords (PW109).",
                               valueName: "STORE"))
    var breached: String?

    @Option(name: .customLong("connect-timeout"), help: ArgumentHelp("PostgreSQL: seconds to wait for the first connection.", valueName: "SECONDS"))
    var connectTimeout = 10

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535, not \(port)") }
        switch (jwks, projectID, devAuth) {
        case (.some, .some, false), (nil, nil, _): break
        case (.some, .some, true): throw ValidationError("--jwks and --dev-auth cannot be combined")
        default: throw ValidationError("--jwks FILE and --project-id ID go together")
        }
        if devAuth, !DevAuthenticator.isLoopback(host) {
            throw ValidationError("--dev-auth is for tests and local development: bind to a loopback address (127.0.0.0/8 or ::1), not `\(host)`")
        }
        guard rateLimit > 0 else { throw ValidationError("--rate-limit must be more than 0, not \(rateLimit)") }
        for (flag, value) in [("--max-body-bytes", maxBodyBytes), ("--max-line-bytes", maxLineBytes),
                              ("--max-batch-streams", maxBatchStreams), ("--request-timeout", requestTimeout),
                              ("--stream-idle-timeout", streamIdleTimeout), ("--header-read-timeout", headerReadTimeout),
                              ("--connection-idle-timeout", connectionIdleTimeout), ("--connect-timeout", connectTimeout)] where value < 1 {
            throw ValidationError("\(flag) must be at least 1, not \(value)")
        }
        guard streamMinimumRate >= 0 else { throw ValidationError("--stream-min-rate must be 0 (no minimum) or more, not \(streamMinimumRate)") }
        _ = try Self.networks(trustedProxies)
    }

    /// The `--trusted-proxy` networks.
    ///
    /// - Throws: `ValidationError` naming the first value that is not `ADDRESS[/BITS]`.
    static func networks(_ values: [String]) throws -> [IPNetwork] {
        try values.map { value in
            guard let network = IPNetwork(cidr: value) else {
                throw ValidationError("--trusted-proxy `\(value)` is not an address or a network in CIDR notation (10.0.0.0/8, 2001:db8::/32)")
            }
            return network
        }
    }

    func run() throws {
        // Logs go to stderr: stdout carries only the ready line.
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        let logger = Logger(label: "ruleskit.serve")
        let ruleSets: RuleSets
        do {
            ruleSets = try RuleSets.load(files: rules, directory: rulesDirectory)
        } catch {
            printError("validate: error: \(error)")
            throw ExitCode(2)
        }
        let breachedStore: BreachedStore?
        do throws(BreachedStoreError) {
            breachedStore = try breached.map { path throws(BreachedStoreError) in
                let opened = try BreachedStore(path: path)
                guard opened.isExact else { throw .notExact }
                return opened
            }
        } catch {
            printError("validate: error: \(error)")
            throw ExitCode(2)
        }
        let (spec, host) = (store, host)
        let limits = ServiceLimits(maxBodyBytes: maxBodyBytes, maxLineBytes: maxLineBytes, maxBatchStreams: maxBatchStreams,
                                   requestTimeout: .seconds(requestTimeout), streamIdleTimeout: .seconds(streamIdleTimeout),
                                   streamMinimumBytesPerSecond: streamMinimumRate, headerReadTimeout: .seconds(headerReadTimeout),
                                   connectionIdleTimeout: .seconds(connectionIdleTimeout))
        let proxies = try Self.networks(trustedProxies)
        let (port, appName, rate, connectTimeout) = (port, appName, rateLimit, Duration.seconds(connectTimeout))
        let (devAuth, jwks, projectID) = (devAuth, jwks, projectID)
        let status = waitFor {
            let authenticator: (any Authenticator)?
            do {
                authenticator = try await Self.authenticator(devAuth: devAuth, jwks: jwks, projectID: projectID)
            } catch {
                printError("validate: error: \(error)")
                return 2
            }
            let opened: any ClaimStore
            do throws(ClaimStoreError) {
                opened = try await ClaimStoreLocation.open(spec, connectTimeout: connectTimeout)
            } catch {
                printError("validate: \(error)\nhelp: \(error.help)")
                return error.kind == .badLocation ? 64 : 2
            }
            defer { ClaimStoreLocation.close(opened) }
            let configuration = ServiceConfiguration(host: host, port: port, store: opened, ruleSets: ruleSets, appName: appName,
                                                     authenticator: authenticator, limits: limits, lookupsPerSecond: rate,
                                                     trustedProxies: proxies, breached: breachedStore)
            do {
                try await RulesServer.run(configuration, logger: logger) { port in
                    let display = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
                    FileHandle.standardOutput.write(Data("listening on http://\(display):\(port)\n".utf8))
                }
                return 0
            } catch {
                printError("validate: error: \(error)")
                return 2
            }
        }
        if status != 0 { throw ExitCode(status) }
    }

    /// `--dev-auth`, `--jwks FILE --project-id ID` (the key set is read and checked now), or none.
    private static func authenticator(devAuth: Bool, jwks: String?, projectID: String?) async throws -> (any Authenticator)? {
        if devAuth { return DevAuthenticator() }
        guard let jwks, let projectID else { return nil }
        return try await FirebaseAuthenticator(jwksFile: jwks, projectID: projectID)
    }
}
