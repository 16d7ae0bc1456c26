// swift-tools-version: 6.1
// RulesKit: one source of truth for sign-up input validation and Firebase-style data-access rules.
import PackageDescription

let package = Package(
    name: "RulesKit",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "RulesKit", targets: ["RulesKit"]),
        .library(name: "Patterns", targets: ["Patterns"]),
        .library(name: "FieldValidation", targets: ["FieldValidation"]),
        .library(name: "BreachedPasswords", targets: ["BreachedPasswords"]),
        .library(name: "PasswordStrength", targets: ["PasswordStrength"]),
        .library(name: "RulesLanguage", targets: ["RulesLanguage"]),
        .library(name: "Availability", targets: ["Availability"]),
        .library(name: "SQLiteClaims", targets: ["SQLiteClaims"]),
        .library(name: "PostgresClaims", targets: ["PostgresClaims"]),
        .library(name: "RulesLoading", targets: ["RulesLoading"]),
        .library(name: "RulesCases", targets: ["RulesCases"]),
        .library(name: "RulesLinting", targets: ["RulesLinting"]),
        .library(name: "RulesTesting", targets: ["RulesTesting"]),
        .library(name: "DatabaseRules", targets: ["DatabaseRules"]),
        .library(name: "IDTokens", targets: ["IDTokens"]),
        // Request validation for Hummingbird apps (422 problem+json); server-side, apart from RulesKit.
        .library(name: "RulesKitHummingbird", targets: ["RulesKitHummingbird"]),
        .executable(name: "validate", targets: ["validate"]),
        // Modules the repository's own Benchmarks/ and Fuzz/ packages use (they depend on this
        // package by path and see only its products); no client needs them.
        .library(name: "Diagnostics", targets: ["Diagnostics"]),
        .library(name: "PatternAutomata", targets: ["PatternAutomata"]),
        .library(name: "RulesPatterns", targets: ["RulesPatterns"]),
        .library(name: "BatchValidation", targets: ["BatchValidation"]),
        .library(name: "CorpusGeneration", targets: ["CorpusGeneration"]),
        .library(name: "RulesVerification", targets: ["RulesVerification"]),
        // `swift package rules test|lint|verify|diff|agree ARGS…`: this package's `validate rules`.
        .plugin(name: "RulesCommandPlugin", targets: ["RulesCommandPlugin"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
        .package(url: "https://github.com/pointfreeco/swift-concurrency-extras", from: "1.4.3"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // The HTTP service (`validate serve`). Hummingbird's default traits pull in
        // swift-configuration, which the service does not use.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
        // NIOEmbedded: a request context for the service's tests (Hummingbird depends on it);
        // NIOHTTP1's parser errors and NIOHTTPTypes' request parts for the service's connection
        // guard (both already in Hummingbird's graph).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.34.1"),
        // HTTPField names the service reads (Forwarded, X-Forwarded-For, Host); as Hummingbird
        // takes it, without traits.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0", traits: []),
        // RSA key generation in the ID-token tests (jwt-kit itself depends on it).
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // `swift package generate-documentation --target RulesKit` (the DocC catalogue in
        // Sources/RulesKit/RulesKit.docc); a command plugin, so no target builds it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // MARK: - C libraries (each imported by exactly one Swift wrapper module)
        .systemLibrary(
            name: "CPCRE2", pkgConfig: "libpcre2-8",
            providers: [.apt(["libpcre2-dev"]), .brew(["pcre2"])]),
        .systemLibrary(
            name: "CIDN2", pkgConfig: "libidn2",
            providers: [.apt(["libidn2-dev"]), .brew(["libidn2"])]),
        // Z3 4.8 has no pkg-config file on Debian; the module map links `z3`.
        .systemLibrary(name: "CZ3", providers: [.apt(["libz3-dev"]), .brew(["z3"])]),

        // MARK: - Library modules (dependencies point one way: down this list)
        .target(name: "Patterns", dependencies: ["CPCRE2"]),
        // Patterns compiled into byte automata; PCRE2 (Patterns) stays the reference.
        .target(name: "PatternAutomata"),
        .target(name: "IDNA", dependencies: ["CIDN2"]),
        .target(name: "Diagnostics"),
        // Pwned Passwords files imported into a memory-mappable store; SHA-1 from swift-crypto.
        .target(name: "BreachedPasswords", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        // zxcvbn's strength estimate (no dependencies; the dictionaries come from FieldValidation).
        .target(name: "PasswordStrength"),
        .target(name: "FieldValidation", dependencies: [
            "Patterns", "PatternAutomata", "IDNA", "Diagnostics", "BreachedPasswords", "PasswordStrength",
            .product(name: "Yams", package: "Yams"),
        ]),
        .target(name: "RulesLanguage", dependencies: ["Diagnostics"]),
        .target(name: "RulesPatterns", dependencies: ["RulesLanguage", "DatabaseRules", "Patterns"]),
        // Realtime Database rules (database.rules.json); `matches()` is injected (RulesPatterns).
        .target(name: "DatabaseRules", dependencies: ["Diagnostics"]),
        .target(name: "Availability"),
        .target(name: "SQLiteClaims", dependencies: [
            "Availability", .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        .target(name: "PostgresClaims", dependencies: [
            "Availability", .product(name: "PostgresNIO", package: "postgres-nio"),
        ]),
        // Firebase ID-token verification (RS256 JWTs against a JWKS file) on jwt-kit.
        .target(name: "IDTokens", dependencies: [.product(name: "JWTKit", package: "jwt-kit")]),
        .target(name: "BatchValidation", dependencies: ["Patterns", "FieldValidation"]),
        // Bounds a YAML text (nesting, aliases) in one pass over libyaml's events, before Yams
        // composes it: Yams has no event API. The only importer of libyaml besides Yams.
        .target(name: "YAMLBounds", dependencies: [.product(name: "Yams", package: "Yams")]),
        // A rules file of any service, read within a bound and compiled with the production engines.
        .target(name: "RulesLoading", dependencies: ["RulesLanguage", "DatabaseRules", "RulesPatterns", "Diagnostics"]),
        // The case-file format: case and request files read (JSON, YAML) and written, and the
        // request a case stands for. RulesLoading for its bounded file reader only.
        .target(name: "RulesCases", dependencies: [
            "RulesLanguage", "RulesLoading", "DatabaseRules", "Diagnostics", "YAMLBounds", .product(name: "Yams", package: "Yams"),
        ]),
        // The rules linter (RL8xxx) and the ownership holes the verifier decides.
        .target(name: "RulesLinting", dependencies: ["RulesLanguage", "Diagnostics"]),
        // The test runner, reports and coverage; re-exports RulesCases and RulesLinting.
        .target(name: "RulesTesting", dependencies: [
            "RulesCases", "RulesLinting", "RulesLanguage", "RulesLoading", "DatabaseRules", "Diagnostics",
        ]),
        // Symbolic verification of rules: the only importer of CZ3. RulesCases for the case-file
        // format (witnesses are written and replay as cases) and property files' readers;
        // RulesLinting for the ownership holes it proves; FieldValidation for the rule packs
        // `rules agree` compares with a rules function.
        .target(name: "RulesVerification", dependencies: [
            "CZ3", "RulesLanguage", "RulesPatterns", "RulesLoading", "RulesCases", "RulesLinting", "Diagnostics", "FieldValidation",
            "DatabaseRules",
        ]),
        .target(name: "CorpusGeneration", dependencies: ["FieldValidation", "PasswordStrength", "Diagnostics"]),
        // The CI report writers (SARIF, JUnit XML, lcov and the coverage share) for the CLI.
        .target(name: "RulesReports", dependencies: ["Diagnostics", "RulesLanguage", "DatabaseRules"]),
        .target(name: "RulesKit", dependencies: [
            "Patterns", "Diagnostics", "FieldValidation", "RulesLanguage", "RulesPatterns", "Availability", "BreachedPasswords",
        ]),
        // Hummingbird apps decode request bodies of RulesKit's validated values; 422 RFC 9457 problems.
        .target(name: "RulesKitHummingbird", dependencies: [
            "RulesKit", .product(name: "Hummingbird", package: "hummingbird"), .product(name: "NIOCore", package: "swift-nio"),
        ]),
        // The validators as batch-engine checkers, shared by the CLI and the service.
        .target(name: "FieldCheckers", dependencies: ["BatchValidation", "FieldValidation", "BreachedPasswords", "PasswordStrength"]),
        // Opens a claim store from `sqlite:PATH` or `postgres://…` (CLI and service).
        .target(name: "ClaimStoreLocations", dependencies: ["RulesKit", "Availability", "SQLiteClaims", "PostgresClaims"]),
        // The HTTP/JSON service behind `validate serve`. RulesCases for the case-file format:
        // `POST /v1/rules/{ruleset}/decide` takes one case object, exactly as in case files.
        .target(name: "RulesService", dependencies: [
            "FieldCheckers", "BatchValidation", "FieldValidation", "Availability", "ClaimStoreLocations",
            "RulesLoading", "RulesCases", "RulesLanguage", "RulesPatterns", "DatabaseRules", "Diagnostics", "IDTokens", "BreachedPasswords",
            "RulesKitHummingbird",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "validate", dependencies: [
            "RulesKit", "FieldValidation", "BatchValidation", "Diagnostics", "Availability", "SQLiteClaims", "PostgresClaims", "RulesLoading", "RulesCases", "RulesLinting", "RulesTesting", "DatabaseRules", "CorpusGeneration", "RulesVerification",
            "FieldCheckers", "ClaimStoreLocations", "RulesService", "RulesReports", "BreachedPasswords",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        // MARK: - Plugins

        // Runs `validate rules …` with the plugin's arguments and exit status. It builds `validate`
        // through the package manager when run (a tool dependency would make every `swift build`
        // compile validate's whole graph a second time, as host tools). It declares no permission:
        // where SwiftPM sandboxes plugins (macOS), a run that names an output file is given
        // `--allow-writing-to-directory DIR` (README, "The rules plugin").
        .plugin(
            name: "RulesCommandPlugin",
            capability: .command(
                intent: .custom(verb: "rules", description: "Run `validate rules test|lint|verify|diff|agree` with the same arguments."))),

        // MARK: - Test support (shared by test targets; not products)
        .target(name: "ClaimStoreTesting", dependencies: ["Availability"], path: "Tests/ClaimStoreTesting"),
        .target(name: "RulesTestSupport", path: "Tests/RulesTestSupport"),
        // Keys, key sets and signed ID tokens (IDTokens and service tests).
        .target(name: "IDTokenTesting", dependencies: [
            .product(name: "JWTKit", package: "jwt-kit"), .product(name: "CryptoExtras", package: "swift-crypto"),
        ], path: "Tests/IDTokenTesting"),

        // MARK: - Tests (one target per module)
        .testTarget(name: "PatternsTests", dependencies: [
            "Patterns", "RulesTestSupport", .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "PatternAutomataTests", dependencies: [
            "PatternAutomata", "Patterns", "RulesTestSupport", .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "BatchValidationTests", dependencies: ["BatchValidation"]),
        .testTarget(name: "PasswordStrengthTests", dependencies: ["PasswordStrength", "RulesTestSupport"]),
        .testTarget(name: "BreachedPasswordsTests", dependencies: ["BreachedPasswords", "RulesTestSupport"]),
        // Runs the built `validate` binary against golden transcripts in corpus/cli/.
        .testTarget(name: "CLITests", dependencies: ["validate", "RulesTestSupport"]),
        .testTarget(name: "FieldValidationTests", dependencies: [
            "FieldValidation", "PasswordStrength", "Diagnostics", "Patterns", "CorpusGeneration", "RulesTestSupport",
            .product(name: "PropertyBased", package: "swift-property-based"),
            .product(name: "Yams", package: "Yams"),
        ]),
        .testTarget(name: "RulesLanguageTests", dependencies: [
            "RulesLanguage", "Diagnostics", "RulesTestSupport", .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "CorpusGenerationTests", dependencies: [
            "CorpusGeneration", "FieldValidation", "BatchValidation", "Patterns", "RulesTesting", "RulesLanguage", "RulesPatterns",
            "RulesTestSupport",
            .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "DatabaseRulesTests", dependencies: [
            "DatabaseRules", "RulesPatterns", "RulesTesting", "Diagnostics", "RulesTestSupport",
            .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "IDTokensTests", dependencies: [
            "IDTokens", "IDTokenTesting", .product(name: "JWTKit", package: "jwt-kit"),
        ]),
        .testTarget(name: "RulesPatternsTests", dependencies: ["RulesPatterns", "RulesLanguage", "RulesTestSupport"]),
        .testTarget(name: "RulesVerificationTests", dependencies: [
            // RulesTesting's runner decides cases the differential tests compare with the verifier.
            "RulesVerification", "RulesLanguage", "RulesCases", "RulesLinting", "RulesTesting", "RulesPatterns", "RulesTestSupport",
            "FieldValidation", "DatabaseRules", "RulesLoading", "Diagnostics",
        ]),
        .testTarget(name: "RulesLoadingTests", dependencies: [
            "RulesLoading", "RulesLanguage", "DatabaseRules", "Diagnostics", "RulesTestSupport",
        ]),
        .testTarget(name: "RulesCasesTests", dependencies: [
            "RulesCases", "RulesLanguage", "DatabaseRules", "Diagnostics",
            .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "RulesLintingTests", dependencies: ["RulesLinting", "RulesLanguage", "RulesLoading", "Diagnostics"]),
        .testTarget(name: "RulesTestingTests", dependencies: [
            "RulesTesting", "RulesLanguage", "Diagnostics", "RulesTestSupport",
            .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "AvailabilityTests", dependencies: [
            "Availability", "ClaimStoreTesting", "RulesTestSupport",
            .product(name: "PropertyBased", package: "swift-property-based"),
            .product(name: "Clocks", package: "swift-clocks"),
            .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
        ]),
        .testTarget(name: "SQLiteClaimsTests", dependencies: [
            "SQLiteClaims", "Availability", "ClaimStoreTesting", "RulesTestSupport",
            // The fault tests hold the write lock from a connection of their own.
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        .testTarget(name: "RulesKitTests", dependencies: [
            "RulesKit", "Availability", "ClaimStoreTesting", "RulesTestSupport",
        ]),
        .testTarget(name: "RulesKitHummingbirdTests", dependencies: [
            "RulesKitHummingbird", "RulesKit",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "NIOCore", package: "swift-nio"),
        ]),
        // Runs built `validate serve` processes: two servers on one PostgreSQL, SIGTERM during a
        // streamed batch, --jwks/--project-id end to end.
        .testTarget(name: "ServeProcessTests", dependencies: [
            "validate", "Availability", "ClaimStoreLocations", "IDTokenTesting", "RulesTestSupport", .product(name: "JWTKit", package: "jwt-kit"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdTesting", package: "hummingbird"),
        ]),
        .testTarget(name: "RulesServiceTests", dependencies: [
            "RulesService", "Availability", "SQLiteClaims", "ClaimStoreLocations", "BatchValidation", "FieldCheckers", "RulesTestSupport",
            "BreachedPasswords",
            "IDTokens", "IDTokenTesting", .product(name: "JWTKit", package: "jwt-kit"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            // A streamed batch whose body stalls: a virtual clock and a context made as Hummingbird's
            // router tests make it.
            .product(name: "Clocks", package: "swift-clocks"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
        ]),
        .testTarget(name: "PostgresClaimsTests", dependencies: [
            "PostgresClaims", "Availability", "ClaimStoreTesting", "RulesTestSupport",
            // The fault tests hold locks and make deadlocks from a connection of their own.
            .product(name: "PostgresNIO", package: "postgres-nio"),
        ]),
    ]
)
