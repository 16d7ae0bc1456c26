@testable import BreachedPasswords
import Foundation
import RulesTestSupport
import Testing

/// The store's bytes as docs/RULE-PACKS.md and StoreFormat describe them, written the plain way
/// (sort, deduplicate, lay out), so a store the importer writes can be compared byte for byte.
func referenceStoreBytes(_ entries: [BreachedStore.Entry], hashBits: Int = 160) -> [UInt8] {
    var counts: [SHA1Digest: UInt32] = [:]
    for entry in entries {
        // A --bits 64 store keeps the first 64 bits.
        let kept = hashBits == 160 ? entry.hash : SHA1Digest(high: entry.hash.high, middle: 0, low: 0)
        counts[kept] = max(counts[kept] ?? 0, entry.count)
    }
    let sorted = counts.keys.sorted()
    let n = sorted.count
    // The index bits follow the number of lines read (duplicates included).
    let lines = entries.count
    let indexBits = lines >= 8 << 24 ? 24 : lines >= 8 << 16 ? 16 : 8
    let prefixBytes = indexBits / 8
    var out: [UInt8] = Array("RKBREACH".utf8)
    func put32(_ value: UInt32) { out += withUnsafeBytes(of: value.littleEndian, Array.init) }
    func put64(_ value: UInt64) { out += withUnsafeBytes(of: value.littleEndian, Array.init) }
    let overflow = sorted.enumerated().filter { counts[$0.element]! >= 255 }
    put32(1); put32(UInt32(hashBits)); put32(UInt32(indexBits)); put32(UInt32(hashBits / 8 - prefixBytes))
    put64(UInt64(n)); put64(UInt64(overflow.count))
    out += [UInt8](repeating: 0, count: 24)
    var position = 0
    for bucket in 0...(1 << indexBits) {
        while position < n, Int(sorted[position].high >> UInt64(64 - indexBits)) < bucket { position += 1 }
        put32(UInt32(bucket == 1 << indexBits ? n : position))
    }
    for hash in sorted { out += (prefixBytes..<hashBits / 8).map { hash.byte($0) } }
    for hash in sorted { out.append(UInt8(min(counts[hash]!, 255))) }
    for (index, hash) in overflow { put32(UInt32(index)); put32(counts[hash]!) }
    return out
}

@Suite("validate breached import: the importer")
struct ImportTests {
    /// Imports `texts` (one file each) and returns the summary, the store's bytes and the directory.
    func importTexts(_ texts: [Data], bits: Int = 160) throws -> (BreachedImport.Summary, [UInt8], URL) {
        let directory = try temporaryDirectory()
        var files: [String] = []
        for (index, text) in texts.enumerated() {
            let file = directory.appendingPathComponent("part\(index).txt")
            try text.write(to: file)
            files.append(file.path)
        }
        let output = directory.appendingPathComponent("store.rkb").path
        let summary = try BreachedImport(hashBits: bits).run(files: files, output: output)
        return (summary, Array(try Data(contentsOf: URL(fileURLWithPath: output))), directory)
    }

    @Test("every hash of two files (upper and lower case, CRLF and LF, shuffled, repeated) is found with its highest count; the file is the reference layout byte for byte")
    func roundTrip() throws {
        var entries = randomEntries(20_000, seed: 7)
        // Repeats with other counts: the highest wins.
        entries += entries.prefix(500).map { BreachedStore.Entry(hash: $0.hash, count: $0.count / 2 + 1) }
        entries += entries.dropFirst(500).prefix(300).map { BreachedStore.Entry(hash: $0.hash, count: $0.count + 300) }
        var random = SeededGenerator(state: 99)
        entries.shuffle(using: &random)
        let half = entries.count / 2
        let (summary, bytes, _) = try importTexts([
            pwnedText(Array(entries[..<half]), lowercase: true, crlf: false),
            pwnedText(Array(entries[half...]), lowercase: false, crlf: true, finalNewline: false),
        ])
        let expected = expectedCounts(entries)
        #expect(summary.lines == entries.count)
        #expect(summary.hashes == expected.count)
        #expect(summary.storeBytes == bytes.count)
        #expect(bytes == referenceStoreBytes(entries), "the store differs from the reference layout")
        #expect(bytes == BreachedStore.bytes(of: entries))
        let store = try bytes.withUnsafeBytes { try BreachedStore(bytes: $0) }
        var mismatches = 0, large = 0
        for (hash, count) in expected {
            if store.count(hash: hash) != count { mismatches += 1 }
            if count >= 255 { large += 1 }
        }
        #expect(mismatches == 0)
        #expect(large > 50, "counts of 255 and more (the overflow table) were exercised \(large) times")
        // Hashes not stored: fresh random ones, and stored ones with the last bit flipped.
        var absent = 0
        for entry in randomEntries(2_000, seed: 8) where expected[entry.hash] == nil {
            #expect(store.count(hash: entry.hash) == nil)
            absent += 1
        }
        for entry in entries.prefix(2_000) {
            var near = entry.hash
            near.low ^= 1
            if expected[near] == nil {
                #expect(store.count(hash: near) == nil)
                absent += 1
            }
        }
        #expect(absent > 3_900)
        // Exact: at most 21 bytes per hash.
        #expect(Double(bytes.count) / Double(expected.count) <= 21)
    }

    @Test("a password's SHA-1 is looked up as typed, in UTF-8")
    func passwordLookup() throws {
        // SHA-1("password") and SHA-1("pässword") computed by swift-crypto, checked against the hex sha1sum prints.
        let known = "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8" // sha1sum of the ASCII word "password"
        let hash = PasswordHash.sha1("password")
        #expect(hash.hex == known)
        let text = Data("\(known):9545824\r\n".utf8)
        let (_, bytes, _) = try importTexts([text])
        let store = try bytes.withUnsafeBytes { try BreachedStore(bytes: $0) }
        #expect(store.count(password: "password") == 9_545_824)
        #expect(store.count(password: "Password") == nil)
        #expect(store.count(password: "password ") == nil)
    }

    @Test("--bits 64 keeps the first 64 bits: 8 + 1 bytes per hash, every stored hash found, a hash agreeing in 64 bits is a false positive")
    func sixtyFourBits() throws {
        let entries = randomEntries(20_000, seed: 11)
        let (summary, bytes, _) = try importTexts([pwnedText(entries)], bits: 64)
        #expect(bytes == referenceStoreBytes(entries, hashBits: 64))
        let store = try bytes.withUnsafeBytes { try BreachedStore(bytes: $0) }
        #expect(!store.isExact && store.hashBits == 64)
        let expected = expectedCounts(entries)
        var found = 0
        for (hash, count) in expected where store.count(hash: hash) == count { found += 1 }
        #expect(found == expected.count)
        #expect(Double(summary.storeBytes) / Double(expected.count) < 10)
        var twin = entries[0].hash
        twin.low ^= 0xFFFF
        twin.middle ^= 1
        #expect(store.count(hash: twin) != nil, "the documented false positive: same first 64 bits")
        var misses = 0
        for entry in randomEntries(5_000, seed: 12) where store.count(hash: entry.hash) == nil { misses += 1 }
        #expect(misses == 5_000)
        #expect(throws: BreachedStoreError.notExact) { try store.range(prefix: 0) }
    }

    @Test("counts with leading zeros, 0 and 4294967295 are read as written")
    func countEdges() throws {
        let hashes = randomEntries(3, seed: 31).map(\.hash.hex)
        let text = "\(hashes[0]):00000000000000000000000000007\n\(hashes[1].lowercased()):0\r\n\(hashes[2]):4294967295"
        let (_, bytes, _) = try importTexts([Data(text.utf8)])
        let store = try bytes.withUnsafeBytes { try BreachedStore(bytes: $0) }
        let counts = randomEntries(3, seed: 31).map { store.count(hash: $0.hash) }
        #expect(counts == [7, 0, 4_294_967_295])
    }

    @Test("an empty file makes an empty store, which finds nothing")
    func emptyInput() throws {
        let (summary, bytes, _) = try importTexts([Data()])
        #expect(summary.hashes == 0 && summary.lines == 0)
        #expect(bytes == referenceStoreBytes([]))
        let store = try bytes.withUnsafeBytes { try BreachedStore(bytes: $0) }
        #expect(store.count(password: "password") == nil)
        #expect(try store.range(prefix: 0x5BAA6).isEmpty)
    }

    @Test("enough hashes for a 16-bit index: the reference layout, every hash found")
    func sixteenBitIndex() throws {
        let entries = randomEntries(8 << 16, seed: 21)
        let bytes = BreachedStore.bytes(of: entries)
        #expect(bytes.withUnsafeBytes { $0.loadLE(UInt32.self, at: 16) } == 16)
        #expect(bytes == referenceStoreBytes(entries))
        let store = try bytes.withUnsafeBytes { try BreachedStore(bytes: $0) }
        var mismatches = 0
        for (hash, count) in expectedCounts(entries) where store.count(hash: hash) != count { mismatches += 1 }
        #expect(mismatches == 0)
        #expect(Double(bytes.count) / Double(store.count) <= 19.6)
    }
}
