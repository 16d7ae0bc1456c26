import ClaimStoreTesting
import RulesTestSupport
import Foundation
import Testing

/// Runs corpus/cli/names.transcript against the built `validate` binary (end-to-end: argument
/// parsing, the SQLite store, JSON shapes, exit codes). `RULESKIT_RECORD=1` rewrites the file.
struct NamesCLITests {
    @Test func namesTranscript() throws {
        let transcriptURL = packageRoot.appendingPathComponent("corpus/cli/names.transcript")
        let transcript = try String(contentsOf: transcriptURL, encoding: .utf8)
        guard let binary = BatchKill.validateBinary else {
            Issue.record("the `validate` executable is not built next to the tests; run `swift build --build-tests` first")
            return
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = "sqlite:" + directory.path("names.sqlite")

        var recorded: [String] = []
        var batch: [String] = []
        var expected: [String] = []
        var command: (line: String, output: String, status: Int32)?
        func finishCommand() {
            guard let run = command else { return }
            let actual = run.output + "[exit \(run.status)]"
            #expect(actual == expected.joined(separator: "\n"), "\(run.line)")
            recorded.append(actual)
            command = nil
            expected = []
        }
        for line in transcript.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if command != nil {
                if line.isEmpty { finishCommand(); recorded.append(""); continue }
                expected.append(line)
                continue
            }
            recorded.append(line)
            if line.hasPrefix("< ") {
                batch.append(String(line.dropFirst(2)))
            } else if line.hasPrefix("$ ") {
                if !batch.isEmpty {
                    try (batch.joined(separator: "\n") + "\n").write(toFile: directory.path("batch.jsonl"), atomically: true, encoding: .utf8)
                    batch = []
                }
                let arguments = line.dropFirst(2).split(separator: " ").map(String.init) + ["--store", store]
                let (output, status) = try run(binary, arguments, in: directory.url)
                command = (line, output, status)
            }
        }
        finishCommand()
        if ProcessInfo.processInfo.environment["RULESKIT_RECORD"] == "1" {
            try recorded.joined(separator: "\n").write(to: transcriptURL, atomically: true, encoding: .utf8)
        }
    }

    @Test(arguments: [
        (["names", "check", "alice", "--store", "sqlite:/nonexistent-ruleskit-dir/names.sqlite"], Int32(2), "AV3001"),
        (["names", "check", "alice", "--store", "mysql://x"], Int32(64), "AV3004"),
        (["names", "claim", "alice", "--user", "u1", "--store", "postgres://nobody@127.0.0.1:1"], Int32(64), "AV3004"),
    ])
    func storeProblemsExitWithTheirStatus(arguments: [String], status: Int32, code: String) throws {
        guard let binary = BatchKill.validateBinary else {
            Issue.record("the `validate` executable is not built next to the tests; run `swift build --build-tests` first")
            return
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (_, actual, errors) = try run(binary, arguments, in: directory.url, capturingErrors: true)
        #expect(actual == status)
        #expect(errors.contains("error[\(code)]"), "stderr: \(errors)")
    }

    private func run(_ binary: URL, _ arguments: [String], in directory: URL) throws -> (String, Int32) {
        let (output, status, _) = try run(binary, arguments, in: directory, capturingErrors: false)
        return (output, status)
    }

    private func run(_ binary: URL, _ arguments: [String], in directory: URL, capturingErrors: Bool) throws -> (String, Int32, String) {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = capturingErrors ? errors : FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = capturingErrors ? errors.fileHandleForReading.readDataToEndOfFile() : Data()
        process.waitUntilExit()
        return (String(decoding: data, as: UTF8.self), process.terminationStatus, String(decoding: errorData, as: UTF8.self))
    }
}
