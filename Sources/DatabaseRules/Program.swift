// Program: a compiled rules file and the read/write decision procedure (reference §6.2–§6.6).
import Diagnostics

/// One operation to decide.
public struct DatabaseRequest: Sendable {
    /// What the operation does.
    public enum Operation: Sendable {
        /// A read or query of the path.
        case read(DatabaseQuery)
        /// `set(path, value)`; `.null` deletes.
        case set(JSONValue)
        /// `update(path, {relative/path: value, …})`: a multi-location write.
        case update([String: JSONValue])
    }

    /// The path, e.g. `/userPresence/alice`.
    public var path: String
    /// The operation.
    public var operation: Operation
    /// The auth object as rules see it (`uid`, `provider`, `token`, …); nil or `.null` when signed out.
    public var auth: JSONValue?
    /// `now` and server timestamps, in milliseconds since the epoch.
    public var now: Double

    /// Creates a request.
    public init(path: String, operation: Operation, auth: JSONValue? = nil, now: Double) {
        self.path = path
        self.operation = operation
        self.auth = auth
        self.now = now
    }

    /// `read`, `set` or `update`.
    public var methodName: String {
        switch operation {
        case .read: "read"
        case .set: "set"
        case .update: "update"
        }
    }
}

/// A compiled, checked rules file. Immutable, `Sendable`, safe to cache and share.
public struct DatabaseProgram: Sendable {
    /// The root rule node (the value of `"rules"`).
    public let root: RuleNode
    /// The rules file.
    public let source: SourceFile
    /// Bounds used when evaluating.
    public let limits: DatabaseLimits
    /// The `matches()` engine (each rule's patterns were prepared with it when compiled).
    public let regexEngine: any DatabaseRegexEngine

    init(root: RuleNode, source: SourceFile, limits: DatabaseLimits, regexEngine: any DatabaseRegexEngine) {
        self.root = root
        self.source = source
        self.limits = limits
        self.regexEngine = regexEngine
    }

    /// Every rule of the tree, in file order.
    public var allRules: [Rule] {
        root.allNodes.flatMap { node in RuleKind.allCases.compactMap { node.rule($0) } }.sorted { $0.span.start < $1.span.start }
    }

    /// Decides a request against `data` (the root before the operation), recording every rule.
    ///
    /// - Parameters:
    ///   - request: the operation.
    ///   - data: the database before the operation (nil when empty).
    ///   - explain: compute the first failing sub-expression of every rule that did not pass.
    ///   - coverage: records rule and sub-expression outcomes when given.
    /// - Returns: the decision; an invalid request is denied with its diagnostic in
    ///   ``DatabaseDecision/refusal``.
    public func evaluate(_ request: DatabaseRequest, data: DataNode?, explain: Bool = true,
                         coverage: DatabaseCoverage? = nil) -> DatabaseDecision {
        coverage?.requestCount += 1
        let empty = DatabaseDecision(operation: request.methodName, path: request.path, auth: request.auth ?? .null)
        var trace: DatabaseDecision? = empty
        trace?.evaluations.reserveCapacity(8)
        let allowed = decide(request, data: data, explain: explain, coverage: coverage, trace: &trace)
        // INVARIANT: `decide` records into the trace it is given and never removes it.
        var decision = trace ?? empty
        decision.allowed = allowed
        return decision
    }

    /// Whether a request is allowed: the same decision as ``evaluate(_:data:explain:coverage:)``
    /// without recording the rules it ran, for servers that only need the verdict. Nothing is
    /// kept for an explanation; to learn why a request was denied, evaluate it again with
    /// ``evaluate(_:data:explain:coverage:)``.
    ///
    /// - Parameters:
    ///   - request: the operation.
    ///   - data: the database before the operation (nil when empty).
    /// - Returns: true when allowed; an invalid request is never allowed.
    public func isAllowed(_ request: DatabaseRequest, data: DataNode?) -> Bool {
        var trace: DatabaseDecision?
        return decide(request, data: data, explain: false, coverage: nil, trace: &trace)
    }

    /// The decision procedure (reference §6.2–§6.6). Rules, grants, denied locations and the
    /// refusal are recorded in `trace` when there is one.
    func decide(_ request: DatabaseRequest, data: DataNode?, explain: Bool, coverage: DatabaseCoverage?,
                trace: inout DatabaseDecision?) -> Bool {
        let keys: [String]
        do { keys = try DataTree.keys(of: request.path) } catch {
            trace?.refusal = error.diagnostic
            return false
        }
        let auth = request.auth.map(RValue.init(json:)) ?? .null
        var query = DatabaseQuery()
        if case .read(let q) = request.operation { query = q }
        let state = RequestState(auth: auth, oldRoot: data, newData: DataOverlay(data), now: request.now, query: query)
        // One evaluator for every rule of the request, pointed at each rule in turn.
        var evaluator = Evaluator(limits: limits, context: RuleContext(state: state, location: []), coverage: coverage)
        defer { trace?.workUnits = evaluator.work }
        switch request.operation {
        case .read:
            if firstGrant(.read, keys: keys, evaluator: &evaluator, explain: explain, coverage: coverage, trace: &trace) { return true }
            trace?.deniedLocations.append(request.path)
            return false
        case .set, .update:
            let writes: [(keys: [String], node: DataNode?)]
            do {
                writes = try apply(request, keys: keys, to: data)
            } catch {
                trace?.refusal = error.diagnostic
                return false
            }
            state.newData = DataOverlay(base: data, writes: writes)
            var granted = true
            for (location, _) in writes
            where !firstGrant(.write, keys: location, evaluator: &evaluator, explain: explain, coverage: coverage, trace: &trace) {
                granted = false
                // Without a trace the first denied location settles it.
                guard trace != nil else { return false }
                trace?.deniedLocations.append("/" + location.joined(separator: "/"))
            }
            guard granted else { return false }
            return validate(writes: writes, evaluator: &evaluator, explain: explain, coverage: coverage, trace: &trace)
        }
    }

    /// The write locations and their new nodes, in the order they apply (reference §6.3).
    func apply(_ request: DatabaseRequest, keys: [String], to data: DataNode?) throws(DataError) -> [(keys: [String], node: DataNode?)] {
        var budget = limits.maxWrittenNodes
        // Built only when a message needs it.
        var path: String { "/" + keys.joined(separator: "/") }
        switch request.operation {
        case .read: return []
        case .set(let value):
            let node = try DataTree.node(from: value, existing: DataTree.node(data, at: keys), now: request.now, path: path,
                                         budget: &budget, depth: limits.maxNestingDepth)
            return [(keys, node)]
        case .update(let updates):
            guard !updates.isEmpty else {
                throw DataError(code: DatabaseCode.invalidUpdate, message: "the update of `\(path)` names no paths")
            }
            var locations: [[String]] = []
            for relative in updates.keys.sorted() {
                let sub = try DataTree.keys(of: relative)
                guard !sub.isEmpty else {
                    throw DataError(code: DatabaseCode.invalidUpdate, message: "the update of `\(path)` has an empty path `\(relative)`")
                }
                let full = keys + sub
                guard full.count < DatabaseLimits.maxPathDepth else {
                    throw DataError(code: DatabaseCode.pathTooDeep, message: "update path `\(relative)` under `\(path)` is \(full.count) levels deep")
                }
                locations.append(full)
            }
            for a in locations {
                for b in locations where a.count < b.count && Array(b.prefix(a.count)) == a {
                    throw DataError(code: DatabaseCode.invalidUpdate,
                                    message: "update path `/\(a.joined(separator: "/"))` is an ancestor of `/\(b.joined(separator: "/"))`")
                }
            }
            var writes: [(keys: [String], node: DataNode?)] = []
            for (relative, location) in zip(updates.keys.sorted(), locations) {
                let node = try DataTree.node(from: updates[relative]!, existing: DataTree.node(data, at: location), now: request.now,
                                             path: "/" + location.joined(separator: "/"), budget: &budget, depth: limits.maxNestingDepth)
                writes.append((location, node))
            }
            return writes
        }
    }

    /// Walks the rules from the root to `keys`, evaluating `kind` at each node until one grants.
    /// Whether one grants; the granting rule is recorded in `trace`'s grants.
    func firstGrant(_ kind: RuleKind, keys: [String], evaluator: inout Evaluator, explain: Bool, coverage: DatabaseCoverage?,
                    trace: inout DatabaseDecision?) -> Bool {
        var node = root
        var depth = 0
        while true {
            if let rule = node.rule(kind) {
                evaluator.begin(rule, location: depth == keys.count ? keys : Array(keys.prefix(depth)), newNode: nil)
                let (outcome, evaluation) = run(rule, evaluator: &evaluator, explain: explain, coverage: coverage, trace: &trace)
                if outcome == .value(true) {
                    if let evaluation { trace?.grants.append(evaluation) }
                    return true
                }
            }
            guard depth < keys.count, let next = node.childNode(for: keys[depth]) else { return false }
            node = next
            depth += 1
        }
    }

    /// Runs every `.validate` the write reaches (reference §6.5): ancestors of each location and
    /// every node of the new data at or below it; null nodes are skipped.
    /// - Returns: whether every one passed (without a trace, evaluation stops at the first failure).
    func validate(writes: [(keys: [String], node: DataNode?)], evaluator: inout Evaluator, explain: Bool, coverage: DatabaseCoverage?,
                  trace: inout DatabaseDecision?) -> Bool {
        let tracing = trace != nil
        var passed = true
        // One location: its ancestors and its subtree are disjoint, so nothing repeats. Several
        // (an update): shared ancestors are checked once.
        var seen = Set<[String]>()
        let dedupe = writes.count > 1
        for (location, _) in writes {
            // Ancestors, following the rule walk (their new nodes are looked up only for a rule).
            let newData = evaluator.context.newData
            var node: RuleNode? = root
            for depth in 0..<location.count {
                guard let current = node else { break }
                if current.validate != nil {
                    let keys = Array(location.prefix(depth))
                    if let data = newData.node(at: keys), !dedupe || seen.insert(keys).inserted {
                        passed = check(current, keys: keys, newNode: data, evaluator: &evaluator, explain: explain, coverage: coverage, trace: &trace) && passed
                        guard passed || tracing else { return false }
                    }
                }
                node = current.childNode(for: location[depth])
            }
            // The location and the written subtree, iteratively, with the rule node alongside.
            guard let start = node, let startData = newData.node(at: location) else { continue }
            // One path buffer for the walk: an entry below the location names its key and depth,
            // and the buffer is cut back to its parent's path before the key is appended.
            var path = location
            var stack: [(rule: RuleNode, data: DataNode, depth: Int, key: String?)] = []
            stack.reserveCapacity(8)
            stack.append((start, startData, location.count, nil))
            while let (ruleNode, dataNode, depth, key) = stack.popLast() {
                if let key {
                    path.removeLast(path.count - (depth - 1))
                    path.append(key)
                }
                guard !dedupe || seen.insert(path).inserted else { continue }
                passed = check(ruleNode, keys: path, newNode: dataNode, evaluator: &evaluator, explain: explain, coverage: coverage, trace: &trace) && passed
                guard passed || tracing else { return false }
                guard case .branch(let children, _) = dataNode else { continue }
                let pushed = stack.count
                for (key, child) in children {
                    guard let next = ruleNode.childNode(for: key) else { continue }
                    stack.append((next, child, depth + 1, key))
                }
                // A trace lists children in key order: sorted in place on the stack (last pops
                // first). The verdict alone does not depend on the order.
                if tracing { Self.sortDescendingByKey(&stack, from: pushed) }
            }
        }
        return passed
    }

    /// Insertion sort of `stack[start...]` by key, largest first, in place (a node has few
    /// children; `sort` on the slice would copy it).
    private static func sortDescendingByKey(_ stack: inout [(rule: RuleNode, data: DataNode, depth: Int, key: String?)], from start: Int) {
        var i = start + 1
        while i < stack.count {
            var j = i
            while j > start, (stack[j - 1].key ?? "") < (stack[j].key ?? "") {
                stack.swapAt(j - 1, j)
                j -= 1
            }
            i += 1
        }
    }

    /// Runs the node's `.validate`, if any; returns whether it passed.
    private func check(_ node: RuleNode, keys: [String], newNode: DataNode?, evaluator: inout Evaluator, explain: Bool,
                       coverage: DatabaseCoverage?, trace: inout DatabaseDecision?) -> Bool {
        // INVARIANT: callers pass only nodes present in the new data (null is never validated).
        guard let rule = node.validate else { return true }
        evaluator.begin(rule, location: keys, newNode: .some(newNode))
        let (outcome, evaluation) = run(rule, evaluator: &evaluator, explain: explain, coverage: coverage, trace: &trace)
        evaluator.end()
        guard outcome == .value(true) else {
            if let evaluation { trace?.failedValidations.append(evaluation) }
            return false
        }
        return true
    }

    /// Evaluates one rule with an evaluator pointed at it (``Evaluator/begin(_:location:newNode:)``);
    /// errors and non-booleans are outcomes, never thrown. With a trace, the rule's evaluation
    /// (and its blame, when `explain`) is recorded there and returned.
    func run(_ rule: Rule, evaluator: inout Evaluator, explain: Bool, coverage: DatabaseCoverage?,
             trace: inout DatabaseDecision?) -> (RuleOutcome, RuleEvaluation?) {
        let tracing = trace != nil
        let outcome: RuleOutcome
        var blame: Blame?
        if let value = rule.constant {
            outcome = .value(value)
        } else if let expr = rule.compiled {
            if coverage != nil { evaluator.rulePath = rule.rulePath }
            outcome = evaluator.outcome(expr)
            if tracing, explain, outcome != .value(true) {
                // The same context (its node caches hold what a fresh one would compute), uncounted.
                // An explanation gets a string-work budget of its own; the request's is kept.
                evaluator.coverage = nil
                let work = evaluator.work
                evaluator.work = 0
                blame = evaluator.blame(expr, rule: rule)
                evaluator.work = work
                evaluator.coverage = coverage
            }
        } else {
            // INVARIANT: every expression rule is compiled with its rule.
            outcome = .error(code: DatabaseCode.internalError, message: "internal error: rule `\(rule.rulePath)` was not compiled; please report the rules")
        }
        coverage?.record(rule: rule, outcome: outcome)
        guard tracing else { return (outcome, nil) }
        let evaluation = RuleEvaluation(rule: rule, locationKeys: evaluator.context.location, outcome: outcome)
        evaluation.blame = blame
        trace?.evaluations.append(evaluation)
        return (outcome, evaluation)
    }
}
