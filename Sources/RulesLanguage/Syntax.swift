// Syntax: the tree the parser produces. Every node carries a source span; equality ignores spans
// so that `parse(print(tree)) == tree` can be checked structurally.
import Diagnostics

// MARK: - Expressions

/// A binary operator, spelled as in the source.
public enum BinaryOperator: String, Sendable, Hashable, CaseIterable {
    case or = "||", and = "&&"
    case equal = "==", notEqual = "!="
    case less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    case `in` = "in"
    case add = "+", subtract = "-", multiply = "*", divide = "/", remainder = "%"

    /// Binding strength: higher binds tighter (`in` binds tighter than `==`).
    public var precedence: Int {
        switch self {
        case .or: 1
        case .and: 2
        case .equal, .notEqual: 3
        case .in: 5  // 4 is `is`
        case .less, .lessOrEqual, .greater, .greaterOrEqual: 6
        case .add, .subtract: 7
        case .multiply, .divide, .remainder: 8
        }
    }
}

/// A prefix operator.
public enum UnaryOperator: String, Sendable, Hashable {
    case not = "!", negate = "-"
}

/// One segment of a path literal such as `/databases/$(database)/documents/x`.
public enum PathLiteralSegment: Sendable, Equatable {
    /// A segment spelled literally (`documents`, `(default)`).
    case literal(String)
    /// A `$(expr)` interpolation.
    case interpolation(Expr)
    /// A `{name}` placeholder, kept for `bind()`.
    case placeholder(String)
}

/// One key/value pair of a map literal.
public struct MapLiteralEntry: Sendable, Equatable {
    /// The key (map literal keys are strings).
    public var key: String
    /// The value expression.
    public var value: Expr

    /// Creates an entry.
    public init(key: String, value: Expr) {
        self.key = key
        self.value = value
    }
}

/// The shape of an expression node.
public indirect enum ExprKind: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Double)
    case string(String)
    case bytes([UInt8])
    case list([Expr])
    case map([MapLiteralEntry])
    case path([PathLiteralSegment])
    /// A name: a variable, wildcard, `request`, `resource`, or a namespace before `.f(…)`.
    case identifier(String)
    /// `base.name`
    case member(Expr, String)
    /// `base[index]`
    case index(Expr, Expr)
    /// `base[from:to]`
    case range(Expr, Expr, Expr)
    /// `name(args)` when `receiver` is nil, else `receiver.name(args)`.
    case call(receiver: Expr?, name: String, arguments: [Expr])
    case unary(UnaryOperator, Expr)
    case binary(BinaryOperator, Expr, Expr)
    /// `value is typeName`
    case isType(Expr, String)
    /// `condition ? then : else`
    case ternary(Expr, Expr, Expr)
}

/// An expression with its source span. Equality compares structure only, not spans.
public struct Expr: Sendable, Equatable {
    /// What the node is.
    public var kind: ExprKind
    /// Where it is in the source (UTF-8 byte range).
    public var span: SourceSpan
    /// Depth of the tree rooted here (1 for a leaf); bounded by the parser.
    public let height: Int

    /// Creates a node and computes its height.
    public init(_ kind: ExprKind, span: SourceSpan) {
        self.kind = kind
        self.span = span
        self.height = 1 + Expr.childHeight(kind)
    }

    public static func == (lhs: Expr, rhs: Expr) -> Bool { lhs.kind == rhs.kind }

    /// The direct sub-expressions, left to right.
    public var children: [Expr] {
        switch kind {
        case .null, .bool, .int, .float, .string, .bytes, .identifier: []
        case .list(let items): items
        case .map(let entries): entries.map(\.value)
        case .path(let segments): segments.compactMap { if case .interpolation(let e) = $0 { e } else { nil } }
        case .member(let base, _): [base]
        case .index(let base, let index): [base, index]
        case .range(let base, let from, let to): [base, from, to]
        case .call(let receiver, _, let arguments): (receiver.map { [$0] } ?? []) + arguments
        case .unary(_, let operand): [operand]
        case .binary(_, let lhs, let rhs): [lhs, rhs]
        case .isType(let value, _): [value]
        case .ternary(let c, let t, let e): [c, t, e]
        }
    }

    private static func childHeight(_ kind: ExprKind) -> Int {
        switch kind {
        case .null, .bool, .int, .float, .string, .bytes, .identifier: 0
        case .list(let items): items.reduce(0) { max($0, $1.height) }
        case .map(let entries): entries.reduce(0) { max($0, $1.value.height) }
        case .path(let segments):
            segments.reduce(0) { if case .interpolation(let e) = $1 { max($0, e.height) } else { $0 } }
        case .member(let base, _): base.height
        case .index(let a, let b): max(a.height, b.height)
        case .range(let a, let b, let c): max(a.height, b.height, c.height)
        case .call(let receiver, _, let arguments):
            arguments.reduce(receiver?.height ?? 0) { max($0, $1.height) }
        case .unary(_, let a): a.height
        case .binary(_, let a, let b): max(a.height, b.height)
        case .isType(let a, _): a.height
        case .ternary(let a, let b, let c): max(a.height, b.height, c.height)
        }
    }
}

// MARK: - Declarations

/// `let name = value;` inside a function.
public struct LetBinding: Sendable, Equatable {
    /// The declared name.
    public var name: String
    /// The bound expression.
    public var value: Expr
    /// Where the declaration is in the source.
    public var span: SourceSpan

    /// Creates the node.
    public init(name: String, value: Expr, span: SourceSpan) {
        self.name = name
        self.value = value
        self.span = span
    }

    public static func == (lhs: LetBinding, rhs: LetBinding) -> Bool {
        lhs.name == rhs.name && lhs.value == rhs.value
    }
}

/// `function name(params) { let …; return expr; }`
public struct FunctionDecl: Sendable, Equatable {
    /// The declared name.
    public var name: String
    /// Parameter names in order.
    public var parameters: [String]
    /// `let` bindings, evaluated in order before `body`.
    public var lets: [LetBinding]
    /// The `return` expression.
    public var body: Expr
    /// The whole declaration.
    public var span: SourceSpan
    /// Just the name, for diagnostics.
    public var nameSpan: SourceSpan

    /// Creates the node.
    public init(name: String, parameters: [String], lets: [LetBinding], body: Expr, span: SourceSpan, nameSpan: SourceSpan) {
        self.name = name
        self.parameters = parameters
        self.lets = lets
        self.body = body
        self.span = span
        self.nameSpan = nameSpan
    }

    public static func == (lhs: FunctionDecl, rhs: FunctionDecl) -> Bool {
        lhs.name == rhs.name && lhs.parameters == rhs.parameters && lhs.lets == rhs.lets && lhs.body == rhs.body
    }
}

/// A request method as written in `allow`; `read` and `write` are umbrellas.
public enum RuleMethod: String, Sendable, Hashable, CaseIterable {
    case read, write, get, list, create, update, delete

    /// Whether a grant for this word covers a request with `method`.
    public func covers(_ method: RequestMethod) -> Bool {
        switch self {
        case .read: method == .get || method == .list
        case .write: method == .create || method == .update || method == .delete
        case .get: method == .get
        case .list: method == .list
        case .create: method == .create
        case .update: method == .update
        case .delete: method == .delete
        }
    }
}

/// `allow m1, m2: if condition;` (a missing condition always grants).
public struct AllowRule: Sendable, Equatable {
    /// The methods as written.
    public var methods: [RuleMethod]
    /// The `if` condition; nil grants unconditionally.
    public var condition: Expr?
    /// Where the declaration is in the source.
    public var span: SourceSpan

    /// Creates the node.
    public init(methods: [RuleMethod], condition: Expr?, span: SourceSpan) {
        self.methods = methods
        self.condition = condition
        self.span = span
    }

    public static func == (lhs: AllowRule, rhs: AllowRule) -> Bool {
        lhs.methods == rhs.methods && lhs.condition == rhs.condition
    }
}

/// One segment of a `match` path pattern.
public enum PatternSegment: Sendable, Hashable {
    /// Matches exactly this text.
    case literal(String)
    /// `{name}`: exactly one segment, bound as a string.
    case single(String)
    /// `{name=**}`: many segments, bound as a path (one or more in v1, zero or more in v2).
    case recursive(String)

    /// The variable this segment binds, if any.
    public var variable: String? {
        switch self {
        case .literal: nil
        case .single(let name), .recursive(let name): name
        }
    }
}

/// `match /a/{b} { … }`
public struct MatchBlock: Sendable, Equatable {
    /// The path pattern, relative to the enclosing match.
    public var pattern: [PatternSegment]
    /// Functions declared in this scope.
    public var functions: [FunctionDecl]
    /// Nested `match` blocks.
    public var matches: [MatchBlock]
    /// `allow` statements.
    public var allows: [AllowRule]
    /// Where the declaration is in the source.
    public var span: SourceSpan
    /// Just the pattern, for diagnostics.
    public var patternSpan: SourceSpan

    /// Creates the node.
    public init(pattern: [PatternSegment], functions: [FunctionDecl] = [], matches: [MatchBlock] = [], allows: [AllowRule] = [], span: SourceSpan, patternSpan: SourceSpan) {
        self.pattern = pattern
        self.functions = functions
        self.matches = matches
        self.allows = allows
        self.span = span
        self.patternSpan = patternSpan
    }

    public static func == (lhs: MatchBlock, rhs: MatchBlock) -> Bool {
        lhs.pattern == rhs.pattern && lhs.functions == rhs.functions && lhs.matches == rhs.matches && lhs.allows == rhs.allows
    }

    /// The pattern as written: `/users/{userId}`.
    public var patternText: String {
        pattern.map { segment -> String in
            switch segment {
            case .literal(let text): "/" + text
            case .single(let name): "/{\(name)}"
            case .recursive(let name): "/{\(name)=**}"
            }
        }.joined()
    }
}

/// Which product a ruleset guards.
public enum ServiceKind: String, Sendable, Hashable, CaseIterable {
    case firestore = "cloud.firestore"
    case storage = "firebase.storage"
}

/// `service cloud.firestore { … }`
public struct ServiceDecl: Sendable, Equatable {
    /// Firestore or Storage.
    public var kind: ServiceKind
    /// The name as written (`cloud.storage` is accepted as an alias of `firebase.storage`).
    public var name: String
    /// Functions declared in this scope.
    public var functions: [FunctionDecl]
    /// Nested `match` blocks.
    public var matches: [MatchBlock]
    /// Where the declaration is in the source.
    public var span: SourceSpan

    /// Creates the node.
    public init(kind: ServiceKind, name: String, functions: [FunctionDecl] = [], matches: [MatchBlock] = [], span: SourceSpan) {
        self.kind = kind
        self.name = name
        self.functions = functions
        self.matches = matches
        self.span = span
    }

    public static func == (lhs: ServiceDecl, rhs: ServiceDecl) -> Bool {
        lhs.kind == rhs.kind && lhs.name == rhs.name && lhs.functions == rhs.functions && lhs.matches == rhs.matches
    }
}

/// A whole `.rules` file.
public struct RulesFile: Sendable, Equatable {
    /// The `rules_version` string (`"1"` or `"2"`), nil when absent (the v1 engine).
    public var version: String?
    /// Functions declared in this scope.
    public var functions: [FunctionDecl]
    /// The `service` blocks (exactly one in a valid file).
    public var services: [ServiceDecl]

    /// Creates the node.
    public init(version: String? = nil, functions: [FunctionDecl] = [], services: [ServiceDecl] = []) {
        self.version = version
        self.functions = functions
        self.services = services
    }

    /// True when the v2 engine applies (`rules_version = '2'`).
    public var isVersion2: Bool { version == "2" }
}
