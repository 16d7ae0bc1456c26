// LenientJSON: the JSON dialect of `database.rules.json` (and of database case files): RFC 8259
// plus `//` and `/* */` comments, trailing commas, and raw line breaks inside strings, as the
// Realtime Database server accepts them. Every value keeps its UTF-8 byte span; every string keeps
// the source offset of each decoded byte, so expression diagnostics point into the file.
import Diagnostics

/// A parsed JSON value with its source span.
public struct JSONNode: Sendable {
    /// What the value is.
    public indirect enum Value: Sendable {
        case null
        case bool(Bool)
        case number(Double)
        case string(JSONString)
        case array([JSONNode])
        /// Members in file order; keys are unique (duplicates are refused by the reader).
        case object([JSONMember])
    }

    /// The value.
    public var value: Value
    /// The value's bytes in the source.
    public var span: SourceSpan

    /// The member named `key` of an object, or nil.
    public subscript(key: String) -> JSONNode? {
        guard case .object(let members) = value else { return nil }
        return members.first { $0.key.text == key }?.value
    }

    /// A short description of the value's kind for messages (`a string`, `an object`, …).
    public var kindDescription: String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// An object member.
public struct JSONMember: Sendable {
    /// The key.
    public var key: JSONString
    /// The value.
    public var value: JSONNode
}

/// A decoded JSON string and where each of its UTF-8 bytes came from.
public struct JSONString: Sendable {
    /// The decoded text.
    public var text: String
    /// The span of the whole literal, quotes included.
    public var span: SourceSpan
    /// `offsets[i]` is the source offset of decoded byte `i`; one extra entry for the end.
    public var offsets: [Int]

    /// The source span of decoded bytes `range` (clamped).
    public func sourceSpan(of start: Int, _ end: Int) -> SourceSpan {
        guard !offsets.isEmpty else { return span }
        let s = offsets[min(max(0, start), offsets.count - 1)]
        let e = offsets[min(max(0, end), offsets.count - 1)]
        return SourceSpan(start: s, end: max(e, s + (end > start ? 1 : 0)))
    }
}

/// A JSON syntax problem, with the offending span.
public struct JSONSyntaxError: Error, Sendable {
    /// `RD1001`, `RD1002` or `RD5003`.
    public var code: String
    /// What is wrong, terse and lowercase.
    public var message: String
    /// Where.
    public var span: SourceSpan
    /// How to fix it.
    public var help: String?

    /// The problem as a diagnostic.
    public var diagnostic: Diagnostic {
        Diagnostic(code: code, severity: .error, message: message, span: span, help: help)
    }
}

/// Reads lenient JSON. Nesting is bounded by `maxDepth`; nothing recurses without a bound.
public struct LenientJSONReader {
    private let bytes: [UInt8]
    private var index = 0
    private let maxDepth: Int

    /// Parses `source` as one JSON value.
    ///
    /// - Parameters:
    ///   - source: the text; spans are offsets into its UTF-8 bytes.
    ///   - maxDepth: most nested arrays and objects (``DatabaseLimits/maxNestingDepth``).
    /// - Throws: ``JSONSyntaxError`` at the first problem.
    public static func parse(_ source: SourceFile, maxDepth: Int = 128) throws(JSONSyntaxError) -> JSONNode {
        try parse(bytes: source.bytes, maxDepth: maxDepth)
    }

    /// Parses UTF-8 bytes as one JSON value (see ``parse(_:maxDepth:)``).
    public static func parse(bytes: [UInt8], maxDepth: Int = 128) throws(JSONSyntaxError) -> JSONNode {
        var reader = LenientJSONReader(bytes: bytes, maxDepth: maxDepth)
        try reader.skipTrivia()
        let value = try reader.value(depth: 0)
        try reader.skipTrivia()
        if reader.index < bytes.count {
            throw reader.fail("unexpected text after the JSON value", at: reader.index)
        }
        return value
    }

    private init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    private func fail(_ message: String, at offset: Int, help: String? = nil, code: String = DatabaseCode.jsonSyntax) -> JSONSyntaxError {
        let end = offset < bytes.count ? offset + utf8Length(bytes[offset]) : offset
        return JSONSyntaxError(code: code, message: message, span: SourceSpan(start: offset, end: end), help: help)
    }

    private func utf8Length(_ lead: UInt8) -> Int {
        switch lead {
        case 0xF0...: 4
        case 0xE0...: 3
        case 0xC0...: 2
        default: 1
        }
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipTrivia() throws(JSONSyntaxError) {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "/"):
                while index < bytes.count, bytes[index] != 0x0A { index += 1 }
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                let start = index
                index += 2
                while true {
                    guard index + 1 < bytes.count else {
                        index = bytes.count
                        throw fail("unterminated block comment", at: start, help: "close it with `*/`")
                    }
                    if bytes[index] == UInt8(ascii: "*"), bytes[index + 1] == UInt8(ascii: "/") { index += 2; break }
                    index += 1
                }
            default: return
            }
        }
    }

    private mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONNode {
        guard let byte = current else { throw fail("unexpected end of file, expected a value", at: index) }
        let start = index
        switch byte {
        case UInt8(ascii: "{"):
            guard depth < maxDepth else {
                throw fail("nested more than \(maxDepth) levels deep", at: start, code: DatabaseCode.nestingTooDeep)
            }
            return try object(depth: depth + 1)
        case UInt8(ascii: "["):
            guard depth < maxDepth else {
                throw fail("nested more than \(maxDepth) levels deep", at: start, code: DatabaseCode.nestingTooDeep)
            }
            return try array(depth: depth + 1)
        case UInt8(ascii: "\""):
            let string = try string()
            return JSONNode(value: .string(string), span: string.span)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try number()
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            for (word, value) in [("true", JSONNode.Value.bool(true)), ("false", .bool(false)), ("null", .null)] where matchWord(word) {
                index += word.utf8.count
                return JSONNode(value: value, span: SourceSpan(start: start, end: index))
            }
            throw fail("unexpected character, expected a value", at: start)
        default:
            throw fail("unexpected character, expected a value", at: start,
                       help: byte == UInt8(ascii: "'") ? "JSON strings use double quotes" : nil)
        }
    }

    private func matchWord(_ word: String) -> Bool {
        let w = Array(word.utf8)
        guard index + w.count <= bytes.count, Array(bytes[index..<index + w.count]) == w else { return false }
        if index + w.count < bytes.count {
            let next = bytes[index + w.count]
            if (next >= 0x61 && next <= 0x7A) || (next >= 0x41 && next <= 0x5A) || (next >= 0x30 && next <= 0x39) || next == 0x5F { return false }
        }
        return true
    }

    private mutating func object(depth: Int) throws(JSONSyntaxError) -> JSONNode {
        let start = index
        index += 1
        var members: [JSONMember] = []
        var seen = Set<String>()
        while true {
            try skipTrivia()
            guard let byte = current else { throw fail("unexpected end of file in an object", at: start, help: "close it with `}`") }
            if byte == UInt8(ascii: "}") { index += 1; break }
            guard byte == UInt8(ascii: "\"") else {
                throw fail("expected a member name in double quotes or `}`", at: index)
            }
            let key = try string()
            guard seen.insert(key.text).inserted else {
                throw JSONSyntaxError(code: DatabaseCode.duplicateKey, message: "duplicate key `\(key.text)`", span: key.span,
                                      help: "each key may appear once in an object")
            }
            try skipTrivia()
            guard current == UInt8(ascii: ":") else { throw fail("expected `:` after the member name", at: index) }
            index += 1
            try skipTrivia()
            let value = try value(depth: depth)
            members.append(JSONMember(key: key, value: value))
            try skipTrivia()
            if current == UInt8(ascii: ",") { index += 1; continue }
            if current == UInt8(ascii: "}") { index += 1; break }
            throw fail(current == nil ? "unexpected end of file in an object" : "expected `,` or `}` after a member", at: index)
        }
        return JSONNode(value: .object(members), span: SourceSpan(start: start, end: index))
    }

    private mutating func array(depth: Int) throws(JSONSyntaxError) -> JSONNode {
        let start = index
        index += 1
        var items: [JSONNode] = []
        while true {
            try skipTrivia()
            guard let byte = current else { throw fail("unexpected end of file in an array", at: start, help: "close it with `]`") }
            if byte == UInt8(ascii: "]") { index += 1; break }
            items.append(try value(depth: depth))
            try skipTrivia()
            if current == UInt8(ascii: ",") { index += 1; continue }
            if current == UInt8(ascii: "]") { index += 1; break }
            throw fail(current == nil ? "unexpected end of file in an array" : "expected `,` or `]` after an element", at: index)
        }
        return JSONNode(value: .array(items), span: SourceSpan(start: start, end: index))
    }

    private mutating func number() throws(JSONSyntaxError) -> JSONNode {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        func digits(_ reader: inout LenientJSONReader) -> Int {
            let s = reader.index
            while let b = reader.current, b >= 0x30, b <= 0x39 { reader.index += 1 }
            return reader.index - s
        }
        guard digits(&self) > 0 else { throw fail("expected digits in a number", at: index) }
        if current == UInt8(ascii: ".") {
            index += 1
            guard digits(&self) > 0 else { throw fail("expected digits after `.`", at: index) }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard digits(&self) > 0 else { throw fail("expected digits in the exponent", at: index) }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw JSONSyntaxError(code: DatabaseCode.jsonSyntax, message: "number `\(text)` is out of range",
                                  span: SourceSpan(start: start, end: index))
        }
        return JSONNode(value: .number(value), span: SourceSpan(start: start, end: index))
    }

    private mutating func string() throws(JSONSyntaxError) -> JSONString {
        let start = index
        index += 1
        var out: [UInt8] = []
        var offsets: [Int] = []
        while true {
            guard let byte = current else {
                throw fail("unterminated string", at: start, help: "add a closing `\"`")
            }
            if byte == UInt8(ascii: "\"") { index += 1; break }
            if byte == UInt8(ascii: "\\") {
                let escapeStart = index
                index += 1
                guard let e = current else { throw fail("unterminated string", at: start, help: "add a closing `\"`") }
                index += 1
                var scalar: UInt32
                switch e {
                case UInt8(ascii: "\""): scalar = 0x22
                case UInt8(ascii: "\\"): scalar = 0x5C
                case UInt8(ascii: "/"): scalar = 0x2F
                case UInt8(ascii: "b"): scalar = 0x08
                case UInt8(ascii: "f"): scalar = 0x0C
                case UInt8(ascii: "n"): scalar = 0x0A
                case UInt8(ascii: "r"): scalar = 0x0D
                case UInt8(ascii: "t"): scalar = 0x09
                case UInt8(ascii: "u"):
                    scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar), index + 1 < bytes.count,
                       bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                        let save = index
                        index += 2
                        let low = try hex4()
                        if (0xDC00...0xDFFF).contains(low) {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            index = save
                        }
                    }
                    if (0xD800...0xDFFF).contains(scalar) {
                        throw fail("lone surrogate `\\u\(String(scalar, radix: 16, uppercase: true))` in a string", at: escapeStart)
                    }
                default:
                    throw fail("invalid escape `\\\(String(decoding: [e], as: UTF8.self))` in a string", at: escapeStart,
                               help: "JSON escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX; write a backslash as `\\\\`")
                }
                let encoded = Array(String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8)
                for b in encoded { out.append(b); offsets.append(escapeStart) }
                continue
            }
            if byte < 0x20, byte != 0x0A, byte != 0x0D, byte != 0x09 {
                throw fail("control character U+\(hexByte(byte)) in a string", at: index, help: "escape it")
            }
            out.append(byte)
            offsets.append(index)
            index += 1
        }
        offsets.append(index - 1)
        guard let text = String(validating: out, as: UTF8.self) else {
            throw fail("a string is not valid UTF-8", at: start)
        }
        return JSONString(text: text, span: SourceSpan(start: start, end: index), offsets: offsets)
    }

    private func hexByte(_ byte: UInt8) -> String {
        let hex = String(byte, radix: 16, uppercase: true)
        return String(repeating: "0", count: 4 - hex.count) + hex
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("expected four hex digits after `\\u`", at: index) }
        var value: UInt32 = 0
        for offset in 0..<4 {
            let b = bytes[index + offset]
            let digit: UInt32
            switch b {
            case 0x30...0x39: digit = UInt32(b - 0x30)
            case 0x41...0x46: digit = UInt32(b - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(b - 0x61 + 10)
            default: throw fail("expected four hex digits after `\\u`", at: index + offset)
            }
            value = value * 16 + digit
        }
        index += 4
        return value
    }
}
