// CoverageReport: the JSON layout shared by the coverage reports of every rules language: a
// header, then sections of one entry per line, with spans as 1-based lines and columns.

extension SourceFile {
    /// A span's position as coverage entries show it:
    /// `"line": 3, "column": 5, "endLine": 3, "endColumn": 18`.
    public func coverageFields(_ span: SourceSpan) -> String {
        let start = location(of: span.start)
        let end = location(of: span.end)
        return "\"line\": \(start.line), \"column\": \(start.column), \"endLine\": \(end.line), \"endColumn\": \(end.column)"
    }
}

/// Assembles a coverage report: `{<header>,\n "<section>": [\n  <entry>,\n  …],\n …}` and a
/// final line break.
///
/// - Parameters:
///   - header: the report's leading members, e.g. `"file": "a.rules", "requests": 3`.
///   - sections: each section's name and its entries (JSON objects), in order.
/// - Returns: the report text.
public func coverageReport(header: String, sections: [(name: String, entries: [String])]) -> String {
    "{" + header + sections.map { ",\n \(jsonString($0.name)): [\n  " + $0.entries.joined(separator: ",\n  ") + "]" }.joined() + "}\n"
}
