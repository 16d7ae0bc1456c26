import Foundation
import RulesTestSupport
import Hummingbird
import HummingbirdTesting


/// A temporary path (not created) ending in `suffix`.
func temporaryPath(_ suffix: String) -> String {
    NSTemporaryDirectory() + "serve-\(UUID().uuidString)\(suffix)"
}

struct ServerFailure: Error, CustomStringConvertible {
    var description: String
}

/// One `validate serve --host 127.0.0.1 --port 0 …` process, started and read until its ready line.
final class ServerProcess: @unchecked Sendable {
    let process = Process()
    /// The port from `listening on http://127.0.0.1:PORT`.
    let port: Int
    private let stderrPath = temporaryPath(".log")

    /// Starts the server and waits (up to `timeout`) for its ready line.
    ///
    /// - Throws: ``ServerFailure`` with the server's stderr when it exits or never gets ready.
    init(_ arguments: [String], timeout: Duration = .seconds(180)) throws {
        process.executableURL = validateBinary
        // Tests about other things get timeouts no loaded machine reaches; those about the
        // timeouts pass their own.
        var generous: [String] = []
        for (flag, seconds) in [("--header-read-timeout", "600"), ("--connection-idle-timeout", "3600")] where !arguments.contains(flag) {
            generous += [flag, seconds]
        }
        process.arguments = ["serve", "--host", "127.0.0.1", "--port", "0"] + arguments + generous
        process.currentDirectoryURL = packageRoot
        FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // The ready line; reading stops at end of file when the server exits first.
        let deadline = ContinuousClock.now + timeout
        var text = ""
        while !text.contains("\n") && ContinuousClock.now < deadline {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        let line = text.split(separator: "\n").first.map(String.init) ?? ""
        guard line.hasPrefix("listening on http://127.0.0.1:"), let port = Int(line.split(separator: ":").last ?? "") else {
            process.terminate()
            process.waitUntilExit()
            throw ServerFailure(description: "no ready line (got \(line.debugDescription)); stderr: \(Self.read(stderrPath))")
        }
        self.port = port
    }

    /// What the server wrote to stderr so far.
    var log: String { Self.read(stderrPath) }

    /// Sends SIGTERM and waits for the exit status.
    func terminate() -> Int32 {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(atPath: stderrPath)
    }

    private static func read(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }
}

/// Runs `validate` with `arguments` to the end: (status, stderr). A run still going after
/// `killAfter` is killed (so a server that starts when it should have refused fails the test
/// instead of hanging it; its status is then SIGKILL's).
func runValidate(_ arguments: [String], killAfter: Duration = .seconds(300)) throws -> (status: Int32, stderr: String) {
    let process = Process()
    process.executableURL = validateBinary
    process.arguments = arguments
    process.currentDirectoryURL = packageRoot
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let pid = process.processIdentifier
    let guardTimer = DispatchWorkItem { kill(pid, SIGKILL) }
    DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(Int(killAfter.components.seconds)), execute: guardTimer)
    let data = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guardTimer.cancel()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

extension TestClient.Response {
    /// The body as a JSON object.
    var object: [String: Any] {
        body.flatMap { try? JSONSerialization.jsonObject(with: Data(String(buffer: $0).utf8)) as? [String: Any] } ?? [:]
    }
}
