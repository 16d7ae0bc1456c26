import Foundation
import RulesTestSupport


/// What one run of the binary produced.
struct Transcript: Equatable {
    var stdout: Data
    var stderr: Data
    var status: Int32
}

/// Runs `validate` from the package root with `arguments`, feeding `stdin`, in a fixed
/// environment (no colour variables, C.UTF-8), and returns everything it printed. With
/// `killAfter`, a run still going then is killed (SIGKILL: status 137).
/// With `prlimit`, the binary runs under those `prlimit(1)` options.
func runValidate(_ arguments: [String], stdin: Data? = nil, killAfter: Duration? = nil, prlimit: [String]? = nil) throws -> Transcript {
    let process = Process()
    if let prlimit {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        process.arguments = prlimit + ["--", validateBinary.path] + arguments
    } else {
        process.executableURL = validateBinary
        process.arguments = arguments
    }
    process.currentDirectoryURL = packageRoot
    process.environment = ["PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"]
    let input = Pipe(), output = Pipe(), errors = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let watchdog = killAfter.map { limit in
        let timer = DispatchSource.makeTimerSource(queue: .global())
        let pid = process.processIdentifier
        timer.schedule(deadline: .now() + .milliseconds(Int(limit.components.seconds * 1000)))
        timer.setEventHandler { kill(pid, SIGKILL) }
        timer.resume()
        return timer
    }
    defer { watchdog?.cancel() }
    // Feed stdin and drain stderr concurrently, so neither pipe can block the child.
    nonisolated(unsafe) var errorData = Data()
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) { errorData = errors.fileHandleForReading.readDataToEndOfFile() }
    DispatchQueue.global().async(group: group) {
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try? input.fileHandleForWriting.close()
    }
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    group.wait()
    // A signal is reported as a shell reports it (128 + the signal), never as an exit status.
    let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    return Transcript(stdout: outputData, stderr: errorData, status: status)
}

/// True when golden files should be rewritten instead of compared.
let recordingGolden = ProcessInfo.processInfo.environment["RULESKIT_RECORD_GOLDEN"] == "1"
