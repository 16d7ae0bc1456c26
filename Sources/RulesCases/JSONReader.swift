// MARK: - JSON reader

/// A syntax error in a JSON or YAML document, with its 1-based line and column (characters).
public struct DocumentSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, terse and lowercase.
    public var message: String
    /// 1-based line of the problem.
    public var line: Int
    /// 1-based column of the problem, in characters.
    public var column: Int

    /// Creates an error.
    public init(message: String, line: Int, column: Int) {
        self.message = message
        self.line = line
        self.column = column
    }

    /// `line:column: message`.
    public var description: String { "\(line):\(column): \(message)" }
}

/// Reads JSON (RFC 8259) into a ``DocumentTree``.
///
/// Written for case files rather than using Foundation so that `2` reads as an int and `2.0` as a
/// float, so that duplicate keys are an error, and so that errors carry a line and column.
/// Nesting is limited to ``maxDepth`` levels so hostile input cannot overflow the stack.
public struct JSONReader {
    /// Deepest nesting of lists and maps accepted.
    public static let maxDepth = 128

    private let bytes: [UInt8]
    private var offset = 0
    /// Where the value being read is, and the place to find (``location(of:in:)``).
    private var trail: [DocumentStep] = []
    private var target: [DocumentStep]?
    private var found: Int?

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Parses one JSON value (surrounded by optional white space).
    ///
    /// - Parameter text: the whole document.
    /// - Returns: the document tree.
    /// - Throws: ``DocumentSyntaxError`` at the first problem.
    public static func read(_ text: String) throws(DocumentSyntaxError) -> DocumentTree {
        var reader = JSONReader(bytes: Array(text.utf8))
        reader.skipWhitespace()
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.offset == reader.bytes.count else {
            throw reader.error("unexpected text after the JSON value")
        }
        return value
    }

    /// The 1-based line and column of the value at `path` (of its key, for a map entry), or nil
    /// when the text has none there or does not parse.
    static func location(of path: [DocumentStep], in text: String) -> (line: Int, column: Int)? {
        var reader = JSONReader(bytes: Array(text.utf8))
        reader.target = path
        reader.skipWhitespace()
        guard (try? reader.value(depth: 0)) != nil, let found = reader.found else { return nil }
        let place = reader.error("", at: found)
        return (place.line, place.column)
    }

    private mutating func enter(_ step: DocumentStep, at position: Int) {
        trail.append(step)
        if found == nil, let target, trail == target { found = position }
    }

    // MARK: Values

    private mutating func value(depth: Int) throws(DocumentSyntaxError) -> DocumentTree {
        guard depth < Self.maxDepth else { throw error("lists and maps are nested more than \(Self.maxDepth) levels deep") }
        guard let byte = peek() else { throw error("unexpected end of input, expected a value") }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        case UInt8(ascii: "t"): try keyword("true"); return .bool(true)
        case UInt8(ascii: "f"): try keyword("false"); return .bool(false)
        case UInt8(ascii: "n"): try keyword("null"); return .null
        default: throw error("unexpected character \(describe(byte)), expected a value")
        }
    }

    private mutating func object(depth: Int) throws(DocumentSyntaxError) -> DocumentTree {
        offset += 1
        var entries: [(key: String, value: DocumentTree)] = []
        var keys = Set<String>()
        skipWhitespace()
        if peek() == UInt8(ascii: "}") { offset += 1; return .map(entries) }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw error("expected a string key in quotes") }
            let keyStart = offset
            let key = try string()
            guard keys.insert(key).inserted else {
                throw error("duplicate key `\(key)`", at: keyStart)
            }
            skipWhitespace()
            try expect(":", "after a map key")
            skipWhitespace()
            if target != nil { enter(.key(key), at: keyStart) }
            entries.append((key, try value(depth: depth + 1)))
            if target != nil { trail.removeLast() }
            skipWhitespace()
            if peek() == UInt8(ascii: ",") { offset += 1; continue }
            try expect("}", "or `,` after a map entry")
            return .map(entries)
        }
    }

    private mutating func array(depth: Int) throws(DocumentSyntaxError) -> DocumentTree {
        offset += 1
        var items: [DocumentTree] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") { offset += 1; return .list(items) }
        while true {
            skipWhitespace()
            if target != nil { enter(.index(items.count), at: offset) }
            items.append(try value(depth: depth + 1))
            if target != nil { trail.removeLast() }
            skipWhitespace()
            if peek() == UInt8(ascii: ",") { offset += 1; continue }
            try expect("]", "or `,` after a list item")
            return .list(items)
        }
    }

    private mutating func number() throws(DocumentSyntaxError) -> DocumentTree {
        let start = offset
        var isInteger = true
        if peek() == UInt8(ascii: "-") { offset += 1 }
        guard let first = peek(), isDigit(first) else { throw error("expected a digit") }
        if first == UInt8(ascii: "0") {
            offset += 1
            if let next = peek(), isDigit(next) { throw error("leading zeros are not allowed in numbers", at: start) }
        } else {
            skipDigits()
        }
        if peek() == UInt8(ascii: ".") {
            isInteger = false
            offset += 1
            guard let digit = peek(), isDigit(digit) else { throw error("expected a digit after `.`") }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            isInteger = false
            offset += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { offset += 1 }
            guard let digit = peek(), isDigit(digit) else { throw error("expected a digit in the exponent") }
            skipDigits()
        }
        let text = String(decoding: bytes[start..<offset], as: UTF8.self)
        if isInteger {
            guard let value = Int64(text) else {
                throw error("integer `\(text)` does not fit in 64 bits", at: start)
            }
            return .int(value)
        }
        guard let value = Double(text), value.isFinite else {
            throw error("number `\(text)` is out of range", at: start)
        }
        return .float(value)
    }

    private mutating func string() throws(DocumentSyntaxError) -> String {
        let start = offset
        offset += 1
        var scalars = String.UnicodeScalarView()
        var run = offset  // start of the current run of unescaped bytes
        func flush(_ reader: JSONReader, upTo end: Int) {
            scalars.append(contentsOf: String(decoding: reader.bytes[run..<end], as: UTF8.self).unicodeScalars)
        }
        while true {
            guard let byte = peek() else { throw error("unterminated string", at: start) }
            switch byte {
            case UInt8(ascii: "\""):
                flush(self, upTo: offset)
                offset += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                flush(self, upTo: offset)
                offset += 1
                scalars.append(try escape())
                run = offset
            case 0..<0x20:
                throw error("control character \(describe(byte)) in a string; escape it")
            default:
                offset += 1
            }
        }
    }

    private mutating func escape() throws(DocumentSyntaxError) -> Unicode.Scalar {
        guard let byte = peek() else { throw error("unterminated escape") }
        offset += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let escapeStart = offset - 2
            let high = try hex4()
            if (0xD800...0xDBFF).contains(high) {
                guard peek() == UInt8(ascii: "\\"), offset + 1 < bytes.count, bytes[offset + 1] == UInt8(ascii: "u") else {
                    throw error("unpaired surrogate in `\\u` escape", at: escapeStart)
                }
                offset += 2
                let low = try hex4()
                guard (0xDC00...0xDFFF).contains(low),
                      let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) else {
                    throw error("unpaired surrogate in `\\u` escape", at: escapeStart)
                }
                return scalar
            }
            guard let scalar = Unicode.Scalar(high) else {
                throw error("unpaired surrogate in `\\u` escape", at: escapeStart)
            }
            return scalar
        default:
            throw error("unknown escape `\\\(describeRaw(byte))`", at: offset - 2)
        }
    }

    private mutating func hex4() throws(DocumentSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = peek(), let digit = hexValue(byte) else { throw error("expected 4 hex digits after `\\u`") }
            value = value << 4 | digit
            offset += 1
        }
        return value
    }

    // MARK: Helpers

    private func peek() -> UInt8? { offset < bytes.count ? bytes[offset] : nil }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { offset += 1 }
    }

    private mutating func skipDigits() {
        while let byte = peek(), isDigit(byte) { offset += 1 }
    }

    private mutating func keyword(_ word: String) throws(DocumentSyntaxError) {
        let utf8 = Array(word.utf8)
        guard offset + utf8.count <= bytes.count, Array(bytes[offset..<offset + utf8.count]) == utf8 else {
            throw error("unexpected text, expected a value")
        }
        offset += utf8.count
    }

    private mutating func expect(_ character: Character, _ context: String) throws(DocumentSyntaxError) {
        guard let ascii = character.asciiValue, peek() == ascii else {
            let found = peek().map(describe) ?? "end of input"
            throw error("expected `\(character)` \(context), found \(found)")
        }
        offset += 1
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    private func describeRaw(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "U+" + String(byte, radix: 16, uppercase: true)
    }

    private func describe(_ byte: UInt8) -> String {
        byte >= 0x21 && byte < 0x7F ? "`\(UnicodeScalar(byte))`" : "byte 0x" + String(byte, radix: 16, uppercase: true)
    }

    private func error(_ message: String, at position: Int? = nil) -> DocumentSyntaxError {
        let position = min(position ?? offset, bytes.count)
        var line = 1
        var lineStart = 0
        for index in 0..<position where bytes[index] == 0x0A {
            line += 1
            lineStart = index + 1
        }
        let column = String(decoding: bytes[lineStart..<position], as: UTF8.self).count + 1
        return DocumentSyntaxError(message: message, line: line, column: column)
    }
}
