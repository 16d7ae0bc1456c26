// BuiltinFunctions: global conversions (`int`, `float`, `string`, `path`) and the `math`,
// `timestamp`, `duration`, `hashing` and `latlng` namespaces.
import Diagnostics
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Builtins {
    static func global(_ name: String, _ args: [Value], _ span: SourceSpan, _ meter: inout WorkMeter) throws(EvaluationError) -> Value {
        // A function production does not have (`bool()`, or `get()` in Storage rules) compiles,
        // with a warning, and fails only the requests that reach it.
        guard args.count == 1, BuiltinCatalogue.globalFunctions[name] != nil else { throw .functionNotFound(name, span) }
        let value = args[0]
        try meter.charge(value.stringBytes, span)
        if case .path(let p) = value { try meter.charge(p.segments.count + p.segments.reduce(0) { $0 + $1.utf8.count }, span) }
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

    static func namespaced(_ namespace: String, _ name: String, _ args: [Value], _ span: SourceSpan,
                           _ meter: inout WorkMeter) throws(EvaluationError) -> Value {
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
            // Production denies `math.sqrt` of a negative number (an error, not NaN).
            guard !(x < 0) else { throw .invalidArgument("`math.sqrt(\(args[0]))` of a negative number", span) }
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
            try meter.charge(data.count, span)
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
