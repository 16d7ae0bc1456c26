@testable import BreachedPasswords
import Foundation
import RulesTestSupport
import Testing

/// Malformed Pwned Passwords lines: the error names file:line and why, quotes nothing of the
/// line, and nothing is left at the output (an old store there is untouched).
@Suite("validate breached import: malformed input")
struct MalformedInputTests {
    static let good = "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:3"
    static let hash = "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8"

    /// (the bad line, its reason's telling words). The bad line is line 3.
    static let cases: [(String, String)] = [
        ("5BAA61E4C9B93F3F0682250B6CF8331B7EE68FDZ:3", "column 40 is not a hexadecimal digit"),
        ("G" + String(hash.dropFirst()) + ":3", "column 1 is not a hexadecimal digit"),
        (hash + "0:3", "column 41 should be `:`"),
        (String(hash.dropLast()) + ":3", "column 40 is not a hexadecimal digit"),
        (hash + ":", "column 42 should start the count"),
        (hash + ":x", "column 42 should start the count"),
        (hash + ":-1", "column 42 should start the count"),
        (hash + ": 3", "column 42 should start the count"),
        (hash + ":3 ", "column 43 should end the line"),
        (hash + ":3\r\r", "column 44 should end the line"),
        (hash + ":4294967296", "more than 4294967295"),
        (hash + ":99999999999999999999999", "more than 4294967295"),
        (hash + ":3:4", "column 43 should end the line"),
        ("", "column 1 is not a hexadecimal digit"),
        ("\r", "column 1 is not a hexadecimal digit"),
        (" " + hash + ":3", "column 1 is not a hexadecimal digit"),
        ("\u{FEFF}" + hash + ":3", "column 1 is not a hexadecimal digit"),
        ("5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8\t3", "column 41 should be `:`"),
    ]

    @Test("a malformed line in the middle: exit with file:line, nothing written", arguments: cases.indices)
    func middle(_ index: Int) throws {
        let (line, reason) = Self.cases[index]
        try expectFailure(Data((Self.good + "\n" + Self.good.lowercased() + "\r\n" + line + "\n" + Self.good + "\n").utf8),
                          line: 3, reason: reason)
    }

    @Test("a short last line without a line break", arguments: [
        ("5BAA6", "the line ends after 5 hexadecimal digits"),
        (hash, "column 41 should be `:`"),
        (hash + ":", "column 42 should start the count"),
        (String(hash.prefix(39)) + "\r", "column 40 is not a hexadecimal digit"),
        ("5BAA6Z", "column 6 is not a hexadecimal digit"),
    ])
    func shortLast(_ line: String, _ reason: String) throws {
        try expectFailure(Data((Self.good + "\r\n" + Self.good + "\r\n" + line).utf8), line: 3, reason: reason)
    }

    @Test("a 4 MiB line of hex digits is refused at its line without being quoted")
    func hugeLine() throws {
        let huge = String(repeating: "A", count: 4 << 20)
        try expectFailure(Data((Self.good + "\n" + Self.good + "\n" + huge + ":1\n").utf8), line: 3, reason: "column 41 should be `:`")
        let hugeCount = Self.hash + ":" + String(repeating: "9", count: 4 << 20)
        try expectFailure(Data((Self.good + "\n" + Self.good + "\n" + hugeCount + "\n").utf8), line: 3, reason: "more than 4294967295")
    }

    @Test("NUL bytes and invalid UTF-8 are malformed lines, not crashes")
    func binary() throws {
        var bytes = Data((Self.good + "\n" + Self.good + "\n").utf8)
        bytes += Data([0x00, 0xFF, 0xFE] + Array(repeating: 0x41, count: 50) + [0x0A])
        try expectFailure(bytes, line: 3, reason: "column 1 is not a hexadecimal digit")
    }

    @Test("the second file's bad line is named by that file; an input that is a directory or missing is unreadable")
    func secondFileAndUnreadable() throws {
        let directory = try temporaryDirectory()
        let first = directory.appendingPathComponent("a.txt"), second = directory.appendingPathComponent("b.txt")
        try Data((Self.good + "\n").utf8).write(to: first)
        try Data((Self.good + "\n\n").utf8).write(to: second)
        let output = directory.appendingPathComponent("store").path
        #expect(throws: BreachedImportError.malformed(path: second.path, line: 2, reason: "the line ends after 0 hexadecimal digits; a hash is 40 of them")) {
            try BreachedImport().run(files: [first.path, second.path], output: output)
        }
        #expect(!FileManager.default.fileExists(atPath: output))
        do {
            _ = try BreachedImport().run(files: [first.path, directory.path], output: output)
            Issue.record("a directory was imported")
        } catch {
            guard case let .unreadable(path, _) = error else { Issue.record("not `unreadable`: \(error)"); return }
            #expect(path == directory.path)
        }
        do {
            _ = try BreachedImport().run(files: [directory.appendingPathComponent("missing").path], output: output)
            Issue.record("a missing file was imported")
        } catch {
            guard case .unreadable = error else { Issue.record("not `unreadable`: \(error)"); return }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["a.txt", "b.txt"])
    }

    @Test("an output in a directory that does not exist is unwritable")
    func unwritable() throws {
        let directory = try temporaryDirectory()
        let input = directory.appendingPathComponent("a.txt")
        try Data((Self.good + "\n").utf8).write(to: input)
        do {
            _ = try BreachedImport().run(files: [input.path], output: directory.appendingPathComponent("no/such/store").path)
            Issue.record("wrote into a missing directory")
        } catch {
            guard case .unwritable = error else { Issue.record("not `unwritable`: \(error)"); return }
        }
    }

    /// Imports `text` over an existing store: the import fails at `line` with `reason`, quoting
    /// no hash, and the old store and the directory are as they were.
    func expectFailure(_ text: Data, line: Int, reason: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let directory = try temporaryDirectory()
        let input = directory.appendingPathComponent("pwned.txt")
        try text.write(to: input)
        let output = directory.appendingPathComponent("store.rkb")
        let old = Data("an old store".utf8)
        try old.write(to: output)
        do {
            _ = try BreachedImport().run(files: [input.path], output: output.path)
            Issue.record("the import succeeded", sourceLocation: sourceLocation)
        } catch {
            guard case let .malformed(path, failedLine, why) = error else {
                Issue.record("not `malformed`: \(error)", sourceLocation: sourceLocation)
                return
            }
            #expect(path == input.path && failedLine == line, sourceLocation: sourceLocation)
            #expect(why.contains(reason), "reason: \(why)", sourceLocation: sourceLocation)
            let message = error.description
            #expect(message.hasPrefix("\(input.path):\(line): "), sourceLocation: sourceLocation)
            let quotes = message.uppercased().contains(Self.hash.prefix(10))
            #expect(!quotes, "the message quotes the line", sourceLocation: sourceLocation)
            #expect(message.utf8.count < 300, sourceLocation: sourceLocation)
        }
        #expect(try Data(contentsOf: output) == old, "the old store was touched", sourceLocation: sourceLocation)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["pwned.txt", "store.rkb"],
                "a temporary file was left behind", sourceLocation: sourceLocation)
    }
}
