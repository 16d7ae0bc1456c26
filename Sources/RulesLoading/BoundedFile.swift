import Foundation

/// Reads the files a command line names (rules, case, request and property files), never more
/// than ``maxBytes`` of them, so a huge file or a device such as `/dev/zero` is refused instead of
/// filling memory.
public enum BoundedFile {
    /// Largest file read, in bytes: 16 MiB. RulesKit's own bound, above every format's own limit
    /// (rules sources: 256 KiB, `RL1001`; database rules: 4 MiB, `RD5001`).
    public static let maxBytes = 16 << 20

    /// Why a file could not be read.
    public enum Problem: Error, Sendable, Equatable {
        /// There is no file at the path.
        case missing
        /// The file exists but cannot be read.
        case unreadable
        /// The file is longer than the bound; `line` and `column` (characters) are where the
        /// bound falls.
        case tooLarge(maxBytes: Int, line: Int, column: Int)
        /// The file is not UTF-8.
        case notUTF8

        /// What is wrong, terse and lowercase.
        public var message: String {
            switch self {
            case .missing: "no such file"
            case .unreadable: "cannot read the file"
            case .tooLarge(let maxBytes, _, _): "the file is larger than \(describe(bytes: maxBytes))"
            case .notUTF8: "the file is not valid UTF-8"
            }
        }

        /// `:line:column` for a problem with a position in the file, else empty.
        public var location: String {
            if case .tooLarge(_, let line, let column) = self { return ":\(line):\(column)" }
            return ""
        }
    }

    /// Reads a UTF-8 text file of at most `maxBytes` bytes.
    ///
    /// - Throws: ``Problem``.
    public static func text(_ path: String, maxBytes: Int = maxBytes) throws(Problem) -> String {
        let data = try self.data(path, maxBytes: maxBytes)
        guard let text = String(data: data, encoding: .utf8) else { throw .notUTF8 }
        return text
    }

    /// Reads at most `maxBytes` bytes of a file.
    ///
    /// - Throws: ``Problem``; `.tooLarge` when the file has more.
    public static func data(_ path: String, maxBytes: Int = maxBytes) throws(Problem) -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw .missing }
        guard !isDirectory.boolValue, let handle = FileHandle(forReadingAtPath: path) else { throw .unreadable }
        defer { try? handle.close() }
        var data = Data()
        do {
            // Read in chunks until the bound: a device or pipe has no size to ask for.
            while data.count <= maxBytes {
                guard let chunk = try handle.read(upToCount: min(1 << 20, maxBytes + 1 - data.count)), !chunk.isEmpty else { break }
                data.append(chunk)
            }
        } catch {
            throw .unreadable
        }
        if data.count > maxBytes {
            let (line, column) = position(of: maxBytes, in: data)
            throw .tooLarge(maxBytes: maxBytes, line: line, column: column)
        }
        return data
    }

    /// The 1-based line and column (characters) of byte `offset`.
    static func position(of offset: Int, in data: Data) -> (line: Int, column: Int) {
        let before = data.prefix(offset)
        let lineStart = before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? before.startIndex
        let line = before.reduce(1) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        return (line, String(decoding: before[lineStart...], as: UTF8.self).count + 1)
    }

    /// `16 MiB`, `4 KiB` or `100 bytes`.
    static func describe(bytes: Int) -> String {
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }
}
