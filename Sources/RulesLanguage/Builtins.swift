// Builtins: operators, methods and namespace functions of the rules language, as pure functions
// of values. Document lookups, `debug()` and user functions live in the Evaluator.
import Diagnostics
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The static catalogue the checker uses: names and arities of everything built in.
enum BuiltinCatalogue {
    /// Global functions callable by bare name, with arity.
    static let globalFunctions: [String: ClosedRange<Int>] = [
        "int": 1...1, "float": 1...1, "string": 1...1, "path": 1...1, "debug": 1...1,
    ]
    /// Firestore-only lookups.
    static let firestoreFunctions: [String: ClosedRange<Int>] = [
        "get": 1...1, "exists": 1...1, "getAfter": 1...1, "existsAfter": 1...1,
    ]
    /// Namespaces and their functions.
    static let namespaces: [String: [String: ClosedRange<Int>]] = [
        "math": ["abs": 1...1, "ceil": 1...1, "floor": 1...1, "round": 1...1, "sqrt": 1...1, "pow": 2...2, "isNaN": 1...1],
        "timestamp": ["date": 3...3, "value": 1...1],
        "duration": ["abs": 1...1, "time": 4...4, "value": 2...2],
        "hashing": ["crc32": 1...1, "crc32c": 1...1, "md5": 1...1, "sha256": 1...1],
        "latlng": ["value": 2...2],
    ]
    /// Storage-only namespace.
    static let storageNamespaces: [String: [String: ClosedRange<Int>]] = [
        "firestore": ["get": 1...1, "exists": 1...1],
    ]
    /// Every method name on any type, with the widest arity range.
    static let methods: [String: ClosedRange<Int>] = [
        // string
        "lower": 0...0, "upper": 0...0, "matches": 1...1, "replace": 2...2, "split": 1...1,
        "size": 0...0, "toUtf8": 0...0, "trim": 0...0,
        // list / set
        "concat": 1...1, "hasAll": 1...1, "hasAny": 1...1, "hasOnly": 1...1, "join": 1...1,
        "removeAll": 1...1, "toSet": 0...0, "difference": 1...1, "intersection": 1...1, "union": 1...1,
        // map / map diff
        "diff": 1...1, "get": 2...2, "keys": 0...0, "values": 0...0,
        "addedKeys": 0...0, "removedKeys": 0...0, "changedKeys": 0...0, "unchangedKeys": 0...0, "affectedKeys": 0...0,
        // path
        "bind": 1...1,
        // timestamp / duration
        "date": 0...0, "day": 0...0, "dayOfWeek": 0...0, "dayOfYear": 0...0, "hours": 0...0, "minutes": 0...0,
        "month": 0...0, "nanos": 0...0, "seconds": 0...0, "year": 0...0, "time": 0...0, "toMillis": 0...0,
        // latlng
        "distance": 1...1, "latitude": 0...0, "longitude": 0...0,
        // bytes
        "toBase64": 0...0, "toHexString": 0...0,
    ]
    /// Type names accepted after `is`.
    static let typeNames: Set<String> = [
        "bool", "int", "float", "number", "string", "bytes", "list", "map", "set", "map_diff",
        "path", "timestamp", "duration", "latlng", "null",
    ]
    /// Variables every condition sees.
    static let globalVariables: Set<String> = ["request", "resource"]
}

/// Operators, methods and namespace functions over values.
enum Builtins {
    // MARK: - Operators

    static func binary(_ op: BinaryOperator, _ a: Value, _ b: Value, _ span: SourceSpan, _ meter: inout WorkMeter) throws(EvaluationError) -> Value {
        switch op {
        case .equal: return .bool(try meter.equal(a, b, span))
        case .notEqual: return .bool(!(try meter.equal(a, b, span)))
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            if case .string(let x) = a, case .string(let y) = b { try meter.charge(min(x.utf8.count, y.utf8.count), span) }
            if case .bytes(let x) = a, case .bytes(let y) = b { try meter.charge(min(x.count, y.count), span) }
            let order = try compare(a, b, op, span)
            switch op {
            case .less: return .bool(order < 0)
            case .lessOrEqual: return .bool(order <= 0)
            case .greater: return .bool(order > 0)
            default: return .bool(order >= 0)
            }
        case .in: return .bool(try contains(b, a, span, &meter))
        case .add, .subtract, .multiply, .divide, .remainder: return try arithmetic(op, a, b, span, &meter)
        case .and, .or:
            throw EvaluationError(code: RulesLanguageCodes.internalError.id,
                                  message: "internal error: `\(op.rawValue)` reached arithmetic; please report the input", span: span)
        }
    }

    static func describe(_ op: String, _ a: Value, _ b: Value) -> String {
        "\(a.typeName) \(op) \(b.typeName)"
    }

    /// -1, 0 or 1; an error for types without an order.
    static func compare(_ a: Value, _ b: Value, _ op: BinaryOperator, _ span: SourceSpan) throws(EvaluationError) -> Int {
        func sign<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x == y ? 0 : 1) }
        switch (a, b) {
        case (.int(let x), .int(let y)): return sign(x, y)
        case (.float(let x), .float(let y)) where !x.isNaN && !y.isNaN: return sign(x, y)
        case (.int(let x), .float(let y)) where !y.isNaN: return sign(Double(x), y)
        case (.float(let x), .int(let y)) where !x.isNaN: return sign(x, Double(y))
        case (.float, .float), (.int, .float), (.float, .int): return 2  // NaN: every comparison is false
        case (.string(let x), .string(let y)): return x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : (x == y ? 0 : 1)
        case (.timestamp(let x), .timestamp(let y)): return sign(x, y)
        case (.duration(let x), .duration(let y)): return sign(x, y)
        case (.bytes(let x), .bytes(let y)): return x.lexicographicallyPrecedes(y) ? -1 : (x == y ? 0 : 1)
        default: throw .unsupported(describe(op.rawValue, a, b), span)
        }
    }

    static func contains(_ container: Value, _ item: Value, _ span: SourceSpan, _ meter: inout WorkMeter) throws(EvaluationError) -> Bool {
        switch container {
        case .list(let items), .set(let items):
            for element in items where try meter.equal(element, item, span) { return true }
            return false
        case .map(let map):
            guard case .string(let key) = item else { return false }
            try meter.charge(key.utf8.count, span)
            return map[key] != nil
        case .null: throw .nullValue("`in` on null", span)
        default: throw .unsupported("\(item.typeName) in \(container.typeName)", span)
        }
    }

    static func arithmetic(_ op: BinaryOperator, _ a: Value, _ b: Value, _ span: SourceSpan, _ meter: inout WorkMeter) throws(EvaluationError) -> Value {
        switch (a, b) {
        case (.int(let x), .int(let y)):
            let result: (Int64, Bool)
            switch op {
            case .add: result = x.addingReportingOverflow(y)
            case .subtract: result = x.subtractingReportingOverflow(y)
            case .multiply: result = x.multipliedReportingOverflow(by: y)
            case .divide:
                guard y != 0 else { throw .divideByZero(span) }
                result = x.dividedReportingOverflow(by: y)
            default:
                guard y != 0 else { throw .divideByZero(span) }
                result = x.remainderReportingOverflow(dividingBy: y)
            }
            if result.1 { throw .overflow(span) }
            return .int(result.0)
        case (.int, .float), (.float, .int), (.float, .float):
            let x = a.asDouble ?? 0, y = b.asDouble ?? 0
            switch op {
            case .add: return .float(x + y)
            case .subtract: return .float(x - y)
            case .multiply: return .float(x * y)
            case .divide:
                guard y != 0 else { throw .divideByZero(span) }
                return .float(x / y)
            default:
                guard y != 0 else { throw .divideByZero(span) }
                return .float(x.truncatingRemainder(dividingBy: y))
            }
        case (.string(let x), .string(let y)) where op == .add:
            try meter.build(x.utf8.count + y.utf8.count, "bytes", by: "`+`", span)
            return .string(x + y)
        case (.list(let x), .list(let y)) where op == .add:
            try meter.build(x.count + y.count, "elements", by: "`+`", span)
            return .list(x + y)
        case (.bytes(let x), .bytes(let y)) where op == .add:
            try meter.build(x.count + y.count, "bytes", by: "`+`", span)
            return .bytes(x + y)
        case (.timestamp(let t), .duration(let d)) where op == .add || op == .subtract:
            let seconds = op == .add ? d.seconds : try negated(d.seconds, span)
            return try timestamp(try sum(t.seconds, seconds, span), t.nanos + (op == .add ? d.nanos : -d.nanos), span)
        case (.duration(let d), .timestamp(let t)) where op == .add:
            return try timestamp(try sum(t.seconds, d.seconds, span), t.nanos + d.nanos, span)
        case (.timestamp(let x), .timestamp(let y)) where op == .subtract:
            return .duration(RulesDuration(seconds: try sum(x.seconds, try negated(y.seconds, span), span), nanos: x.nanos - y.nanos))
        case (.duration(let x), .duration(let y)) where op == .add || op == .subtract:
            let seconds = op == .add ? y.seconds : try negated(y.seconds, span)
            return .duration(RulesDuration(seconds: try sum(x.seconds, seconds, span), nanos: x.nanos + (op == .add ? y.nanos : -y.nanos)))
        case (.null, _), (_, .null):
            throw .nullValue("`\(op.rawValue)` on null", span)
        default:
            throw .unsupported(describe(op.rawValue, a, b), span)
        }
    }

    static func sum(_ a: Int64, _ b: Int64, _ span: SourceSpan) throws(EvaluationError) -> Int64 {
        let (result, overflow) = a.addingReportingOverflow(b)
        if overflow { throw .overflow(span) }
        return result
    }

    static func negated(_ a: Int64, _ span: SourceSpan) throws(EvaluationError) -> Int64 {
        guard a != .min else { throw .overflow(span) }
        return -a
    }

    /// A timestamp within years 1–9999, else an error.
    static func timestamp(_ seconds: Int64, _ nanos: Int32, _ span: SourceSpan) throws(EvaluationError) -> Value {
        let value = Timestamp(seconds: seconds, nanos: nanos)
        guard Timestamp.validSeconds.contains(value.seconds) else {
            throw .invalidArgument("timestamp is outside years 1 to 9999", span)
        }
        return .timestamp(value)
    }

    static func negate(_ value: Value, _ span: SourceSpan) throws(EvaluationError) -> Value {
        switch value {
        case .int(let x):
            guard x != .min else { throw .overflow(span) }
            return .int(-x)
        case .float(let x): return .float(-x)
        case .duration(let d): return .duration(RulesDuration(seconds: try negated(d.seconds, span), nanos: -d.nanos))
        default: throw .unsupported("-\(value.typeName)", span)
        }
    }

    static func isType(_ value: Value, _ typeName: String) -> Bool {
        switch typeName {
        case "number": if case .int = value { return true }; if case .float = value { return true }; return false
        default: return value.typeName == typeName
        }
    }

    // MARK: - Member access and indexing

    static func member(_ base: Value, _ name: String, _ span: SourceSpan) throws(EvaluationError) -> Value {
        switch base {
        case .map(let map):
            guard let value = map[name] else { throw .undefinedProperty(name, span) }
            return value
        case .null: throw .nullValue("cannot read `\(name)` of null", span)
        default: throw .unsupported("`.\(name)` on \(base.typeName)", span)
        }
    }

    static func index(_ base: Value, _ index: Value, _ span: SourceSpan, _ meter: inout WorkMeter) throws(EvaluationError) -> Value {
        switch (base, index) {
        case (.map, .string(let key)):
            try meter.charge(key.utf8.count, span)
            return try member(base, key, span)
        case (.list(let items), .int(let i)):
            guard i >= 0, i < items.count else { throw .indexOutOfRange(i, size: items.count, span) }
            return items[Int(i)]
        case (.string(let text), .int(let i)):
            try meter.charge(text.utf8.count, span)
            let scalars = Array(text.unicodeScalars)
            guard i >= 0, i < scalars.count else { throw .indexOutOfRange(i, size: scalars.count, span) }
            return .string(String(scalars[Int(i)]))
        case (.path(let p), .int(let i)):
            guard i >= 0, i < p.segments.count else { throw .indexOutOfRange(i, size: p.segments.count, span) }
            return .string(p.segments[Int(i)])
        case (.null, _): throw .nullValue("cannot index null", span)
        default: throw .unsupported("\(base.typeName)[\(index.typeName)]", span)
        }
    }

    static func range(_ base: Value, _ from: Value, _ to: Value, _ span: SourceSpan, _ meter: inout WorkMeter) throws(EvaluationError) -> Value {
        guard case .int(let i) = from, case .int(let j) = to else {
            throw .unsupported("\(base.typeName)[\(from.typeName):\(to.typeName)]", span)
        }
        func check(_ count: Int) throws(EvaluationError) {
            if i < 0 || i > count { throw .indexOutOfRange(i, size: count, span) }
            if j < i || j > count { throw .indexOutOfRange(j, size: count, span) }
        }
        switch base {
        case .list(let items):
            try check(items.count)
            try meter.charge(Int(j - i), span)
            return .list(Array(items[Int(i)..<Int(j)]))
        case .string(let text):
            try meter.charge(text.utf8.count, span)
            let scalars = Array(text.unicodeScalars)
            try check(scalars.count)
            var out = String.UnicodeScalarView()
            out.append(contentsOf: scalars[Int(i)..<Int(j)])
            return .string(String(out))
        case .path(let p):
            try check(p.segments.count)
            try meter.charge(Int(j - i), span)
            return .path(PathValue(segments: Array(p.segments[Int(i)..<Int(j)])))
        case .null: throw .nullValue("cannot slice null", span)
        default: throw .unsupported("\(base.typeName)[int:int]", span)
        }
    }
}

extension Value {
    var asString: String? { if case .string(let s) = self { s } else { nil } }
    var asList: [Value]? { if case .list(let l) = self { l } else { nil } }
    var asMap: [String: Value]? { if case .map(let m) = self { m } else { nil } }
    var asCollection: [Value]? {
        switch self {
        case .list(let l), .set(let l): l
        default: nil
        }
    }
    var asDouble: Double? {
        switch self {
        case .int(let x): Double(x)
        case .float(let x): x
        default: nil
        }
    }
}
