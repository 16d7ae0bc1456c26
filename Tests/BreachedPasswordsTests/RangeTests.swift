@testable import BreachedPasswords
import Foundation
import RulesTestSupport
import Testing

/// The range API's answers, compared with scripts/breached-range-reference.py on the same file,
/// and Add-Padding.
@Suite("breached-password ranges")
struct RangeTests {
    static let python = URL(fileURLWithPath: "/usr/bin/python3")

    @Test("every answer is the Python reference's, for prefixes with many, one and no hashes, in either case")
    func matchesPythonReference() throws {
        // Hashes crowded into 64 prefixes (about 300 each), plus spread ones: so both full and
        // empty answers occur.
        var entries = randomEntries(2_000, seed: 3)
        for group in 0..<64 {
            entries += randomEntries(300, seed: UInt64(100 + group), prefixBits: 20, prefix: UInt64(group * 16_411 % 0x100000))
        }
        entries += entries.prefix(200).map { BreachedStore.Entry(hash: $0.hash, count: $0.count &+ 7) }
        let directory = try temporaryDirectory()
        let file = directory.appendingPathComponent("pwned.txt")
        try pwnedText(entries, lowercase: true, crlf: true).write(to: file)
        let output = directory.appendingPathComponent("store").path
        _ = try BreachedImport().run(files: [file.path], output: output)
        let store = try BreachedStore(path: output)

        var prefixes = Set((0..<64).map { $0 * 16_411 % 0x100000 })
        prefixes.formUnion(entries.prefix(100).map(\.hash.prefix))
        prefixes.formUnion([0x00000, 0xFFFFF, 0x12345, 0xABCDE])
        let texts = prefixes.sorted().enumerated().map { index, prefix in
            let hex = String(prefix, radix: 16, uppercase: index % 2 == 0)
            return String(repeating: "0", count: 5 - hex.count) + hex
        }
        let script = packageRoot.appendingPathComponent("scripts/breached-range-reference.py")
        let process = Process()
        process.executableURL = Self.python
        process.arguments = [script.path, file.path]
        let input = Pipe(), outputPipe = Pipe()
        process.standardInput = input
        process.standardOutput = outputPipe
        try process.run()
        input.fileHandleForWriting.write(Data(texts.joined(separator: "\n").utf8))
        try input.fileHandleForWriting.close()
        let answer = outputPipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        let lines = answer.split(separator: UInt8(ascii: "\n"))
        try #require(lines.count == texts.count)
        var full = 0, empty = 0
        for (text, line) in zip(texts, lines) {
            let reference = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: String])
            let prefix = try #require(RangeAnswer.prefix(text))
            let ours = String(decoding: try RangeAnswer.text(prefix: prefix, store: store, padded: false), as: UTF8.self)
            #expect(ours == reference["text"], "prefix \(text)")
            if ours.isEmpty { empty += 1 } else if ours.split(separator: "\r\n").count > 100 { full += 1 }
        }
        #expect(full >= 60 && empty >= 3, "\(full) answers with over 100 lines, \(empty) empty ones")
    }

    @Test("prefixes: five hex digits in either case, nothing else")
    func prefixes() {
        #expect(RangeAnswer.prefix("5BAA6") == 0x5BAA6)
        #expect(RangeAnswer.prefix("5baa6") == 0x5BAA6)
        #expect(RangeAnswer.prefix("fFfFf") == 0xFFFFF)
        for bad in ["", "5BAA", "5BAA61", "5BAAG", " 5BAA", "5BAA6\n", "５BAA6", "-BAA6", "0x5BA", "5BA A"] {
            #expect(RangeAnswer.prefix(bad) == nil, "\(bad.debugDescription)")
        }
    }

    @Test("Add-Padding: at least 800 lines, the real ones unchanged, padding with count 0, sorted, no suffix twice")
    func padding() throws {
        let entries = randomEntries(40, seed: 5, prefixBits: 20, prefix: 0x5BAA6)
        let bytes = BreachedStore.bytes(of: entries)
        let store = try bytes.withUnsafeBytes { try BreachedStore(bytes: $0) }
        var random = SeededGenerator(state: 1)
        var sizes: Set<Int> = []
        for _ in 0..<20 {
            let text = String(decoding: try RangeAnswer.text(prefix: 0x5BAA6, store: store, padded: true, random: &random), as: UTF8.self)
            let lines = text.components(separatedBy: "\r\n")
            #expect(lines.count >= 800 && lines.count <= 1_000)
            sizes.insert(lines.count)
            let suffixes = lines.map { $0.prefix(35) }
            #expect(suffixes == suffixes.sorted())
            #expect(Set(suffixes).count == lines.count)
            #expect(lines.allSatisfy { $0.utf8.count >= 37 && $0.dropFirst(35).first == ":" })
            let real = lines.filter { !$0.hasSuffix(":0") }
            let plain = String(decoding: try RangeAnswer.text(prefix: 0x5BAA6, store: store, padded: false), as: UTF8.self)
            #expect(real.joined(separator: "\r\n") == plain)
            #expect(lines.count - real.count >= 760)
        }
        #expect(sizes.count > 5, "the padding varies in size: \(sizes.count) sizes in 20 answers")
    }

    /// Damage done to a valid store's bytes, by name.
    static let damages: [String: @Sendable (inout [UInt8]) -> Void] = [
        "truncated by one byte": { $0.removeLast() },
        "one byte too many": { $0.append(0) },
        "wrong magic": { $0[0] = UInt8(ascii: "X") },
        "version 2": { $0[8] = 2 },
        "hash bits 128": { $0[12] = 128 },
        "index bits 12": { $0[16] = 12 },
        "a reserved byte set": { $0[50] = 1 },
        "an index entry past the end": { $0[64 + 4 * 3 + 3] = 0x7F },
        "the index starts above 0": { $0[64] = 1 },
        "more overflow entries than hashes": { $0[32] = 0xFF },
    ]

    @Test("a store that is damaged is refused when opened, never read past its end", arguments: damages.keys.sorted())
    func damaged(_ name: String) throws {
        var bytes = BreachedStore.bytes(of: randomEntries(100, seed: 9))
        #expect((try? bytes.withUnsafeBytes { try BreachedStore(bytes: $0) }) != nil)
        let damage = try #require(Self.damages[name])
        damage(&bytes)
        #expect(throws: BreachedStoreError.self) { try bytes.withUnsafeBytes { try BreachedStore(bytes: $0) } }
    }

    @Test("a file that is not a store: a clear error naming no hash")
    func notAStore() throws {
        let directory = try temporaryDirectory()
        let file = directory.appendingPathComponent("pwned.txt")
        try Data(String(repeating: "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:3\n", count: 4).utf8).write(to: file)
        do {
            _ = try BreachedStore(path: file.path)
            Issue.record("a text file opened as a store")
        } catch {
            #expect(error.description.hasPrefix("not a breached-password store"))
            #expect(!error.description.contains("5BAA61E4"))
        }
        #expect(throws: BreachedStoreError.self) { try BreachedStore(path: directory.appendingPathComponent("missing").path) }
        #expect(throws: BreachedStoreError.self) { try BreachedStore(path: directory.path) }
    }
}
