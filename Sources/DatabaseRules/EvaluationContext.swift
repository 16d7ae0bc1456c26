// EvaluationContext: what the rules of one request see (auth, the data before and after, time,
// the query's parameters) and what one rule adds (its location and wildcards).

/// A query's parameters as `query.*` sees them (reference §4.7); the defaults are a plain read.
public struct DatabaseQuery: Sendable, Hashable {
    public var orderByKey = false
    public var orderByValue = false
    public var orderByPriority = false
    /// The child path of `orderByChild`, or nil.
    public var orderByChild: String?
    public var startAt: DataPrimitive?
    public var endAt: DataPrimitive?
    public var equalTo: DataPrimitive?
    public var limitToFirst: Double?
    public var limitToLast: Double?

    /// A plain (non-query) read.
    public init() {}
}

/// What every rule of one request sees (shared by reference).
final class RequestState: @unchecked Sendable {
    // INVARIANT: never mutated after the first rule is evaluated.
    let auth: RValue
    let oldRoot: DataNode?
    /// The root after the write (the root before it for a read).
    var newData: DataOverlay
    let now: Double
    let query: DatabaseQuery
    /// Bindings given outright (one expression evaluated on its own); rules bind by wildcard.
    let givenBindings: [String: String]

    init(auth: RValue, oldRoot: DataNode?, newData: DataOverlay, now: Double, query: DatabaseQuery, givenBindings: [String: String] = [:]) {
        self.auth = auth
        self.oldRoot = oldRoot
        self.newData = newData
        self.now = now
        self.query = query
        self.givenBindings = givenBindings
    }
}

/// What one rule sees.
struct RuleContext {
    var state: RequestState
    var location: [String]
    /// The rule's `$` wildcards and their depth in `location`.
    var wildcards: [(name: String, depth: Int)] = []
    /// The old and new nodes at `location`, valid once looked up (`…Known`) or given by the caller.
    var oldNode: DataNode?
    var oldNodeKnown = false
    var newNode: DataNode?
    var newNodeKnown = false

    var auth: RValue { state.auth }
    var oldRoot: DataNode? { state.oldRoot }
    var newData: DataOverlay { state.newData }
    var now: Double { state.now }
    var query: DatabaseQuery { state.query }

    /// The key bound to `name`.
    func binding(_ name: String) -> String? {
        for wildcard in wildcards where wildcard.name == name && wildcard.depth < location.count { return location[wildcard.depth] }
        return state.givenBindings.isEmpty ? nil : state.givenBindings[name]
    }
}

/// Whether two strings have the same code units (no Unicode normalization, as in JavaScript):
/// equal UTF-8 is equal UTF-16, since both encode the same scalars one way.
func sameCodeUnits(_ a: String, _ b: String) -> Bool {
    guard a.utf8.count == b.utf8.count else { return false }
    var a = a, b = b
    return a.withUTF8 { x in b.withUTF8 { y in x.elementsEqual(y) } }
}
