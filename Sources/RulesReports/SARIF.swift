// SARIF: findings as a SARIF 2.1.0 log (OASIS Static Analysis Results Interchange Format), the
// file code-scanning services read. One writer for every command that reports diagnostics
// (`rules lint`, `rules verify`, `rules diff`): each gives findings, this renders them.
import Diagnostics

/// One finding in a ``SARIFLog``: a diagnostic code at a place in a file.
public struct SARIFResult: Sendable, Hashable {
    /// The diagnostic code (`RL8002`): the result's `ruleId`.
    public var code: String
    /// `error`, `warning` or `note`: the result's `level`.
    public var level: Severity
    /// The message shown for the result.
    public var message: String
    /// The file, as a path relative to the current folder or absolute: the artifact's URI.
    public var file: String
    /// The 1-based line where the finding starts.
    public var line: Int
    /// The 1-based column where it starts, in Unicode code points.
    public var column: Int
    /// How to fix it, when known: the help text of the code in `tool.driver.rules`.
    public var help: String?

    /// Creates a result.
    ///
    /// - Parameters:
    ///   - code: The diagnostic code.
    ///   - level: The severity.
    ///   - message: The message.
    ///   - file: The file's path.
    ///   - line: The 1-based start line (1 for a finding about the whole file).
    ///   - column: The 1-based start column in code points (1 for the whole file).
    ///   - help: How to fix it.
    public init(code: String, level: Severity, message: String, file: String, line: Int = 1, column: Int = 1, help: String? = nil) {
        self.code = code
        self.level = level
        self.message = message
        self.file = file
        self.line = max(1, line)
        self.column = max(1, column)
        self.help = help
    }

    /// A result for a diagnostic in `source`: its code, severity, message and help, at the start of
    /// its span (line 1, column 1 when it has none).
    ///
    /// - Parameters:
    ///   - diagnostic: The diagnostic.
    ///   - source: The file it is about (its name is the artifact's path).
    public init(_ diagnostic: Diagnostic, in source: SourceFile) {
        var line = 1
        var column = 1
        if let span = diagnostic.span {
            let offset = min(max(0, span.start), source.bytes.count)
            line = source.location(of: offset).line
            let lineStart = source.offset(ofLine: line)
            column = String(decoding: source.bytes[lineStart..<max(lineStart, offset)], as: UTF8.self).unicodeScalars.count + 1
        }
        self.init(code: diagnostic.code, level: diagnostic.severity, message: diagnostic.message,
                  file: source.name, line: line, column: column, help: diagnostic.help)
    }
}

/// A SARIF 2.1.0 log with one run of one tool.
///
/// `tool.driver.rules` lists each code once, in the order codes first appear, with its help text:
/// the text in ``ruleHelp`` for the code, else the first result's `help`, else its message. Each
/// result carries `ruleId`, `ruleIndex`, `level`, `message.text` and one `physicalLocation` (the
/// artifact's URI and a region with `startLine` and `startColumn`; columns count code points,
/// as the run's `columnKind` says).
public struct SARIFLog: Sendable {
    /// The tool's name (`tool.driver.name`).
    public var toolName: String
    /// Where the tool's codes are documented (`tool.driver.informationUri`), when known.
    public var informationURI: String?
    /// Help text per code, preferred over the results' own.
    public var ruleHelp: [String: String]
    /// The findings, in order.
    public var results: [SARIFResult]

    /// Creates a log.
    ///
    /// - Parameters:
    ///   - toolName: The tool's name.
    ///   - informationURI: Where its codes are documented.
    ///   - ruleHelp: Help text per code.
    ///   - results: The findings.
    public init(toolName: String, informationURI: String? = nil, ruleHelp: [String: String] = [:], results: [SARIFResult]) {
        self.toolName = toolName
        self.informationURI = informationURI
        self.ruleHelp = ruleHelp
        self.results = results
    }

    /// The codes of ``results`` in order of first appearance, each with its help text.
    public var rules: [(code: String, help: String)] {
        var seen: [String: Int] = [:]
        var out: [(code: String, help: String)] = []
        for result in results where seen[result.code] == nil {
            seen[result.code] = out.count
            let help = ruleHelp[result.code]
                ?? results.first(where: { $0.code == result.code && $0.help != nil })?.help
                ?? result.message
            out.append((result.code, help))
        }
        return out
    }

    /// The log as JSON text (two-space indented, a final line break).
    public func json() -> String {
        let rules = self.rules
        let index = Dictionary(uniqueKeysWithValues: rules.enumerated().map { ($1.code, $0) })
        var driver = ["\"name\": \(jsonString(toolName))"]
        if let informationURI { driver.append("\"informationUri\": \(jsonString(informationURI))") }
        let ruleObjects = rules.map { rule in
            "{\"id\": \(jsonString(rule.code)), \"shortDescription\": {\"text\": \(jsonString(rule.help))}, "
                + "\"help\": {\"text\": \(jsonString(rule.help))}}"
        }
        driver.append("\"rules\": [" + ruleObjects.map { "\n        " + $0 }.joined(separator: ",") + (ruleObjects.isEmpty ? "]" : "\n      ]"))
        let resultObjects = results.map { result in
            "{\"ruleId\": \(jsonString(result.code)), \"ruleIndex\": \(index[result.code] ?? 0), "
                + "\"level\": \(jsonString(Self.level(result.level))), \"message\": {\"text\": \(jsonString(result.message))}, "
                + "\"locations\": [{\"physicalLocation\": {\"artifactLocation\": {\"uri\": \(jsonString(Self.uri(result.file)))}, "
                + "\"region\": {\"startLine\": \(result.line), \"startColumn\": \(result.column)}}}]}"
        }
        return """
            {
              "$schema": "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
              "version": "2.1.0",
              "runs": [{
                "tool": {"driver": {
                  \(driver.joined(separator: ",\n      "))
                }},
                "columnKind": "unicodeCodePoints",
                "results": [\(resultObjects.map { "\n    " + $0 }.joined(separator: ","))\(resultObjects.isEmpty ? "" : "\n  ")]
              }]
            }

            """
    }

    /// SARIF's `level` for a severity.
    static func level(_ severity: Severity) -> String {
        switch severity {
        case .error: "error"
        case .warning: "warning"
        case .note: "note"
        }
    }

    /// A path as a URI reference (RFC 3986): unreserved characters and `/` kept, every other byte
    /// percent-encoded; an absolute path becomes a `file://` URI.
    static func uri(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return path.hasPrefix("/") ? "file://" + out : out
    }
}
