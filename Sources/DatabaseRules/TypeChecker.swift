// TypeChecker: the deploy-time type model (reference §2.4). `any` (auth data) and `primitive`
// (`val()`, priorities, query bounds) are dynamic: checked only at run time.
import Diagnostics

/// A static type.
enum StaticType: Equatable {
    case boolean, number, string, null, snapshot, regexp, query, array, any, primitive

    var isDynamic: Bool { self == .any || self == .primitive }
    var name: String {
        switch self {
        case .boolean: "boolean"
        case .number: "number"
        case .string: "string"
        case .null: "null"
        case .snapshot: "snapshot"
        case .regexp: "regular expression"
        case .query: "query"
        case .array: "array"
        case .any, .primitive: "value"
        }
    }
}

/// A method's signature: argument kinds and result.
struct MethodSignature {
    enum Argument { case string, stringArrayLiteral, regexLiteral }
    var arguments: [Argument]
    var optionalTail = false
    var result: StaticType
}

enum Members {
    static let snapshot: [String: MethodSignature] = [
        "val": .init(arguments: [], result: .primitive),
        "child": .init(arguments: [.string], result: .snapshot),
        "parent": .init(arguments: [], result: .snapshot),
        "hasChild": .init(arguments: [.string], result: .boolean),
        "hasChildren": .init(arguments: [.stringArrayLiteral], optionalTail: true, result: .boolean),
        "exists": .init(arguments: [], result: .boolean),
        "getPriority": .init(arguments: [], result: .primitive),
        "isNumber": .init(arguments: [], result: .boolean),
        "isString": .init(arguments: [], result: .boolean),
        "isBoolean": .init(arguments: [], result: .boolean),
    ]
    static let string: [String: MethodSignature] = [
        "contains": .init(arguments: [.string], result: .boolean),
        "beginsWith": .init(arguments: [.string], result: .boolean),
        "endsWith": .init(arguments: [.string], result: .boolean),
        "replace": .init(arguments: [.string, .string], result: .string),
        "toLowerCase": .init(arguments: [], result: .string),
        "toUpperCase": .init(arguments: [], result: .string),
        "matches": .init(arguments: [.regexLiteral], result: .boolean),
    ]
    static let query: [String: StaticType] = [
        "orderByKey": .boolean, "orderByValue": .boolean, "orderByPriority": .boolean, "orderByChild": .string,
        "startAt": .primitive, "endAt": .primitive, "equalTo": .primitive, "limitToFirst": .number, "limitToLast": .number,
    ]
    static let variables: Set<String> = ["auth", "root", "data", "newData", "now", "query"]
}

struct TypeChecker {
    let kind: RuleKind
    let variables: Set<String>

    func fail(_ code: String, _ message: String, _ span: SourceSpan, help: String? = nil) -> ExpressionProblem {
        ExpressionProblem(code: code, message: message, span: span, help: help)
    }

    /// Checks a node; recursion depth is bounded by the parser's `maxExpressionDepth`.
    func check(_ expr: DatabaseExpression) throws(ExpressionProblem) -> StaticType {
        switch expr.kind {
        case .null: return .null
        case .bool: return .boolean
        case .number: return .number
        case .string: return .string
        case .regex:
            throw fail(DatabaseCode.misplacedLiteral, "a regular expression can only be the argument of `matches()`", expr.span)
        case .array:
            throw fail(DatabaseCode.misplacedLiteral, "an array literal can only be the argument of `hasChildren()`", expr.span)
        case .variable(let name):
            if name.hasPrefix("$") {
                guard variables.contains(name) else {
                    throw fail(DatabaseCode.unknownVariable, "unknown variable `\(name)`", expr.span,
                               help: variables.isEmpty ? "no `$` wildcard encloses this rule"
                                 : "wildcards in scope: " + variables.sorted().map { "`\($0)`" }.joined(separator: ", "))
                }
                return .string
            }
            switch name {
            case "auth": return .any
            case "root", "data": return .snapshot
            case "newData":
                guard kind != .read else {
                    throw fail(DatabaseCode.newDataInRead, "`newData` is invalid in `.read` expressions", expr.span,
                               help: "a read writes nothing; use `data` or `root`")
                }
                return .snapshot
            case "now": return .number
            case "query": return .query
            default:
                let near = (Members.variables.union(variables)).min { editDistance(name, $0) < editDistance(name, $1) }
                throw fail(DatabaseCode.unknownVariable, "unknown variable `\(name)`", expr.span,
                           help: near.flatMap { editDistance(name, $0) <= 2 ? "did you mean `\($0)`?" : nil }
                             ?? "variables are auth, root, data, newData, now, query and enclosing `$` wildcards")
            }
        case .member(let object, let name):
            let type = try check(object)
            switch type {
            case .any: return .any
            case .string, .primitive:
                if name == "length" { return .number }
            case .query:
                if let field = Members.query[name] { return field }
            default: break
            }
            throw noSuchMember(name, on: type, expr.span, called: false)
        case .index(let object, let index):
            let type = try check(object)
            let indexType = try check(index)
            guard type == .any else {
                throw fail(DatabaseCode.subscriptNotAllowed, "`[]` is only allowed on `auth` data, not on a \(type.name)", expr.span,
                           help: type == .snapshot || type == .primitive ? "use `child('name')` on a snapshot" : nil)
            }
            guard [.string, .number, .any, .primitive].contains(indexType) else {
                throw fail(DatabaseCode.subscriptNotAllowed, "a subscript must be a string or a number", index.span)
            }
            return .any
        case .call(let receiver, let name, let arguments):
            let type = try check(receiver)
            let signature: MethodSignature
            switch type {
            case .snapshot:
                guard let s = Members.snapshot[name] else { throw noSuchMember(name, on: type, expr.span, called: true) }
                signature = s
            case .string, .primitive, .any:
                if let s = Members.string[name] {
                    signature = s
                } else if type == .any || name == "length" {
                    throw fail(DatabaseCode.notAFunction, "type error: function call on target that is not a function", expr.span,
                               help: name == "length" ? "`length` is a property: write `.length`" : nil)
                } else {
                    throw noSuchMember(name, on: type, expr.span, called: true)
                }
            case .query where Members.query[name] != nil:
                throw fail(DatabaseCode.notAFunction, "type error: function call on target that is not a function", expr.span,
                           help: "`query.\(name)` is a field, not a method")
            default:
                throw noSuchMember(name, on: type, expr.span, called: true)
            }
            let required = signature.optionalTail ? signature.arguments.count - 1 : signature.arguments.count
            guard arguments.count >= required, arguments.count <= signature.arguments.count else {
                let expected = signature.optionalTail ? "0 or \(signature.arguments.count) arguments"
                    : "\(signature.arguments.count) argument\(signature.arguments.count == 1 ? "" : "s")"
                throw fail(DatabaseCode.arity, "`\(name)()` expects \(expected), got \(arguments.count)", expr.span)
            }
            for (argument, expected) in zip(arguments, signature.arguments) {
                switch expected {
                case .regexLiteral:
                    guard case .regex = argument.kind else {
                        throw fail(DatabaseCode.matchesArgument, "`matches()` expects a regular expression literal argument", argument.span,
                                   help: "write the pattern as `/…/` or `/…/i`")
                    }
                case .stringArrayLiteral:
                    guard case .array(let items) = argument.kind else {
                        throw fail(DatabaseCode.argumentType, "`hasChildren()` expects an array literal of strings", argument.span,
                                   help: "write the names as `['a', 'b']`")
                    }
                    for item in items {
                        let t = try check(item)
                        guard t == .string || t.isDynamic else {
                            throw fail(DatabaseCode.argumentType, "`hasChildren()` expects an array literal of strings", item.span)
                        }
                    }
                case .string:
                    let t = try check(argument)
                    guard t == .string || t.isDynamic else {
                        throw fail(DatabaseCode.argumentType, "`\(name)()` expects a string argument, found a \(t.name)", argument.span)
                    }
                }
            }
            return signature.result
        case .unary(.not, let operand):
            guard try check(operand) == .boolean else {
                throw fail(DatabaseCode.notOperand, "`!` only operates on booleans", expr.span,
                           help: "compare the value, e.g. `!(newData.val() == true)`")
            }
            return .boolean
        case .unary(.negate, let operand):
            let t = try check(operand)
            guard t == .number || t.isDynamic else {
                throw fail(DatabaseCode.arithmeticOperand, "invalid `-` expression: operand is not a number", expr.span)
            }
            return .number
        case .binary(let op, let lhs, let rhs):
            let l = try check(lhs)
            let r = try check(rhs)
            switch op {
            case .and, .or:
                for (t, side, node) in [(l, "left", lhs), (r, "right", rhs)] where t != .boolean {
                    throw fail(DatabaseCode.logicalOperand, "invalid `\(op.rawValue)` expression: \(side) operand is not a boolean", node.span,
                               help: t.isDynamic ? "compare the value, e.g. `auth.token.admin == true`" : nil)
                }
                return .boolean
            case .equal, .strictEqual, .notEqual, .strictNotEqual:
                let allowed: [StaticType] = [.number, .boolean, .string, .null, .any, .primitive]
                for (t, side, node) in [(l, "left", lhs), (r, "right", rhs)] where !allowed.contains(t) {
                    throw fail(DatabaseCode.equalityOperand,
                               "invalid `\(op.rawValue)` expression: \(side) operand is not a number, boolean, string, or null", node.span,
                               help: t == .snapshot ? "compare `val()`, or use `exists()`" : nil)
                }
                return .boolean
            case .less, .lessOrEqual, .greater, .greaterOrEqual:
                let allowed: [StaticType] = [.number, .string, .any, .primitive]
                for (t, side, node) in [(l, "left", lhs), (r, "right", rhs)] where !allowed.contains(t) {
                    throw fail(DatabaseCode.orderingOperand, "invalid `\(op.rawValue)` expression: \(side) operand must be a number or string", node.span,
                               help: t == .snapshot ? "compare `val()`" : nil)
                }
                if !l.isDynamic, !r.isDynamic, l != r {
                    throw fail(DatabaseCode.orderingOperand, "invalid `\(op.rawValue)` expression: a \(l.name) cannot be ordered against a \(r.name)", expr.span)
                }
                return .boolean
            case .add:
                let allowed: [StaticType] = [.number, .string, .any, .primitive]
                for (t, side, node) in [(l, "left", lhs), (r, "right", rhs)] where !allowed.contains(t) {
                    throw fail(DatabaseCode.arithmeticOperand, "invalid `+` expression: \(side) operand is not a number or string", node.span)
                }
                if l == .number && r == .number { return .number }
                if l == .string || r == .string { return .string }
                return .primitive
            case .subtract, .multiply, .divide, .remainder:
                for (t, side, node) in [(l, "left", lhs), (r, "right", rhs)] where !(t == .number || t.isDynamic) {
                    throw fail(DatabaseCode.arithmeticOperand, "invalid `\(op.rawValue)` expression: \(side) operand is not a number", node.span)
                }
                return .number
            }
        case .ternary(let condition, let then, let otherwise):
            guard try check(condition) == .boolean else {
                throw fail(DatabaseCode.logicalOperand, "the condition of `?:` must be a boolean", condition.span)
            }
            let a = try check(then)
            let b = try check(otherwise)
            if a == b { return a }
            if a.isDynamic || b.isDynamic { return .any }
            if a == .null { return b }
            if b == .null { return a }
            return .any
        }
    }

    func noSuchMember(_ name: String, on type: StaticType, _ span: SourceSpan, called: Bool) -> ExpressionProblem {
        let candidates: [String]
        switch type {
        case .snapshot: candidates = Array(Members.snapshot.keys)
        case .string, .primitive: candidates = Array(Members.string.keys) + ["length"]
        case .query: candidates = Array(Members.query.keys)
        default: candidates = []
        }
        let near = candidates.min { editDistance(name, $0) < editDistance(name, $1) }.flatMap { editDistance(name, $0) <= 2 ? $0 : nil }
        var help = near.map { "did you mean `\($0)`?" }
        if help == nil, type == .snapshot, Members.string[name] != nil || name == "length" { help = "call `val()` first: `newData.val().\(name)`" }
        if help == nil, type == .snapshot, !called { help = "a snapshot has methods only, such as `child('\(name)')`" }
        return fail(DatabaseCode.noSuchMember, "no such method/property `\(name)` on a \(type.name)", span, help: help)
    }
}
