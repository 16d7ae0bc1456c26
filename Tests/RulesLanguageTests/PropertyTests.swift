import Diagnostics
import PropertyBased
import RulesLanguage
import Testing

/// Builds syntax trees from a byte string: each choice consumes one byte, so any byte string
/// yields a tree the parser could have produced, and the property library shrinks the bytes.
struct TreeBuilder {
    var bytes: [UInt8]
    var index = 0

    /// Names used for identifiers and bare calls, and for members and methods.
    var names = TreeBuilder.names
    var members = TreeBuilder.members
    var ints: [Int64] = []

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func choose(_ count: Int) -> Int {
        guard index < bytes.count, count > 0 else { return 0 }
        defer { index += 1 }
        return Int(bytes[index]) % count
    }

    mutating func pick<T>(_ options: [T]) -> T { options[choose(options.count)] }

    static let span = SourceSpan(start: 0, end: 0)
    static let names = ["a", "b", "request", "resource", "userId", "x_1", "database"]
    static let members = ["data", "uid", "auth", "in", "is", "size", "allow", "match"]
    static let strings = ["", "a", "it's", "back\\slash", "quote\"d", "tab\tnl\n", "é漢字", "\u{1}ctl", "$(x)", "/a/b"]
    static let floats: [Double] = [0.5, 1.25, 0.0000001, 123456789.5, 1e21, 3.0, 0.1]

    func node(_ kind: ExprKind) -> Expr { Expr(kind, span: TreeBuilder.span) }

    mutating func expr(depth: Int) -> Expr {
        if depth <= 0 { return leaf() }
        switch choose(16) {
        case 0, 1: return leaf()
        case 2: return node(.list((0..<choose(3)).map { _ in expr(depth: depth - 1) }))
        case 3: return node(.map((0..<choose(3)).map { _ in MapLiteralEntry(key: pick(TreeBuilder.strings), value: expr(depth: depth - 1)) }))
        case 4: return node(.member(expr(depth: depth - 1), pick(members)))
        case 5: return node(.index(expr(depth: depth - 1), expr(depth: depth - 1)))
        case 6: return node(.range(expr(depth: depth - 1), expr(depth: depth - 1), expr(depth: depth - 1)))
        case 7: return node(.call(receiver: nil, name: pick(names), arguments: (0..<choose(3)).map { _ in expr(depth: depth - 1) }))
        case 8: return node(.call(receiver: expr(depth: depth - 1), name: pick(members), arguments: (0..<choose(3)).map { _ in expr(depth: depth - 1) }))
        case 9: return node(.unary(pick([.not, .negate]), expr(depth: depth - 1)))
        case 10, 11, 12: return node(.binary(pick(BinaryOperator.allCases), expr(depth: depth - 1), expr(depth: depth - 1)))
        case 13: return node(.isType(expr(depth: depth - 1), pick(["int", "string", "map", "path"])))
        case 14: return node(.ternary(expr(depth: depth - 1), expr(depth: depth - 1), expr(depth: depth - 1)))
        default:
            let segments: [PathLiteralSegment] = (0..<(1 + choose(3))).map { _ in
                switch choose(3) {
                case 0: .interpolation(expr(depth: depth - 1))
                case 1: .placeholder(pick(["uid", "doc"]))
                default: .literal(pick(["databases", "(default)", "documents", "users", "a-b.c", "x_1"]))
                }
            }
            return node(.path(segments))
        }
    }

    mutating func leaf() -> Expr {
        switch choose(8) {
        case 0: return node(.null)
        case 1: return node(.bool(choose(2) == 0))
        case 2:
            if !ints.isEmpty && choose(2) == 0 { return node(.int(pick(ints))) }
            return node(.int(Int64(choose(256)) * Int64(1 + choose(256))))
        case 3: return node(.float(pick(TreeBuilder.floats)))
        case 4: return node(.string(pick(TreeBuilder.strings)))
        case 5: return node(.bytes((0..<choose(4)).map { _ in UInt8(choose(256)) }))
        default: return node(.identifier(pick(names)))
        }
    }

    mutating func function(depth: Int) -> FunctionDecl {
        let lets = (0..<choose(3)).map { i in LetBinding(name: "v\(i)", value: expr(depth: 2), span: TreeBuilder.span) }
        return FunctionDecl(name: pick(["f", "g", "isOwner"]), parameters: Array(["p", "q"].prefix(choose(3))), lets: lets,
                            body: expr(depth: depth), span: TreeBuilder.span, nameSpan: TreeBuilder.span)
    }

    mutating func match(depth: Int) -> MatchBlock {
        let pattern: [PatternSegment] = (0..<(1 + choose(3))).map { _ in
            switch choose(3) {
            case 0: .literal(pick(["users", "databases", "(default)", "a.b", "x-y"]))
            case 1: .single(pick(["userId", "doc"]))
            default: .recursive("rest")
            }
        }
        let allows = (0..<choose(3)).map { _ in
            AllowRule(methods: (0..<(1 + choose(2))).map { _ in pick(RuleMethod.allCases) },
                      condition: choose(3) == 0 ? nil : expr(depth: 3), span: TreeBuilder.span)
        }
        let children = depth > 0 ? (0..<choose(3)).map { _ in match(depth: depth - 1) } : []
        return MatchBlock(pattern: pattern, functions: (0..<choose(2)).map { _ in function(depth: 2) }, matches: children,
                          allows: allows, span: TreeBuilder.span, patternSpan: TreeBuilder.span)
    }

    mutating func file() -> RulesFile {
        let version: String? = pick([nil, "1", "2"])
        let functions = (0..<choose(2)).map { _ in function(depth: 3) }
        let kind: ServiceKind = pick(ServiceKind.allCases)
        let service = ServiceDecl(kind: kind, name: kind.rawValue, functions: (0..<choose(2)).map { _ in function(depth: 2) },
                                  matches: (0..<(1 + choose(2))).map { _ in match(depth: 2) }, span: TreeBuilder.span)
        return RulesFile(version: version, functions: functions, services: [service])
    }
}

@Suite struct PropertyTests {
    @Test func printedExpressionsParseBackToTheSameTree() async {
        await propertyCheck(count: 400, input: Gen.uint8().array(of: 0...120)) { bytes in
            var builder = TreeBuilder(bytes)
            let tree = builder.expr(depth: 5)
            let printed = RulesPrinter.print(tree)
            let (parsed, diagnostics) = RulesParser.parseExpression(printed)
            #expect(diagnostics.isEmpty, "printed: \(printed)")
            #expect(parsed == tree, "printed: \(printed)")
        }
    }

    @Test func printedFilesParseBackToTheSameTree() async {
        await propertyCheck(count: 200, input: Gen.uint8().array(of: 0...400)) { bytes in
            var builder = TreeBuilder(bytes)
            let tree = builder.file()
            let printed = RulesPrinter.print(tree)
            let result = RulesParser.parse(SourceFile(name: "p.rules", text: printed))
            #expect(result.diagnostics.isEmpty, "printed:\n\(printed)")
            #expect(result.file == tree, "printed:\n\(printed)")
        }
    }

    /// What every compile must give, whatever the text: a program exactly when there is no
    /// error, and every diagnostic with an `RL` code (never the internal-error code `RL3099`)
    /// and a span inside the text. Returns the program.
    static func checkedCompile(_ text: String) -> Program? {
        let source = SourceFile(name: "p.rules", text: text)
        let result = RulesCompiler.compile(source)
        #expect((result.program != nil) == !result.hasErrors, "program \(result.program != nil), errors \(result.hasErrors): \(text.debugDescription)")
        for diagnostic in result.diagnostics {
            #expect(diagnostic.code.hasPrefix("RL") && diagnostic.code != "RL3099", "\(diagnostic.code) \(diagnostic.message)")
            if let span = diagnostic.span {
                #expect(0 <= span.start && span.start <= span.end && span.end <= source.bytes.count,
                        "\(diagnostic.code) at \(span.start)..<\(span.end) in \(source.bytes.count) bytes")
            }
        }
        return result.program
    }

    @Test func arbitraryBytesCompileToAProgramOrLocatedErrors() async {
        var refused = 0
        await propertyCheck(count: 500, input: Gen.uint8().array(of: 0...300)) { bytes in
            if Self.checkedCompile(String(decoding: bytes, as: UTF8.self)) == nil { refused += 1 }
        }
        // Arbitrary bytes are almost never a rules file; the checks above ran on the errors.
        #expect(refused >= 450, "only \(refused) of 500 refused")
    }

    /// Token soup is far more likely than raw bytes to reach deep parser and checker paths.
    @Test func tokenSoupCompilesToAProgramOrLocatedErrorsAndEvaluatesConsistently() async {
        let vocabulary = ["rules_version", "=", "'2'", ";", "service", "cloud.firestore", "firebase.storage", "{", "}", "match",
                          "/databases/{database}/documents", "/a/{b}", "/{rest=**}", "allow", "read", "write", "get", ",", ":", "if",
                          "function", "f", "(", ")", "let", "x", "return", "request", ".", "auth", "uid", "==", "&&", "||", "!",
                          "?", "1", "2.5", "'s'", "b", "[", "]", "in", "is", "int", "-", "+", "*", "/", "%", "$(", "exists",
                          "true", "null", "//c\n", "/*", "*/", "\"", "\\", "é"]
        // Conditions built as operand, operator, operand, …: most compile, so the evaluation
        // checks below run on many programs, not only on the rare soup that parses.
        let operands = ["true", "false", "null", "1", "2.5", "'s'", "request.auth", "request.auth.uid", "request.time", "resource",
                        "resource.data.k", "request.path", "[1, 'a']", "{'k': 1}", "(1 + 2)", "!true", "-1", "x", "'a'.size()"]
        let operators = ["==", "!=", "&&", "||", "+", "-", "*", "/", "%", "in", "<", ">=", "is"]
        var compiled = 0
        await propertyCheck(count: 500, input: Gen.uint8().array(of: 0...200)) { bytes in
            let text: String
            if (bytes.last ?? 0) % 3 == 0 {
                let separator = bytes.first.map { $0 % 2 == 0 ? " " : "" } ?? ""
                text = bytes.map { vocabulary[Int($0) % vocabulary.count] }.joined(separator: separator)
            } else {
                let terms = bytes.prefix(9).enumerated().map { index, byte in
                    index % 2 == 0 ? operands[Int(byte) % operands.count] : operators[Int(byte) % operators.count]
                }
                let condition = (terms.count % 2 == 0 ? terms.dropLast() : terms[...]).joined(separator: " ")
                text = "service cloud.firestore { match /databases/{database}/documents { match /{rest=**} { allow read: if "
                    + (condition.isEmpty ? "true" : condition) + "; } } }"
            }
            guard let program = Self.checkedCompile(text) else { return }
            compiled += 1
            let request = RulesRequest(service: program.service, path: "/databases/(default)/documents/a/b", method: .get,
                                       auth: Auth(uid: "u"))
            let first = program.evaluate(request), second = program.evaluate(request)
            // Deterministic, and a grant names the allow that granted it and has no request error.
            #expect(first.allowed == second.allowed && first.candidates.count == second.candidates.count, "\(text)")
            #expect(!first.allowed || (first.grantedBy != nil && first.requestError == nil), "\(text)")
            #expect(first.requestError.map { $0.code.hasPrefix("RL3") && $0.code != "RL3099" } ?? true, "\(text)")
        }
        #expect(compiled >= 50, "only \(compiled) of 500 inputs compiled: the evaluation checks barely ran")
    }
}

@Suite struct ArithmeticPropertyTests {
    static let expressions = [
        "t + d", "t - d", "d + t", "t - t", "d + d", "d - d", "-d", "duration.abs(d)", "t < t", "t.toMillis()", "t.year()",
        "t.date()", "t.time()", "t.dayOfWeek()", "t.dayOfYear()", "d.seconds()", "string(t)", "i + i", "i * i", "i - 1", "-i",
        "i / -1", "i % -1", "math.abs(i)", "float(i)", "timestamp.value(i)", "duration.value(i, 'w')", "duration.value(i, 'ms')",
        "int(float(i))", "[1, 2][i:i]", "'abc'[i]", "t + duration.value(i, 's')", "debug(t)",
    ]

    /// Extreme timestamps, durations and ints never trap: every result is a value or an error.
    @Test func extremeValuesNeverTrap() async {
        let parsed = Self.expressions.compactMap { RulesParser.parseExpression($0).0 }
        #expect(parsed.count == Self.expressions.count)
        let extremes: [Int64] = [.min, .max, .min + 1, .max - 1, 0, -1, 1, 253_402_300_799, -62_135_596_800]
        var checked = 0
        await propertyCheck(count: 300, input: Gen.int64(in: .min ... .max), Gen.int32(in: .min ... .max), Gen.int(in: 0...8)) { seconds, nanos, pick in
            let i = pick < extremes.count ? extremes[pick] : seconds
            let variables: [String: Value] = [
                "t": .timestamp(Timestamp(seconds: seconds, nanos: nanos)),
                "d": .duration(RulesDuration(seconds: i, nanos: nanos)),
                "i": .int(i),
            ]
            for (text, expression) in zip(Self.expressions, parsed) {
                let (result, _) = Program.evaluateExpression(expression, variables: variables)
                switch result {
                case .success(let value):
                    if let expected = Self.intReference[text]?(i) { #expect(value == expected, "\(text) with i = \(i)") }
                case .failure(let error):
                    #expect(error.code.hasPrefix("RL3") && error.code != "RL3099", "\(text): \(error.code) \(error.message)")
                    // Integer arithmetic fails only where 64-bit two's complement overflows.
                    if let reference = Self.intReference[text] { #expect(reference(i) == nil, "\(text) with i = \(i): \(error.message)") }
                }
            }
            checked += 1
        }
        #expect(checked == 300)
    }

    /// Integer expressions written with Swift's overflow-reporting arithmetic: nil where the
    /// language must report an overflow.
    static let intReference: [String: @Sendable (Int64) -> Value?] = [
        "i + i": { let (r, o) = $0.addingReportingOverflow($0); return o ? nil : .int(r) },
        "i * i": { let (r, o) = $0.multipliedReportingOverflow(by: $0); return o ? nil : .int(r) },
        "i - 1": { let (r, o) = $0.subtractingReportingOverflow(1); return o ? nil : .int(r) },
        "-i": { $0 == .min ? nil : .int(-$0) },
        "i / -1": { $0 == .min ? nil : .int(-$0) },
        "i % -1": { $0 == .min ? nil : .int(0) },
        "math.abs(i)": { $0 == .min ? nil : .int(abs($0)) },
    ]
}

/// Random expressions over the real builtins, evaluated with odd values bound: never a trap.
@Suite struct EvaluatorFuzzTests {
    @Test func randomBuiltinExpressionsNeverTrap() async {
        let members = ["size", "keys", "values", "hasAll", "hasAny", "hasOnly", "toSet", "diff", "get", "split", "matches", "replace",
                       "join", "concat", "removeAll", "bind", "distance", "toMillis", "date", "time", "year", "dayOfWeek", "lower",
                       "trim", "toUtf8", "toBase64", "toHexString", "union", "difference", "intersection", "affectedKeys", "seconds",
                       "nanos", "latitude", "data", "abs", "value", "sqrt", "pow", "round", "sha256", "md5", "crc32"]
        let names = ["a", "b", "s", "m", "l", "t", "d", "p", "int", "float", "string", "path", "debug", "exists", "get", "getAfter",
                     "math", "timestamp", "duration", "hashing", "latlng", "request", "resource"]
        let variables: [String: Value] = [
            "a": .int(.max), "b": .float(-0.0), "s": .string("é/漢.x"), "m": .map(["k": .list([.int(1)]), "data": .map([:])]),
            "l": .list([.null, .string("k"), .float(.infinity)]), "t": .timestamp(Timestamp(seconds: 253_402_300_799)),
            "d": .duration(RulesDuration(seconds: .min + 1)), "p": .path(PathValue("/databases/(default)/documents/{uid}/x")),
        ]
        var values = 0, errors = 0
        await propertyCheck(count: 500, input: Gen.uint8().array(of: 0...160)) { bytes in
            var builder = TreeBuilder(bytes)
            builder.names = names
            builder.members = members
            builder.ints = [.max, .min + 1, -1, 0, 1_000_000_000_000]
            let tree = builder.expr(depth: 5)
            let (first, _) = Program.evaluateExpression(tree, variables: variables, lookup: InMemoryDatabase(documents: [:]),
                                                        regexEngine: TestRegexEngine())
            let (second, _) = Program.evaluateExpression(tree, variables: variables, lookup: InMemoryDatabase(documents: [:]),
                                                         regexEngine: TestRegexEngine())
            // A value or a located language error, the same both times; never an internal error.
            switch (first, second) {
            case (.success(let a), .success(let b)):
                values += 1
                #expect(String(reflecting: a) == String(reflecting: b), "\(RulesPrinter.print(tree))")  // NaN-safe
            case (.failure(let a), .failure(let b)):
                errors += 1
                #expect(a == b, "\(RulesPrinter.print(tree))")
                #expect(a.code.hasPrefix("RL3") && a.code != "RL3099", "\(a.code) \(a.message): \(RulesPrinter.print(tree))")
            default:
                Issue.record("evaluated twice with different outcomes: \(RulesPrinter.print(tree))")
            }
        }
        #expect(values + errors == 500)
        #expect(values >= 50 && errors >= 50, "\(values) values, \(errors) errors")
    }
}
