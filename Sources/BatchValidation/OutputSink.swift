#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where output bytes go: a file descriptor written with whole-buffer `write(2)` calls.
public final class OutputSink {
    /// The name used in error messages (`-` for stdout).
    public let name: String
    private let fd: Int32
    private let ownsDescriptor: Bool
    /// The first write error, if any; later writes are dropped.
    public private(set) var failure: String?

    /// Standard output.
    public static func standardOutput() -> OutputSink { OutputSink(fd: STDOUT_FILENO, name: "-", owns: false) }

    /// Standard error.
    public static func standardError() -> OutputSink { OutputSink(fd: STDERR_FILENO, name: "stderr", owns: false) }

    /// Creates or truncates the file at `path`.
    ///
    /// - Throws: ``InputError`` naming the file when it cannot be opened for writing.
    public static func file(_ path: String) throws(InputError) -> OutputSink {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .errno(path, errno) }
        return OutputSink(fd: fd, name: path, owns: true)
    }

    private init(fd: Int32, name: String, owns: Bool) {
        self.fd = fd
        self.name = name
        self.ownsDescriptor = owns
    }

    deinit {
        if ownsDescriptor { close(fd) }
    }

    /// True when the sink is a terminal.
    public var isTerminal: Bool { isatty(fd) == 1 }

    /// Writes all of `bytes`.
    public func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Writes all of `raw`.
    public func write(_ raw: UnsafeRawBufferPointer) {
        guard failure == nil, !raw.isEmpty else { return }
        guard let base = raw.baseAddress else { return }
        var offset = 0
        while offset < raw.count {
            #if canImport(Glibc)
            let written = Glibc.write(fd, base + offset, raw.count - offset)
            #else
            let written = Darwin.write(fd, base + offset, raw.count - offset)
            #endif
            if written < 0 {
                if errno == EINTR { continue }
                failure = String(cString: strerror(errno))
                return
            }
            offset += written
        }
    }

    /// Writes a string as UTF-8.
    public func write(_ text: String) { write(Array(text.utf8)) }
}
