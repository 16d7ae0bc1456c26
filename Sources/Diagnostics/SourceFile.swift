/// A named source text with a line index, for turning byte spans into lines and columns.
public struct SourceFile: Sendable {
    /// The name shown in diagnostics (usually the path as the user gave it).
    public let name: String
    /// The full text.
    public let text: String
    /// The text's UTF-8 bytes, which spans index.
    public let bytes: [UInt8]
    private let lineStarts: [Int]

    /// Creates a source file and indexes its lines.
    public init(name: String, text: String) {
        self.name = name
        self.text = text
        self.bytes = Array(text.utf8)
        var starts = [0]
        for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
            starts.append(offset + 1)
        }
        self.lineStarts = starts
    }

    /// The 1-based line and character column of a byte offset (clamped to the text).
    public func location(of offset: Int) -> SourceLocation {
        let offset = min(max(0, offset), bytes.count)
        let lineIndex = lineIndex(containing: offset)
        let column = characterCount(from: lineStarts[lineIndex], to: offset) + 1
        return SourceLocation(line: lineIndex + 1, column: column)
    }

    /// The text of a 1-based line, without its line terminator.
    public func lineText(_ line: Int) -> String {
        guard line >= 1, line <= lineStarts.count else { return "" }
        let start = lineStarts[line - 1]
        var end = line < lineStarts.count ? lineStarts[line] - 1 : bytes.count
        if end > start, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        return String(decoding: bytes[start..<max(start, end)], as: UTF8.self)
    }

    /// The byte offset where a 1-based line begins (clamped).
    public func offset(ofLine line: Int) -> Int {
        lineStarts[min(max(line, 1), lineStarts.count) - 1]
    }

    private func lineIndex(containing offset: Int) -> Int {
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if lineStarts[mid] <= offset { low = mid } else { high = mid - 1 }
        }
        return low
    }

    private func characterCount(from start: Int, to end: Int) -> Int {
        guard end > start else { return 0 }
        return String(decoding: bytes[start..<end], as: UTF8.self).count
    }
}
