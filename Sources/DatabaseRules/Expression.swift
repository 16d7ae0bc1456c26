// DatabaseExpression: the syntax tree of one rule expression. Spans are UTF-8 byte offsets into the
// decoded expression string (see `RuleExpression.fileSpan(_:)` for the file position).
import Diagnostics

/// A binary operator.
public enum BinaryOperator: String, Sendable, Hashable, CaseIterable {
    case or = "||", and = "&&"
    case equal = "==", strictEqual = "===", notEqual = "!=", strictNotEqual = "!=="
    case less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    case add = "+", subtract = "-", multiply = "*", divide = "/", remainder = "%"

    /// Binding strength; higher binds tighter.
    public var precedence: Int {
        switch self {
        case .or: 1
        case .and: 2
        case .equal, .strictEqual, .notEqual, .strictNotEqual: 3
        case .less, .lessOrEqual, .greater, .greaterOrEqual: 4
        case .add, .subtract: 5
        case .multiply, .divide, .remainder: 6
        }
    }
}

/// A unary operator.
public enum UnaryOperator: String, Sendable, Hashable {
    case not = "!", negate = "-"
}

/// One node of an expression tree.
///
/// Equality and hashing ignore spans, so a printed and re-parsed tree equals the original.
public struct DatabaseExpression: Sendable, Hashable {
    /// The node's kind and children.
    public indirect enum Kind: Sendable, Hashable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        /// `/pattern/flags`: the pattern as written and its flags (`""` or `"i"`).
        case regex(pattern: String, flags: String)
        /// `[a, b]`: only as the argument of `hasChildren`.
        case array([DatabaseExpression])
        /// `auth`, `root`, `data`, `newData`, `now`, `query` or a `$name`.
        case variable(String)
        /// `object.name`.
        case member(DatabaseExpression, String)
        /// `object[index]`.
        case index(DatabaseExpression, DatabaseExpression)
        /// `receiver.method(arguments)`.
        case call(DatabaseExpression, String, [DatabaseExpression])
        case unary(UnaryOperator, DatabaseExpression)
        case binary(BinaryOperator, DatabaseExpression, DatabaseExpression)
        case ternary(DatabaseExpression, DatabaseExpression, DatabaseExpression)
    }

    /// The kind.
    public var kind: Kind
    /// The node's bytes in the expression string.
    public var span: SourceSpan

    /// Creates a node.
    public init(_ kind: Kind, span: SourceSpan = SourceSpan(start: 0, end: 0)) {
        self.kind = kind
        self.span = span
    }

    public static func == (lhs: DatabaseExpression, rhs: DatabaseExpression) -> Bool { lhs.kind == rhs.kind }
    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }

    /// Calls `body` for this node and every node below it, parents first (iteratively).
    public func forEachNode(_ body: (DatabaseExpression) -> Void) {
        var stack = [self]
        while let node = stack.popLast() {
            body(node)
            switch node.kind {
            case .array(let items): stack += items.reversed()
            case .member(let object, _): stack.append(object)
            case .index(let object, let index): stack += [index, object]
            case .call(let receiver, _, let arguments): stack += arguments.reversed() + [receiver]
            case .unary(_, let operand): stack.append(operand)
            case .binary(_, let lhs, let rhs): stack += [rhs, lhs]
            case .ternary(let c, let a, let b): stack += [b, a, c]
            default: break
            }
        }
    }
}
