import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a short helper command (such as `scripts/postgres crash`) with `posix_spawn` and a
/// blocking `waitpid` on its own process id.
///
/// Foundation's `Process` can miss the exit of a child that ends at the same moment as another
/// `Process` child (seen on Linux: the helper stays a zombie and `waitUntilExit()` never
/// returns), which is exactly what happens when a test stops the database under a running
/// `validate` batch.
public enum Subprocess {
    /// Runs `arguments` (the first is looked up in `PATH`) with `environment` added to this
    /// process's environment; stdout is discarded.
    ///
    /// - Returns: The exit status (128 + signal when killed) and what it wrote to stderr.
    /// - Throws: ``CheckFailure`` when it cannot be started.
    public static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, errors: String) {
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("ruleskit-stderr-\(UUID().uuidString)").path
        defer { unlink(errorFile) }
        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment { merged[key] = value }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errorFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid = pid_t()
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, argv, envp)
        guard spawned == 0 else { throw CheckFailure("cannot start `\(arguments.joined(separator: " "))`: error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw CheckFailure("waitpid for `\(arguments[0])` failed: errno \(errno)") }
        }
        let errors = (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? ""
        let exited = status & 0x7f == 0
        return (exited ? (status >> 8) & 0xff : 128 + (status & 0x7f), errors)
    }
}
