// swift-tools-version: 6.1
// RulesKit's benchmarks: release-mode executables, one per benchmark, and the timing support they
// share. A package of its own, depending on the repository's package by path, so that a plain
// `swift build` at the root builds no benchmark. Commands and figures: docs/BENCHMARKS.md
// (`swift build -c release --package-path Benchmarks --product <Name>Benchmark`).
import PackageDescription

let package = Package(
    name: "RulesKitBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "RulesKit", path: ".."),
        // `ClaimsBenchmark --writes`: the two PostgreSQL bulk-insert statements on a connection of its own.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // Clocks, interleaved rounds, best round and medians: the timing every benchmark uses.
        .target(name: "BenchmarkTiming"),
        // The three field validators against Swift `Regex` and `NSRegularExpression`; zxcvbn samples.
        .executableTarget(name: "ValidatorBenchmark", dependencies: [
            "BenchmarkTiming",
            .product(name: "FieldValidation", package: "RulesKit"),
            .product(name: "PasswordStrength", package: "RulesKit"),
            .product(name: "CorpusGeneration", package: "RulesKit"),
        ]),
        // Import speed, store size and lookup time of the breached-password store.
        .executableTarget(name: "BreachedBenchmark", dependencies: [
            "BenchmarkTiming", .product(name: "BreachedPasswords", package: "RulesKit"),
        ]),
        // The batch engine alone with a single PCRE2 pattern as checker (compare-cli.sh).
        .executableTarget(name: "BatchEngineBenchmark", dependencies: [
            .product(name: "BatchValidation", package: "RulesKit"),
            .product(name: "Patterns", package: "RulesKit"),
        ]),
        // Firestore/Storage rules: decisions per second, parse and check of a large file.
        .executableTarget(name: "RulesBenchmark", dependencies: [
            "BenchmarkTiming",
            .product(name: "RulesLanguage", package: "RulesKit"),
            .product(name: "RulesPatterns", package: "RulesKit"),
            .product(name: "Patterns", package: "RulesKit"),
            .product(name: "Diagnostics", package: "RulesKit"),
        ]),
        // Realtime Database rules: decisions per second, parse and check of a large file.
        .executableTarget(name: "DatabaseRulesBenchmark", dependencies: [
            "BenchmarkTiming",
            .product(name: "DatabaseRules", package: "RulesKit"),
            .product(name: "RulesPatterns", package: "RulesKit"),
            .product(name: "Patterns", package: "RulesKit"),
            .product(name: "Diagnostics", package: "RulesKit"),
        ]),
        // Claims and availability look-ups on the memory, SQLite and PostgreSQL stores.
        .executableTarget(name: "ClaimsBenchmark", dependencies: [
            "BenchmarkTiming",
            .product(name: "RulesKit", package: "RulesKit"),
            .product(name: "Availability", package: "RulesKit"),
            .product(name: "SQLiteClaims", package: "RulesKit"),
            .product(name: "PostgresClaims", package: "RulesKit"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
        ]),
    ]
)
