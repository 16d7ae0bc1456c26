// swift-tools-version: 6.0
// The libFuzzer executable for RulesKit's fuzz harnesses. It is a package of its own, depending on
// the repository's package by path, so that a plain `swift build` at the root never builds it.
// Only scripts/fuzz builds it (release, libFuzzer + AddressSanitizer); see docs/FUZZING.md.
import PackageDescription

let package = Package(
    name: "RulesKitFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "RulesKit", path: ".."),
    ],
    targets: [
        // One executable for every target: RULESKIT_FUZZ_TARGET picks the harness from
        // FuzzTargets.all, so adding a target never touches this package.
        .executableTarget(name: "fuzz", dependencies: [.product(name: "FuzzHarness", package: "RulesKit")]),
    ]
)
