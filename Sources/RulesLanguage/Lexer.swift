// Lexer: turns rules source bytes into tokens on demand. The parser drives it, because a `/` in
// operand position starts a path literal and `match` patterns are scanned raw.
import Diagnostics

/// A token's kind and payload.
enum TokenKind: Equatable {
    case identifier(String)
    case int(Int64)
    case float(Double)
    case string(String)
    case bytes([UInt8])
    /// Punctuation or operator, e.g. `&&`, `{`, `=`.
    case symbol(String)
    /// Something that could not be lexed; a diagnostic was recorded.
    case invalid
    case end
}

/// One token and where it is.
struct Token {
    var kind: TokenKind
    var span: SourceSpan

    /// How the token reads in a diagnostic: `identifier `foo``, `` `{` ``, `end of file`.
    var described: String {
        switch kind {
        case .identifier(let name): "`\(name)`"
        case .int(let value): "`\(value)`"
        case .float(let value): "`\(value)`"
        case .string: "string literal"
        case .bytes: "bytes literal"
        case .symbol(let text): "`\(text)`"
        case .invalid: "invalid token"
        case .end: "end of file"
        }
    }
}

/// A pull lexer over UTF-8 bytes. `position` may be moved by the parser to re-lex.
struct Lexer {
    let bytes: [UInt8]
    var position = 0
    var diagnostics: [Diagnostic] = []

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    // MARK: - Bytes

    func byte(at offset: Int) -> UInt8? {
        offset >= 0 && offset < bytes.count ? bytes[offset] : nil
    }

    static func isIdentifierStart(_ b: UInt8) -> Bool {
        (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || b == 0x5F
    }

    static func isIdentifierPart(_ b: UInt8) -> Bool {
        isIdentifierStart(b) || isDigit(b)
    }

    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0x0C }

    /// Skips whitespace and comments; reports an unterminated block comment.
    mutating func skipTrivia() {
        while let b = byte(at: position) {
            if Lexer.isSpace(b) {
                position += 1
            } else if b == UInt8(ascii: "/"), byte(at: position + 1) == UInt8(ascii: "/") {
                while let c = byte(at: position), c != 0x0A { position += 1 }
            } else if b == UInt8(ascii: "/"), byte(at: position + 1) == UInt8(ascii: "*") {
                let start = position
                position += 2
                var closed = false
                while position < bytes.count {
                    if bytes[position] == UInt8(ascii: "*"), byte(at: position + 1) == UInt8(ascii: "/") {
                        position += 2
                        closed = true
                        break
                    }
                    position += 1
                }
                if !closed {
                    report(RulesLanguageCodes.unterminatedComment.id, "unterminated block comment", SourceSpan(start: start, end: start + 2), help: "close the comment with `*/`")
                }
            } else {
                return
            }
        }
    }

    mutating func report(_ code: String, _ message: String, _ span: SourceSpan, help: String? = nil) {
        diagnostics.append(Diagnostic(code: code, message: message, span: span, help: help))
    }

    // MARK: - Tokens

    /// Lexes the next token after trivia.
    mutating func next() -> Token {
        skipTrivia()
        let start = position
        guard let b = byte(at: position) else { return Token(kind: .end, span: SourceSpan(start: start, end: start)) }
        if b == UInt8(ascii: "b"), let q = byte(at: position + 1), q == 0x27 || q == 0x22 {
            position += 1
            return lexString(start: start, asBytes: true)
        }
        if Lexer.isIdentifierStart(b) {
            while let c = byte(at: position), Lexer.isIdentifierPart(c) { position += 1 }
            return Token(kind: .identifier(text(start, position)), span: SourceSpan(start: start, end: position))
        }
        if Lexer.isDigit(b) { return lexNumber(start: start) }
        if b == 0x27 || b == 0x22 { return lexString(start: start, asBytes: false) }
        if let symbol = symbol(at: position) {
            position += symbol.utf8.count
            return Token(kind: .symbol(symbol), span: SourceSpan(start: start, end: position))
        }
        // One whole character (UTF-8 sequence) is reported as unexpected.
        position += 1
        while let c = byte(at: position), c & 0xC0 == 0x80 { position += 1 }
        let shown = String(decoding: bytes[start..<position], as: UTF8.self)
        let help: String? = switch shown {
        case "&": "use `&&` for logical and"
        case "|": "use `||` for logical or"
        case "#": "comments start with `//`"
        default: nil
        }
        report(RulesLanguageCodes.unexpectedCharacter.id, "unexpected character `\(shown)`", SourceSpan(start: start, end: position), help: help)
        return Token(kind: .invalid, span: SourceSpan(start: start, end: position))
    }

    /// The punctuation or operator at `offset`, longest match first (`&&` before `&`).
    func symbol(at offset: Int) -> String? {
        guard let b = byte(at: offset) else { return nil }
        let next = byte(at: offset + 1)
        switch b {
        case UInt8(ascii: "&"): return next == UInt8(ascii: "&") ? "&&" : nil
        case UInt8(ascii: "|"): return next == UInt8(ascii: "|") ? "||" : nil
        case UInt8(ascii: "="): return next == UInt8(ascii: "=") ? "==" : "="
        case UInt8(ascii: "!"): return next == UInt8(ascii: "=") ? "!=" : "!"
        case UInt8(ascii: "<"): return next == UInt8(ascii: "=") ? "<=" : "<"
        case UInt8(ascii: ">"): return next == UInt8(ascii: "=") ? ">=" : ">"
        case UInt8(ascii: "$"): return next == UInt8(ascii: "(") ? "$(" : "$"
        case UInt8(ascii: "{"): return "{"
        case UInt8(ascii: "}"): return "}"
        case UInt8(ascii: "("): return "("
        case UInt8(ascii: ")"): return ")"
        case UInt8(ascii: "["): return "["
        case UInt8(ascii: "]"): return "]"
        case UInt8(ascii: ";"): return ";"
        case UInt8(ascii: ","): return ","
        case UInt8(ascii: "."): return "."
        case UInt8(ascii: ":"): return ":"
        case UInt8(ascii: "?"): return "?"
        case UInt8(ascii: "+"): return "+"
        case UInt8(ascii: "-"): return "-"
        case UInt8(ascii: "*"): return "*"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "%"): return "%"
        default: return nil
        }
    }

    func matches(_ symbol: String, at offset: Int) -> Bool {
        var i = offset
        for s in symbol.utf8 {
            guard byte(at: i) == s else { return false }
            i += 1
        }
        return true
    }

    func text(_ start: Int, _ end: Int) -> String {
        String(decoding: bytes[start..<end], as: UTF8.self)
    }

    private mutating func lexNumber(start: Int) -> Token {
        while let c = byte(at: position), Lexer.isDigit(c) { position += 1 }
        var isFloat = false
        if byte(at: position) == UInt8(ascii: "."), let d = byte(at: position + 1), Lexer.isDigit(d) {
            isFloat = true
            position += 1
            while let c = byte(at: position), Lexer.isDigit(c) { position += 1 }
        }
        if let c = byte(at: position), c == UInt8(ascii: "e") || c == UInt8(ascii: "E") || c == UInt8(ascii: "x") || c == UInt8(ascii: "X") {
            while let c = byte(at: position), Lexer.isIdentifierPart(c) || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") && (byte(at: position - 1) == UInt8(ascii: "e") || byte(at: position - 1) == UInt8(ascii: "E")) {
                position += 1
            }
            let span = SourceSpan(start: start, end: position)
            report(RulesLanguageCodes.unsupportedNumber.id, "unsupported number literal `\(text(start, position))`", span,
                   help: "write integers in decimal and floats as `1.5`; exponent and hex forms are not supported")
            return Token(kind: .invalid, span: span)
        }
        let literal = text(start, position)
        let span = SourceSpan(start: start, end: position)
        if isFloat {
            return Token(kind: .float(Double(literal) ?? 0), span: span)
        }
        guard let value = Int64(literal) else {
            report(RulesLanguageCodes.integerOutOfRange.id, "integer literal `\(literal)` is out of range", span,
                   help: "integers are signed 64-bit (at most 9223372036854775807)")
            return Token(kind: .invalid, span: span)
        }
        return Token(kind: .int(value), span: span)
    }

    private mutating func lexString(start: Int, asBytes: Bool) -> Token {
        let quote = bytes[position]
        position += 1
        var out: [UInt8] = []
        while true {
            guard let c = byte(at: position), c != 0x0A else {
                let span = SourceSpan(start: start, end: position)
                report(RulesLanguageCodes.unterminatedString.id, "unterminated string literal", span, help: "add a closing `\(Character(Unicode.Scalar(quote)))`")
                return Token(kind: .invalid, span: span)
            }
            position += 1
            if c == quote { break }
            if c != UInt8(ascii: "\\") {
                out.append(c)
                continue
            }
            let escapeStart = position - 1
            guard let e = byte(at: position) else { continue }
            position += 1
            switch e {
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "a"): out.append(0x07)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "v"): out.append(0x0B)
            case UInt8(ascii: "\\"), 0x27, 0x22, UInt8(ascii: "`"), UInt8(ascii: "?"): out.append(e)
            case UInt8(ascii: "x"), UInt8(ascii: "u"), UInt8(ascii: "U"):
                let count = e == UInt8(ascii: "x") ? 2 : (e == UInt8(ascii: "u") ? 4 : 8)
                guard let value = hexValue(count: count) else {
                    report(RulesLanguageCodes.invalidEscape.id, "invalid escape sequence", SourceSpan(start: escapeStart, end: position),
                           help: "`\\\(Character(Unicode.Scalar(e)))` needs \(count) hex digits")
                    continue
                }
                if e == UInt8(ascii: "x") && asBytes {
                    out.append(UInt8(value))
                } else if let scalar = Unicode.Scalar(value) {
                    out += Array(String(Character(scalar)).utf8)
                } else {
                    report(RulesLanguageCodes.invalidEscape.id, "invalid escape sequence", SourceSpan(start: escapeStart, end: position),
                           help: "the code point is not a Unicode scalar value")
                }
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                var value = UInt32(e - 0x30)
                var digits = 1
                while digits < 3, let d = byte(at: position), d >= 0x30 && d <= 0x37 {
                    value = value * 8 + UInt32(d - 0x30)
                    position += 1
                    digits += 1
                }
                if digits != 3 || value > 255 {
                    report(RulesLanguageCodes.invalidEscape.id, "invalid escape sequence", SourceSpan(start: escapeStart, end: position),
                           help: "octal escapes have exactly three digits up to `\\377`")
                } else if asBytes {
                    out.append(UInt8(value))
                } else if let scalar = Unicode.Scalar(value) {
                    out += Array(String(Character(scalar)).utf8)
                }
            default:
                report(RulesLanguageCodes.invalidEscape.id, "invalid escape sequence", SourceSpan(start: escapeStart, end: position),
                       help: "use `\\\\` for a literal backslash")
            }
        }
        let span = SourceSpan(start: start, end: position)
        if asBytes { return Token(kind: .bytes(out), span: span) }
        return Token(kind: .string(String(decoding: out, as: UTF8.self)), span: span)
    }

    private mutating func hexValue(count: Int) -> UInt32? {
        var value: UInt32 = 0
        for _ in 0..<count {
            guard let c = byte(at: position) else { return nil }
            let digit: UInt32
            switch c {
            case 0x30...0x39: digit = UInt32(c - 0x30)
            case 0x41...0x46: digit = UInt32(c - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(c - 0x61 + 10)
            default: return nil
            }
            value = value &* 16 &+ digit
            position += 1
        }
        return value
    }

    // MARK: - Raw path segments

    /// Scans a literal path segment starting at `position` (letters, digits and URL-safe
    /// punctuation; balanced parentheses so `(default)` is one segment). Returns nil if empty.
    /// In expressions `stopAtColon` ends a path literal at `:` (ranges, ternaries).
    mutating func scanLiteralSegment(allowParentheses: Bool, stopAtColon: Bool = false) -> String? {
        let start = position
        var depth = 0
        while let c = byte(at: position) {
            if c == UInt8(ascii: "(") && allowParentheses {
                depth += 1
            } else if c == UInt8(ascii: ")") && allowParentheses {
                if depth == 0 { break }
                depth -= 1
            } else if !Lexer.isSegmentByte(c) || (stopAtColon && c == UInt8(ascii: ":")) {
                break
            }
            position += 1
        }
        return position > start ? text(start, position) : nil
    }

    /// Bytes allowed in a literal path segment: anything but whitespace, separators and brackets.
    static func isSegmentByte(_ c: UInt8) -> Bool {
        if isSpace(c) { return false }
        switch c {
        case UInt8(ascii: "/"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "("), UInt8(ascii: ")"),
             UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "$"),
             0x27, 0x22, UInt8(ascii: "?"), UInt8(ascii: "&"), UInt8(ascii: "|"), UInt8(ascii: "<"), UInt8(ascii: ">"):
            return false
        default:
            return c >= 0x20 && c != 0x7F
        }
    }
}
