// SymbolicValues: what a rules expression evaluates to under the encoding. A value is a set of
// typed alternatives under mutually exclusive guards, plus the condition under which evaluating
// it is an error. Input data (documents, tokens, metadata) are lazily materialized maps whose
// fields are leaves of any type.

/// A symbolic rules value: `err` or exactly one of the alternatives' guards holds.
struct SymValue {
    /// When the evaluation of this value errors (Bool term).
    var err: String
    /// The typed alternatives, each under its guard (Bool term).
    var alts: [Alternative]

    struct Alternative {
        var guard_: String
        var payload: Payload
        /// True for the alternatives of a construct the encoding does not model
        /// (``Encoder/anyValue(_:_:)``): the real value may be of a type no alternative has.
        var unmodelled = false
    }

    /// A single, error-free alternative.
    init(_ payload: Payload) {
        err = "false"
        alts = [Alternative(guard_: "true", payload: payload)]
    }

    init(err: String, alts: [Alternative]) {
        self.err = err
        self.alts = alts
    }

    /// A value that always errors.
    static var error: SymValue { SymValue(err: "true", alts: []) }

    /// The guard of "evaluates without error to something".
    var defined: String { SMT.or(alts.map(\.guard_)) }
}

/// One typed alternative's content.
indirect enum Payload {
    case null
    case bool(String)
    case int(String)
    /// A finite double, modelled as a real.
    case float(String)
    case string(String)
    /// Nanoseconds since the epoch (Int term).
    case timestamp(String)
    /// Nanoseconds (Int term).
    case duration(String)
    case map(MapRef)
    /// A list of known length (literals, `split` results are not modelled).
    case list([SymValue])
    /// A set of map keys: `keys()`, `affectedKeys()` and friends.
    case keySet(KeySet)
    /// A path with a known number of segments (String terms).
    case path([String])
    case mapDiff(SymMap, SymMap)
    /// A value of a type the encoding does not look inside (bytes, latlng, lists from data):
    /// only its type and identity (an Int term) are known.
    case opaque(type: String, id: String)

    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .int: "int"
        case .float: "float"
        case .string: "string"
        case .timestamp: "timestamp"
        case .duration: "duration"
        case .map: "map"
        case .list: "list"
        case .keySet: "set"
        case .path: "path"
        case .mapDiff: "map_diff"
        case .opaque(let type, _): type
        }
    }

    /// Whether a leaf (``Leaf/types``), and so an unmodelled value, can be of this type.
    var isLeafType: Bool { Leaf.types.contains(typeName) }
}

/// A map: symbolic (input data) or a literal whose fields are symbolic values.
enum MapRef {
    case symbolic(SymMap)
    case literal([(String, SymValue)])
    /// Storage metadata: `name` and `bucket` default to parts of the request path.
    case storage(SymMap, name: String?, bucket: String?)
}

/// A set of string keys of one map (or of the difference of two maps).
struct KeySet {
    enum Source {
        /// `m.keys()`
        case keys(SymMap)
        /// `a.diff(b).<kind>()`
        case diff(String, SymMap, SymMap)
        /// `['a', 'b'].toSet()`: literal strings, each once.
        case literal([String])
    }
    var source: Source
}

/// An input value of unknown type (a field of a document, a token claim, a metadata entry).
final class Leaf {
    let name: String
    let tag: String
    let b: String
    let i: String
    let f: String
    let s: String
    let t: String
    let d: String
    let o: String
    private(set) var nested: SymMap?
    unowned let encoder: Encoder

    /// Type tags.
    static let types = ["null", "bool", "int", "float", "string", "map", "list", "timestamp", "duration", "bytes"]

    init(name: String, encoder: Encoder) {
        self.name = name
        self.encoder = encoder
        tag = encoder.declare("\(name).tag", "Int")
        b = encoder.declare("\(name).b", "Bool")
        i = encoder.declare("\(name).i", "Int")
        f = encoder.declare("\(name).f", "Real")
        s = encoder.declare("\(name).s", "String")
        t = encoder.declare("\(name).t", "Int")
        d = encoder.declare("\(name).d", "Int")
        o = encoder.declare("\(name).o", "Int")
        encoder.assert("(and (<= 0 \(tag)) (<= \(tag) \(Leaf.types.count - 1)))")
        encoder.assert("(and (<= \(SMT.int(Int64.min)) \(i)) (<= \(i) \(SMT.int(Int64.max))))")
        encoder.assert(Encoder.timestampRange(t))
        encoder.assert("(and (< (- 315576000000000000000) \(d)) (< \(d) 315576000000000000000))")
        encoder.assert("(<= 0 \(o))")
    }

    func isType(_ type: String) -> String {
        guard let index = Leaf.types.firstIndex(of: type) else { return "false" }
        return "(= \(tag) \(index))"
    }

    /// The nested map, created on first use.
    var map: SymMap {
        if let nested { return nested }
        let created = encoder.makeMap("\(name).m")
        nested = created
        return created
    }

    var hasNested: Bool { nested != nil }

    /// The leaf as a value: one alternative per type.
    var value: SymValue {
        SymValue(err: "false", alts: [
            .init(guard_: isType("null"), payload: .null),
            .init(guard_: isType("bool"), payload: .bool(b)),
            .init(guard_: isType("int"), payload: .int(i)),
            .init(guard_: isType("float"), payload: .float(f)),
            .init(guard_: isType("string"), payload: .string(s)),
            .init(guard_: isType("map"), payload: .map(.symbolic(map))),
            .init(guard_: isType("list"), payload: .opaque(type: "list", id: o)),
            .init(guard_: isType("timestamp"), payload: .timestamp(t)),
            .init(guard_: isType("duration"), payload: .duration(d)),
            .init(guard_: isType("bytes"), payload: .opaque(type: "bytes", id: o)),
        ])
    }
}

/// A map of input data: entries for the keys the rules mention (materialized on demand) and a
/// "rest" standing for all other keys: how many (`restCount`) and which content (`restId`, equal
/// ids meaning equal content, 0 meaning none).
final class SymMap {
    /// More keys than any map of a request has (see ``init(name:encoder:)``).
    static let maxKeys = 1_048_576
    let name: String
    let restId: String
    let restCount: String
    // INVARIANT: `entries` has an entry for exactly the keys in `keys` (``entry(_:)`` adds both),
    // so `entry(_:)` of a key in `keys` only reads.
    private(set) var keys: [String] = []
    private(set) var entries: [String: (present: String, leaf: Leaf)] = [:]
    unowned let encoder: Encoder

    init(name: String, encoder: Encoder) {
        self.name = name
        self.encoder = encoder
        restId = encoder.declare("\(name).rid", "Int")
        restCount = encoder.declare("\(name).rn", "Int")
        encoder.assert("(and (<= 0 \(restCount)) (<= 0 \(restId)) (= (= \(restCount) 0) (= \(restId) 0)))")
        // Every map a request carries fits in 1 MiB (Firestore's maximum document size,
        // https://firebase.google.com/docs/firestore/quotas), so it has fewer keys than that.
        encoder.assert("(<= \(restCount) \(SymMap.maxKeys))")
    }

    /// The entry for `key`, created on first use.
    func entry(_ key: String) -> (present: String, leaf: Leaf) {
        if let existing = entries[key] { return existing }
        let index = keys.count
        let present = encoder.declare("\(name).p\(index)", "Bool")
        let leaf = Leaf(name: "\(name).k\(index)", encoder: encoder)
        keys.append(key)
        entries[key] = (present, leaf)
        encoder.noteKey(key)
        return (present, leaf)
    }

    /// An entry read at a computed key: the key (a String constant equal to the key's term),
    /// whether it is present, and its value. Linked to the other entries by
    /// ``Encoder/computedKeyFacts()``.
    struct ComputedEntry {
        var key: String
        var present: String
        var leaf: Leaf
    }

    /// The entries read at computed keys, in order of first use.
    private(set) var computed: [ComputedEntry] = []

    /// The entry at the computed key `term` (a String term), created on first use.
    func computedEntry(_ term: String) -> ComputedEntry {
        if let existing = computed.first(where: { $0.key == term || computedTerms[$0.key] == term }) { return existing }
        let index = computed.count
        let key = encoder.declare("\(name).ck\(index)", "String")
        encoder.assert(SMT.eq(key, term))
        let entry = ComputedEntry(key: key, present: encoder.declare("\(name).cp\(index)", "Bool"),
                                  leaf: Leaf(name: "\(name).c\(index)", encoder: encoder))
        computedTerms[key] = term
        computed.append(entry)
        return entry
    }
    private var computedTerms: [String: String] = [:]
}
