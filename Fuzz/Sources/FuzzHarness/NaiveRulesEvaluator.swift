// NaiveRulesEvaluator: a deliberately simple reference for the differential fuzz target. It
// decides a request against a generated program (GenProgram) by walking the generator's own tree:
// no compilation, no caching, no fast paths, nothing shared with RulesLanguage. It implements the
// semantics documented in docs/RULES-LANGUAGE.md ("Semantics", "Choices").

/// A request in the differential's own terms.
struct NaiveRequest: Equatable, Sendable, CustomStringConvertible {
    /// A value in the small data maps.
    enum Field: Equatable, Sendable { case text(String), number(Int64), flag(Bool), null }

    /// `get list create update delete`.
    var method: String
    /// Segments after `/databases/(default)/documents`.
    var segments: [String]
    var uid: String?
    /// `resource.data`; nil: the document does not exist.
    var resource: [String: Field]?
    /// `request.resource.data`; nil: reading it is an error.
    var requestResource: [String: Field]?

    var path: String { "/databases/(default)/documents" + segments.map { "/" + $0 }.joined() }

    var description: String {
        func show(_ map: [String: Field]?) -> String {
            guard let map else { return "nil" }
            return "{" + map.sorted { $0.key < $1.key }.map { key, field in
                switch field {
                case .text(let text): "\(key): '\(text)'"
                case .number(let number): "\(key): \(number)"
                case .flag(let flag): "\(key): \(flag)"
                case .null: "\(key): null"
                }
            }.joined(separator: ", ") + "}"
        }
        return "\(method) \(path.debugDescription) uid=\(uid.map { $0.debugDescription } ?? "nil") "
            + "resource.data=\(show(resource)) request.resource.data=\(show(requestResource))"
    }
}

/// The reference decision procedure.
struct NaiveRulesEvaluator {
    /// A deliberate mistake, so tests can show the differential catches a wrong reference.
    enum Flaw: Sendable { case none, readDoesNotCoverList, errorAbsorbedAsFalse }

    /// A runtime value; `error` is any evaluation error (its text is for people only).
    indirect enum Value: Equatable {
        case null, bool(Bool), int(Int64), string(String), path([String]), list([Value]), map([String: Value])
        case error(String)

        var typeName: String {
            switch self {
            case .null: "null"
            case .bool: "bool"
            case .int: "int"
            case .string: "string"
            case .path: "path"
            case .list: "list"
            case .map: "map"
            case .error: "error"
            }
        }

        var isError: Bool { if case .error = self { true } else { false } }
    }

    let program: GenProgram
    let request: NaiveRequest
    var flaw: Flaw = .none

    // MARK: - Deciding

    /// Default deny; any applicable `allow` whose condition is exactly `true` grants.
    func allows() -> Bool {
        if request.segments.contains(where: \.isEmpty) { return false }  // RL3023: no such document
        let root = GenBlock(pattern: [.literal("databases"), .capture("database"), .literal("documents")], allows: [], children: program.blocks)
        let path = ["databases", "(default)", "documents"] + request.segments
        return anyGrant([root], path, from: 0, bindings: [])
    }

    /// Tries every block at every way its pattern matches from `start`.
    private func anyGrant(_ blocks: [GenBlock], _ path: [String], from start: Int, bindings: [(String, Value)]) -> Bool {
        for block in blocks {
            for (end, bound) in ways(block.pattern[...], path, start) {
                let scope = bindings + bound
                if end == path.count {
                    for allow in block.allows where allow.methods.contains(where: covers) {
                        guard let condition = allow.condition else { return true }
                        if eval(condition, scope) == .bool(true) { return true }
                    }
                }
                if anyGrant(block.children, path, from: end, bindings: scope) { return true }
            }
        }
        return false
    }

    /// Every (end, bindings) for which `pattern` matches `path[start..<end]`.
    private func ways(_ pattern: ArraySlice<GenSegment>, _ path: [String], _ start: Int) -> [(Int, [(String, Value)])] {
        guard let first = pattern.first else { return [(start, [])] }
        let rest = pattern.dropFirst()
        switch first {
        case .literal(let text):
            guard start < path.count, path[start] == text else { return [] }
            return ways(rest, path, start + 1)
        case .capture(let name):
            guard start < path.count else { return [] }
            return ways(rest, path, start + 1).map { ($0.0, [(name, .string(path[start]))] + $0.1) }
        case .rest(let name):
            // rules_version 2: zero or more segments.
            return (start...path.count).flatMap { end in
                ways(rest, path, end).map { ($0.0, [(name, .path(Array(path[start..<end])))] + $0.1) }
            }
        }
    }

    /// `read` = get + list, `write` = create + update + delete.
    private func covers(_ granted: String) -> Bool {
        switch granted {
        case "read": request.method == "get" || (request.method == "list" && flaw != .readDoesNotCoverList)
        case "write": ["create", "update", "delete"].contains(request.method)
        default: granted == request.method
        }
    }

    // MARK: - Expressions

    /// Evaluates `expr` with `scope` (outermost first; the innermost binding of a name wins).
    func eval(_ expr: GenExpr, _ scope: [(String, Value)]) -> Value {
        switch expr {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .string(let s): return .string(s)
        case .authIsNull(let isNull): return .bool((request.uid == nil) == isNull)
        case .authUid:
            guard let uid = request.uid else { return .error("uid of null auth") }
            return .string(uid)
        case .variable(let name):
            if let bound = scope.last(where: { $0.0 == name }) { return bound.1 }
            if name == "resource" { return resourceValue }
            return .error("unknown variable \(name)")
        case .data(let afterWrite, let key):
            let holder: Value
            if afterWrite {
                guard let data = request.requestResource else { return .error("request.resource is undefined") }
                holder = .map(["data": Self.map(data)])
            } else {
                holder = eval(.variable("resource"), scope)
            }
            return member(member(holder, "data"), key)
        case .binary(let op, let lhs, let rhs):
            return binary(op, eval(lhs, scope), eval(rhs, scope))
        case .not(let operand):
            guard case .bool(let b) = eval(operand, scope) else { return .error("! on a non-bool") }
            return .bool(!b)
        case .inList(let item, let list):
            let needle = eval(item, scope)
            let values = list.map { eval($0, scope) }
            if needle.isError { return needle }
            if let failed = values.first(where: \.isError) { return failed }
            return .bool(values.contains { equal(needle, $0) })
        case .size(let operand):
            switch eval(operand, scope) {
            case .string(let s): return .int(Int64(s.unicodeScalars.count))
            case .list(let items): return .int(Int64(items.count))
            case .map(let entries): return .int(Int64(entries.count))
            case .error(let why): return .error(why)
            case let other: return .error("size() on \(other.typeName)")
            }
        case .isType(let operand, let type):
            let value = eval(operand, scope)
            if value.isError { return value }
            if type == "number" { return .bool(value.typeName == "int") }
            return .bool(value.typeName == type)
        case .ternary(let condition, let then, let otherwise):
            guard case .bool(let b) = eval(condition, scope) else { return .error("non-bool ternary condition") }
            return eval(b ? then : otherwise, scope)
        case .call(let argument):
            let value = eval(argument, scope)
            if value.isError { return value }
            guard let body = program.function else { return .error("no function f") }
            // Lexical scope: `f` sees `x`, the globals and, when declared in the root block, `database`.
            let outer: [(String, Value)] = program.functionInRoot ? [("database", .string("(default)"))] : []
            return eval(body, outer + [("x", value)])
        }
    }

    private var resourceValue: Value {
        guard let data = request.resource else { return .null }
        return .map(["data": Self.map(data), "id": .string(request.segments.last ?? "")])
    }

    static func map(_ fields: [String: NaiveRequest.Field]) -> Value {
        .map(fields.mapValues { field in
            switch field {
            case .text(let text): .string(text)
            case .number(let number): .int(number)
            case .flag(let flag): .bool(flag)
            case .null: .null
            }
        })
    }

    private func member(_ base: Value, _ key: String) -> Value {
        switch base {
        case .map(let entries): entries[key] ?? .error("missing key \(key)")
        case .error: base
        case .null: .error("field of null")
        default: .error("field of \(base.typeName)")
        }
    }

    private func equal(_ a: Value, _ b: Value) -> Bool { a == b }

    private func binary(_ op: GenOperator, _ a: Value, _ b: Value) -> Value {
        switch op {
        case .and, .or:
            // Commutative absorption: a decisive bool on either side wins, then any error
            // (or non-bool) makes an error, else the non-decisive result.
            let decisive = op == .or
            if a == .bool(decisive) || b == .bool(decisive) { return .bool(decisive) }
            if flaw == .errorAbsorbedAsFalse, op == .or { return .bool(false) }
            guard case .bool = a, case .bool = b else { return .error("\(op.rawValue) on \(a.typeName) and \(b.typeName)") }
            return .bool(!decisive)
        default: break
        }
        if a.isError { return a }
        if b.isError { return b }
        switch op {
        case .equal: return .bool(equal(a, b))
        case .notEqual: return .bool(!equal(a, b))
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            let order: Int
            switch (a, b) {
            case (.int(let x), .int(let y)): order = x < y ? -1 : (x == y ? 0 : 1)
            case (.string(let x), .string(let y)): order = x == y ? 0 : (Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8)) ? -1 : 1)
            default: return .error("\(a.typeName) \(op.rawValue) \(b.typeName)")
            }
            switch op {
            case .less: return .bool(order < 0)
            case .lessOrEqual: return .bool(order <= 0)
            case .greater: return .bool(order > 0)
            default: return .bool(order >= 0)
            }
        default:
            switch (a, b) {
            case (.int(let x), .int(let y)):
                // Overflow and division by zero are errors.
                let result: Int64?
                switch op {
                case .add: result = Self.sum(x, y, subtract: false)
                case .subtract: result = Self.sum(x, y, subtract: true)
                case .divide: result = y == 0 || (x == .min && y == -1) ? nil : x / y
                default: result = y == 0 || (x == .min && y == -1) ? nil : x % y
                }
                guard let result else { return .error("overflow or division by zero") }
                return .int(result)
            case (.string(let x), .string(let y)) where op == .add: return .string(x + y)
            default: return .error("\(a.typeName) \(op.rawValue) \(b.typeName)")
            }
        }
    }

    /// `x + y` / `x - y` if the exact result fits in Int64, else nil (checked against the bounds
    /// before computing, not with the standard library's overflow reporting).
    static func sum(_ x: Int64, _ y: Int64, subtract: Bool) -> Int64? {
        if subtract {
            if y < 0 && x > Int64.max + y { return nil }
            if y > 0 && x < Int64.min + y { return nil }
            return x - y
        }
        if y > 0 && x > Int64.max - y { return nil }
        if y < 0 && x < Int64.min - y { return nil }
        return x + y
    }
}
