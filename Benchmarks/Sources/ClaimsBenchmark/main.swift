// ClaimsBenchmark: claims/s and availability lookups/s on SQLite and PostgreSQL, from one client
// and from 8 concurrent clients (each its own connection). Build and run in release mode:
//   swift run -c release --package-path Benchmarks ClaimsBenchmark [--claims N] [--lookups N] [--sqlite-only]
//   ClaimsBenchmark --batch 100,1000,5000   issue 30's 200,000-record mix through the stores'
//                                           batch claims, one run per transaction size
//   ClaimsBenchmark --writes 1000,5000      PostgreSQL: 200,000 fresh rows inserted with
//                                           `unnest` arrays and with COPY into a staging table
// PostgreSQL is measured when RULESKIT_POSTGRES_URL is set (scripts/postgres start prints it).
import Availability
import BenchmarkTiming
import Foundation
import Logging
import NIOCore
import PostgresNIO
import PostgresClaims
import RulesKit
import SQLiteClaims

struct Settings {
    var claims = 4_000
    var lookups = 20_000
    var sqliteOnly = false
    var batchSizes: [Int] = []
    var writeSizes: [Int] = []

    init(_ arguments: [String]) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--claims": claims = iterator.next().flatMap(Int.init) ?? claims
            case "--lookups": lookups = iterator.next().flatMap(Int.init) ?? lookups
            case "--sqlite-only": sqliteOnly = true
            case "--batch": batchSizes = (iterator.next() ?? "").split(separator: ",").compactMap { Int($0) }
            case "--writes": writeSizes = (iterator.next() ?? "").split(separator: ",").compactMap { Int($0) }
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
    let seconds = seconds(since: start)
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

let postgresURL = ProcessInfo.processInfo.environment["RULESKIT_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
if !settings.batchSizes.isEmpty || !settings.writeSizes.isEmpty {
    let records = issueMix()
    for size in settings.batchSizes {
        let store = try SQLiteClaimStore(path: directory.appendingPathComponent("batch-\(size).sqlite").path, policy: policy)
        try await benchBatches("sqlite batch claims", store: store, records: records, size: size)
        if !settings.sqliteOnly, let url = postgresURL {
            let location = try PostgresLocation(url: url + (url.contains("?") ? "&" : "?") + "schema=bench_b\(UUID().uuidString.prefix(8).lowercased())")
            let store = PostgresClaimStore(location: location, policy: policy, maxConnections: 1)
            try await benchBatches("postgres batch claims", store: store, records: records, size: size)
            store.shutdown()
        }
    }
    if let url = postgresURL {
        for size in settings.writeSizes { try await benchWrites(url: url, rows: 200_000, size: size) }
    }
    exit(0)
}

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

// MARK: - Batches (`--batch`): the issue 30 mix through the stores' batch claims

/// Issue 30's mix: 180,000 first claims; after every 18th, a second user for the name 9 back and
/// an exact repeat of the record 5 back. 200,000 records.
func issueMix(scale: Int = 1) -> [NameRequest] {
    var records: [NameRequest] = []
    records.reserveCapacity(200_000 * scale)
    for index in 0..<(180_000 * scale) {
        records.append(NameRequest(name: "Member_\(index)", user: "uid-\(index)"))
        if index % 18 == 17 {
            records.append(NameRequest(name: "member_\(index - 9)", user: "uid2-\(index - 9)"))
            records.append(NameRequest(name: "Member_\(index - 5)", user: "uid-\(index - 5)"))
        }
    }
    return records
}

/// Claims the mix through `store.claim(batch:)` in transactions of `size`; prints claims/s and
/// checks the counts (190,000 claimed, 10,000 AV1003).
func benchBatches(_ label: String, store: any ClaimStore, records: [NameRequest], size: Int) async throws {
    let start = ContinuousClock.now
    var claimed = 0
    var taken = 0
    for first in stride(from: 0, to: records.count, by: size) {
        let outcome = await store.claim(batch: Array(records[first..<min(first + size, records.count)]))
        if let fault = outcome.fault { throw fault.error }
        for item in outcome.outcomes {
            if item.claimed { claimed += 1 } else if item.problems.first?.code == AvailabilityCodes.taken.id { taken += 1 }
        }
    }
    let seconds = seconds(since: start)
    let verdict = claimed * 20 == records.count * 19 && taken * 20 == records.count ? "ok" : "WRONG (claimed \(claimed), AV1003 \(taken))"
    print(label.padding(toLength: 34, withPad: " ", startingAt: 0)
          + String(format: " batch %6d: %8d records in %7.3f s = %9.0f claims/s  ", size, records.count, seconds, Double(records.count) / seconds)
          + verdict)
}

// MARK: - PostgreSQL bulk writes (`--writes`): unnest arrays against COPY into a staging table

/// Inserts `rows` fresh claims in transactions of `size` rows, each with one of the two
/// statements the batch claim could use, on a connection of its own; prints rows/s.
func benchWrites(url: String, rows: Int, size: Int) async throws {
    let location = try PostgresLocation(url: url)
    var logger = Logger(label: "ClaimsBenchmark")
    logger.logLevel = .critical
    let configuration = PostgresConnection.Configuration(
        host: location.host, port: location.port, username: location.username,
        password: location.password, database: location.database, tls: .disable)
    let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
    let schema = "bench_w\(UUID().uuidString.prefix(8).lowercased())"
    try await connection.query(PostgresQuery(unsafeSQL: "SET synchronous_commit = on"), logger: logger)
    try await connection.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA \(schema)"), logger: logger)
    try await connection.query(PostgresQuery(unsafeSQL: "CREATE TEMP TABLE staging (key text, name text, owner text) ON COMMIT DELETE ROWS"), logger: logger)
    for method in ["unnest", "copy"] {
        let table = "\(schema).t_\(method)"
        try await connection.query(PostgresQuery(unsafeSQL: "CREATE TABLE \(table) (key text NOT NULL, name text NOT NULL, owner text NOT NULL, claimed_at timestamptz NOT NULL DEFAULT now())"), logger: logger)
        try await connection.query(PostgresQuery(unsafeSQL: "CREATE UNIQUE INDEX ON \(table) (key)"), logger: logger)
        try await connection.query(PostgresQuery(unsafeSQL: "CREATE UNIQUE INDEX ON \(table) (owner)"), logger: logger)
        let start = ContinuousClock.now
        var inserted = 0
        for first in stride(from: 0, to: rows, by: size) {
            let range = first..<min(first + size, rows)
            let keys = range.map { "member_\($0)" }
            let names = range.map { "Member_\($0)" }
            let owners = range.map { "uid-\($0)" }
            try await connection.query("BEGIN", logger: logger)
            let result: PostgresRowSequence
            if method == "unnest" {
                result = try await connection.query(
                    "INSERT INTO \(unescaped: table) (key, name, owner) SELECT * FROM unnest(\(keys)::text[], \(names)::text[], \(owners)::text[]) ON CONFLICT DO NOTHING RETURNING key",
                    logger: logger)
            } else {
                var text = ByteBuffer()
                for index in range.indices { text.writeString("\(keys[index])\t\(names[index])\t\(owners[index])\n") }
                let buffer = text
                try await connection.copyFrom(table: "staging", columns: ["key", "name", "owner"], logger: logger) { writer in
                    try await writer.write(buffer)
                }
                result = try await connection.query(
                    "INSERT INTO \(unescaped: table) (key, name, owner) SELECT key, name, owner FROM staging ON CONFLICT DO NOTHING RETURNING key",
                    logger: logger)
            }
            for try await _ in result.decode(String.self) { inserted += 1 }
            try await connection.query("COMMIT", logger: logger)
        }
        let seconds = seconds(since: start)
        print("postgres write, \(method)".padding(toLength: 34, withPad: " ", startingAt: 0)
              + String(format: " batch %6d: %8d rows in %7.3f s = %9.0f rows/s", size, inserted, seconds, Double(inserted) / seconds))
    }
    try await connection.query(PostgresQuery(unsafeSQL: "DROP SCHEMA \(schema) CASCADE"), logger: logger)
    try await connection.close()
}
