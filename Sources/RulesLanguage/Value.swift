// Value: every runtime value of the rules language, with equality and ordering as the language
// defines them (int and float compare numerically; maps compare without regard to key order).

/// A point in time, UTC, with nanosecond precision.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds since 1970-01-01T00:00:00Z.
    public var seconds: Int64
    /// Nanoseconds within the second, 0..<1_000_000_000.
    public var nanos: Int32

    /// Creates a timestamp, normalizing `nanos` into range.
    public init(seconds: Int64, nanos: Int32 = 0) {
        var n = Int64(nanos)
        var carry = n / 1_000_000_000
        n %= 1_000_000_000
        if n < 0 { n += 1_000_000_000; carry -= 1 }
        // Saturate instead of trapping at the ends of the range (such values fail range checks later).
        let (s, overflow) = seconds.addingReportingOverflow(carry)
        self.seconds = overflow ? (carry > 0 ? .max : .min) : s
        self.nanos = Int32(n)
    }

    /// Seconds of 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z, the range rules timestamps have.
    public static let validSeconds: ClosedRange<Int64> = -62_135_596_800...253_402_300_799

    /// Earlier first.
    public static func < (a: Timestamp, b: Timestamp) -> Bool { (a.seconds, a.nanos) < (b.seconds, b.nanos) }

    /// RFC 3339 in UTC, e.g. `2026-01-02T03:04:05.123Z`.
    public var description: String { CivilTime.format(self) }

    /// Parses RFC 3339 (`2026-01-02T03:04:05Z`, fractional seconds and `+hh:mm` offsets allowed).
    public init?(rfc3339 text: String) {
        guard let value = CivilTime.parse(text) else { return nil }
        self = value
    }
}

/// A signed span of time with nanosecond precision (`seconds` and `nanos` carry the same sign).
public struct RulesDuration: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Whole seconds.
    public var seconds: Int64
    /// Nanoseconds, with the sign of `seconds`.
    public var nanos: Int32

    /// Creates a duration, normalizing so `nanos` has the sign of the total.
    public init(seconds: Int64, nanos: Int32 = 0) {
        var n = Int64(nanos)
        let carry = n / 1_000_000_000
        n %= 1_000_000_000
        let (sum, overflow) = seconds.addingReportingOverflow(carry)
        var s = overflow ? (carry > 0 ? Int64.max : Int64.min) : sum
        if s > 0 && n < 0 { s -= 1; n += 1_000_000_000 }
        if s < 0 && n > 0 { s += 1; n -= 1_000_000_000 }
        self.seconds = s
        self.nanos = Int32(n)
    }

    /// Shorter (more negative) first.
    public static func < (a: RulesDuration, b: RulesDuration) -> Bool { (a.seconds, a.nanos) < (b.seconds, b.nanos) }

    /// A readable rendering.
    public var description: String {
        nanos == 0 ? "\(seconds)s" : "\(seconds).\(String(format9(abs(Int(nanos)))))s"
    }

    private func format9(_ n: Int) -> String {
        let text = String(n)
        return String(repeating: "0", count: max(0, 9 - text.count)) + text
    }
}

/// A geographic point in degrees.
public struct LatLng: Sendable, Hashable, CustomStringConvertible {
    /// Degrees north, -90...90.
    public var latitude: Double
    /// Degrees east, -180...180.
    public var longitude: Double

    /// Creates a point (ranges are checked by `latlng.value`).
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// A readable rendering.
    public var description: String { "latlng(\(latitude), \(longitude))" }
}

/// A path value: segments, plus variable bindings when it came from a `bind()` or a match.
public struct PathValue: Sendable, Hashable, CustomStringConvertible {
    /// The segments, without slashes.
    public var segments: [String]

    /// Creates a path from segments.
    public init(segments: [String]) {
        self.segments = segments
    }

    /// Parses `/a/b/c` or `a/b/c` (empty segments are dropped).
    public init(_ text: String) {
        // Split the UTF-8 view: much cheaper than splitting Characters, same result for `/`.
        self.segments = text.utf8.split(separator: UInt8(ascii: "/")).map { String(Substring($0)) }
    }

    /// `/a/b/c`
    public var description: String { "/" + segments.joined(separator: "/") }
}

/// The difference between two maps (`a.diff(b)`).
public struct MapDiff: Sendable, Hashable {
    /// The receiver (`a`).
    public var after: [String: Value]
    /// The argument (`b`).
    public var before: [String: Value]

    /// Creates a diff of `after` against `before`.
    public init(after: [String: Value], before: [String: Value]) {
        self.after = after
        self.before = before
    }
}

/// A runtime value of the rules language.
public indirect enum Value: Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Double)
    case string(String)
    case bytes([UInt8])
    case list([Value])
    case map([String: Value])
    /// Distinct values in first-seen order.
    case set([Value])
    case mapDiff(MapDiff)
    case path(PathValue)
    case timestamp(Timestamp)
    case duration(RulesDuration)
    case latlng(LatLng)

    /// The type name used by `is` and in error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .int: "int"
        case .float: "float"
        case .string: "string"
        case .bytes: "bytes"
        case .list: "list"
        case .map: "map"
        case .set: "set"
        case .mapDiff: "map_diff"
        case .path: "path"
        case .timestamp: "timestamp"
        case .duration: "duration"
        case .latlng: "latlng"
        }
    }

    /// Builds a set value, dropping repeated elements (first kept).
    public static func makeSet(_ items: [Value]) -> Value {
        var unique: [Value] = []
        for item in items where !unique.contains(item) { unique.append(item) }
        return .set(unique)
    }
}

extension Value: Equatable {
    /// Language equality: numeric across int/float, deep for lists and maps, unordered for sets.
    public static func == (lhs: Value, rhs: Value) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.float(let a), .float(let b)): a == b
        case (.int(let a), .float(let b)): Double(a) == b
        case (.float(let a), .int(let b)): a == Double(b)
        case (.string(let a), .string(let b)): a == b
        case (.bytes(let a), .bytes(let b)): a == b
        case (.list(let a), .list(let b)): a == b
        case (.map(let a), .map(let b)): a == b
        case (.set(let a), .set(let b)): a.count == b.count && a.allSatisfy { b.contains($0) }
        case (.mapDiff(let a), .mapDiff(let b)): a == b
        case (.path(let a), .path(let b)): a.segments == b.segments
        case (.timestamp(let a), .timestamp(let b)): a == b
        case (.duration(let a), .duration(let b)): a == b
        case (.latlng(let a), .latlng(let b)): a == b
        default: false
        }
    }
}

extension Value: Hashable {
    /// Consistent with `==` (ints hash as the equal float).
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .int(let v): hasher.combine(Double(v))
        case .float(let v): hasher.combine(v)
        case .set(let items): hasher.combine(items.count)
        case .map(let m): hasher.combine(m.count)
        case .list(let items): hasher.combine(items)
        default: hasher.combine(typeName); hasher.combine(description)
        }
    }
}

extension Value: CustomStringConvertible {
    /// A rules-like rendering for explanations: `'alice'`, `[1, 2]`, `{'a': 1}`.
    public var description: String {
        switch self {
        case .null: "null"
        case .bool(let v): v ? "true" : "false"
        case .int(let v): String(v)
        case .float(let v): RulesPrinter.formatFloat(v)
        case .string(let v): RulesPrinter.quote(v)
        case .bytes(let v): "b'" + v.map { "\\x" + RulesPrinter.hex($0) }.joined() + "'"
        case .list(let items): "[" + items.map(\.description).joined(separator: ", ") + "]"
        case .map(let m):
            "{" + m.keys.sorted().map { "\(RulesPrinter.quote($0)): \(m[$0]?.description ?? "null")" }.joined(separator: ", ") + "}"
        case .set(let items): "set(" + items.map(\.description).joined(separator: ", ") + ")"
        case .mapDiff: "map_diff"
        case .path(let p): "path('\(p.description)')"
        case .timestamp(let t): "timestamp('\(t.description)')"
        case .duration(let d): "duration('\(d.description)')"
        case .latlng(let l): l.description
        }
    }
}

extension Value {
    /// Texts longer than this are cut in explanations and `debug()` output (with `…`).
    static let renderedBytesLimit = 64 * 1024

    /// ``description``, but written only until it is longer than `maxBytes` UTF-8 bytes: then
    /// the text is a prefix of ``description`` at least `maxBytes` long. Values that share parts
    /// (a list holding the same list many times) can describe to exponentially long text; this
    /// stays linear in `maxBytes`.
    func boundedDescription(maxBytes: Int) -> String {
        var out = ""
        _ = render(into: &out, maxBytes: maxBytes)
        return out
    }

    /// ``boundedDescription(maxBytes:)`` with `…` added when the text was cut.
    func renderedForPeople(maxBytes: Int = Value.renderedBytesLimit) -> String {
        var out = ""
        return render(into: &out, maxBytes: maxBytes) ? out : out + "…"
    }

    /// Appends ``description`` to `out`; false (and stops) once `out` is longer than `maxBytes`.
    private func render(into out: inout String, maxBytes: Int) -> Bool {
        func full() -> Bool { out.utf8.count <= maxBytes }
        func items(_ values: [Value], open: String, close: String) -> Bool {
            out += open
            for (offset, value) in values.enumerated() {
                if offset > 0 { out += ", " }
                guard value.render(into: &out, maxBytes: maxBytes) else { return false }
            }
            out += close
            return full()
        }
        switch self {
        case .list(let values): return items(values, open: "[", close: "]")
        case .set(let values): return items(values, open: "set(", close: ")")
        case .map(let m):
            out += "{"
            for (offset, key) in m.keys.sorted().enumerated() {
                if offset > 0 { out += ", " }
                out += RulesPrinter.quote(key) + ": "
                guard full(), (m[key] ?? .null).render(into: &out, maxBytes: maxBytes) else { return false }
            }
            out += "}"
            return full()
        case .bytes(let v):
            out += "b'"
            for byte in v {
                out += "\\x" + RulesPrinter.hex(byte)
                guard full() else { return false }
            }
            out += "'"
            return full()
        default:
            out += description
            return full()
        }
    }
}
