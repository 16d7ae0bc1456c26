// WorkMeter: the work the built-ins do for one request, and the size of what they build
// (`RulesLimits.evaluationWorkLimit`, `RL3024`; `RulesLimits.maxValueSize`, `RL3025`). The step
// budget counts expressions, as production does; this counts what one expression can cost when
// its inputs are large: bytes and elements read, compared and built.
import Diagnostics

/// Counts units of work for one request and checks the size of built values.
struct WorkMeter {
    let limit: Int
    let maxValueSize: Int
    /// Units spent so far.
    private(set) var used = 0

    init(limits: RulesLimits) {
        limit = limits.evaluationWorkLimit
        maxValueSize = limits.maxValueSize
    }

    /// Spends `units`; throws `RL3024` once the request's budget is exceeded.
    mutating func charge(_ units: Int, _ span: SourceSpan?) throws(EvaluationError) {
        used += max(0, units)
        if used > limit { throw .workLimit(limit, span) }
    }

    /// Starts a separate budget (explanations re-evaluate parts of a condition); returns the
    /// units spent before, for ``restore(_:)``.
    mutating func fresh() -> Int {
        defer { used = 0 }
        return used
    }

    /// Puts back the count ``fresh()`` returned.
    mutating func restore(_ saved: Int) {
        used = saved
    }

    /// Throws `RL3025` when `operation` would build a value of `size` units, and otherwise
    /// charges the building.
    mutating func build(_ size: Int, _ unit: String, by operation: String, _ span: SourceSpan?) throws(EvaluationError) {
        if size > maxValueSize { throw .valueTooLarge(operation, size: size, unit: unit, limit: maxValueSize, span) }
        try charge(size, span)
    }

    // MARK: - Equality and membership

    /// Language equality (`Value.==`), one unit per value visited and per byte of strings and
    /// bytes compared, so that values which share parts (a list of the same list, many times
    /// over) cannot make a comparison exponential.
    mutating func equal(_ a: Value, _ b: Value, _ span: SourceSpan?) throws(EvaluationError) -> Bool {
        try charge(1, span)
        switch (a, b) {
        case (.string(let x), .string(let y)):
            try charge(max(x.utf8.count, y.utf8.count), span)
            return x == y
        case (.bytes(let x), .bytes(let y)):
            try charge(min(x.count, y.count), span)
            return x == y
        case (.list(let x), .list(let y)):
            guard x.count == y.count else { return false }
            for (p, q) in zip(x, y) where !(try equal(p, q, span)) { return false }
            return true
        case (.map(let x), .map(let y)):
            guard x.count == y.count else { return false }
            for (key, p) in x {
                try charge(key.utf8.count, span)
                guard let q = y[key], try equal(p, q, span) else { return false }
            }
            return true
        case (.set(let x), .set(let y)):
            guard x.count == y.count else { return false }
            let members = try Membership(y, &self, span)
            for p in x where !(try members.contains(p, &self, span)) { return false }
            return true
        case (.mapDiff(let x), .mapDiff(let y)):
            guard try equal(.map(x.after), .map(y.after), span) else { return false }
            return try equal(.map(x.before), .map(y.before), span)
        case (.path(let x), .path(let y)):
            try charge(x.segments.count, span)
            return x.segments == y.segments
        default:
            return a == b
        }
    }

    /// Builds a set: the distinct elements in first-seen order (``Value/makeSet(_:)``), charged.
    mutating func makeSet(_ items: [Value], _ span: SourceSpan?) throws(EvaluationError) -> Value {
        try charge(items.count, span)
        if let keys = Membership.simpleKeys(items) {
            try charge(items.reduce(0) { $0 + $1.stringBytes }, span)
            var seen = Set<Membership.Key>()
            var unique: [Value] = []
            for (item, key) in zip(items, keys) where seen.insert(key).inserted { unique.append(item) }
            return .set(unique)
        }
        var unique: [Value] = []
        for item in items {
            var found = false
            for kept in unique where try equal(kept, item, span) { found = true; break }
            if !found { unique.append(item) }
        }
        return .set(unique)
    }
}

/// A collection prepared for many membership tests under language equality: a hash set when
/// every element is null, a bool, a number that a double holds exactly or a string (equal
/// values then have equal keys), else a scan with ``WorkMeter/equal(_:_:_:)``.
struct Membership {
    /// A hashable stand-in for a simple value: equal values, equal keys.
    enum Key: Hashable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
    }

    private let items: [Value]
    private let keys: Set<Key>?

    /// Prepares `items`, charging one unit per element (and its string bytes when hashed).
    init(_ items: [Value], _ meter: inout WorkMeter, _ span: SourceSpan?) throws(EvaluationError) {
        try meter.charge(items.count, span)
        self.items = items
        if let keys = Membership.simpleKeys(items) {
            try meter.charge(items.reduce(0) { $0 + $1.stringBytes }, span)
            self.keys = Set(keys)
        } else {
            self.keys = nil
        }
    }

    /// Whether an element equals `value`.
    func contains(_ value: Value, _ meter: inout WorkMeter, _ span: SourceSpan?) throws(EvaluationError) -> Bool {
        if let keys {
            try meter.charge(1 + value.stringBytes, span)
            guard let key = Membership.key(value) else {
                // A list, map, timestamp… never equals a simple value; a number no double holds
                // exactly is compared one by one.
                guard case .int = value else { return false }
                for item in items where try meter.equal(item, value, span) { return true }
                return false
            }
            return keys.contains(key)
        }
        for item in items where try meter.equal(item, value, span) { return true }
        return false
    }

    static func key(_ value: Value) -> Key? {
        switch value {
        case .null: .null
        case .bool(let b): .bool(b)
        case .int(let i) where i.magnitude <= 1 << 53: .number(Double(i))
        case .float(let f): .number(f)
        case .string(let s): .string(s)
        default: nil
        }
    }

    /// The keys of `items`, or nil when one has none.
    static func simpleKeys(_ items: [Value]) -> [Key]? {
        var keys: [Key] = []
        keys.reserveCapacity(items.count)
        for item in items {
            guard let key = key(item) else { return nil }
            keys.append(key)
        }
        return keys
    }
}

extension Value {
    /// The UTF-8 length of a string, else 0.
    var stringBytes: Int {
        if case .string(let s) = self { return s.utf8.count }
        return 0
    }
}
