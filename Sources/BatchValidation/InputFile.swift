#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(Glibc)
private let systemRead = Glibc.read
#elseif canImport(Darwin)
private let systemRead = Darwin.read
#endif

/// A file or stdin that cannot be read; the CLI reports it and exits with status 2.
public struct InputError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The input's display name (`-` for stdin).
    public var name: String
    /// What went wrong, e.g. `No such file or directory`.
    public var reason: String
    /// Where in the input, when one place is to blame: line and column (in characters), from 1.
    public var location: (line: Int, column: Int)? {
        get { line.map { ($0, column) } }
        set { (line, column) = (newValue?.line, newValue?.column ?? 0) }
    }
    private var line: Int?
    private var column = 0

    /// Creates an error, located when `location` is given.
    public init(name: String, reason: String, location: (line: Int, column: Int)? = nil) {
        self.name = name
        self.reason = reason
        self.location = location
    }

    /// `name: reason`, or `name:line:column: reason`.
    public var description: String {
        guard let line else { return "\(name): \(reason)" }
        return "\(name):\(line):\(column): \(reason)"
    }

    static func errno(_ name: String, _ code: Int32) -> InputError {
        InputError(name: name, reason: String(cString: strerror(code)))
    }
}

/// One input to read: a path, or stdin (`-`).
public struct InputSpec: Sendable, Hashable {
    /// The path, or `-` for stdin.
    public var path: String

    /// Creates a spec for `path` (`-` means stdin).
    public init(path: String) { self.path = path }

    /// Standard input.
    public static let stdin = InputSpec(path: "-")

    /// True for stdin.
    public var isStdin: Bool { path == "-" }
}

/// An open input read with large `read(2)` calls straight into the caller's buffer.
final class InputFile: RecordSource {
    let name: String
    /// Total size in bytes when the input is a regular file (drives the progress bar).
    let regularFileSize: Int?
    /// Bytes read so far.
    private(set) var bytesRead = 0
    private let fd: Int32
    private let ownsDescriptor: Bool

    init(_ spec: InputSpec) throws(InputError) {
        if spec.isStdin {
            name = "-"
            fd = STDIN_FILENO
            ownsDescriptor = false
        } else {
            name = spec.path
            fd = open(spec.path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw .errno(spec.path, errno) }
            ownsDescriptor = true
        }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
            regularFileSize = Int(info.st_size)
        } else {
            regularFileSize = nil
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            if ownsDescriptor { close(fd) }
            throw InputError(name: name, reason: "is a directory")
        }
    }

    deinit {
        if ownsDescriptor { close(fd) }
    }

    /// Appends up to `count` bytes to `buffer`; returns how many were read (0 at end of input).
    func read(into buffer: inout [UInt8], count: Int) throws(InputError) -> Int {
        let oldCount = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: count))
        var got = 0
        while true {
            got = buffer.withUnsafeMutableBytes { raw in
                guard let base = raw.baseAddress else { return 0 }
                return systemRead(fd, base + oldCount, count)
            }
            if got < 0 && errno == EINTR { continue }
            break
        }
        guard got >= 0 else {
            let code = errno
            buffer.removeLast(count)
            throw .errno(name, code)
        }
        buffer.removeLast(count - got)
        bytesRead += got
        return got
    }

    func readAvailable(into buffer: inout [UInt8], count: Int) throws(InputError) -> Int? {
        try read(into: &buffer, count: count)
    }
}
