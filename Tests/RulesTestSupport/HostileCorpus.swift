import Foundation

// The adversarial suite as data (docs/CORPORA.md, "Hostile inputs"): `corpus/hostile/cli/*.jsonl`
// holds command lines and `corpus/hostile/http/*.jsonl` service requests, one case per line, each
// with the exit code or HTTP status it must get. A file is one class of attack.

/// Text in a case file: a JSON string, or an array of parts that are joined, each part a string,
/// `{"repeat": TEXT, "times": N}` (N copies) or `{"hex": "00ff…"}` (raw bytes, which may be
/// invalid UTF-8). Large and deep inputs stay a line long this way.
public struct CaseText: Decodable, Sendable {
    /// The bytes the text stands for.
    public let bytes: Data

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            bytes = Data(text.utf8)
            return
        }
        var bytes = Data()
        for part in try container.decode([Part].self) { bytes.append(part.bytes) }
        self.bytes = bytes
    }

    private struct Part: Decodable {
        let bytes: Data

        private enum Keys: String, CodingKey { case repeat_ = "repeat", times, hex }

        init(from decoder: any Decoder) throws {
            if let text = try? decoder.singleValueContainer().decode(String.self) {
                bytes = Data(text.utf8)
                return
            }
            let members = try decoder.container(keyedBy: Keys.self)
            if let hex = try members.decodeIfPresent(String.self, forKey: .hex) {
                let digits = Array(hex.utf8)
                guard digits.count.isMultiple(of: 2),
                      let decoded = stride(from: 0, to: digits.count, by: 2).map({ UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16) }) as [UInt8?]?,
                      !decoded.contains(nil) else {
                    throw DecodingError.dataCorruptedError(forKey: .hex, in: members, debugDescription: "`hex` must be pairs of hex digits")
                }
                bytes = Data(decoded.compactMap { $0 })
                return
            }
            let unit = try members.decode(String.self, forKey: .repeat_)
            let times = try members.decode(Int.self, forKey: .times)
            guard (0...(64 << 20)).contains(times * max(unit.utf8.count, 1)) else {
                throw DecodingError.dataCorruptedError(forKey: .times, in: members, debugDescription: "`times` makes more than 64 MiB")
            }
            bytes = Data(String(repeating: unit, count: times).utf8)
        }
    }
}

/// A case of the hostile suite: named within its file, identified as `file/name`.
public protocol HostileCase: Decodable, Sendable {
    /// The case's name within its file.
    var name: String { get }
    /// `file/name`, unique in the suite; set when the file is read.
    var id: String { get set }
}

/// One hostile command line: `validate ARGS` run from the package root.
///
/// In `args` and in files, `{NAME}` is replaced by the path of the case's file `NAME` (all are
/// written to a fresh directory first).
public struct HostileCommandCase: HostileCase {
    public var id = ""
    public let name: String
    /// Why the input is hostile and what must happen instead.
    public let why: String
    /// The arguments after `validate`.
    public let args: [String]
    /// Files the arguments refer to, by name.
    public let files: [String: CaseText]?
    /// The standard input.
    public let stdin: CaseText?
    /// The exit status the run must end with.
    public let status: Int32
    /// Texts standard error must contain (diagnostic codes, messages).
    public let stderr: [String]?
    /// Texts standard output must contain.
    public let stdout: [String]?
    /// How many lines standard output must have (one output record per input record).
    public let stdoutLines: Int?
    /// Resource limits to run under, as `prlimit(1)` options (`--as=BYTES`).
    public let prlimit: [String]?

    private enum CodingKeys: String, CodingKey { case name, why, args, files, stdin, status, stderr, stdout, stdoutLines, prlimit }
}

/// One hostile request to `validate serve`.
public struct HostileRequestCase: HostileCase {
    public var id = ""
    public let name: String
    /// Why the request is hostile and what must happen instead.
    public let why: String
    /// The HTTP method.
    public let method: String
    /// The path and query.
    public let path: String
    /// Request headers (`Content-Type` defaults to `application/json` when there is a body).
    public let headers: [String: String]?
    /// The request body.
    public let body: CaseText?
    /// The status the answer must have.
    public let status: Int
    /// The error code the answer's body must carry (`{"error": {"code": …}}`), when it is an error.
    public let code: String?
    /// The whole request as bytes on the wire, for framing no HTTP client would send (a broken
    /// chunked body, an unknown `Transfer-Encoding`): sent over a TCP connection to a live
    /// server, whose single answer is read until it closes the connection. `method` and `path`
    /// then only describe it, and `headers` and `body` are not used.
    public let raw: CaseText?

    private enum CodingKeys: String, CodingKey { case name, why, method, path, headers, body, status, code, raw }
}

/// Reads the hostile suite.
public enum HostileCorpus {
    /// The case files of `corpus/hostile/DIRECTORY/`, sorted.
    public static func files(in directory: String) -> [String] {
        let root = packageRoot.appendingPathComponent("corpus/hostile/\(directory)")
        return ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [])
            .filter { $0.hasSuffix(".jsonl") }.sorted()
    }

    /// Every case in `corpus/hostile/DIRECTORY/`, in file and line order.
    ///
    /// - Throws: a message naming `file:line` for a line that is not a case.
    public static func load<Case: HostileCase>(_ type: Case.Type, from directory: String) throws -> [Case] {
        let root = packageRoot.appendingPathComponent("corpus/hostile/\(directory)")
        var all: [Case] = []
        for file in files(in: directory) {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.allSatisfy(\.isWhitespace) {
                do {
                    var decoded = try JSONDecoder().decode(Case.self, from: Data(line.utf8))
                    decoded.id = "\(file.dropLast(".jsonl".count))/\(decoded.name)"
                    all.append(decoded)
                } catch {
                    throw HostileCorpusError(description: "corpus/hostile/\(directory)/\(file):\(index + 1): \(error)")
                }
            }
        }
        return all
    }
}

/// A case file line that is not a case.
public struct HostileCorpusError: Error, CustomStringConvertible {
    public let description: String
}
