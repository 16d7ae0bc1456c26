// BuiltinMethods: the methods of each value type (`s.matches(re)`, `l.hasAll(x)`, `m.diff(n)`, …).
import Diagnostics
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Builtins {
    static func method(_ receiver: Value, _ name: String, _ args: [Value], regex: any RegexEngine, _ span: SourceSpan,
                       _ meter: inout WorkMeter) throws(EvaluationError) -> Value {
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
            // Every string method reads the whole receiver at least once.
            try meter.charge(s.utf8.count, span)
            switch (name, args.count) {
            case ("lower", 0), ("upper", 0):
                let mapped = (name == "lower" ? CaseMapping.lower : .upper).apply(s)
                try meter.build(mapped.utf8.count, "bytes", by: "`\(name)()`", span)
                return .string(mapped)
            case ("size", 0): return .int(Int64(s.unicodeScalars.count))
            case ("trim", 0): return .string(trimSpaces(s))
            case ("toUtf8", 0):
                try meter.build(s.utf8.count, "bytes", by: "`toUtf8()`", span)
                return .bytes(Array(s.utf8))
            case ("matches", 1):
                let pattern = try arg(0, \.asString, "string")
                try meter.charge(pattern.utf8.count, span)
                return .bool(try regexCall { () throws(RegexError) in try regex.matches(s, pattern: pattern) })
            case ("replace", 2):
                let pattern = try arg(0, \.asString, "string")
                let replacement = try arg(1, \.asString, "string")
                try meter.charge(pattern.utf8.count + replacement.utf8.count, span)
                let limit = meter.maxValueSize
                switch try regexCall({ () throws(RegexError) in try regex.replace(s, pattern: pattern, with: replacement, maxResultBytes: limit) }) {
                case .text(let text):
                    try meter.build(text.utf8.count, "bytes", by: "`replace()`", span)
                    return .string(text)
                case .tooLarge(let bytes):
                    throw .valueTooLarge("`replace()`", size: bytes, unit: "bytes", limit: limit, span)
                }
            case ("split", 1):
                let pattern = try arg(0, \.asString, "string")
                try meter.charge(pattern.utf8.count, span)
                let fields = try regexCall { () throws(RegexError) in try regex.split(s, pattern: pattern) }
                try meter.build(fields.count, "elements", by: "`split()`", span)
                return .list(fields.map(Value.string))
            default: throw notFound
            }
        case .list(let items), .set(let items):
            let isSet = { if case .set = receiver { true } else { false } }()
            switch (name, args.count) {
            case ("size", 0): return .int(Int64(items.count))
            case ("concat", 1) where !isSet:
                let other = try arg(0, \.asList, "list")
                try meter.build(items.count + other.count, "elements", by: "`concat()`", span)
                return .list(items + other)
            case ("hasAll", 1):
                let other = try arg(0, \.asCollection, "list or set")
                let members = try Membership(items, &meter, span)
                for item in other where !(try members.contains(item, &meter, span)) { return .bool(false) }
                return .bool(true)
            case ("hasAny", 1):
                let other = try arg(0, \.asCollection, "list or set")
                let members = try Membership(items, &meter, span)
                for item in other where try members.contains(item, &meter, span) { return .bool(true) }
                return .bool(false)
            case ("hasOnly", 1):
                let other = try Membership(try arg(0, \.asCollection, "list or set"), &meter, span)
                for item in items where !(try other.contains(item, &meter, span)) { return .bool(false) }
                return .bool(true)
            case ("removeAll", 1) where !isSet:
                let other = try Membership(try arg(0, \.asCollection, "list or set"), &meter, span)
                var kept: [Value] = []
                for item in items where !(try other.contains(item, &meter, span)) { kept.append(item) }
                return .list(kept)
            case ("toSet", 0) where !isSet: return try meter.makeSet(items, span)
            case ("join", 1) where !isSet:
                let separator = try arg(0, \.asString, "string")
                var parts: [String] = []
                var size = max(0, items.count - 1) * separator.utf8.count
                for item in items {
                    guard case .string(let text) = item else { throw .unsupported("join of a list containing \(item.typeName)", span) }
                    parts.append(text)
                    size += text.utf8.count
                }
                try meter.charge(items.count, span)
                try meter.build(size, "bytes", by: "`join()`", span)
                return .string(parts.joined(separator: separator))
            case ("difference", 1) where isSet, ("intersection", 1) where isSet, ("union", 1) where isSet:
                guard case .set(let other) = args[0] else {
                    throw .unsupported("set.\(name)(\(args[0].typeName)), expected set.\(name)(set)", span)
                }
                switch name {
                case "difference", "intersection":
                    let members = try Membership(other, &meter, span)
                    var kept: [Value] = []
                    for item in items where try members.contains(item, &meter, span) == (name == "intersection") { kept.append(item) }
                    return .set(kept)
                default:
                    try meter.build(items.count + other.count, "elements", by: "`union()`", span)
                    return try meter.makeSet(items + other, span)
                }
            default: throw notFound
            }
        case .map(let map):
            switch (name, args.count) {
            case ("size", 0): return .int(Int64(map.count))
            case ("keys", 0), ("values", 0):
                try meter.charge(map.count + map.keys.reduce(0) { $0 + $1.utf8.count }, span)
                let keys = map.keys.sorted()
                return .list(name == "keys" ? keys.map(Value.string) : keys.compactMap { map[$0] })
            case ("diff", 1): return .mapDiff(MapDiff(after: map, before: try arg(0, \.asMap, "map")))
            case ("get", 2):
                switch args[0] {
                case .string(let key):
                    try meter.charge(key.utf8.count, span)
                    return map[key] ?? args[1]
                case .list(let keys):
                    try meter.charge(keys.count, span)
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
            let wanted = ["addedKeys", "removedKeys", "changedKeys", "unchangedKeys", "affectedKeys"]
            guard wanted.contains(name) else { throw notFound }
            try meter.charge(diff.after.count + diff.before.count, span)
            var keys: [String] = []
            if name == "addedKeys" || name == "affectedKeys" { keys += diff.after.keys.filter { diff.before[$0] == nil } }
            if name == "removedKeys" || name == "affectedKeys" { keys += diff.before.keys.filter { diff.after[$0] == nil } }
            if name == "changedKeys" || name == "unchangedKeys" || name == "affectedKeys" {
                for (key, after) in diff.after {
                    guard let before = diff.before[key] else { continue }
                    if try meter.equal(before, after, span) == (name == "unchangedKeys") { keys.append(key) }
                }
            }
            return .set(keys.sorted().map(Value.string))
        case .path(let p):
            guard name == "bind", args.count == 1 else { throw notFound }
            let bindings = try arg(0, \.asMap, "map")
            try meter.charge(p.segments.count, span)
            var segments: [String] = []
            for segment in p.segments {
                if segment.hasPrefix("{"), segment.hasSuffix("}"), segment.count > 2 {
                    let key = String(segment.dropFirst().dropLast())
                    guard let bound = bindings[key] else { throw .undefinedProperty(key, span) }
                    let text = bound.asString ?? bound.boundedDescription(maxBytes: meter.maxValueSize + 1)
                    try meter.build(text.utf8.count, "bytes", by: "`bind()`", span)
                    segments.append(text)
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
            case ("toBase64", 0):
                try meter.build((data.count + 2) / 3 * 4, "bytes", by: "`toBase64()`", span)
                return .string(Hashing.base64url(data))
            case ("toHexString", 0):
                try meter.build(data.count * 2, "bytes", by: "`toHexString()`", span)
                return .string(data.map { RulesPrinter.hex($0).uppercased() }.joined())
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
}
