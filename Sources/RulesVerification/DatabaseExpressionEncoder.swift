// DatabaseExpressionEncoder: Realtime Database rule expressions as SMT terms over the symbolic
// tree (DatabaseSymbolicTree). A value carries "evaluation failed" and a type tag; a rule passes
// when its value is `true` without an error. A construct that is not encoded becomes an
// unconstrained value of any type (an over-approximation), named with its location so a witness
// that depends on it and does not replay reports it.
import DatabaseRules
import Diagnostics

/// A symbolic rule value: `error` (a Bool term), and a type tag (0 null, 1 boolean, 2 number,
/// 3 string, 4 the value of an object node, 5 the `auth` object) with a payload per type.
struct DBValue {
    var error: String
    var tag: String
    var bool = "false"
    var number = "0.0"
    var string = "\"\""

    static func bool(_ term: String, error: String = "false") -> DBValue { DBValue(error: error, tag: "1", bool: term) }
    static let null = DBValue(error: "false", tag: "0")
    static func string(_ term: String) -> DBValue { DBValue(error: "false", tag: "3", string: term) }
    static func number(_ term: String) -> DBValue { DBValue(error: "false", tag: "2", number: term) }

    /// The value is `true` (and no error): what makes a rule pass.
    var isTrue: String { SMT.and([SMT.not(error), SMT.eq(tag, "1"), bool]) }
    func has(_ tag: Int) -> String { SMT.eq(self.tag, String(tag)) }
}

/// An encoded expression: a value, a node reference, or a pattern/array argument.
enum DBTerm {
    case value(DBValue)
    /// A node of `tree` at `path`; nil path: under a key computed at run time (not modelled).
    case snapshot(DBTreeKind, [DBKey]?)
    case regex(pattern: String, flags: String)
    case array([DatabaseExpression])
}

/// Where an expression is evaluated.
struct DBScope {
    /// `data`/`newData` point here.
    var location: [DBKey]
    /// `$name` → key.
    var bindings: [String: DBKey]
    /// The file or condition the expression's spans are in, and how to locate a span.
    var locate: (SourceSpan) -> String
    /// A read rule (or condition): `newData` is the stored tree.
    var isRead: Bool
}

/// Encodes expressions over one symbolic tree; shared by every rule of both files in a query.
final class DatabaseExpressionEncoder {
    let tree: DatabaseSymbolicTree
    /// Constructs left unconstrained, with their locations (for reasons).
    var abstractions: [Abstraction] = []
    /// `auth` present, and the member chains read from it with their values.
    let authPresent: String
    private(set) var authChains: [[String]: DBValue] = [:]
    /// `now`, in milliseconds.
    let now: String

    init(tree: DatabaseSymbolicTree) {
        self.tree = tree
        authPresent = tree.fresh("auth", sort: "Bool")
        now = tree.fresh("now", sort: "Real")
        tree.assert("(and (is_int \(now)) (>= \(now) 0.0) (< \(now) 9000000000000000.0))")
        registerValue(authPresent)
        registerValue(now)
    }

    private func registerValue(_ symbol: String) { tree.noteValueSymbol(symbol) }

    /// An unconstrained value (any type, possibly an error), for `construct` at `location`.
    func havoc(_ construct: String, at location: String) -> DBValue {
        abstractions.append(Abstraction(construct: construct, location: location))
        let value = DBValue(error: tree.fresh("herr", sort: "Bool"), tag: tree.fresh("htag", sort: "Int"),
                            bool: tree.fresh("hb", sort: "Bool"), number: tree.fresh("hn", sort: "Real"), string: tree.fresh("hs", sort: "String"))
        tree.assert("(and (>= \(value.tag) 0) (<= \(value.tag) 5))")
        return value
    }

    /// An error value (the rule fails).
    static let failure = DBValue(error: "true", tag: "0")

    /// The value of a rule: passes when true.
    func passes(_ expr: DatabaseExpression, scope: DBScope) -> String {
        value(expr, scope: scope).isTrue
    }

    func value(_ expr: DatabaseExpression, scope: DBScope) -> DBValue {
        switch encode(expr, scope: scope) {
        case .value(let v): return v
        case .snapshot: return havoc("a snapshot used as a value", at: scope.locate(expr.span))
        case .regex, .array: return Self.failure
        }
    }

    // MARK: - Expressions

    func encode(_ expr: DatabaseExpression, scope: DBScope) -> DBTerm {
        switch expr.kind {
        case .null: return .value(.null)
        case .bool(let b): return .value(.bool(b ? "true" : "false"))
        case .number(let n): return n.isFinite ? .value(.number(SMT.real(n))) : .value(havoc("a non-finite number", at: scope.locate(expr.span)))
        case .string(let s): return .value(.string(SMT.string(s)))
        case .regex(let pattern, let flags): return .regex(pattern: pattern, flags: flags)
        case .array: return .array(arrayItems(expr))
        case .variable(let name): return variable(name, expr: expr, scope: scope)
        case .member(let object, let name): return .value(member(object, name, expr: expr, scope: scope))
        case .index: return .value(havoc("`[]` subscript", at: scope.locate(expr.span)))
        case .call(let receiver, let name, let arguments): return call(receiver, name, arguments, expr: expr, scope: scope)
        case .unary(let op, let operand): return .value(unary(op, operand, expr: expr, scope: scope))
        case .binary(let op, let lhs, let rhs): return .value(binary(op, lhs, rhs, expr: expr, scope: scope))
        case .ternary(let condition, let then, let otherwise):
            let c = value(condition, scope: scope)
            let a = value(then, scope: scope), b = value(otherwise, scope: scope)
            let bad = SMT.or([c.error, SMT.not(c.has(1))])
            return .value(DBValue(error: SMT.or([bad, SMT.ite(c.bool, a.error, b.error)]), tag: SMT.ite(c.bool, a.tag, b.tag),
                                  bool: SMT.ite(c.bool, a.bool, b.bool), number: SMT.ite(c.bool, a.number, b.number),
                                  string: SMT.ite(c.bool, a.string, b.string)))
        }
    }

    private func arrayItems(_ expr: DatabaseExpression) -> [DatabaseExpression] {
        if case .array(let items) = expr.kind { return items }
        return []
    }

    private func variable(_ name: String, expr: DatabaseExpression, scope: DBScope) -> DBTerm {
        switch name {
        case "auth": return .value(DBValue(error: "false", tag: SMT.ite(authPresent, "5", "0")))
        case "now": return .value(.number(now))
        case "root": return .snapshot(.old, [])
        case "data": return .snapshot(.old, scope.location)
        case "newData": return .snapshot(scope.isRead ? .old : .new, scope.location)
        default:
            if name.hasPrefix("$"), let key = scope.bindings[name] { return .value(.string(key.term)) }
            return .value(havoc("`\(name)`", at: scope.locate(expr.span)))
        }
    }

    /// The member chain below `auth` of `expr` (`auth.token.email` → `["token", "email"]`).
    private func authChain(_ expr: DatabaseExpression) -> [String]? {
        switch expr.kind {
        case .variable("auth"): return []
        case .member(let object, let name): return authChain(object).map { $0 + [name] }
        default: return nil
        }
    }

    /// The value of an `auth` member chain: null, a primitive or an object (tag 5) while signed
    /// in, null when not.
    func authValue(_ chain: [String]) -> DBValue {
        if let value = authChains[chain] { return value }
        let value = DBValue(error: "false", tag: tree.fresh("atag", sort: "Int"), bool: tree.fresh("ab", sort: "Bool"),
                            number: tree.fresh("an", sort: "Real"), string: tree.fresh("as", sort: "String"))
        tree.assert("(and (>= \(value.tag) 0) (<= \(value.tag) 5) (not (= \(value.tag) 4)))")
        for symbol in [value.tag, value.bool, value.number, value.string] { registerValue(symbol) }
        authChains[chain] = value
        return value
    }

    private func member(_ object: DatabaseExpression, _ name: String, expr: DatabaseExpression, scope: DBScope) -> DBValue {
        if let chain = authChain(expr) {
            // `auth.token` read as a whole while `auth.token.x` is read too is not modelled.
            if authChains.keys.contains(where: { $0.count != chain.count && ($0.starts(with: chain) || chain.starts(with: $0)) }) {
                return havoc("`auth.\(chain.joined(separator: "."))` with its members", at: scope.locate(expr.span))
            }
            let inner = authValue(chain)
            return DBValue(error: "false", tag: SMT.ite(authPresent, inner.tag, "0"), bool: inner.bool, number: inner.number, string: inner.string)
        }
        let receiver = value(object, scope: scope)
        guard name == "length" else {
            let h = havoc("member `\(name)`", at: scope.locate(expr.span))
            return DBValue(error: SMT.ite(receiver.has(0), "false", h.error), tag: SMT.ite(receiver.has(0), "0", h.tag),
                           bool: h.bool, number: h.number, string: h.string)
        }
        // `length` counts UTF-16 code units: the code points, more when any is outside the BMP.
        let points = "(str.len \(receiver.string))"
        let wide = tree.fresh("len", sort: "Int", for: receiver.string)
        tree.assert("(and (> \(wide) \(points)) (<= \(wide) (* 2 \(points))))")
        let astral = "(str.in_re \(receiver.string) (re.++ (re.* re.allchar) (re.range \"\\u{10000}\" \"\\u{2ffff}\") (re.* re.allchar)))"
        let length = "(to_real \(SMT.ite(astral, wide, points)))"
        // A member of null is null (the evaluator's rule), of any other non-string an error.
        return DBValue(error: SMT.or([receiver.error, SMT.not(SMT.or([receiver.has(3), receiver.has(0)]))]),
                       tag: SMT.ite(receiver.has(0), "0", "2"), number: length)
    }

    private func unary(_ op: UnaryOperator, _ operand: DatabaseExpression, expr: DatabaseExpression, scope: DBScope) -> DBValue {
        let v = value(operand, scope: scope)
        switch op {
        case .not: return .bool(SMT.not(v.bool), error: SMT.or([v.error, SMT.not(v.has(1))]))
        case .negate: return DBValue(error: SMT.or([v.error, SMT.not(v.has(2))]), tag: "2", number: "(- \(v.number))")
        }
    }

    /// Strict equality of two values (no error of its own). Two JSON objects (tag 5: `auth` or
    /// an object inside it) compare by content, which is not modelled: unconstrained.
    func equal(_ a: DBValue, _ b: DBValue) -> String {
        let objects = tree.fresh("objeq", sort: "Bool", for: a.tag + " " + b.tag)
        return SMT.and([SMT.eq(a.tag, b.tag), SMT.or([
            a.has(0), SMT.and([a.has(5), objects]),
            SMT.and([a.has(1), SMT.eq(a.bool, b.bool)]),
            SMT.and([a.has(2), SMT.eq(a.number, b.number)]),
            SMT.and([a.has(3), SMT.eq(a.string, b.string)]),
        ])])
    }

    private func binary(_ op: BinaryOperator, _ lhs: DatabaseExpression, _ rhs: DatabaseExpression, expr: DatabaseExpression,
                        scope: DBScope) -> DBValue {
        let a = value(lhs, scope: scope)
        let b = value(rhs, scope: scope)
        let errors = SMT.or([a.error, b.error])
        switch op {
        case .and, .or:
            // Short-circuit: the right side is evaluated (and may fail) only when needed.
            let aBad = SMT.or([a.error, SMT.not(a.has(1))])
            let bBad = SMT.or([b.error, SMT.not(b.has(1))])
            let needsRight = op == .and ? a.bool : SMT.not(a.bool)
            let result = op == .and ? SMT.and([a.bool, b.bool]) : SMT.or([a.bool, b.bool])
            return .bool(result, error: SMT.or([aBad, SMT.and([needsRight, bBad])]))
        case .equal, .strictEqual:
            return .bool(equal(a, b), error: errors)
        case .notEqual, .strictNotEqual:
            return .bool(SMT.not(equal(a, b)), error: errors)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            let symbol = ["<": "<", "<=": "<=", ">": ">", ">=": ">="][op.rawValue]!
            let numbers = SMT.and([a.has(2), b.has(2)])
            let strings = SMT.and([a.has(3), b.has(3)])
            // Strings order by UTF-16 code units: not modelled.
            let stringOrder = tree.fresh("ord", sort: "Bool", for: "\(op.rawValue) \(a.string) \(b.string)")
            let comparesStrings = expr.span.start >= 0 && !(isNumeric(lhs) || isNumeric(rhs))
            if comparesStrings { abstractions.append(Abstraction(construct: "string ordering `\(op.rawValue)`", location: scope.locate(expr.span))) }
            return .bool(SMT.ite(numbers, "(\(symbol) \(a.number) \(b.number))", stringOrder),
                         error: SMT.or([errors, SMT.not(SMT.or([numbers, strings]))]))
        case .add:
            let strings = SMT.and([a.has(3), b.has(3)])
            let other = havoc("`+` of numbers", at: scope.locate(expr.span))
            return DBValue(error: SMT.or([errors, SMT.ite(strings, "false", other.error)]), tag: SMT.ite(strings, "3", other.tag),
                           bool: other.bool, number: other.number, string: SMT.ite(strings, "(str.++ \(a.string) \(b.string))", other.string))
        case .subtract, .multiply, .divide, .remainder:
            let other = havoc("arithmetic `\(op.rawValue)`", at: scope.locate(expr.span))
            return DBValue(error: SMT.or([errors, SMT.not(SMT.and([a.has(2), b.has(2)])), other.error]), tag: "2", number: other.number)
        }
    }

    /// Whether an operand is a number whatever the data (a literal or `now`).
    private func isNumeric(_ expr: DatabaseExpression) -> Bool {
        switch expr.kind {
        case .number, .variable("now"): true
        case .unary(.negate, let inner): isNumeric(inner)
        default: false
        }
    }
}
