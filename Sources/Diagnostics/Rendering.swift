// MARK: - Human rendering

extension Diagnostic {
    /// Renders like a compiler: `file:line:col: error[CODE]: message`, the source line, a caret
    /// under the span, and `help:` when there is help.
    public func rendered(in file: SourceFile?) -> String {
        var out = ""
        let header = "\(severity.rawValue)[\(code)]: \(message)"
        guard let file else { return help.map { "\(header)\n  help: \($0)" } ?? header }
        guard let span else {
            out = "\(file.name): \(header)"
            if let help { out += "\n  help: \(help)" }
            return out
        }
        let start = file.location(of: span.start)
        out = "\(file.name):\(start): \(header)\n"
        let line = file.lineText(start.line)
        let gutter = String(start.line)
        let pad = String(repeating: " ", count: gutter.count)
        out += "\(pad) |\n\(gutter) | \(line)\n"
        let end = file.location(of: span.end)
        let width = end.line == start.line ? max(1, end.column - start.column) : max(1, line.count - start.column + 1)
        let indent = String(line.prefix(start.column - 1).map { $0 == "\t" ? "\t" : " " })
        out += "\(pad) | \(indent)\(String(repeating: "^", count: width))"
        if let help { out += "\n\(pad) = help: \(help)" }
        return out
    }
}

/// Renders a list of diagnostics for people, capping the count and saying how many were cut.
public func renderDiagnostics(_ diagnostics: [Diagnostic], in file: SourceFile?, limit: Int = 50) -> String {
    var parts = diagnostics.prefix(limit).map { $0.rendered(in: file) }
    if diagnostics.count > limit {
        parts.append("note: \(diagnostics.count - limit) more diagnostics were truncated")
    }
    return parts.joined(separator: "\n\n")
}

// MARK: - JSON rendering

extension Diagnostic {
    /// A JSON object: `{"code", "severity", "message", "file", "line", "column", "endLine",
    /// "endColumn", "help"}`; location keys are omitted when unknown.
    public func json(in file: SourceFile?) -> String {
        var fields: [(String, String)] = [
            ("code", jsonString(code)),
            ("severity", jsonString(severity.rawValue)),
            ("message", jsonString(message)),
        ]
        if let file { fields.append(("file", jsonString(file.name))) }
        if let file, let span {
            let start = file.location(of: span.start)
            let end = file.location(of: span.end)
            fields += [("line", "\(start.line)"), ("column", "\(start.column)"),
                       ("endLine", "\(end.line)"), ("endColumn", "\(end.column)")]
        }
        if let help { fields.append(("help", jsonString(help))) }
        return "{" + fields.map { "\(jsonString($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
    }
}

/// Encodes a string as a JSON string literal (RFC 8259), escaping quotes, backslashes and
/// every control character.
public func jsonString(_ value: String) -> String {
    var out = "\""
    out.reserveCapacity(value.utf8.count + 2)
    for scalar in value.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case _ where scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x2028 || scalar.value == 0x2029:
            let hex = String(scalar.value, radix: 16)
            out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}
