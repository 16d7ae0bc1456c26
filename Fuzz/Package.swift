// swift-tools-version: 6.0
// RulesKit's fuzzing: the harnesses (one check function per target, registered in
// FuzzTargets.all), their tests, and the libFuzzer executable. A package of its own, depending on
// the repository's package by path, so that a plain `swift build` or `swift test` at the root
// never builds any of it. scripts/fuzz builds the executable (release, libFuzzer +
// AddressSanitizer); scripts/fuzz-test runs the tests; see docs/FUZZING.md.
import PackageDescription

let package = Package(
    name: "RulesKitFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "RulesKit", path: ".."),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        .target(name: "FuzzHarness", dependencies: [
            .product(name: "Patterns", package: "RulesKit"),
            .product(name: "PatternAutomata", package: "RulesKit"),
            .product(name: "Diagnostics", package: "RulesKit"),
            .product(name: "FieldValidation", package: "RulesKit"),
            .product(name: "PasswordStrength", package: "RulesKit"),
            .product(name: "RulesLanguage", package: "RulesKit"),
            .product(name: "RulesPatterns", package: "RulesKit"),
            .product(name: "BatchValidation", package: "RulesKit"),
            .product(name: "RulesTesting", package: "RulesKit"),
            .product(name: "DatabaseRules", package: "RulesKit"),
            .product(name: "RulesVerification", package: "RulesKit"),
            .product(name: "BreachedPasswords", package: "RulesKit"),
        ]),
        // One executable for every target: RULESKIT_FUZZ_TARGET picks the harness from
        // FuzzTargets.all, so adding a target never touches this manifest.
        .executableTarget(name: "fuzz", dependencies: ["FuzzHarness"]),
        // Replays every seed and minimized crash through its harness; the harnesses' differential
        // checks on generated inputs.
        .testTarget(name: "FuzzHarnessTests", dependencies: [
            "FuzzHarness", .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
    ]
)
