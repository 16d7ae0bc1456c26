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

    static func binary(_ op: BinaryOperator, _ a: Value, _ b: Value, _ span: SourceSpan) throws(EvaluationError) -> Value {
        switch op {
        case .equal: return .bool(a == b)
        case .notEqual: return .bool(a != b)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            let order = try compare(a, b, op, span)
            switch op {
            case .less: return .bool(order < 0)
            case .lessOrEqual: return .bool(order <= 0)
            case .greater: return .bool(order > 0)
            default: return .bool(order >= 0)
            }
        case .in: return .bool(try contains(b, a, span))
        case .add, .subtract, .multiply, .divide, .remainder: return try arithmetic(op, a, b, span)
        case .and, .or: throw EvaluationError(code: "RL3099", message: "internal error: `\(op.rawValue)` reached arithmetic; please report the input", span: span)
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

    static func contains(_ container: Value, _ item: Value, _ span: SourceSpan) throws(EvaluationError) -> Bool {
        switch container {
        case .list(let items), .set(let items): return items.contains(item)
        case .map(let map):
            guard case .string(let key) = item else { return false }
            return map[key] != nil
        case .null: throw .nullValue("`in` on null", span)
        default: throw .unsupported("\(item.typeName) in \(container.typeName)", span)
        }
    }

    static func arithmetic(_ op: BinaryOperator, _ a: Value, _ b: Value, _ span: SourceSpan) throws(EvaluationError) -> Value {
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
        case (.string(let x), .string(let y)) where op == .add: return .string(x + y)
        case (.list(let x), .list(let y)) where op == .add: return .list(x + y)
        case (.bytes(let x), .bytes(let y)) where op == .add: return .bytes(x + y)
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

    static func index(_ base: Value, _ index: Value, _ span: SourceSpan) throws(EvaluationError) -> Value {
        switch (base, index) {
        case (.map, .string(let key)): return try member(base, key, span)
        case (.list(let items), .int(let i)):
            guard i >= 0, i < items.count else { throw .indexOutOfRange(i, size: items.count, span) }
            return items[Int(i)]
        case (.string(let text), .int(let i)):
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

    static func range(_ base: Value, _ from: Value, _ to: Value, _ span: SourceSpan) throws(EvaluationError) -> Value {
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
            return .list(Array(items[Int(i)..<Int(j)]))
        case .string(let text):
            let scalars = Array(text.unicodeScalars)
            try check(scalars.count)
            var out = String.UnicodeScalarView()
            out.append(contentsOf: scalars[Int(i)..<Int(j)])
            return .string(String(out))
        case .path(let p):
            try check(p.segments.count)
            return .path(PathValue(segments: Array(p.segments[Int(i)..<Int(j)])))
        case .null: throw .nullValue("cannot slice null", span)
        default: throw .unsupported("\(base.typeName)[int:int]", span)
        }
    }

    // MARK: - Methods

    static func method(_ receiver: Value, _ name: String, _ args: [Value], regex: any RegexEngine, _ span: SourceSpan) throws(EvaluationError) -> Value {
        // Built only when needed: method calls are hot and the message allocates.
        var notFound: EvaluationError { .functionNotFound("\(receiver.typeName).\(name)", span) }
        func arg<T>(_ i: Int, _ extract: (Value) -> T?, _ expected: String) throws(EvaluationError) -> T {
            guard i < args.count else { throw notFound }
            guard let value = extract(args[i]) else {
                throw .unsupported("\(receiver.typeName).\(name)(\(args.map(\.typeName).joined(separator: ", "))), expected \(expected)", span)
            }
            return value
        }
        func regexCall<T>(_ body: () throws(RegexError) -> T) throws(EvaluationError) -> T {
            do { return try body() } catch { throw EvaluationError(code: error.code, message: error.message, span: span) }
        }
        switch receiver {
        case .string(let s):
            switch (name, args.count) {
            case ("lower", 0): return .string(s.lowercased())
            case ("upper", 0): return .string(s.uppercased())
            case ("size", 0): return .int(Int64(s.unicodeScalars.count))
            case ("trim", 0): return .string(trimSpaces(s))
            case ("toUtf8", 0): return .bytes(Array(s.utf8))
            case ("matches", 1):
                let pattern = try arg(0, \.asString, "string")
                return .bool(try regexCall { () throws(RegexError) in try regex.matches(s, pattern: pattern) })
            case ("replace", 2):
                let pattern = try arg(0, \.asString, "string")
                let replacement = try arg(1, \.asString, "string")
                return .string(try regexCall { () throws(RegexError) in try regex.replace(s, pattern: pattern, with: replacement) })
            case ("split", 1):
                let pattern = try arg(0, \.asString, "string")
                return .list(try regexCall { () throws(RegexError) in try regex.split(s, pattern: pattern) }.map(Value.string))
            default: throw notFound
            }
        case .list(let items):
            switch (name, args.count) {
            case ("size", 0): return .int(Int64(items.count))
            case ("concat", 1): return .list(items + (try arg(0, \.asList, "list")))
            case ("hasAll", 1): let other = try arg(0, \.asCollection, "list or set"); return .bool(other.allSatisfy(items.contains))
            case ("hasAny", 1): let other = try arg(0, \.asCollection, "list or set"); return .bool(other.contains(where: items.contains))
            case ("hasOnly", 1): let other = try arg(0, \.asCollection, "list or set"); return .bool(items.allSatisfy(other.contains))
            case ("removeAll", 1): let other = try arg(0, \.asCollection, "list or set"); return .list(items.filter { !other.contains($0) })
            case ("toSet", 0): return Value.makeSet(items)
            case ("join", 1):
                let separator = try arg(0, \.asString, "string")
                var parts: [String] = []
                for item in items {
                    guard case .string(let text) = item else { throw .unsupported("join of a list containing \(item.typeName)", span) }
                    parts.append(text)
                }
                return .string(parts.joined(separator: separator))
            default: throw notFound
            }
        case .set(let items):
            switch (name, args.count) {
            case ("size", 0): return .int(Int64(items.count))
            case ("hasAll", 1): let other = try arg(0, \.asCollection, "list or set"); return .bool(other.allSatisfy(items.contains))
            case ("hasAny", 1): let other = try arg(0, \.asCollection, "list or set"); return .bool(other.contains(where: items.contains))
            case ("hasOnly", 1): let other = try arg(0, \.asCollection, "list or set"); return .bool(items.allSatisfy(other.contains))
            case ("difference", 1), ("intersection", 1), ("union", 1):
                guard case .set(let other) = args[0] else {
                    throw .unsupported("set.\(name)(\(args[0].typeName)), expected set.\(name)(set)", span)
                }
                switch name {
                case "difference": return .set(items.filter { !other.contains($0) })
                case "intersection": return .set(items.filter { other.contains($0) })
                default: return Value.makeSet(items + other)
                }
            default: throw notFound
            }
        case .map(let map):
            switch (name, args.count) {
            case ("size", 0): return .int(Int64(map.count))
            case ("keys", 0): return .list(map.keys.sorted().map(Value.string))
            case ("values", 0): return .list(map.keys.sorted().compactMap { map[$0] })
            case ("diff", 1): return .mapDiff(MapDiff(after: map, before: try arg(0, \.asMap, "map")))
            case ("get", 2):
                switch args[0] {
                case .string(let key): return map[key] ?? args[1]
                case .list(let keys):
                    var current = receiver
                    for key in keys {
                        guard case .map(let m) = current, case .string(let k) = key, let next = m[k] else { return args[1] }
                        current = next
                    }
                    return current
                default: throw .unsupported("map.get(\(args[0].typeName), …), expected a string or list key", span)
                }
            default: throw notFound
            }
        case .mapDiff(let diff):
            guard args.isEmpty else { throw notFound }
            let added = diff.after.keys.filter { diff.before[$0] == nil }
            let removed = diff.before.keys.filter { diff.after[$0] == nil }
            let changed = diff.after.keys.filter { key in diff.before[key].map { $0 != diff.after[key] } ?? false }
            let unchanged = diff.after.keys.filter { key in diff.before[key].map { $0 == diff.after[key] } ?? false }
            let keys: [String]
            switch name {
            case "addedKeys": keys = added
            case "removedKeys": keys = removed
            case "changedKeys": keys = changed
            case "unchangedKeys": keys = unchanged
            case "affectedKeys": keys = added + removed + changed
            default: throw notFound
            }
            return .set(keys.sorted().map(Value.string))
        case .path(let p):
            guard name == "bind", args.count == 1 else { throw notFound }
            let bindings = try arg(0, \.asMap, "map")
            var segments: [String] = []
            for segment in p.segments {
                if segment.hasPrefix("{"), segment.hasSuffix("}"), segment.count > 2 {
                    let key = String(segment.dropFirst().dropLast())
                    guard let bound = bindings[key] else { throw .undefinedProperty(key, span) }
                    segments.append(bound.asString ?? bound.description)
                } else {
                    segments.append(segment)
                }
            }
            return .path(PathValue(segments: segments))
        case .timestamp(let t):
            guard args.isEmpty else { throw notFound }
            guard Timestamp.validSeconds.contains(t.seconds) else {
                throw .invalidArgument("timestamp is outside years 1 to 9999", span)
            }
            let day = CivilTime.floorDiv(t.seconds, 86_400)
            let secondOfDay = CivilTime.secondsIntoDay(t.seconds)
            let civil = CivilTime.civil(days: day)
            switch name {
            case "year": return .int(civil.year)
            case "month": return .int(civil.month)
            case "day": return .int(civil.day)
            case "hours": return .int(secondOfDay / 3600)
            case "minutes": return .int(secondOfDay / 60 % 60)
            case "seconds": return .int(secondOfDay % 60)
            case "nanos": return .int(Int64(t.nanos))
            case "dayOfWeek": return .int(((day % 7 + 7 + 3) % 7) + 1)  // 1970-01-01 was a Thursday; Monday = 1
            case "dayOfYear": return .int(day - CivilTime.days(year: civil.year, month: 1, day: 1) + 1)
            case "date": return .timestamp(Timestamp(seconds: day * 86_400))
            case "time": return .duration(RulesDuration(seconds: secondOfDay, nanos: t.nanos))
            case "toMillis":
                let (millis, overflow) = t.seconds.multipliedReportingOverflow(by: 1000)
                if overflow { throw .overflow(span) }
                return .int(try sum(millis, Int64(t.nanos) / 1_000_000, span))
            default: throw notFound
            }
        case .duration(let d):
            switch (name, args.count) {
            case ("seconds", 0): return .int(d.seconds)
            case ("nanos", 0): return .int(Int64(d.nanos))
            default: throw notFound
            }
        case .latlng(let point):
            switch (name, args.count) {
            case ("latitude", 0): return .float(point.latitude)
            case ("longitude", 0): return .float(point.longitude)
            case ("distance", 1):
                guard case .latlng(let other) = args[0] else { throw .unsupported("latlng.distance(\(args[0].typeName))", span) }
                return .float(distance(point, other))
            default: throw notFound
            }
        case .bytes(let data):
            switch (name, args.count) {
            case ("size", 0): return .int(Int64(data.count))
            case ("toBase64", 0): return .string(Hashing.base64url(data))
            case ("toHexString", 0): return .string(data.map { RulesPrinter.hex($0).uppercased() }.joined())
            default: throw notFound
            }
        case .null:
            throw .nullValue("cannot call `\(name)()` on null", span)
        default:
            throw notFound
        }
    }

    static func trimSpaces(_ s: String) -> String {
        var scalars = Substring(s).unicodeScalars[...]
        while let first = scalars.first, first == " " || first == "\t" || first == "\n" || first == "\r" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" || last == "\n" || last == "\r" { scalars.removeLast() }
        return String(String.UnicodeScalarView(scalars))
    }

    /// Great-circle distance in metres (haversine, mean Earth radius 6,371,000 m).
    static func distance(_ a: LatLng, _ b: LatLng) -> Double {
        let toRadians = Double.pi / 180
        let dLat = (b.latitude - a.latitude) * toRadians
        let dLng = (b.longitude - a.longitude) * toRadians
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(a.latitude * toRadians) * cos(b.latitude * toRadians) * sin(dLng / 2) * sin(dLng / 2)
        return 2 * 6_371_000 * atan2(h.squareRoot(), (1 - h).squareRoot())
    }

    // MARK: - Global conversions and namespaces

    static func global(_ name: String, _ args: [Value], _ span: SourceSpan) throws(EvaluationError) -> Value {
        guard args.count == 1 else { throw .functionNotFound(name, span) }
        let value = args[0]
        switch (name, value) {
        case ("int", .int): return value
        case ("int", .float(let x)):
            guard x.isFinite, x > -9.3e18, x < 9.3e18, let int = Int64(exactly: x.rounded(.towardZero)) else {
                throw .invalidArgument("`int(\(value))` is out of range", span)
            }
            return .int(int)
        case ("int", .string(let s)):
            guard let int = Int64(s) else { throw .invalidArgument("cannot convert \(value) to int", span) }
            return .int(int)
        case ("float", .float): return value
        case ("float", .int(let x)): return .float(Double(x))
        case ("float", .string(let s)):
            guard let x = Double(s), s.allSatisfy({ $0.isNumber || $0 == "." || $0 == "-" || $0 == "+" || $0 == "e" || $0 == "E" }) else {
                throw .invalidArgument("cannot convert \(value) to float", span)
            }
            return .float(x)
        case ("string", .string): return value
        case ("string", .bool), ("string", .int), ("string", .float), ("string", .null): return .string(value.description)
        case ("string", .path(let p)): return .string(p.description)
        case ("path", .string(let s)): return .path(PathValue(s))
        default:
            throw .unsupported("\(name)(\(value.typeName))", span)
        }
    }

    static func namespaced(_ namespace: String, _ name: String, _ args: [Value], _ span: SourceSpan) throws(EvaluationError) -> Value {
        let signature = "\(namespace).\(name)(\(args.map(\.typeName).joined(separator: ", ")))"
        let unsupported = EvaluationError.unsupported(signature, span)
        switch (namespace, name, args.count) {
        case ("math", "abs", 1):
            switch args[0] {
            case .int(let x): guard x != .min else { throw .overflow(span) }; return .int(abs(x))
            case .float(let x): return .float(abs(x))
            default: throw unsupported
            }
        case ("math", "ceil", 1), ("math", "floor", 1), ("math", "round", 1):
            switch args[0] {
            case .int: return args[0]
            case .float(let x):
                let rule: FloatingPointRoundingRule = name == "ceil" ? .up : (name == "floor" ? .down : .toNearestOrAwayFromZero)
                let rounded = x.rounded(rule)
                guard rounded.isFinite, rounded > -9.3e18, rounded < 9.3e18, let int = Int64(exactly: rounded) else {
                    throw .invalidArgument("`\(signature)` is out of range", span)
                }
                return .int(int)
            default: throw unsupported
            }
        case ("math", "sqrt", 1):
            guard let x = args[0].asDouble else { throw unsupported }
            return .float(x.squareRoot())
        case ("math", "pow", 2):
            guard let x = args[0].asDouble, let y = args[1].asDouble else { throw unsupported }
            return .float(pow(x, y))
        case ("math", "isNaN", 1):
            guard let x = args[0].asDouble else { throw unsupported }
            return .bool(x.isNaN)
        case ("timestamp", "value", 1):
            guard case .int(let ms) = args[0] else { throw unsupported }
            let millis = ms % 1000
            return try timestamp(CivilTime.floorDiv(ms, 1000), Int32((millis < 0 ? millis + 1000 : millis) * 1_000_000), span)
        case ("timestamp", "date", 3):
            guard case .int(let y) = args[0], case .int(let m) = args[1], case .int(let d) = args[2] else { throw unsupported }
            guard (1...9999).contains(y), (1...12).contains(m), d >= 1, d <= CivilTime.daysIn(month: m, year: y) else {
                throw .invalidArgument("`timestamp.date(\(y), \(m), \(d))` is not a valid date", span)
            }
            return .timestamp(Timestamp(seconds: CivilTime.days(year: y, month: m, day: d) * 86_400))
        case ("duration", "abs", 1):
            guard case .duration(let d) = args[0] else { throw unsupported }
            return .duration(RulesDuration(seconds: d.seconds < 0 ? try negated(d.seconds, span) : d.seconds, nanos: abs(d.nanos)))
        case ("duration", "time", 4):
            guard case .int(let h) = args[0], case .int(let m) = args[1], case .int(let s) = args[2], case .int(let ns) = args[3],
                  abs(h) < 1_000_000_000, abs(m) < 1_000_000_000, abs(s) < 1_000_000_000_000
            else { throw unsupported }
            return .duration(RulesDuration(seconds: h * 3600 + m * 60 + s + ns / 1_000_000_000, nanos: Int32(ns % 1_000_000_000)))
        case ("duration", "value", 2):
            guard case .int(let n) = args[0], case .string(let unit) = args[1] else { throw unsupported }
            let nanosPer: Int64
            switch unit {
            case "w": nanosPer = 604_800_000_000_000
            case "d": nanosPer = 86_400_000_000_000
            case "h": nanosPer = 3_600_000_000_000
            case "m": nanosPer = 60_000_000_000
            case "s": nanosPer = 1_000_000_000
            case "ms": nanosPer = 1_000_000
            case "ns": nanosPer = 1
            default: throw .invalidArgument("unknown duration unit `\(unit)` (use w, d, h, m, s, ms or ns)", span)
            }
            let perSecond = max(1, 1_000_000_000 / nanosPer)
            if nanosPer >= 1_000_000_000 {
                let (seconds, overflow) = n.multipliedReportingOverflow(by: nanosPer / 1_000_000_000)
                if overflow { throw .overflow(span) }
                return .duration(RulesDuration(seconds: seconds))
            }
            return .duration(RulesDuration(seconds: n / perSecond, nanos: Int32((n % perSecond) * nanosPer)))
        case ("hashing", _, 1):
            let data: [UInt8]
            switch args[0] {
            case .bytes(let b): data = b
            case .string(let s): data = Array(s.utf8)
            default: throw unsupported
            }
            switch name {
            case "crc32": return .bytes(Hashing.crc32(data))
            case "crc32c": return .bytes(Hashing.crc32c(data))
            case "md5": return .bytes(Hashing.md5(data))
            case "sha256": return .bytes(Hashing.sha256(data))
            default: throw .functionNotFound(signature, span)
            }
        case ("latlng", "value", 2):
            guard let lat = args[0].asDouble, let lng = args[1].asDouble else { throw unsupported }
            guard (-90...90).contains(lat), (-180...180).contains(lng) else {
                throw .invalidArgument("latitude should be in [-90,90] and longitude in [-180,180], got (\(lat), \(lng))", span)
            }
            return .latlng(LatLng(latitude: lat, longitude: lng))
        default:
            throw .functionNotFound("\(namespace).\(name)", span)
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
