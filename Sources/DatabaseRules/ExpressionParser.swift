// ExpressionParser: lexer and recursive-descent parser for rule expressions (reference §2.1–2.3).
// Depth is bounded by `maxExpressionDepth`; unsupported JavaScript is refused with its own code.
import Diagnostics

/// A problem found while parsing or checking one expression; the span is in expression bytes.
public struct ExpressionProblem: Error, Sendable, Hashable {
    /// Stable code.
    public var code: String
    /// Terse message.
    public var message: String
    /// Bytes of the expression string.
    public var span: SourceSpan
    /// How to fix it.
    public var help: String?
}

struct Token: Sendable {
    enum Kind: Sendable, Equatable {
        case number(Double), string(String), regex(String, String), identifier(String), punct(String), end
    }
    var kind: Kind
    var span: SourceSpan
}

/// Parses one expression string into an ``DatabaseExpression``.
public enum ExpressionParser {
    /// Parses `text`.
    ///
    /// - Parameters:
    ///   - text: the decoded expression (JSON escapes already applied).
    ///   - maxDepth: most nested sub-expressions (``DatabaseLimits/maxExpressionDepth``).
    /// - Throws: ``ExpressionProblem`` at the first problem.
    public static func parse(_ text: String, maxDepth: Int = 64) throws(ExpressionProblem) -> DatabaseExpression {
        var parser = Parser(lexer: Lexer(bytes: Array(text.utf8)), maxDepth: maxDepth)
        try parser.advance()
        let expr = try parser.ternary()
        guard case .end = parser.token.kind else {
            throw parser.unexpected("expected an operator or the end of the expression")
        }
        // Operator chains (`a && b && …`) and member chains (`x.child(…).child(…)`) are parsed in
        // loops, so the tree can be deeper than the parser's recursion: measure it without recursing.
        var stack = [(expr, 1)]
        while let (node, depth) = stack.popLast() {
            guard depth <= maxDepth else {
                throw ExpressionProblem(code: DatabaseCode.expressionTooDeep, message: "expression nested more than \(maxDepth) levels deep",
                                        span: SourceSpan(start: node.span.start, end: node.span.start + 1),
                                        help: "split the condition or remove parentheses")
            }
            switch node.kind {
            case .array(let items): stack += items.map { ($0, depth + 1) }
            case .member(let object, _): stack.append((object, depth + 1))
            case .index(let object, let index): stack += [(object, depth + 1), (index, depth + 1)]
            case .call(let receiver, _, let arguments): stack += [(receiver, depth + 1)] + arguments.map { ($0, depth + 1) }
            case .unary(_, let operand): stack.append((operand, depth + 1))
            case .binary(_, let l, let r): stack += [(l, depth + 1), (r, depth + 1)]
            case .ternary(let c, let a, let b): stack += [(c, depth + 1), (a, depth + 1), (b, depth + 1)]
            default: break
            }
        }
        return expr
    }
}

struct Lexer {
    let bytes: [UInt8]
    var index = 0

    static let unsupportedWords: Set<String> = ["typeof", "void", "delete", "in", "instanceof", "new", "function", "var", "let", "const", "class", "yield", "await"]

    func problem(_ code: String, _ message: String, _ start: Int, _ end: Int, help: String? = nil) -> ExpressionProblem {
        ExpressionProblem(code: code, message: message, span: SourceSpan(start: start, end: max(end, start + 1)), help: help)
    }

    mutating func next(regexAllowed: Bool) throws(ExpressionProblem) -> Token {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        guard index < bytes.count else { return Token(kind: .end, span: SourceSpan(start: index, end: index)) }
        let start = index
        let byte = bytes[index]
        func isIdentStart(_ b: UInt8) -> Bool { (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || b == 0x5F }
        func isIdent(_ b: UInt8) -> Bool { isIdentStart(b) || (b >= 0x30 && b <= 0x39) || b == 0x24 }
        if isIdentStart(byte) || byte == UInt8(ascii: "$") {
            index += 1
            while index < bytes.count, isIdent(bytes[index]) { index += 1 }
            let word = String(decoding: bytes[start..<index], as: UTF8.self)
            if byte == UInt8(ascii: "$"), word.count == 1 {
                throw problem(DatabaseCode.unexpectedCharacter, "expected a variable name after `$`", start, index)
            }
            if Self.unsupportedWords.contains(word) {
                throw problem(DatabaseCode.unsupportedOperator, "`\(word)` is not part of the rules language", start, index,
                              help: "rule expressions have no statements, declarations or JavaScript operators beyond the documented ones")
            }
            return Token(kind: .identifier(word), span: SourceSpan(start: start, end: index))
        }
        if byte >= 0x30 && byte <= 0x39 || (byte == UInt8(ascii: ".") && index + 1 < bytes.count && bytes[index + 1] >= 0x30 && bytes[index + 1] <= 0x39) {
            return try number()
        }
        if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") { return try string(quote: byte) }
        if byte == UInt8(ascii: "/") && regexAllowed { return try regex() }
        // Punctuation, decided on bytes (no string is built for a valid operator).
        let next1: UInt8 = index + 1 < bytes.count ? bytes[index + 1] : 0
        let next2: UInt8 = index + 2 < bytes.count ? bytes[index + 2] : 0
        func token(_ text: StaticString, _ length: Int) -> Token {
            index += length
            return Token(kind: .punct(text.description), span: SourceSpan(start: start, end: index))
        }
        func refuse(_ length: Int, assignment: Bool = false, help: String? = nil) -> ExpressionProblem {
            let text = String(decoding: bytes[start..<min(bytes.count, start + length)], as: UTF8.self)
            if assignment {
                return problem(DatabaseCode.assignment, "rule expressions may not contain assignments", start, start + length, help: "compare with `==`")
            }
            return problem(DatabaseCode.unsupportedOperator, "operator `\(text)` is not part of the rules language", start, start + length, help: help)
        }
        let equals = UInt8(ascii: "=")
        switch byte {
        case UInt8(ascii: "="):
            if next1 == equals { return next2 == equals ? token("===", 3) : token("==", 2) }
            if next1 == UInt8(ascii: ">") { throw refuse(2) }
            throw refuse(1, assignment: true)
        case UInt8(ascii: "!"):
            if next1 == equals { return next2 == equals ? token("!==", 3) : token("!=", 2) }
            return token("!", 1)
        case UInt8(ascii: "<"), UInt8(ascii: ">"):
            if next1 == byte { throw refuse(next2 == byte || next2 == equals ? 3 : 2) }
            if next1 == equals { return byte == UInt8(ascii: "<") ? token("<=", 2) : token(">=", 2) }
            return byte == UInt8(ascii: "<") ? token("<", 1) : token(">", 1)
        case UInt8(ascii: "&"), UInt8(ascii: "|"):
            if next1 == byte { return byte == UInt8(ascii: "&") ? token("&&", 2) : token("||", 2) }
            if next1 == equals { throw refuse(2, assignment: true) }
            throw refuse(1, help: byte == UInt8(ascii: "&") ? "did you mean `&&`?" : "did you mean `||`?")
        case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "*"), UInt8(ascii: "/"), UInt8(ascii: "%"):
            if next1 == equals { throw refuse(2, assignment: true) }
            if (byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "*")) && next1 == byte {
                throw refuse(next2 == equals ? 3 : 2, assignment: next2 == equals)
            }
            switch byte {
            case UInt8(ascii: "+"): return token("+", 1)
            case UInt8(ascii: "-"): return token("-", 1)
            case UInt8(ascii: "*"): return token("*", 1)
            case UInt8(ascii: "/"): return token("/", 1)
            default: return token("%", 1)
            }
        case UInt8(ascii: "^"):
            throw next1 == equals ? refuse(2, assignment: true) : refuse(1)
        case UInt8(ascii: "~"): throw refuse(1)
        case UInt8(ascii: "?"):
            if next1 == UInt8(ascii: "?") || next1 == UInt8(ascii: ".") { throw refuse(2) }
            return token("?", 1)
        case UInt8(ascii: ":"): return token(":", 1)
        case UInt8(ascii: "("): return token("(", 1)
        case UInt8(ascii: ")"): return token(")", 1)
        case UInt8(ascii: "["): return token("[", 1)
        case UInt8(ascii: "]"): return token("]", 1)
        case UInt8(ascii: "."): return token(".", 1)
        case UInt8(ascii: ","): return token(",", 1)
        case UInt8(ascii: "{"), UInt8(ascii: "}"):
            throw problem(DatabaseCode.unsupportedOperator, "`\(String(decoding: [byte], as: UTF8.self))` is not part of the rules language", start, start + 1,
                          help: "object literals do not exist in rule expressions")
        case UInt8(ascii: ";"), UInt8(ascii: "`"), UInt8(ascii: "@"), UInt8(ascii: "#"):
            throw problem(DatabaseCode.unsupportedOperator, "`\(String(decoding: [byte], as: UTF8.self))` is not part of the rules language", start, start + 1)
        default: break
        }
        var end = index + 1
        while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
        let text = String(decoding: bytes[index..<end], as: UTF8.self)
        let name = text.unicodeScalars.first.map { $0.value < 0x20 || $0.value == 0x7F ? "U+" + String($0.value, radix: 16, uppercase: true) : "`\(text)`" } ?? "`\(text)`"
        throw problem(DatabaseCode.unexpectedCharacter, "unexpected character \(name)", start, end)
    }

    mutating func number() throws(ExpressionProblem) -> Token {
        let start = index
        func digits(_ l: inout Lexer) -> Int {
            let s = l.index
            while l.index < l.bytes.count, l.bytes[l.index] >= 0x30, l.bytes[l.index] <= 0x39 { l.index += 1 }
            return l.index - s
        }
        if bytes[index] == UInt8(ascii: "0"), index + 1 < bytes.count, [UInt8(ascii: "x"), UInt8(ascii: "X"), UInt8(ascii: "o"), UInt8(ascii: "b")].contains(bytes[index + 1]) {
            throw problem(DatabaseCode.invalidNumber, "hexadecimal, octal and binary literals are not supported", start, start + 2,
                          help: "write the number in decimal")
        }
        _ = digits(&self)
        if index < bytes.count, bytes[index] == UInt8(ascii: "."), index + 1 < bytes.count, bytes[index + 1] >= 0x30, bytes[index + 1] <= 0x39 {
            index += 1
            _ = digits(&self)
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits(&self) > 0 else { throw problem(DatabaseCode.invalidNumber, "expected digits in the exponent", start, index) }
        }
        if index < bytes.count, (bytes[index] >= 0x41 && bytes[index] <= 0x5A) || (bytes[index] >= 0x61 && bytes[index] <= 0x7A) || bytes[index] == 0x5F || bytes[index] == 0x24 {
            throw problem(DatabaseCode.invalidNumber, "a number must not be followed directly by a name", start, index + 1)
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw problem(DatabaseCode.invalidNumber, "number `\(text)` is out of range", start, index)
        }
        return Token(kind: .number(value), span: SourceSpan(start: start, end: index))
    }

    mutating func string(quote: UInt8) throws(ExpressionProblem) -> Token {
        let start = index
        index += 1
        var out = ""
        var run = index
        func flush(_ l: Lexer, _ out: inout String, _ run: Int) { out += String(decoding: l.bytes[run..<l.index], as: UTF8.self) }
        while true {
            guard index < bytes.count else {
                throw problem(DatabaseCode.unterminatedString, "unterminated string literal", start, index,
                              help: "add a closing `\(String(decoding: [quote], as: UTF8.self))`")
            }
            let b = bytes[index]
            if b == quote { flush(self, &out, run); index += 1; break }
            if b == 0x0A || b == 0x0D {
                throw problem(DatabaseCode.unterminatedString, "unterminated string literal (line break inside)", start, index,
                              help: "close the string on the same line, or write `\\n`")
            }
            if b == UInt8(ascii: "\\") {
                flush(self, &out, run)
                let escapeStart = index
                index += 1
                guard index < bytes.count else {
                    throw problem(DatabaseCode.unterminatedString, "unterminated string literal", start, index)
                }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "n"): out += "\n"
                case UInt8(ascii: "t"): out += "\t"
                case UInt8(ascii: "r"): out += "\r"
                case UInt8(ascii: "b"): out += "\u{08}"
                case UInt8(ascii: "f"): out += "\u{0C}"
                case UInt8(ascii: "v"): out += "\u{0B}"
                case UInt8(ascii: "0"): out += "\u{00}"
                case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out += String(decoding: [e], as: UTF8.self)
                case UInt8(ascii: "u"):
                    guard index + 4 <= bytes.count, let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16),
                          let scalar = Unicode.Scalar(value) else {
                        throw problem(DatabaseCode.invalidEscape, "expected four hex digits of a scalar value after `\\u`", escapeStart, min(bytes.count, index + 4))
                    }
                    index += 4
                    out.unicodeScalars.append(scalar)
                default:
                    throw problem(DatabaseCode.invalidEscape, "invalid escape in a string literal", escapeStart, index,
                                  help: "use \\' \\\" \\\\ \\n \\t \\r \\b \\f \\v \\0 or \\uXXXX")
                }
                run = index
                continue
            }
            index += 1
        }
        return Token(kind: .string(out), span: SourceSpan(start: start, end: index))
    }

    mutating func regex() throws(ExpressionProblem) -> Token {
        let start = index
        index += 1
        var inClass = false
        while true {
            guard index < bytes.count, bytes[index] != 0x0A else {
                throw problem(DatabaseCode.unterminatedRegex, "unterminated regular expression literal", start, index,
                              help: "end it with `/`; write a literal `/` as `\\/`")
            }
            let b = bytes[index]
            if b == UInt8(ascii: "\\") { index += 2; continue }
            if b == UInt8(ascii: "[") { inClass = true } else if b == UInt8(ascii: "]") { inClass = false }
            if b == UInt8(ascii: "/") && !inClass { break }
            index += 1
        }
        let body = String(decoding: bytes[(start + 1)..<index], as: UTF8.self)
        index += 1
        let flagsStart = index
        while index < bytes.count, (bytes[index] >= 0x61 && bytes[index] <= 0x7A) || (bytes[index] >= 0x41 && bytes[index] <= 0x5A) { index += 1 }
        let flags = String(decoding: bytes[flagsStart..<index], as: UTF8.self)
        guard flags.isEmpty || flags == "i" else {
            throw problem(DatabaseCode.unsupportedRegexFlag, "unsupported regular-expression flags `\(flags)`", flagsStart, index,
                          help: "the only flag is `i` (case-insensitive)")
        }
        do {
            _ = try DatabaseRegex.translate(body, caseInsensitive: !flags.isEmpty)
        } catch {
            throw problem(DatabaseCode.invalidRegex, error.message, start + 1 + error.offset, start + 2 + error.offset, help: error.help)
        }
        return Token(kind: .regex(body, flags), span: SourceSpan(start: start, end: index))
    }
}

struct Parser {
    var lexer: Lexer
    let maxDepth: Int
    var depth = 0
    // Starts as `.end`, which allows a regular expression as the first token.
    var token = Token(kind: .end, span: SourceSpan(start: 0, end: 0))

    init(lexer: Lexer, maxDepth: Int) {
        self.lexer = lexer
        self.maxDepth = maxDepth
    }

    /// Whether a `/` at the current position starts a regular expression (no value precedes it).
    var regexAllowed: Bool {
        switch token.kind {
        case .number, .string, .regex, .identifier: return false
        case .punct(let p): return ![")", "]"].contains(p)
        case .end: return true
        }
    }

    mutating func advance() throws(ExpressionProblem) {
        token = try lexer.next(regexAllowed: regexAllowed)
    }

    func unexpected(_ message: String) -> ExpressionProblem {
        let what: String
        switch token.kind {
        case .end: what = "unexpected end of expression"
        case .punct(let p): what = "unexpected `\(p)`"
        case .identifier(let name): what = "unexpected name `\(name)`"
        case .number, .string, .regex: what = "unexpected literal"
        }
        return ExpressionProblem(code: DatabaseCode.parseError, message: "\(what): \(message)",
                                 span: SourceSpan(start: token.span.start, end: max(token.span.end, token.span.start + 1)), help: nil)
    }

    func isPunct(_ p: String) -> Bool {
        if case .punct(let q) = token.kind { return q == p }
        return false
    }

    mutating func expect(_ p: String, _ context: String) throws(ExpressionProblem) -> Int {
        guard isPunct(p) else { throw unexpected("expected `\(p)` \(context)") }
        let end = token.span.end
        try advance()
        return end
    }

    mutating func enter(_ start: Int) throws(ExpressionProblem) {
        depth += 1
        if depth > maxDepth {
            throw ExpressionProblem(code: DatabaseCode.expressionTooDeep, message: "expression nested more than \(maxDepth) levels deep",
                                    span: SourceSpan(start: start, end: start + 1), help: "split the condition or remove parentheses")
        }
    }

    mutating func ternary() throws(ExpressionProblem) -> DatabaseExpression {
        try enter(token.span.start)
        defer { depth -= 1 }
        let condition = try binary(minPrecedence: 1)
        guard isPunct("?") else { return condition }
        try advance()
        let then = try ternary()
        _ = try expect(":", "in a conditional expression")
        let otherwise = try ternary()
        return DatabaseExpression(.ternary(condition, then, otherwise), span: condition.span.union(otherwise.span))
    }

    var binaryOperator: BinaryOperator? {
        guard case .punct(let p) = token.kind else { return nil }
        return BinaryOperator(rawValue: p)
    }

    mutating func binary(minPrecedence: Int) throws(ExpressionProblem) -> DatabaseExpression {
        var lhs = try unary()
        while let op = binaryOperator, op.precedence >= minPrecedence {
            try advance()
            try enter(token.span.start)
            let rhs = try binary(minPrecedence: op.precedence + 1)
            depth -= 1
            lhs = DatabaseExpression(.binary(op, lhs, rhs), span: lhs.span.union(rhs.span))
        }
        return lhs
    }

    mutating func unary() throws(ExpressionProblem) -> DatabaseExpression {
        let start = token.span.start
        if isPunct("!") || isPunct("-") {
            let op: UnaryOperator = isPunct("!") ? .not : .negate
            try advance()
            try enter(start)
            defer { depth -= 1 }
            let operand = try unary()
            return DatabaseExpression(.unary(op, operand), span: SourceSpan(start: start, end: operand.span.end))
        }
        if isPunct("+") {
            throw ExpressionProblem(code: DatabaseCode.unsupportedOperator, message: "unary `+` is not part of the rules language",
                                    span: token.span, help: "to turn a value into a string, write `value + ''`")
        }
        return try postfix()
    }

    mutating func postfix() throws(ExpressionProblem) -> DatabaseExpression {
        var expr = try primary()
        while true {
            if isPunct(".") {
                try advance()
                guard case .identifier(let name) = token.kind, !name.hasPrefix("$") else {
                    throw unexpected("expected a member name after `.`")
                }
                let nameEnd = token.span.end
                try advance()
                if isPunct("(") {
                    try advance()
                    var arguments: [DatabaseExpression] = []
                    if !isPunct(")") {
                        while true {
                            arguments.append(try ternary())
                            if isPunct(",") { try advance(); continue }
                            break
                        }
                    }
                    let end = try expect(")", "after the arguments")
                    expr = DatabaseExpression(.call(expr, name, arguments), span: SourceSpan(start: expr.span.start, end: end))
                } else {
                    expr = DatabaseExpression(.member(expr, name), span: SourceSpan(start: expr.span.start, end: nameEnd))
                }
            } else if isPunct("[") {
                try advance()
                try enter(expr.span.start)
                let index = try ternary()
                depth -= 1
                let end = try expect("]", "after the subscript")
                expr = DatabaseExpression(.index(expr, index), span: SourceSpan(start: expr.span.start, end: end))
            } else if isPunct("(") {
                throw ExpressionProblem(code: DatabaseCode.notAFunction, message: "type error: function call on target that is not a function",
                                        span: token.span, help: "only methods can be called, such as `data.exists()`")
            } else {
                return expr
            }
        }
    }

    mutating func primary() throws(ExpressionProblem) -> DatabaseExpression {
        let span = token.span
        switch token.kind {
        case .number(let value):
            try advance()
            return DatabaseExpression(.number(value), span: span)
        case .string(let value):
            try advance()
            return DatabaseExpression(.string(value), span: span)
        case .regex(let pattern, let flags):
            try advance()
            return DatabaseExpression(.regex(pattern: pattern, flags: flags), span: span)
        case .identifier(let name):
            try advance()
            switch name {
            case "true": return DatabaseExpression(.bool(true), span: span)
            case "false": return DatabaseExpression(.bool(false), span: span)
            case "null": return DatabaseExpression(.null, span: span)
            default: return DatabaseExpression(.variable(name), span: span)
            }
        case .punct("("):
            try advance()
            try enter(span.start)
            defer { depth -= 1 }
            var inner = try ternary()
            let end = try expect(")", "to close `(`")
            inner.span = SourceSpan(start: span.start, end: end)
            return inner
        case .punct("["):
            try advance()
            var items: [DatabaseExpression] = []
            if !isPunct("]") {
                while true {
                    items.append(try ternary())
                    if isPunct(",") { try advance(); if isPunct("]") { break }; continue }
                    break
                }
            }
            let end = try expect("]", "to close the array")
            return DatabaseExpression(.array(items), span: SourceSpan(start: span.start, end: end))
        default:
            throw unexpected("expected a value")
        }
    }
}
