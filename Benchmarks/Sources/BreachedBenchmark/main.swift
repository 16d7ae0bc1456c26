// Breached-password store benchmark: import speed (MB/s of input), store size, and lookup time
// on a warm store, for a generated Pwned Passwords file (docs/BENCHMARKS.md, "Breached passwords").
//
//   swift build -c release --package-path Benchmarks --product BreachedBenchmark
//   taskset -c 1 Benchmarks/.build/release/BreachedBenchmark [--hashes 2000000] [--lookups 1000000] [--rounds 3] [--dir DIR]
import BenchmarkTiming
import BreachedPasswords
import Foundation

/// SplitMix64, so every run reads the same file.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

func option(_ name: String, _ fallback: Int) -> Int {
    guard let index = CommandLine.arguments.firstIndex(of: name), index + 1 < CommandLine.arguments.count,
          let value = Int(CommandLine.arguments[index + 1]) else { return fallback }
    return value
}

let hashes = option("--hashes", 2_000_000)
let lookups = option("--lookups", 1_000_000)
let rounds = option("--rounds", 3)
let directory = CommandLine.arguments.firstIndex(of: "--dir").map { CommandLine.arguments[$0 + 1] } ?? NSTemporaryDirectory()
let input = directory + "/breached-bench-\(hashes).txt"
let output = directory + "/breached-bench-\(hashes).store"

// The file: sorted by hash as the official downloader writes it, uppercase, CRLF, counts with
// Pwned Passwords' heavy tail (P(count ≥ k) ≈ 1/k).
var random = SplitMix(state: 2026)
var digests: [(UInt64, UInt64, UInt32)] = (0..<hashes).map { _ in (random.next(), random.next(), UInt32(truncatingIfNeeded: random.next())) }
digests.sort { ($0.0, $0.1, $0.2) < ($1.0, $1.1, $1.2) }
let hex = Array("0123456789ABCDEF".utf8)
var text: [UInt8] = []
text.reserveCapacity(hashes * 46)
for (high, middle, low) in digests {
    for shift in stride(from: 60, through: 0, by: -4) { text.append(hex[Int(high >> UInt64(shift) & 0xF)]) }
    for shift in stride(from: 60, through: 0, by: -4) { text.append(hex[Int(middle >> UInt64(shift) & 0xF)]) }
    for shift in stride(from: 28, through: 0, by: -4) { text.append(hex[Int(low >> UInt32(shift) & 0xF)]) }
    let uniform = Double(random.next() >> 11 | 1) / Double(1 << 53)
    text.append(UInt8(ascii: ":"))
    text += Array(String(UInt32(min(1 / uniform, 4_000_000_000))).utf8)
    text += [0x0D, 0x0A]
}
FileManager.default.createFile(atPath: input, contents: Data(text))
print("input: \(hashes) hashes, \(text.count) bytes (\(String(format: "%.1f", Double(text.count) / Double(hashes))) per line)")

for bits in [160, 64] {
    var times: [Double] = [], cpuTimes: [Double] = []
    var summary: BreachedImport.Summary?
    for _ in 0..<rounds {
        let start = wallSeconds(), startCPU = threadCPUSeconds()
        summary = try BreachedImport(hashBits: bits).run(files: [input], output: output)
        times.append(wallSeconds() - start)
        cpuTimes.append(threadCPUSeconds() - startCPU)
    }
    times.sort()
    cpuTimes.sort()
    let median = times[times.count / 2], medianCPU = cpuTimes[cpuTimes.count / 2]
    let size = summary!.storeBytes
    print(String(format: "import --bits %d: wall median %.3f s of %d (best %.3f s): %.0f MB/s; thread CPU median %.3f s: %.0f MB/s of input; store %d bytes, %.2f bytes per hash",
                 bits, median, rounds, times[0], Double(text.count) / median / 1e6, medianCPU, Double(text.count) / medianCPU / 1e6,
                 size, Double(size) / Double(hashes)))
    if bits == 64 { break }

    // Lookups on the warm store: half of them stored hashes, half random ones, in batches of 1,000.
    let store = try BreachedStore(path: output)
    var probes: [SHA1Digest] = []
    probes.reserveCapacity(lookups)
    var pick = SplitMix(state: 7)
    for index in 0..<lookups {
        if index % 2 == 0 {
            let (high, middle, low) = digests[Int(pick.next() % UInt64(hashes))]
            probes.append(SHA1Digest(high: high, middle: middle, low: low))
        } else {
            probes.append(SHA1Digest(high: pick.next(), middle: pick.next(), low: UInt32(truncatingIfNeeded: pick.next())))
        }
    }
    var found = 0
    for probe in probes where store.count(hash: probe) != nil { found += 1 }   // warm-up: every page touched
    var perLookup: [Double] = [], perLookupCPU: [Double] = []
    for batch in stride(from: 0, to: lookups, by: 1_000) {
        let start = wallSeconds(), startCPU = threadCPUSeconds()
        for probe in probes[batch..<min(batch + 1_000, lookups)] where store.count(hash: probe) != nil { found += 1 }
        perLookup.append((wallSeconds() - start) / Double(min(1_000, lookups - batch)))
        perLookupCPU.append((threadCPUSeconds() - startCPU) / Double(min(1_000, lookups - batch)))
    }
    perLookup.sort()
    perLookupCPU.sort()
    print(String(format: "lookup by hash (warm): wall median %.0f ns, p90 %.0f ns; thread CPU median %.0f ns; %d batches of 1,000 (%d found of %d: half are stored)",
                 perLookup[perLookup.count / 2] * 1e9, perLookup[perLookup.count * 9 / 10] * 1e9, perLookupCPU[perLookupCPU.count / 2] * 1e9,
                 perLookup.count, found / 2, lookups))
    let passwords = (0..<100_000).map { "password-\($0)" }
    let start = wallSeconds()
    var hits = 0
    for password in passwords where store.count(password: password) != nil { hits += 1 }
    print(String(format: "lookup by password (SHA-1 and lookup): %.0f ns each over %d (%d found)",
                 (wallSeconds() - start) / Double(passwords.count) * 1e9, passwords.count, hits))
}
try? FileManager.default.removeItem(atPath: input)
try? FileManager.default.removeItem(atPath: output)
