import Foundation
import Testing

/// Golden transcripts of `validate rules …` run as a real process against the built binary.
///
/// Each transcript is `corpus/cli/rules/<name>.args` (one argument per line, run from the
/// repository root) with `<name>.stdout`, `<name>.stderr` and `<name>.status` next to it.
/// Re-record them with `RULESKIT_RECORD_GOLDEN=1 swift test --skip-build --filter RulesCLIGolden`.
@Suite("validate rules golden transcripts")
struct RulesCLIGoldenTests {
    static let directory = RepoPaths.root.appendingPathComponent("corpus/cli/rules")

    static let transcripts: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".args") }.map { String($0.dropLast(5)) }.sorted()
    }()

    /// The `validate` executable built next to this test bundle (or in `.build/debug`).
    static var binary: URL? {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("validate"),
            RepoPaths.root.appendingPathComponent(".build/debug/validate"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    @Test("there are transcripts for test, lint and eval")
    func coverage() {
        for command in ["test", "lint", "eval"] {
            #expect(Self.transcripts.contains { $0.hasPrefix(command) }, "no transcript for `rules \(command)`")
        }
    }

    @Test("transcript", arguments: transcripts)
    func transcript(_ name: String) throws {
        let binary = try #require(Self.binary, "build `validate` first: swift build --build-tests")
        let base = Self.directory.appendingPathComponent(name)
        let arguments = try String(contentsOf: base.appendingPathExtension("args"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        let run = try Self.run(binary, arguments)
        let files = [("stdout", run.stdout), ("stderr", run.stderr), ("status", "\(run.status)\n")]
        if ProcessInfo.processInfo.environment["RULESKIT_RECORD_GOLDEN"] == "1" {
            for (suffix, content) in files {
                try content.write(to: base.appendingPathExtension(suffix), atomically: true, encoding: .utf8)
            }
            return
        }
        for (suffix, content) in files {
            let expected = (try? String(contentsOf: base.appendingPathExtension(suffix), encoding: .utf8)) ?? "(missing \(name).\(suffix))"
            #expect(content == expected, "\(name).\(suffix) differs; re-record with RULESKIT_RECORD_GOLDEN=1 if intended")
        }
    }

    /// Runs the binary from the repository root; output goes to temporary files so neither
    /// stream can fill a pipe and block the child.
    private static func run(_ binary: URL, _ arguments: [String]) throws -> (stdout: String, stderr: String, status: Int32) {
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("ruleskit-golden-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: temporary) }
        let outURL = temporary.appendingPathComponent("stdout")
        let errURL = temporary.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = RepoPaths.root
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        try process.run()
        process.waitUntilExit()
        return (try String(contentsOf: outURL, encoding: .utf8), try String(contentsOf: errURL, encoding: .utf8), process.terminationStatus)
    }
}
