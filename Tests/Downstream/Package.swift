// swift-tools-version: 6.1
// A client of RulesKit that depends on the `RulesKit` product alone, through a path dependency on
// this repository (scripts/downstream-check builds and tests it, and checks that the build
// compiled none of the server-side packages: Hummingbird, postgres-nio, jwt-kit, GRDB, Z3).
import Foundation
import PackageDescription

// The repository root, two folders up; its folder name is the package's identity.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

let package = Package(
    name: "Downstream",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(path: root.path),
    ],
    targets: [
        .target(name: "SignUpClient", dependencies: [.product(name: "RulesKit", package: root.lastPathComponent)]),
        .testTarget(name: "SignUpClientTests", dependencies: ["SignUpClient"]),
    ]
)
