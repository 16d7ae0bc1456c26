// ClaimsBenchmark: claims/s and availability lookups/s on SQLite and PostgreSQL, from one client
// and from 8 concurrent clients (each its own connection). Build and run in release mode:
//   swift run -c release ClaimsBenchmark [--claims N] [--lookups N] [--sqlite-only]
// PostgreSQL is measured when RULESKIT_POSTGRES_URL is set (scripts/postgres start prints it).
import Availability
import Foundation
import PostgresClaims
import RulesKit
import SQLiteClaims

struct Settings {
    var claims = 4_000
    var lookups = 20_000
    var sqliteOnly = false

    init(_ arguments: [String]) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--claims": claims = iterator.next().flatMap(Int.init) ?? claims
            case "--lookups": lookups = iterator.next().flatMap(Int.init) ?? lookups
            case "--sqlite-only": sqliteOnly = true
            default: FileHandle.standardError.write(Data("ClaimsBenchmark: ignoring `\(argument)`\n".utf8))
            }
        }
    }
}

/// Runs `count` operations spread over `clients` stores, all clients at once; returns ops/s.
@discardableResult
func measure(_ label: String, clients stores: [any ClaimStore], count: Int,
             _ operation: @escaping @Sendable (any ClaimStore, Int) async throws -> Void) async throws -> Double {
    let start = ContinuousClock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for (client, store) in stores.enumerated() {
            group.addTask {
                for index in stride(from: client, to: count, by: stores.count) { try await operation(store, index) }
            }
        }
        try await group.waitForAll()
    }
    let elapsed = start.duration(to: .now)
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let rate = Double(count) / seconds
    print(label.padding(toLength: 34, withPad: " ", startingAt: 0)
          + String(format: " %8d ops in %7.3f s = %9.0f ops/s", count, seconds, rate))
    return rate
}

/// Claims then lookups, with one client and with eight.
func bench(_ backend: String, makeStore: (String) throws -> any ClaimStore, settings: Settings) async throws {
    for clients in [1, 8] {
        let run = "r\(UUID().uuidString.prefix(8).lowercased())\(clients)"
        let stores = try (0..<clients).map { _ in try makeStore(run) }
        try await measure("\(backend) claims, \(clients) client(s)", clients: stores, count: settings.claims) { store, index in
            let outcome = try await store.claim("bench.\(index)", by: "user\(index)")
            if !outcome.claimed { throw ClaimStoreError(.failed, "claim \(index) refused: \(outcome.problems.map(\.code))") }
        }
        let claims = settings.claims
        try await measure("\(backend) lookups, \(clients) client(s)", clients: stores, count: settings.lookups) { store, index in
            _ = try await store.availability(of: "bench.\(index % (claims * 2))")
        }
        stores.forEach { ($0 as? PostgresClaimStore)?.shutdown() }
    }
}

let settings = Settings(Array(CommandLine.arguments.dropFirst()))
let policy = try AppDisplayNamePolicy()
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ruleskit-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

print("ClaimsBenchmark: \(settings.claims) claims, \(settings.lookups) lookups per run; \(ProcessInfo.processInfo.activeProcessorCount) cores")
try await bench("sqlite", makeStore: { run in
    try SQLiteClaimStore(path: directory.appendingPathComponent("\(run).sqlite").path, policy: policy)
}, settings: settings)

if !settings.sqliteOnly {
    if let url = ProcessInfo.processInfo.environment["RULESKIT_POSTGRES_URL"], !url.isEmpty {
        try await bench("postgres", makeStore: { run in
            let location = try PostgresLocation(url: url + (url.contains("?") ? "&" : "?") + "schema=bench_\(run)")
            return PostgresClaimStore(location: location, policy: policy, maxConnections: 1)
        }, settings: settings)
    } else {
        print("postgres: skipped (RULESKIT_POSTGRES_URL is not set; run: eval \"$(scripts/postgres start)\"; export RULESKIT_POSTGRES_URL)")
    }
}
