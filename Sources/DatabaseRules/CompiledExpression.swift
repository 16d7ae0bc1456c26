// CompiledExpression: a checked rule expression in the form the evaluator runs. Built once per
// rule when the rules file is compiled: variables and methods become cases instead of names,
// literal child paths are split, and regular-expression literals are translated and prepared by
// the injected engine. One node per syntax node, with the same span, so errors, coverage and
// explanations point at the same text as the syntax tree.
import Diagnostics

/// One node of a compiled expression. Immutable.
final class CompiledExpression: Sendable {
    /// A variable, resolved.
    enum Variable: Sendable {
        case auth, root, data, newData, now, query
        /// A `$wildcard` binding, by name with `$`.
        case binding(String)
    }

    /// A method, resolved; `other` is a name no receiver has (checked rules never reach it).
    enum Method: Sendable {
        case val, child, parent, hasChild, hasChildren, exists, getPriority, isNumber, isString, isBoolean
        case contains, beginsWith, endsWith, replace, toLowerCase, toUpperCase, other

        init(_ name: String) {
            switch name {
            case "val": self = .val
            case "child": self = .child
            case "parent": self = .parent
            case "hasChild": self = .hasChild
            case "hasChildren": self = .hasChildren
            case "exists": self = .exists
            case "getPriority": self = .getPriority
            case "isNumber": self = .isNumber
            case "isString": self = .isString
            case "isBoolean": self = .isBoolean
            case "contains": self = .contains
            case "beginsWith": self = .beginsWith
            case "endsWith": self = .endsWith
            case "replace": self = .replace
            case "toLowerCase": self = .toLowerCase
            case "toUpperCase": self = .toUpperCase
            default: self = .other
            }
        }
    }

    /// `base.child(…)….method(literals)` fused: the keys below the base, the evaluation steps the
    /// unfused form takes, and that form, run instead when the steps could reach the limit (so
    /// the limit error and its span stay exact) and shown by explanations.
    final class NodeRead: Sendable {
        let base: Variable
        let keys: [String]
        let call: Call
        let steps: Int
        let unfused: CompiledExpression

        init(base: Variable, keys: [String], call: Call, steps: Int, unfused: CompiledExpression) {
            self.base = base
            self.keys = keys
            self.call = call
            self.steps = steps
            self.unfused = unfused
        }
    }

    /// The operations most rules are made of, as a plain tag: the evaluator reads their operands
    /// from stored properties instead of copying ``op`` (a multi-payload enum) on every visit.
    enum Common: UInt8, Sendable {
        case literal, and, or, not, binary, nodeRead, auth, now, other
    }

    /// A method call: the method, its name for messages, and the keys of literal path
    /// arguments, split once (`child`/`hasChild`: one entry; `hasChildren`: one per item).
    struct Call: Sendable {
        let method: Method
        let name: String
        let literalKeys: [[String]]?
    }

    enum Op: Sendable {
        /// `null`, a boolean, a number or a string literal.
        case literal(RValue)
        case regex(PreparedRegex)
        case array([CompiledExpression])
        case variable(Variable)
        case member(CompiledExpression, String)
        case index(CompiledExpression, CompiledExpression)
        /// `receiver.matches(argument)`: the argument is evaluated only on a string receiver.
        case matches(CompiledExpression, CompiledExpression?)
        case call(CompiledExpression, Call, [CompiledExpression])
        /// A method that only reads a node (`val()`, `exists()`, `isString()`, `hasChild('a')`,
        /// …) on `root`, `data` or `newData` after literal `child()` steps, all arguments literal:
        /// evaluated on the node without building snapshots.
        case nodeRead(NodeRead)
        case not(CompiledExpression)
        case negate(CompiledExpression)
        case and(CompiledExpression, CompiledExpression)
        case or(CompiledExpression, CompiledExpression)
        case binary(BinaryOperator, CompiledExpression, CompiledExpression)
        case ternary(CompiledExpression, CompiledExpression, CompiledExpression)
    }

    let op: Op
    /// The node's bytes in the expression string.
    let span: SourceSpan
    /// ``op`` when it is a common operation, else `other`.
    let common: Common
    // INVARIANT: set as `common` needs them: the operands of `and`, `or`, `binary` (both) and
    // `not` (first); the value of `literal`; the operator of `binary`; the read of `nodeRead`.
    let first: CompiledExpression?
    let second: CompiledExpression?
    let literal: RValue
    let binaryOperator: BinaryOperator
    let read: NodeRead?

    init(_ op: Op, span: SourceSpan) {
        self.op = op
        self.span = span
        var common = Common.other, first: CompiledExpression?, second: CompiledExpression?
        var literal = RValue.null, binaryOperator = BinaryOperator.or, read: NodeRead?
        switch op {
        case .literal(let value): common = .literal; literal = value
        case .and(let l, let r): common = .and; first = l; second = r
        case .or(let l, let r): common = .or; first = l; second = r
        case .not(let o): common = .not; first = o
        case .binary(let o, let l, let r): common = .binary; binaryOperator = o; first = l; second = r
        case .nodeRead(let r): common = .nodeRead; read = r
        case .variable(.auth): common = .auth
        case .variable(.now): common = .now
        default: break
        }
        self.common = common
        self.first = first
        self.second = second
        self.literal = literal
        self.binaryOperator = binaryOperator
        self.read = read
    }

    /// Compiles a checked expression; recursion is bounded by the parser's `maxExpressionDepth`.
    ///
    /// - Parameter regexEngine: prepares each regular-expression literal once.
    convenience init(_ expr: DatabaseExpression, regexEngine: any DatabaseRegexEngine) {
        func sub(_ e: DatabaseExpression) -> CompiledExpression { CompiledExpression(e, regexEngine: regexEngine) }
        let op: Op
        switch expr.kind {
        case .null: op = .literal(.null)
        case .bool(let b): op = .literal(.bool(b))
        case .number(let n): op = .literal(.number(n))
        case .string(let s): op = .literal(.string(s))
        case .regex(let pattern, let flags):
            // A literal outside the dialect never passes the checker; the empty pattern is the
            // fallback the evaluator has always used.
            let translated = (try? DatabaseRegex.translate(pattern, caseInsensitive: !flags.isEmpty)) ?? ""
            op = .regex(PreparedRegex(pattern: translated, matcher: regexEngine.prepare(translated)))
        case .array(let items): op = .array(items.map(sub))
        case .variable(let name):
            switch name {
            case "auth": op = .variable(.auth)
            case "root": op = .variable(.root)
            case "data": op = .variable(.data)
            case "newData": op = .variable(.newData)
            case "now": op = .variable(.now)
            case "query": op = .variable(.query)
            default: op = .variable(.binding(name))
            }
        case .member(let object, let name): op = .member(sub(object), name)
        case .index(let object, let index): op = .index(sub(object), sub(index))
        case .call(let receiver, "matches", let arguments): op = .matches(sub(receiver), arguments.first.map(sub))
        case .call(let receiver, let name, let arguments):
            let method = Method(name)
            var literalKeys: [[String]]?
            switch (method, arguments.first?.kind) {
            case (.child, .string(let path)?), (.hasChild, .string(let path)?):
                literalKeys = [Evaluator.childKeys(path)]
            case (.hasChildren, .array(let items)?):
                var all: [[String]] = []
                for item in items {
                    guard case .string(let key) = item.kind else { all = []; break }
                    all.append(Evaluator.hasChildrenKeys(key))
                }
                if all.count == items.count { literalKeys = all }
            default: break
            }
            let call = Call(method: method, name: name, literalKeys: literalKeys)
            let unfused = CompiledExpression(.call(sub(receiver), call, arguments.map(sub)), span: expr.span)
            if let fused = Self.nodeRead(receiver, call, arguments, unfused: unfused) {
                op = .nodeRead(fused)
            } else {
                op = unfused.op
            }
        case .unary(.not, let operand): op = .not(sub(operand))
        case .unary(.negate, let operand): op = .negate(sub(operand))
        case .binary(.and, let lhs, let rhs): op = .and(sub(lhs), sub(rhs))
        case .binary(.or, let lhs, let rhs): op = .or(sub(lhs), sub(rhs))
        case .binary(let o, let lhs, let rhs): op = .binary(o, sub(lhs), sub(rhs))
        case .ternary(let c, let a, let b): op = .ternary(sub(c), sub(a), sub(b))
        }
        self.init(op, span: expr.span)
    }

    /// The fused form of `receiver.method(arguments)`, when it only reads a node.
    private static func nodeRead(_ receiver: DatabaseExpression, _ call: Call, _ arguments: [DatabaseExpression],
                                 unfused: CompiledExpression) -> NodeRead? {
        // Steps of the final call: its node, its literal arguments, the method itself and the
        // keys `hasChild` looks up (as `Evaluator.eval` and `snapshotMethod` count them).
        var steps = 2
        switch call.method {
        case .val, .exists, .getPriority, .isNumber, .isString, .isBoolean:
            guard arguments.isEmpty else { return nil }
        case .hasChild:
            guard let keys = call.literalKeys?.first else { return nil }
            steps += 1 + keys.count
        case .hasChildren:
            if let items = call.literalKeys {
                steps += 1 + items.count
            } else if !arguments.isEmpty {
                return nil
            }
        default: return nil
        }
        // The receiver: literal `child()` steps down to a data variable.
        var keys: [[String]] = []
        var node = receiver
        while true {
            switch node.kind {
            case .variable(let name):
                let base: Variable
                switch name {
                case "root": base = .root
                case "data": base = .data
                case "newData": base = .newData
                default: return nil
                }
                steps += 1
                return NodeRead(base: base, keys: keys.reversed().flatMap { $0 }, call: call, steps: steps, unfused: unfused)
            case .call(let inner, "child", let args):
                guard args.count == 1, case .string(let path) = args[0].kind else { return nil }
                let childKeys = Evaluator.childKeys(path)
                keys.append(childKeys)
                steps += 3 + childKeys.count
                node = inner
            default: return nil
            }
        }
    }

    /// The operands whose values an explanation shows, in order.
    var operands: [CompiledExpression] {
        switch op {
        case .nodeRead(let read): read.unfused.operands
        case .binary(_, let l, let r), .and(let l, let r), .or(let l, let r): [l, r]
        case .not(let o), .negate(let o): [o]
        case .call(let receiver, _, let arguments): [receiver] + arguments
        case .matches(let receiver, let argument): [receiver] + (argument.map { [$0] } ?? [])
        case .member(let o, _): [o]
        case .index(let o, let i): [o, i]
        default: []
        }
    }

    /// Whether the node is a literal (explanations do not show literal values).
    var isLiteral: Bool {
        switch op {
        case .literal, .regex, .array: true
        default: false
        }
    }

    /// The node whose span is `span`, this one or a descendant, parents first (iteratively).
    func node(at span: SourceSpan) -> CompiledExpression? {
        var stack = [self]
        while let node = stack.popLast() {
            if node.span == span { return node }
            switch node.op {
            case .array(let items): stack += items.reversed()
            case .ternary(let c, let a, let b): stack += [b, a, c]
            default: stack += node.operands.reversed()
            }
        }
        return nil
    }
}

/// A regular-expression literal: its translated pattern and the engine's prepared matcher.
final class PreparedRegex: Sendable {
    /// The translated PCRE2 pattern (as explanations show it).
    let pattern: String
    let matcher: any DatabaseRegexMatcher

    init(pattern: String, matcher: any DatabaseRegexMatcher) {
        self.pattern = pattern
        self.matcher = matcher
    }
}
