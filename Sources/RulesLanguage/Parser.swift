// Parser: tokens → syntax tree, collecting every syntax error (RL1xxx) with recovery at statement
// boundaries. Recursion is bounded by an explicit depth counter and by node height.
import Diagnostics

/// Thrown inside the parser after a diagnostic has been recorded; caught at statement level.
struct ParseFailure: Error {}

/// The result of parsing: the tree (statements with errors are dropped) and every diagnostic.
public struct ParseResult: Sendable {
    /// The syntax tree; complete only when `diagnostics` has no errors.
    public var file: RulesFile
    /// Syntax errors in source order.
    public var diagnostics: [Diagnostic]
}

/// Parses rules source text.
public enum RulesParser {
    /// Parses a whole `.rules` file.
    ///
    /// - Parameters:
    ///   - source: the text and its name for diagnostics.
    ///   - limits: `maxSourceBytes` and `maxNestingDepth` apply here.
    /// - Returns: the tree and every syntax diagnostic (never throws, never traps).
    public static func parse(_ source: SourceFile, limits: RulesLimits = .default) -> ParseResult {
        guard source.bytes.count <= limits.maxSourceBytes else {
            let diagnostic = Diagnostic(
                code: RulesLanguageCodes.sourceTooLarge.id,
                message: "rules source is too large (\(source.bytes.count) bytes, limit \(limits.maxSourceBytes))",
                span: SourceSpan(start: 0, end: 0), help: "split the rules or remove unused functions")
            return ParseResult(file: RulesFile(), diagnostics: [diagnostic])
        }
        var parser = Parser(bytes: source.bytes, limits: limits)
        let file = parser.parseFile()
        return ParseResult(file: file, diagnostics: parser.allDiagnostics)
    }

    /// Parses a single expression (used by tests, the CLI's `eval` and coverage tools).
    public static func parseExpression(_ text: String, limits: RulesLimits = .default) -> (Expr?, [Diagnostic]) {
        let bytes = Array(text.utf8)
        guard bytes.count <= limits.maxSourceBytes else {
            return (nil, [Diagnostic(code: RulesLanguageCodes.sourceTooLarge.id, message: "expression is too large", span: SourceSpan(start: 0, end: 0))])
        }
        var parser = Parser(bytes: bytes, limits: limits)
        do {
            let expr = try parser.parseExpression()
            if parser.token.kind != .end {
                parser.error(RulesLanguageCodes.expectedToken.id, "expected end of expression, found \(parser.token.described)", parser.token.span)
                return (nil, parser.allDiagnostics)
            }
            let diagnostics = parser.allDiagnostics
            return (diagnostics.isEmpty ? expr : nil, diagnostics)
        } catch {
            return (nil, parser.allDiagnostics)
        }
    }
}

struct Parser {
    var lexer: Lexer
    var token: Token
    var previousEnd = 0
    var diagnostics: [Diagnostic] = []
    let limits: RulesLimits
    var depth = 0

    init(bytes: [UInt8], limits: RulesLimits) {
        self.lexer = Lexer(bytes: bytes)
        self.limits = limits
        self.token = lexer.next()
    }

    /// Lexer and parser diagnostics in source order.
    var allDiagnostics: [Diagnostic] {
        (lexer.diagnostics + diagnostics).sorted { ($0.span?.start ?? 0) < ($1.span?.start ?? 0) }
    }

    // MARK: - Token helpers

    mutating func advance() {
        previousEnd = token.span.end
        token = lexer.next()
    }

    func isSymbol(_ text: String) -> Bool { token.kind == .symbol(text) }

    func isWord(_ text: String) -> Bool { token.kind == .identifier(text) }

    mutating func error(_ code: String, _ message: String, _ span: SourceSpan, help: String? = nil) {
        // One diagnostic per position: a cascade at the same token adds nothing.
        if diagnostics.last?.span == span { return }
        diagnostics.append(Diagnostic(code: code, message: message, span: span, help: help))
    }

    mutating func fail(_ code: String, _ message: String, _ span: SourceSpan, help: String? = nil) -> ParseFailure {
        error(code, message, span, help: help)
        return ParseFailure()
    }

    /// Consumes `symbol` or records "expected `symbol`".
    mutating func expect(_ symbol: String, help: String? = nil) throws(ParseFailure) {
        guard isSymbol(symbol) else {
            if token.kind == .invalid { throw ParseFailure() }
            throw fail(RulesLanguageCodes.expectedToken.id, "expected `\(symbol)`, found \(token.described)", token.span, help: help)
        }
        advance()
    }

    mutating func expectIdentifier(_ what: String) throws(ParseFailure) -> (String, SourceSpan) {
        guard case .identifier(let name) = token.kind else {
            if token.kind == .invalid { throw ParseFailure() }
            throw fail(RulesLanguageCodes.expectedToken.id, "expected \(what), found \(token.described)", token.span)
        }
        let span = token.span
        advance()
        return (name, span)
    }

    mutating func enter() throws(ParseFailure) {
        depth += 1
        if depth > limits.maxNestingDepth {
            throw fail(RulesLanguageCodes.nestingTooDeep.id, "nesting is too deep (limit \(limits.maxNestingDepth))", token.span,
                       help: "split the expression into functions")
        }
    }

    mutating func node(_ kind: ExprKind, _ span: SourceSpan) throws(ParseFailure) -> Expr {
        let expr = Expr(kind, span: span)
        if expr.height > limits.maxNestingDepth {
            throw fail(RulesLanguageCodes.nestingTooDeep.id, "expression nests too deeply (limit \(limits.maxNestingDepth))", span,
                       help: "split the expression into functions")
        }
        return expr
    }

    /// Skips to a statement boundary: past `;`, or before `}` / a statement keyword at depth 0.
    mutating func recover() {
        var braces = 0
        var moved = false
        while token.kind != .end {
            if braces == 0 {
                if isSymbol("}") { return }
                if moved, case .identifier(let word) = token.kind, Parser.statementWords.contains(word) { return }
            }
            if isSymbol("{") { braces += 1 }
            if isSymbol("}") { braces -= 1 }
            if isSymbol(";") && braces == 0 { advance(); return }
            advance()
            moved = true
        }
    }

    static let statementWords: Set<String> = ["match", "allow", "function", "service", "let", "return"]

    // MARK: - Declarations

    mutating func parseFile() -> RulesFile {
        var file = RulesFile()
        if isWord("rules_version") {
            do throws(ParseFailure) { file.version = try parseVersion() } catch { recover() }
        }
        while token.kind != .end {
            do throws(ParseFailure) {
                if isWord("function") {
                    file.functions.append(try parseFunction())
                } else if isWord("service") {
                    file.services.append(try parseService())
                } else if isWord("rules_version") {
                    throw fail(RulesLanguageCodes.versionNotFirst.id, "`rules_version` must come first", token.span,
                               help: "move `rules_version = '2';` to the top of the file")
                } else if token.kind == .invalid {
                    throw ParseFailure()
                } else {
                    throw fail(RulesLanguageCodes.expectedToken.id, "expected `service` or `function`, found \(token.described)", token.span)
                }
            } catch {
                let before = token.span.start
                recover()
                if token.span.start == before && token.kind != .end { advance() }
            }
        }
        return file
    }

    mutating func parseVersion() throws(ParseFailure) -> String {
        advance()
        try expect("=")
        guard case .string(let version) = token.kind else {
            throw fail(RulesLanguageCodes.expectedToken.id, "expected a version string, found \(token.described)", token.span, help: "write `rules_version = '2';`")
        }
        guard version == "1" || version == "2" else {
            throw fail(RulesLanguageCodes.unknownVersion.id, "unknown rules version `\(version)`", token.span, help: "use `'1'` or `'2'`")
        }
        advance()
        if isSymbol(";") { advance() }
        return version
    }

    mutating func parseService() throws(ParseFailure) -> ServiceDecl {
        let start = token.span.start
        advance()
        var (name, nameSpan) = try expectIdentifier("a service name")
        while isSymbol(".") {
            advance()
            let (part, partSpan) = try expectIdentifier("a service name")
            name += "." + part
            nameSpan = nameSpan.union(partSpan)
        }
        let kind: ServiceKind
        switch name {
        case "cloud.firestore": kind = .firestore
        case "firebase.storage", "cloud.storage": kind = .storage
        default:
            throw fail(RulesLanguageCodes.unknownService.id, "unknown service `\(name)`", nameSpan,
                       help: Suggestions.help(for: name, in: ["cloud.firestore", "firebase.storage"]) ?? "use `cloud.firestore` or `firebase.storage`")
        }
        var service = ServiceDecl(kind: kind, name: name, span: SourceSpan(start: start, end: start))
        try expect("{")
        try enter()
        defer { depth -= 1 }
        while !isSymbol("}") && token.kind != .end {
            do throws(ParseFailure) {
                if isWord("function") {
                    service.functions.append(try parseFunction())
                } else if isWord("match") {
                    service.matches.append(try parseMatch())
                } else if token.kind == .invalid {
                    throw ParseFailure()
                } else {
                    throw fail(RulesLanguageCodes.expectedToken.id, "expected `match` or `function`, found \(token.described)", token.span)
                }
            } catch {
                recover()
            }
        }
        try expect("}", help: "close the `service` block")
        service.span = SourceSpan(start: start, end: previousEnd)
        return service
    }

    mutating func parseMatch() throws(ParseFailure) -> MatchBlock {
        let start = token.span.start
        advance()
        let (pattern, patternSpan) = try parsePattern()
        var block = MatchBlock(pattern: pattern, span: SourceSpan(start: start, end: start), patternSpan: patternSpan)
        try expect("{", help: "a `match` pattern is followed by a `{ … }` block")
        try enter()
        defer { depth -= 1 }
        while !isSymbol("}") && token.kind != .end {
            do throws(ParseFailure) {
                if isWord("function") {
                    block.functions.append(try parseFunction())
                } else if isWord("match") {
                    block.matches.append(try parseMatch())
                } else if isWord("allow") {
                    block.allows.append(try parseAllow())
                } else if token.kind == .invalid {
                    throw ParseFailure()
                } else {
                    let help = Suggestions.help(for: token.described.trimmingBackticks, in: ["allow", "match", "function"])
                    throw fail(RulesLanguageCodes.expectedToken.id, "expected `allow`, `match` or `function`, found \(token.described)", token.span, help: help)
                }
            } catch {
                recover()
            }
        }
        try expect("}", help: "close the `match` block")
        block.span = SourceSpan(start: start, end: previousEnd)
        return block
    }

    /// Scans `/seg/{var}/{rest=**}` raw from the bytes.
    mutating func parsePattern() throws(ParseFailure) -> ([PatternSegment], SourceSpan) {
        guard isSymbol("/") else {
            throw fail(RulesLanguageCodes.invalidPathPattern.id, "expected a path pattern starting with `/`, found \(token.described)", token.span)
        }
        let start = token.span.start
        lexer.position = start
        var segments: [PatternSegment] = []
        while lexer.byte(at: lexer.position) == UInt8(ascii: "/") {
            lexer.position += 1
            let segmentStart = lexer.position
            if lexer.byte(at: lexer.position) == UInt8(ascii: "{") {
                lexer.position += 1
                let nameStart = lexer.position
                while let c = lexer.byte(at: lexer.position), Lexer.isIdentifierPart(c) { lexer.position += 1 }
                let name = lexer.text(nameStart, lexer.position)
                var recursive = false
                if lexer.matches("=**", at: lexer.position) {
                    recursive = true
                    lexer.position += 3
                }
                guard !name.isEmpty, let first = name.utf8.first, Lexer.isIdentifierStart(first),
                      lexer.byte(at: lexer.position) == UInt8(ascii: "}") else {
                    var end = lexer.position
                    while let c = lexer.byte(at: end), c != UInt8(ascii: "}"), c != UInt8(ascii: "/"), !Lexer.isSpace(c) { end += 1 }
                    if lexer.byte(at: end) == UInt8(ascii: "}") { end += 1 }
                    throw fail(RulesLanguageCodes.invalidPathPattern.id, "invalid wildcard in path pattern", SourceSpan(start: segmentStart, end: end),
                               help: "write `{name}` for one segment or `{name=**}` for many")
                }
                lexer.position += 1
                segments.append(recursive ? .recursive(name) : .single(name))
            } else if let literal = lexer.scanLiteralSegment(allowParentheses: true) {
                segments.append(.literal(literal))
            } else {
                throw fail(RulesLanguageCodes.invalidPathPattern.id, "empty segment in path pattern", SourceSpan(start: segmentStart - 1, end: segmentStart),
                           help: "remove the extra `/`")
            }
        }
        let span = SourceSpan(start: start, end: lexer.position)
        token = lexer.next()
        previousEnd = span.end
        return (segments, span)
    }

    mutating func parseAllow() throws(ParseFailure) -> AllowRule {
        let start = token.span.start
        advance()
        var methods: [RuleMethod] = []
        repeat {
            if !methods.isEmpty { advance() }
            let (word, span) = try expectIdentifier("a method (`read`, `write`, `get`, `list`, `create`, `update`, `delete`)")
            guard let method = RuleMethod(rawValue: word) else {
                throw fail(RulesLanguageCodes.unknownAllowMethod.id, "unknown method `\(word)`", span,
                           help: Suggestions.help(for: word, in: RuleMethod.allCases.map(\.rawValue))
                               ?? "methods are `read`, `write`, `get`, `list`, `create`, `update` and `delete`")
            }
            methods.append(method)
        } while isSymbol(",")
        var condition: Expr?
        if isSymbol(":") {
            advance()
            guard isWord("if") else {
                throw fail(RulesLanguageCodes.expectedToken.id, "expected `if`, found \(token.described)", token.span, help: "write `allow read: if <condition>;`")
            }
            advance()
            condition = try parseExpression()
        }
        let end = previousEnd
        if isSymbol(";") {
            advance()
        } else if !isSymbol("}") && !isWord("allow") && !isWord("match") && !isWord("function") {
            throw fail(RulesLanguageCodes.expectedToken.id, "expected `;`, found \(token.described)", token.span, help: hintAfterExpression())
        }
        return AllowRule(methods: methods, condition: condition, span: SourceSpan(start: start, end: end))
    }

    mutating func parseFunction() throws(ParseFailure) -> FunctionDecl {
        let start = token.span.start
        advance()
        let (name, nameSpan) = try expectIdentifier("a function name")
        try expect("(")
        var parameters: [String] = []
        while !isSymbol(")") {
            if !parameters.isEmpty { try expect(",") }
            parameters.append(try expectIdentifier("a parameter name").0)
        }
        advance()
        try expect("{")
        var lets: [LetBinding] = []
        while isWord("let") {
            let letStart = token.span.start
            advance()
            let (letName, _) = try expectIdentifier("a variable name")
            try expect("=")
            let value = try parseExpression()
            try expect(";", help: "`let` bindings end with `;`")
            lets.append(LetBinding(name: letName, value: value, span: SourceSpan(start: letStart, end: previousEnd)))
        }
        guard isWord("return") else {
            throw fail(RulesLanguageCodes.expectedToken.id, "expected `return`, found \(token.described)", token.span,
                       help: "a function body is `let` bindings followed by one `return <expression>;`")
        }
        advance()
        let body = try parseExpression()
        if isSymbol(";") { advance() }
        try expect("}", help: hintAfterExpression() ?? "a function body ends after its `return`")
        return FunctionDecl(name: name, parameters: parameters, lets: lets, body: body,
                            span: SourceSpan(start: start, end: previousEnd), nameSpan: nameSpan)
    }

    /// Help for a token that cannot follow a complete expression, for common slips.
    func hintAfterExpression() -> String? {
        switch token.kind {
        case .symbol("="): "use `==` to compare"
        case .identifier("and"): "use `&&` for logical and"
        case .identifier("or"): "use `||` for logical or"
        case .identifier("not"): "use `!` for logical not"
        default: nil
        }
    }

    // MARK: - Expressions

    mutating func parseExpression() throws(ParseFailure) -> Expr {
        try enter()
        defer { depth -= 1 }
        let condition = try parseBinary(minPrecedence: 1)
        guard isSymbol("?") else { return condition }
        advance()
        let then = try parseExpression()
        try expect(":", help: "a conditional is `condition ? a : b`")
        let otherwise = try parseExpression()
        return try node(.ternary(condition, then, otherwise), condition.span.union(otherwise.span))
    }

    /// The operator at the current token, if any. `is` is handled at precedence 4.
    func currentOperator() -> BinaryOperator? {
        switch token.kind {
        case .symbol(let text): BinaryOperator(rawValue: text)
        case .identifier("in"): .in
        default: nil
        }
    }

    /// Precedence climbing for left-associative binary operators and `is`.
    mutating func parseBinary(minPrecedence: Int) throws(ParseFailure) -> Expr {
        var lhs = try parseUnary()
        while true {
            if isWord("is") && minPrecedence <= 4 {
                advance()
                let (typeName, typeSpan) = try expectIdentifier("a type name after `is`")
                lhs = try node(.isType(lhs, typeName), lhs.span.union(typeSpan))
                continue
            }
            guard let op = currentOperator(), op.precedence >= minPrecedence else { return lhs }
            advance()
            let rhs = try parseBinary(minPrecedence: op.precedence + 1)
            lhs = try node(.binary(op, lhs, rhs), lhs.span.union(rhs.span))
        }
    }

    mutating func parseUnary() throws(ParseFailure) -> Expr {
        let op: UnaryOperator? = isSymbol("!") ? .not : (isSymbol("-") ? .negate : nil)
        guard let op else { return try parsePostfix() }
        let start = token.span.start
        advance()
        try enter()
        defer { depth -= 1 }
        let operand = try parseUnary()
        return try node(.unary(op, operand), SourceSpan(start: start, end: operand.span.end))
    }

    mutating func parsePostfix() throws(ParseFailure) -> Expr {
        var expr = try parsePrimary()
        while true {
            if isSymbol(".") {
                advance()
                let (name, nameSpan) = try expectIdentifier("a field or method name after `.`")
                if isSymbol("(") {
                    let arguments = try parseArguments()
                    expr = try node(.call(receiver: expr, name: name, arguments: arguments), SourceSpan(start: expr.span.start, end: previousEnd))
                } else {
                    expr = try node(.member(expr, name), expr.span.union(nameSpan))
                }
            } else if isSymbol("[") {
                advance()
                try enter()
                defer { depth -= 1 }
                let index = try parseExpression()
                if isSymbol(":") {
                    advance()
                    let upper = try parseExpression()
                    try expect("]")
                    expr = try node(.range(expr, index, upper), SourceSpan(start: expr.span.start, end: previousEnd))
                } else {
                    try expect("]")
                    expr = try node(.index(expr, index), SourceSpan(start: expr.span.start, end: previousEnd))
                }
            } else if isSymbol("(") {
                guard case .identifier(let name) = expr.kind else {
                    throw fail(RulesLanguageCodes.callOfNonName.id, "only a name can be called", expr.span, help: "call functions by name: `f(x)` or `x.method()`")
                }
                let arguments = try parseArguments()
                expr = try node(.call(receiver: nil, name: name, arguments: arguments), SourceSpan(start: expr.span.start, end: previousEnd))
            } else {
                return expr
            }
        }
    }

    mutating func parseArguments() throws(ParseFailure) -> [Expr] {
        try expect("(")
        try enter()
        defer { depth -= 1 }
        var arguments: [Expr] = []
        while !isSymbol(")") {
            if !arguments.isEmpty {
                try expect(",", help: "separate arguments with `,`")
                if isSymbol(")") { break }
            }
            arguments.append(try parseExpression())
        }
        advance()
        return arguments
    }

    mutating func parsePrimary() throws(ParseFailure) -> Expr {
        let span = token.span
        switch token.kind {
        case .int(let value):
            advance()
            return Expr(.int(value), span: span)
        case .float(let value):
            advance()
            return Expr(.float(value), span: span)
        case .string(let value):
            advance()
            return Expr(.string(value), span: span)
        case .bytes(let value):
            advance()
            return Expr(.bytes(value), span: span)
        case .identifier(let name):
            advance()
            switch name {
            case "true": return Expr(.bool(true), span: span)
            case "false": return Expr(.bool(false), span: span)
            case "null": return Expr(.null, span: span)
            default: return Expr(.identifier(name), span: span)
            }
        case .symbol("("):
            advance()
            let inner = try parseExpression()
            try expect(")", help: "close the parenthesis")
            return inner
        case .symbol("["):
            advance()
            try enter()
            defer { depth -= 1 }
            var items: [Expr] = []
            while !isSymbol("]") {
                if !items.isEmpty {
                    try expect(",", help: "separate list items with `,`")
                    if isSymbol("]") { break }
                }
                items.append(try parseExpression())
            }
            advance()
            return try node(.list(items), SourceSpan(start: span.start, end: previousEnd))
        case .symbol("{"):
            advance()
            try enter()
            defer { depth -= 1 }
            var entries: [MapLiteralEntry] = []
            while !isSymbol("}") {
                if !entries.isEmpty {
                    try expect(",", help: "separate map entries with `,`")
                    if isSymbol("}") { break }
                }
                guard case .string(let key) = token.kind else {
                    throw fail(RulesLanguageCodes.mapKeyNotString.id, "map keys must be string literals, found \(token.described)", token.span,
                               help: "quote the key: `{'name': value}`")
                }
                advance()
                try expect(":")
                entries.append(MapLiteralEntry(key: key, value: try parseExpression()))
            }
            advance()
            return try node(.map(entries), SourceSpan(start: span.start, end: previousEnd))
        case .symbol("/"):
            return try parsePathLiteral()
        case .invalid:
            throw ParseFailure()
        default:
            throw fail(RulesLanguageCodes.expectedExpression.id, "expected an expression, found \(token.described)", span)
        }
    }

    /// `/a/$(expr)/(default)/{name}`, scanned raw; ends at the first byte that cannot continue it.
    mutating func parsePathLiteral() throws(ParseFailure) -> Expr {
        let start = token.span.start
        lexer.position = start
        var segments: [PathLiteralSegment] = []
        while lexer.byte(at: lexer.position) == UInt8(ascii: "/") {
            lexer.position += 1
            let segmentStart = lexer.position
            if lexer.matches("$(", at: lexer.position) {
                lexer.position += 2
                token = lexer.next()
                try enter()
                defer { depth -= 1 }
                let inner = try parseExpression()
                guard isSymbol(")") else {
                    throw fail(RulesLanguageCodes.expectedToken.id, "expected `)` to close `$(`, found \(token.described)", token.span)
                }
                lexer.position = token.span.end
                segments.append(.interpolation(inner))
            } else if lexer.byte(at: lexer.position) == UInt8(ascii: "{") {
                lexer.position += 1
                let nameStart = lexer.position
                while let c = lexer.byte(at: lexer.position), Lexer.isIdentifierPart(c) { lexer.position += 1 }
                guard lexer.position > nameStart, lexer.byte(at: lexer.position) == UInt8(ascii: "}") else {
                    throw fail(RulesLanguageCodes.invalidPathSegment.id, "invalid `{name}` segment in path", SourceSpan(start: segmentStart, end: lexer.position))
                }
                segments.append(.placeholder(lexer.text(nameStart, lexer.position)))
                lexer.position += 1
            } else if let literal = lexer.scanLiteralSegment(allowParentheses: true, stopAtColon: true) {
                // INVARIANT: a literal segment's parentheses are balanced. An open `(` would end
                // the path before its `)`, and printed inside parentheses (`(/a(['k'])`) the
                // closing `)` would join the segment: the text would no longer parse back to
                // the same tree.
                guard Self.hasBalancedParentheses(literal) else {
                    throw fail(RulesLanguageCodes.invalidPathSegment.id, "unclosed `(` in path segment `\(literal)`",
                               SourceSpan(start: segmentStart, end: lexer.position),
                               help: "close it with `)`, or build the path from a string: `path('/a/b(')`")
                }
                segments.append(.literal(literal))
            } else {
                throw fail(RulesLanguageCodes.invalidPathSegment.id, "expected a path segment after `/`", SourceSpan(start: segmentStart - 1, end: segmentStart),
                           help: "paths look like `/users/$(request.auth.uid)`; for division put an operand before `/`")
            }
            guard lexer.byte(at: lexer.position) == UInt8(ascii: "/"),
                  let next = lexer.byte(at: lexer.position + 1),
                  (Lexer.isSegmentByte(next) && next != UInt8(ascii: ":")) || next == UInt8(ascii: "$") || next == UInt8(ascii: "{") || next == UInt8(ascii: "(")
            else { break }
        }
        let span = SourceSpan(start: start, end: lexer.position)
        token = lexer.next()
        previousEnd = span.end
        return try node(.path(segments), span)
    }
}

extension Parser {
    /// True when every `(` in a scanned literal path segment has its `)` (the scanner already
    /// stops at a `)` that closes nothing).
    static func hasBalancedParentheses(_ segment: String) -> Bool {
        var depth = 0
        for byte in segment.utf8 {
            if byte == UInt8(ascii: "(") { depth += 1 } else if byte == UInt8(ascii: ")") { depth -= 1 }
        }
        return depth == 0
    }
}

extension String {
    var trimmingBackticks: String {
        var text = self
        if text.hasPrefix("`") { text.removeFirst() }
        if text.hasSuffix("`") { text.removeLast() }
        return text
    }
}
