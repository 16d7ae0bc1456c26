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

    /// Decides a request against `data` (the root before the operation).
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
        var decision = DatabaseDecision(operation: request.methodName, path: request.path, auth: request.auth ?? .null)
        decision.evaluations.reserveCapacity(8)
        let keys: [String]
        do { keys = try DataTree.keys(of: request.path) } catch {
            decision.refusal = error.diagnostic
            return decision
        }
        let auth = request.auth.map(RValue.init(json:)) ?? .null
        var query = DatabaseQuery()
        if case .read(let q) = request.operation { query = q }
        let context = RuleContext(state: RequestState(auth: auth, oldRoot: data, newRoot: data, now: request.now, query: query),
                                  location: [])
        switch request.operation {
        case .read:
            if let grant = firstGrant(.read, keys: keys, context: context, explain: explain, coverage: coverage, decision: &decision) {
                decision.grants.append(grant)
                decision.allowed = true
            } else {
                decision.deniedLocations.append(request.path)
            }
            return decision
        case .set, .update:
            let locations: [[String]]
            do {
                (context.state.newRoot, locations) = try apply(request, keys: keys, to: data)
            } catch {
                decision.refusal = error.diagnostic
                return decision
            }
            for location in locations {
                if let grant = firstGrant(.write, keys: location, context: context, explain: explain, coverage: coverage, decision: &decision) {
                    decision.grants.append(grant)
                } else {
                    decision.deniedLocations.append("/" + location.joined(separator: "/"))
                }
            }
            guard decision.deniedLocations.isEmpty else { return decision }
            validate(locations: locations, context: context, explain: explain, coverage: coverage, decision: &decision)
            decision.allowed = decision.failedValidations.isEmpty
            return decision
        }
    }

    /// Builds the new root and the write locations (reference §6.3).
    func apply(_ request: DatabaseRequest, keys: [String], to data: DataNode?) throws(DataError) -> (DataNode?, [[String]]) {
        var budget = limits.maxWrittenNodes
        // Built only when a message needs it.
        var path: String { "/" + keys.joined(separator: "/") }
        switch request.operation {
        case .read: return (data, [])
        case .set(let value):
            let node = try DataTree.node(from: value, existing: DataTree.node(data, at: keys), now: request.now, path: path,
                                         budget: &budget, depth: limits.maxNestingDepth)
            return (DataTree.setting(data, at: keys[...], to: node), [keys])
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
            var newRoot = data
            for (relative, location) in zip(updates.keys.sorted(), locations) {
                let node = try DataTree.node(from: updates[relative]!, existing: DataTree.node(data, at: location), now: request.now,
                                             path: "/" + location.joined(separator: "/"), budget: &budget, depth: limits.maxNestingDepth)
                newRoot = DataTree.setting(newRoot, at: location[...], to: node)
            }
            return (newRoot, locations)
        }
    }

    /// Walks the rules from the root to `keys`, evaluating `kind` at each node until one grants.
    func firstGrant(_ kind: RuleKind, keys: [String], context: RuleContext, explain: Bool, coverage: DatabaseCoverage?,
                    decision: inout DatabaseDecision) -> RuleEvaluation? {
        var node = root
        var depth = 0
        while true {
            if let rule = node.rule(kind) {
                var ctx = context
                ctx.location = Array(keys.prefix(depth))
                ctx.wildcards = rule.wildcards
                let evaluation = run(rule, context: ctx, explain: explain, coverage: coverage)
                decision.evaluations.append(evaluation)
                if evaluation.outcome == .value(true) { return evaluation }
            }
            guard depth < keys.count, let next = node.child(for: keys[depth]) else { return nil }
            node = next.node
            depth += 1
        }
    }

    /// Runs every `.validate` the write reaches (reference §6.5): ancestors of each location and
    /// every node of the new data at or below it; null nodes are skipped.
    func validate(locations: [[String]], context: RuleContext, explain: Bool, coverage: DatabaseCoverage?,
                  decision: inout DatabaseDecision) {
        // One location: its ancestors and its subtree are disjoint, so nothing repeats. Several
        // (an update): shared ancestors are checked once.
        var seen = Set<[String]>()
        let dedupe = locations.count > 1
        for location in locations {
            // Ancestors, following the rule walk.
            var node: RuleNode? = root
            var data = context.newRoot
            for depth in 0..<location.count {
                guard let current = node else { break }
                if current.validate != nil, data != nil {
                    let keys = Array(location.prefix(depth))
                    if !dedupe || seen.insert(keys).inserted {
                        check(current, keys: keys, newNode: data, context: context, explain: explain, coverage: coverage, decision: &decision)
                    }
                }
                data = data?.child(location[depth])
                guard let next = current.child(for: location[depth]) else { node = nil; break }
                node = next.node
            }
            // The location and the written subtree, iteratively, with the rule node alongside.
            guard let start = node, let startData = data else { continue }
            var stack: [(RuleNode, DataNode, [String])] = []
            stack.reserveCapacity(8)
            stack.append((start, startData, location))
            while let (ruleNode, dataNode, path) = stack.popLast() {
                guard !dedupe || seen.insert(path).inserted else { continue }
                check(ruleNode, keys: path, newNode: dataNode, context: context, explain: explain, coverage: coverage, decision: &decision)
                guard case .branch(let children, _) = dataNode else { continue }
                for (key, child) in children.sorted(by: { $0.key > $1.key }) {
                    guard let next = ruleNode.child(for: key) else { continue }
                    stack.append((next.node, child, path + [key]))
                }
            }
        }
    }

    private func check(_ node: RuleNode, keys: [String], newNode: DataNode?, context: RuleContext, explain: Bool,
                       coverage: DatabaseCoverage?, decision: inout DatabaseDecision) {
        // INVARIANT: callers pass only nodes present in the new data (null is never validated).
        guard let rule = node.validate else { return }
        var ctx = context
        ctx.location = keys
        ctx.wildcards = rule.wildcards
        ctx.newNode = .some(newNode)
        let evaluation = run(rule, context: ctx, explain: explain, coverage: coverage)
        decision.evaluations.append(evaluation)
        if evaluation.outcome != .value(true) { decision.failedValidations.append(evaluation) }
    }

    /// Evaluates one rule; errors and non-booleans are recorded, never thrown.
    func run(_ rule: Rule, context: consuming RuleContext, explain: Bool, coverage: DatabaseCoverage?) -> RuleEvaluation {
        let evaluation = RuleEvaluation(rule: rule, locationKeys: context.location, outcome: .value(false))
        switch (rule.body, rule.compiled) {
        case (.constant(let value), _):
            evaluation.outcome = .value(value)
        case (.expression, let expr?):
            var evaluator = Evaluator(stepLimit: limits.evaluationStepLimit, context: context, coverage: coverage)
            if coverage != nil { evaluator.rulePath = rule.rulePath }
            evaluation.outcome = evaluator.outcome(expr)
            if explain, evaluation.outcome != .value(true) {
                // The same context (its node caches hold what a fresh one would compute), uncounted.
                evaluator.coverage = nil
                evaluation.blame = evaluator.blame(expr, rule: rule)
            }
        case (.expression, nil):
            // INVARIANT: every expression rule is compiled with its rule.
            evaluation.outcome = .error(code: DatabaseCode.internalError, message: "internal error: rule `\(rule.rulePath)` was not compiled; please report the rules")
        }
        coverage?.record(rule: rule, outcome: evaluation.outcome)
        return evaluation
    }
}
