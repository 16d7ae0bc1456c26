// RulesProgramGenerator: small random Firestore rules programs decoded from fuzz bytes, as the
// generator's own tree (independent of RulesLanguage's syntax tree) and rendered to source text.
// Every program it produces is valid: a compile failure is a finding.

/// An expression in the generator's tree: the subset of the language the differential covers.
indirect enum GenExpr: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case string(String)
    /// `request.auth == null` (`isNull` true) or `request.auth != null`.
    case authIsNull(Bool)
    /// `request.auth.uid`.
    case authUid
    /// A path wildcard, `database`, or the function parameter `x`.
    case variable(String)
    /// `request.resource.data.<key>` (`afterWrite` true) or `resource.data.<key>`.
    case data(afterWrite: Bool, key: String)
    case binary(GenOperator, GenExpr, GenExpr)
    case not(GenExpr)
    /// `e in [items]`.
    case inList(GenExpr, [GenExpr])
    /// `(e).size()`.
    case size(GenExpr)
    /// `e is <type>`.
    case isType(GenExpr, String)
    case ternary(GenExpr, GenExpr, GenExpr)
    /// `f(argument)`, the generated function.
    case call(GenExpr)
}

/// Binary operators the generator uses, with their source spelling.
enum GenOperator: String, CaseIterable, Sendable {
    case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    case add = "+", subtract = "-", divide = "/", remainder = "%", and = "&&", or = "||"

    static let comparisons: [GenOperator] = [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual]
    static let arithmetic: [GenOperator] = [.add, .add, .subtract, .divide, .remainder]
}

/// One segment of a generated `match` pattern.
enum GenSegment: Equatable, Sendable {
    case literal(String)
    /// `{name}`: one segment.
    case capture(String)
    /// `{name=**}`: zero or more segments (rules_version 2).
    case rest(String)
}

/// `allow <methods>[: if <condition>];`
struct GenAllow: Equatable, Sendable {
    var methods: [String]
    /// nil: no condition (always grants).
    var condition: GenExpr?
}

/// A `match` block with its rules and nested blocks.
struct GenBlock: Equatable, Sendable {
    var pattern: [GenSegment]
    var allows: [GenAllow]
    var children: [GenBlock]
}

/// A generated program: optional `function f(x) { return body; }`, and the blocks inside
/// `match /databases/{database}/documents`.
struct GenProgram: Equatable, Sendable {
    var function: GenExpr?
    var blocks: [GenBlock]
    /// `f` is declared inside `match /databases/{database}/documents` (its body may read
    /// `database`) rather than at service scope.
    var functionInRoot = false

    /// Literal segments used by any pattern (the request generator reuses them).
    var literals: [String] {
        func walk(_ blocks: [GenBlock]) -> [String] {
            blocks.flatMap { block in
                block.pattern.compactMap { if case .literal(let text) = $0 { text } else { nil } } + walk(block.children)
            }
        }
        return walk(blocks)
    }
}

// MARK: - Generating

/// Decodes a ``GenProgram`` from fuzz bytes. Zeros (what a ``ByteReader`` yields past the end)
/// always choose the smallest option, so generation terminates.
struct RulesProgramGenerator {
    static let literalSegments = ["users", "posts", "a", "alice"]
    /// `database` and `resource` are rare on purpose: they shadow the outer wildcard / the global.
    static let captureNames = ["userId", "docId", "userId", "docId", "id", "database", "resource"]
    static let restNames = ["rest", "rest", "userId"]
    static let methods = ["read", "write", "get", "list", "create", "update", "delete"]
    static let dataKeys = ["name", "age", "owner"]
    static let strings = ["", "a", "alice", "bob", "users", "é"]
    static let ints: [Int64] = [0, 1, 2, 5, 9_223_372_036_854_775_807]
    static let typeNames = ["string", "int", "bool", "null", "path", "number", "map"]
    static let maxDepth = 4
    static let maxBlocks = 4

    var reader: ByteReader
    private var hasFunction = false

    init(_ reader: ByteReader) { self.reader = reader }

    mutating func program() -> GenProgram {
        var function: GenExpr?
        var inRoot = false
        if reader.choose(3) == 2 {
            // The body never calls f (recursion is rejected, RL2007).
            inRoot = reader.choose(2) == 1
            function = expression(depth: Self.maxDepth - 1, scope: inRoot ? ["x", "database"] : ["x"])
            hasFunction = true
        }
        var budget = 1 + reader.choose(Self.maxBlocks)
        let blocks = self.blocks(&budget, scope: ["database"])
        return GenProgram(function: function, blocks: blocks, functionInRoot: inRoot)
    }

    /// Sibling blocks (at least one) spending `budget`; some get nested children.
    private mutating func blocks(_ budget: inout Int, scope: [String]) -> [GenBlock] {
        var result: [GenBlock] = []
        repeat {
            budget -= 1
            let pattern = self.pattern()
            let inner = scope + pattern.compactMap { segment -> String? in
                switch segment {
                case .literal: nil
                case .capture(let name), .rest(let name): name
                }
            }
            let allows = (0..<reader.choose(4)).map { _ in allow(scope: inner) }
            let children = budget > 0 && reader.choose(2) == 1 ? blocks(&budget, scope: inner) : []
            result.append(GenBlock(pattern: pattern, allows: allows, children: children))
        } while budget > 0 && reader.choose(2) == 1
        return result
    }

    /// One or two segments; a `{name=**}` only last.
    private mutating func pattern() -> [GenSegment] {
        let count = 1 + reader.choose(2)
        return (0..<count).map { index in
            switch reader.choose(5) {
            case 0, 1: .literal(Self.literalSegments[reader.choose(Self.literalSegments.count)])
            case 2, 3: .capture(Self.captureNames[reader.choose(Self.captureNames.count)])
            default:
                index == count - 1
                    ? .rest(Self.restNames[reader.choose(Self.restNames.count)])
                    : .capture(Self.captureNames[reader.choose(Self.captureNames.count)])
            }
        }
    }

    private mutating func allow(scope: [String]) -> GenAllow {
        var methods: [String] = []
        for _ in 0..<(1 + reader.choose(2)) {
            let method = Self.methods[reader.choose(Self.methods.count)]
            if !methods.contains(method) { methods.append(method) }
        }
        let condition: GenExpr? = reader.choose(10) == 9 ? nil : boolean(depth: 1 + reader.choose(Self.maxDepth), scope: scope)
        return GenAllow(methods: methods, condition: condition)
    }

    /// An expression meant to be a bool (it may still be another type or raise an error).
    mutating func boolean(depth: Int, scope: [String]) -> GenExpr {
        guard depth > 1 else {
            switch reader.choose(3) {
            case 0: return .bool(reader.choose(2) == 1)
            case 1: return .authIsNull(reader.choose(2) == 1)
            default: return value(depth: 1, scope: scope)
            }
        }
        let d = depth - 1
        switch reader.choose(12) {
        case 0: return .bool(reader.choose(2) == 1)
        case 1: return .authIsNull(reader.choose(2) == 1)
        case 2, 3:
            let op = GenOperator.comparisons[reader.choose(GenOperator.comparisons.count)]
            return .binary(op, value(depth: d, scope: scope), value(depth: d, scope: scope))
        case 4: return .binary(.and, boolean(depth: d, scope: scope), boolean(depth: d, scope: scope))
        case 5: return .binary(.or, boolean(depth: d, scope: scope), boolean(depth: d, scope: scope))
        case 6: return .not(boolean(depth: d, scope: scope))
        case 7: return .inList(value(depth: d, scope: scope), (0..<reader.choose(4)).map { _ in value(depth: d, scope: scope) })
        case 8: return .isType(value(depth: d, scope: scope), Self.typeNames[reader.choose(Self.typeNames.count)])
        case 9: return .ternary(boolean(depth: d, scope: scope), boolean(depth: d, scope: scope), boolean(depth: d, scope: scope))
        case 10 where hasFunction: return .call(value(depth: d, scope: scope))
        default: return value(depth: d, scope: scope)
        }
    }

    /// An expression of any type (ints and strings mostly; sometimes one that errors).
    mutating func value(depth: Int, scope: [String]) -> GenExpr {
        let leaves = 7
        let choice = reader.choose(depth > 1 ? leaves + 5 : leaves)
        let d = depth - 1
        switch choice {
        case 0: return .int(Self.ints[reader.choose(Self.ints.count)])
        case 1: return .string(Self.strings[reader.choose(Self.strings.count)])
        case 2: return .authUid
        case 3: return scope.isEmpty ? .null : .variable(scope[reader.choose(scope.count)])
        case 4: return .data(afterWrite: true, key: Self.dataKeys[reader.choose(Self.dataKeys.count)])
        case 5: return .data(afterWrite: false, key: Self.dataKeys[reader.choose(Self.dataKeys.count)])
        case 6: return reader.choose(2) == 0 ? .null : .bool(reader.choose(2) == 1)
        case 7, 8:
            let op = GenOperator.arithmetic[reader.choose(GenOperator.arithmetic.count)]
            return .binary(op, value(depth: d, scope: scope), value(depth: d, scope: scope))
        case 9: return .size(value(depth: d, scope: scope))
        case 10: return .ternary(boolean(depth: d, scope: scope), value(depth: d, scope: scope), value(depth: d, scope: scope))
        default: return hasFunction ? .call(value(depth: d, scope: scope)) : boolean(depth: d, scope: scope)
        }
    }

    /// The body of `f` (depth ≤ 3, sees only `x` and the globals).
    private mutating func expression(depth: Int, scope: [String]) -> GenExpr {
        reader.choose(2) == 0 ? boolean(depth: depth, scope: scope) : value(depth: depth, scope: scope)
    }
}

// MARK: - Rendering

extension GenProgram {
    /// The program as rules source text.
    var text: String {
        var out = "rules_version = '2';\nservice cloud.firestore {\n"
        func declare(_ indent: String) {
            if let function { out += "\(indent)function f(x) {\n\(indent)  return \(function.text);\n\(indent)}\n" }
        }
        if !functionInRoot { declare("  ") }
        out += "  match /databases/{database}/documents {\n"
        if functionInRoot { declare("    ") }
        for block in blocks { block.render(into: &out, indent: "    ") }
        out += "  }\n}\n"
        return out
    }
}

extension GenBlock {
    func render(into out: inout String, indent: String) {
        let pattern = self.pattern.map { segment in
            switch segment {
            case .literal(let text): text
            case .capture(let name): "{\(name)}"
            case .rest(let name): "{\(name)=**}"
            }
        }.joined(separator: "/")
        out += "\(indent)match /\(pattern) {\n"
        for allow in allows {
            out += "\(indent)  allow \(allow.methods.joined(separator: ", "))"
            if let condition = allow.condition { out += ": if \(condition.text)" }
            out += ";\n"
        }
        for child in children { child.render(into: &out, indent: indent + "  ") }
        out += "\(indent)}\n"
    }
}

extension GenExpr {
    /// Source text; every compound expression is parenthesized, so precedence never matters.
    var text: String {
        switch self {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .int(let value): String(value)
        case .string(let value): "'\(value)'"
        case .authIsNull(let isNull): isNull ? "(request.auth == null)" : "(request.auth != null)"
        case .authUid: "request.auth.uid"
        case .variable(let name): name
        case .data(let afterWrite, let key): (afterWrite ? "request.resource.data." : "resource.data.") + key
        case .binary(let op, let lhs, let rhs): "(\(lhs.text) \(op.rawValue) \(rhs.text))"
        case .not(let operand): "!(\(operand.text))"
        case .inList(let item, let list): "(\(item.text) in [\(list.map(\.text).joined(separator: ", "))])"
        case .size(let operand): "(\(operand.text)).size()"
        case .isType(let operand, let type): "(\(operand.text) is \(type))"
        case .ternary(let condition, let then, let otherwise): "(\(condition.text) ? \(then.text) : \(otherwise.text))"
        case .call(let argument): "f(\(argument.text))"
        }
    }
}
