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
///
/// The child gets only stdin, stdout and stderr: every other descriptor of the test process
/// (the pipes of other tests' children, client sockets) is closed in it. A daemon the helper
/// starts (`scripts/postgres resume` starts the server) would otherwise hold another test's
/// pipe open for as long as it lives, and that test would wait for its end forever.
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
        // Only 0, 1 and 2 reach the child.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        #if canImport(Glibc)
        if let closeFrom = Self.closeFrom { _ = closeFrom(&actions, 3) }
        #else
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_CLOEXEC_DEFAULT))
        #endif
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid = pid_t()
        let spawned = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw CheckFailure("cannot start `\(arguments.joined(separator: " "))`: error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw CheckFailure("waitpid for `\(arguments[0])` failed: errno \(errno)") }
        }
        let errors = (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? ""
        let exited = status & 0x7f == 0
        return (exited ? (status >> 8) & 0xff : 128 + (status & 0x7f), errors)
    }

    #if canImport(Glibc)
    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which the Glibc
    /// module does not import.
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let closeFrom: CloseFrom? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: CloseFrom.self) }
    #endif
}
