@testable import BreachedPasswords
import Foundation
import RulesTestSupport

/// SplitMix64 from a raw state, so generated inputs are the same on every run.
typealias SeededGenerator = SplitMix

/// Random hashes with heavy-tailed counts (P(count ≥ k) ≈ 1/k, so some pass 255).
func randomEntries(_ count: Int, seed: UInt64, prefixBits: Int = 0, prefix: UInt64 = 0) -> [BreachedStore.Entry] {
    var random = SeededGenerator(state: seed)
    return (0..<count).map { _ in
        var high = random.next()
        if prefixBits > 0 { high = prefix << UInt64(64 - prefixBits) | (high >> UInt64(prefixBits)) }
        let hash = SHA1Digest(high: high, middle: random.next(), low: UInt32(truncatingIfNeeded: random.next()))
        let uniform = Double(random.next() >> 11 | 1) / Double(1 << 53)
        return BreachedStore.Entry(hash: hash, count: UInt32(min(1 / uniform, 4_000_000_000)))
    }
}

/// The entries as a Pwned Passwords file: uppercase or lowercase hex, LF or CRLF.
func pwnedText(_ entries: [BreachedStore.Entry], lowercase: Bool = false, crlf: Bool = true, finalNewline: Bool = true) -> Data {
    let lines = entries.map { (lowercase ? $0.hash.hex.lowercased() : $0.hash.hex) + ":\($0.count)" }
    let end = crlf ? "\r\n" : "\n"
    return Data((lines.joined(separator: end) + (finalNewline && !lines.isEmpty ? end : "")).utf8)
}

/// A fresh temporary directory.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("breached-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// The highest count per hash: what a store holds for these entries.
func expectedCounts(_ entries: [BreachedStore.Entry]) -> [SHA1Digest: UInt32] {
    entries.reduce(into: [:]) { counts, entry in counts[entry.hash] = max(counts[entry.hash] ?? 0, entry.count) }
}

let isCI = ProcessInfo.processInfo.environment["CI"] == "true"
