// Encoder: one encoding function per language term. Turns the rules that apply to a property's
// path and method, and the property's condition, into SMT-LIB constraints over a symbolic request.
// Constructs it cannot encode exactly become unconstrained values and are recorded as
// abstractions: a proof still holds for every value they could take, and a witness that depends
// on them is only shown when the evaluator confirms it.
// This file holds the type, its state, declarations, the request's setup and the work budget;
// the encoding functions are in `Encoder+<section>.swift`, one `extension Encoder` per section.
import Diagnostics
import Foundation
import RulesLanguage

/// A construct encoded as "any value" instead of exactly, with where it is.
struct Abstraction: Hashable {
    var construct: String
    var location: String
}

/// A lookup of one document (`get`, `exists`, …) at a symbolic path.
struct LookupSlot {
    var segments: [String]
    var key: String
    var after: Bool
    var exists: String
    var data: SymMap
}

/// A symbolic request and the constraints the rules put on it.
final class Encoder {
    /// The rules being encoded (a diff encodes two files over one request: see ``allowed(by:)``).
    private(set) var program: Program
    let method: RequestMethod
    let service: ServiceKind
    var declarations: [String] = []
    private(set) var assertions: [String] = []
    var abstractions: [Abstraction] = []
    private(set) var maps: [SymMap] = []
    var slots: [LookupSlot] = []
    private var counter = 0
    /// Slot indices by the text of their path terms (see ``makeSlot``).
    var slotsByPath: [String: Int] = [:]
    private var usedKeys: Set<String> = []

    // MARK: The symbolic request
    var pathSegments: [String] = []
    var pathConcrete: [String?] = []
    /// The paths encoded, and (for a long shape) where the gap of one or more segments is.
    private(set) var shape = PathShape(fixed: [], restName: nil, rest: .none)
    private(set) var gapIndex: Int?
    var authNull = "true"
    var uid = ""
    /// The token's claims; nil only before ``setUpRequest(shape:)`` (see ``authValue``).
    private(set) var token: SymMap?
    var time = ""
    var resourceExists = "false"
    /// The stored document's data; nil only before ``setUpRequest(shape:)`` (see ``resourceValue``).
    private(set) var resourceData: SymMap?
    var requestData: SymMap?
    var queryPresent = "false"
    var query: SymMap?

    /// Map equalities and diffs to align and define after encoding: (a, b, eqVar).
    var relations: [(SymMap, SymMap, String)] = []
    var relationIndex: [String: String] = [:]
    /// Definitions that need every map's final keys (sizes, `hasOnly`, key sets).
    var deferred: [() -> Void] = []
    /// Uninterpreted functions declared so far (`lower`, `upper`).
    var functions: Set<String> = []

    // Evaluation state.
    var bindings: [(String, SymValue)] = []
    var frame: [(String, SymValue)] = []
    var scope: FunctionScope
    var callDepth = 0
    var source: SourceFile
    private(set) var serviceScope: FunctionScope

    init(program: Program, method: RequestMethod) {
        self.program = program
        self.method = method
        self.service = program.service
        self.source = program.source
        let scopes = FunctionScope.service(of: program.file)
        self.serviceScope = scopes
        self.scope = scopes
    }

    /// Encodes `other` from now on. Inlined calls are remembered per program: two files may
    /// declare different functions at the same offset.
    func select(_ other: Program) {
        guard other.source.name != program.source.name || other.source.text != program.source.text else { return }
        program = other
        source = other.source
        serviceScope = FunctionScope.service(of: other.file)
        scope = serviceScope
        callMemo = [:]
    }

    // MARK: - Declarations

    func declare(_ name: String, _ sort: String) -> String {
        let symbol = "|\(name)|"
        declarations.append("(declare-const \(symbol) \(sort))")
        valueSymbols.append(symbol)
        return symbol
    }

    /// Every declared constant, for reading a model back.
    private(set) var valueSymbols: [String] = []
    /// `lower`/`upper` applications whose uninterpreted result the encoding uses: (function,
    /// constant equal to the argument). Set by ``recordCaseMappingUses()``.
    var caseMappings: [(String, String)] = []
    /// Every `lower`/`upper` application of a computed string, until ``finish()``.
    /// Each also with where its axiom goes among ``assertions`` and the membership the axiom
    /// tests, both fixed where the call is encoded (Z3 4.8's effort depends on their order).
    var pendingCaseMappings: [(mapping: CaseMapping, subject: String, result: String, argument: String, location: String,
                               position: Int, unchanged: String?)] = []

    /// A name for a long term, so terms that reuse it stay small (the text would otherwise grow
    /// exponentially with nesting: every `&&` mentions both sides' truth and error terms).
    func share(_ term: String, _ sort: String = "Bool") -> String {
        guard term.utf8.count > 48 else { return term }
        if let existing = shared[term] { return existing }
        counter += 1
        let symbol = "|t!\(counter)|"
        declarations.append("(define-fun \(symbol) () \(sort) \(term))")
        shared[term] = symbol
        return symbol
    }
    private var shared: [String: String] = [:]

    func fresh(_ prefix: String, _ sort: String) -> String {
        counter += 1
        return declare("\(prefix)!\(counter)", sort)
    }

    func assert(_ term: String) {
        if term != "true" { assertions.append("(assert \(term))") }
    }

    /// Asserts `term` at `position` among the assertions made so far.
    func assert(_ term: String, at position: Int) {
        if term != "true" { assertions.insert("(assert \(term))", at: position) }
    }

    func makeMap(_ name: String) -> SymMap {
        let map = SymMap(name: name, encoder: self)
        maps.append(map)
        return map
    }

    func noteKey(_ key: String) { usedKeys.insert(key) }
    var keysInUse: Set<String> { usedKeys }

    static func timestampRange(_ t: String) -> String {
        // Years 1 to 9999 (Timestamp.validSeconds), in nanoseconds.
        "(and (<= (- 62135596800000000000) \(t)) (<= \(t) 253402300799999999999))"
    }

    func abstract(_ construct: String, _ span: SourceSpan) {
        let location = source.location(of: span.start)
        abstractions.append(Abstraction(construct: construct, location: "\(source.name):\(location.line):\(location.column)"))
    }

    /// The name of a construct on the gap of a long shape.
    func gapConstruct(_ what: String) -> String {
        "\(what) `{\(shape.restName ?? "")=**}` (\(pathSegments.count - shape.fixed.count) or more segments)"
    }

    /// Any value at all, or an error: the encoding of a construct it cannot model.
    func anyValue(_ construct: String, _ span: SourceSpan) -> SymValue {
        abstract(construct, span)
        counter += 1
        let leaf = Leaf(name: "abs!\(counter)", encoder: self)
        var value = leaf.value
        value.err = fresh("abs.err", "Bool")
        abstractionErrors.append(value.err)
        value.alts = value.alts.map { .init(guard_: SMT.and([SMT.not(value.err), $0.guard_]), payload: $0.payload, unmodelled: true) }
        return value
    }

    /// An unmodelled construct that is a function of its inputs (`split()` of a string, `size()`
    /// of a list from data, indexing one, …): one value per operation and inputs, so every use
    /// of the same operation on the same terms (in either file of a diff, or twice in one) sees
    /// the same value, as the evaluator computes the same result. Still any value, as an
    /// uninterpreted function is: a proof holds for every function, the real one among them.
    /// Without it, the two files of a diff get independent values and a change that leaves such
    /// a construct alone can never be proved (issue 32: `split()` of the picture URL).
    func anyResult(_ construct: String, _ span: SourceSpan, of operation: String, _ inputs: [SymValue]) -> SymValue {
        var key = operation
        for input in inputs { key += "|"; Self.signature(input, into: &key) }
        if let known = abstractResults[key] {
            abstract(construct, span)
            return known.value
        }
        let value = anyValue(construct, span)
        // The inputs are kept with it: a map's signature is its identity, which must not be reused.
        abstractResults[key] = (value, inputs)
        return value
    }

    // MARK: - The request

    /// Declares the symbolic request for the paths of `shape`.
    func setUpRequest(shape: PathShape) {
        self.shape = shape
        for (index, segment) in shape.fixed.enumerated() {
            switch segment {
            case .literal(let text):
                pathSegments.append(SMT.string(text))
                pathConcrete.append(text)
            case .variable(let name):
                addSegment("seg\(index).\(name)")
            }
        }
        let name = shape.restName ?? ""
        switch shape.rest {
        case .none: break
        case .segments(let count):
            for offset in 0..<count { addSegment("seg\(pathSegments.count).\(name)\(offset)") }
        case .long(let head, let tail):
            for offset in 0..<head { addSegment("seg\(pathSegments.count).\(name)\(offset)") }
            // One or more non-empty segments joined by `/`.
            let gap = declare("seg\(pathSegments.count).\(name).gap", "String")
            assert("(and (< 0 (str.len \(gap))) (not (str.prefixof \"/\" \(gap))) (not (str.suffixof \"/\" \(gap))) (not (str.contains \(gap) \"//\")))")
            gapIndex = pathSegments.count
            pathSegments.append(gap)
            pathConcrete.append(nil)
            for offset in 0..<tail { addSegment("seg\(pathSegments.count).\(name)\(head + offset + 1)") }
        }
        authNull = declare("auth.null", "Bool")
        uid = declare("auth.uid", "String")
        assert("(< 0 (str.len \(uid)))")
        let token = makeMap("auth.token")
        self.token = token
        let sub = token.entry("sub")
        assert(sub.present)
        time = declare("request.time", "Int")
        assert(Encoder.timestampRange(time))
        resourceExists = declare("resource.exists", "Bool")
        let resourceData = makeMap("resource")
        self.resourceData = resourceData
        if method == .create || method == .update {
            requestData = makeMap("request.resource")
        }
        if method == .list {
            queryPresent = declare("query.present", "Bool")
            query = makeMap("query")
        }
        if service == .firestore {
            slots.append(LookupSlot(segments: pathSegments, key: joinedPath(pathSegments), after: false,
                                    exists: resourceExists, data: resourceData))
        }
    }

    /// A symbolic path segment: non-empty, without `/`.
    private func addSegment(_ name: String) {
        let term = declare(name, "String")
        assert("(and (< 0 (str.len \(term))) (not (str.contains \(term) \"/\")))")
        pathSegments.append(term)
        pathConcrete.append(nil)
    }

    // MARK: - State of the sections in Encoder+*.swift (an extension cannot store)

    /// What `boolValue` made, by its error and `isTrue` terms (see ``truth(_:)``).
    var boolTruths: [String: (isFalse: String, guard_: String)] = [:]

    /// Calls already inlined, by function, depth, arguments and wildcards (see ``callUser``).
    var callMemo: [String: SymValue] = [:]

    /// `matches()` memberships, defined per subject by `defineMemberships()` (see ``membership(_:_:)``).
    var memberships: [(subject: String, regex: String, atom: String)] = []
    var membershipIndex: [String: String] = [:]

    /// How the other keys of two diffed maps split, by the maps' names (see ``diffRest(_:_:)``).
    var diffRests: [DiffRest] = []
    /// The encoding for `rules agree` (Encoder+Derived.swift): `replace()` makes derived
    /// strings, exact in tests against literals (as `lower()` and `upper()` do everywhere); list
    /// memberships are left undefined until asked for; `lower()` gets no axiom. Off for `verify`
    /// and `diff`, whose queries the extra memberships of the same string slow down past their
    /// budget.
    var encodesForAgreement = false
    /// Memberships left undefined until asked for (see ``lazyMembership(_:_:)``).
    var lazyMemberships: [(subject: String, regex: String, atom: String, automaton: CharAutomaton)] = []

    /// Strings made from another by `lower()`, `upper()` and `replace()` steps, by their term (see
    /// ``derive(_:_:)`` in Encoder+Derived.swift).
    var derivations: [String: StringDerivation] = [:]
    /// The regexes of derived strings' tests against literals, by steps and literals (see
    /// ``derivedMembership(_:_:)``); nil where there is none.
    var derivedPreimages: [String: (regex: String, automaton: CharAutomaton)?] = [:]

    /// The values of unmodelled functions, by operation and the signature of their inputs (see
    /// ``anyResult(_:_:of:_:)``).
    var abstractResults: [String: (value: SymValue, inputs: [SymValue])] = [:]

    /// The error terms of unconstrained values (see ``anyValue(_:_:)``).
    private(set) var abstractionErrors: [String] = []

    /// False when an internal invariant was found broken (see ``finish()``); the verdict is then
    /// `unknown`.
    private(set) var complete = true

    /// Records a broken internal invariant: the encoding is incomplete, never a proof.
    func invariantBroken() { complete = false }

    // MARK: - Budget

    /// Most units of encoding work for one query: one per expression encoded (each call site
    /// encodes its function's body again) and one per alternative of a value combined.
    /// RulesKit's own bound, far above what the evaluator's 1,000 expressions per request
    /// (`RL3012`) can use; past it the property is `unknown` with a `VF2001` reason.
    static let encodingWorkLimit = 200_000
    /// The budget of this encoder (``encodingWorkLimit`` unless a test sets a smaller one).
    var workLimit = Encoder.encodingWorkLimit
    /// Units of work spent so far.
    private(set) var work = 0
    /// When encoding must stop: the property's deadline (`--timeout`), checked every 256 units.
    var deadline: Date?
    /// Why encoding stopped early (the budget or the deadline), or nil.
    private(set) var stopped: String?
    private var nextDeadlineCheck = 0

    /// Counts `units` of work; false once the budget or the deadline is exceeded.
    func spend(_ units: Int) -> Bool {
        guard stopped == nil else { return false }
        work += units
        if work > workLimit {
            stopped = "VF2001 encoding needs more than \(workLimit) units of work (each call inlines its function's body)"
            return false
        }
        if work >= nextDeadlineCheck, let deadline {
            nextDeadlineCheck = work + 256
            if Date() >= deadline {
                stopped = "timeout"
                return false
            }
        }
        return true
    }
}
