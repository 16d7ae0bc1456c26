// DatabaseQuery: one solver question about Realtime Database rules — a request shape (read or
// write on a path), the symbolic tree for it, the rules files encoded over it, a goal, and the
// model turned into a case that must replay before anything is claimed. Shared by the verifier
// (DatabaseVerifier) and `rules diff` (DatabaseDiff).
import DatabaseRules
import Diagnostics
import Foundation

/// The request shapes of a path pattern and the literal keys rules name.
enum DatabaseShapes {
    /// Literal keys named by `child`, `hasChild` and `hasChildren` in `expressions`.
    static func mentionedKeys(_ expressions: [DatabaseExpression]) -> Set<String> {
        var keys = Set<String>()
        for expression in expressions {
            expression.forEachNode { node in
                guard case .call(_, let name, let arguments) = node.kind else { return }
                switch name {
                case "child", "hasChild":
                    if case .string(let text)? = arguments.first?.kind { keys.formUnion(DatabaseExpressionEncoder.childKeys(text)) }
                case "hasChildren":
                    if case .array(let items)? = arguments.first?.kind {
                        for case .string(let text) in items.map(\.kind) { keys.formUnion(DatabaseExpressionEncoder.hasChildrenKeys(text)) }
                    }
                default: break
                }
            }
        }
        return keys.filter(DatabaseSymbolicTree.isValidKey)
    }

    /// Every expression of a program's rules.
    static func expressions(_ program: DatabaseProgram) -> [DatabaseExpression] {
        program.allRules.compactMap { if case .expression(let e) = $0.body { e } else { nil } }
    }

    /// The rule node of `program` at `keys` (literal keys take the literal child, others the wildcard).
    static func ruleNode(_ program: DatabaseProgram, _ keys: [DBKey]) -> RuleNode? {
        var node: RuleNode? = program.root
        for key in keys { node = node.flatMap { DatabaseRuleEncoding.child($0, key) } }
        return node
    }

    /// The literal keys a node at `keys` is modelled with: each file's rule keys there and the mentioned keys.
    static func literalChildren(_ programs: [DatabaseProgram], _ keys: [DBKey], mentioned: Set<String>) -> [String] {
        var out: [String] = []
        for program in programs {
            for key in ruleNode(program, keys)?.childOrder ?? [] where !out.contains(key) { out.append(key) }
        }
        for key in mentioned.sorted() where !out.contains(key) { out.append(key) }
        return out
    }

    /// The shapes of a pattern whose segments are literal keys or `$` variables: each variable is
    /// each literal key of the rules at that level (and each mentioned key) in turn, or any other
    /// key. With the variables' bindings (`$name` → index into the path).
    static func expand(_ pattern: [String], programs: [DatabaseProgram], mentioned: Set<String>, limit: Int = 64)
        -> [[DBShapeKey]]? {
        var shapes: [[DBShapeKey]] = [[]]
        for segment in pattern {
            var next: [[DBShapeKey]] = []
            for shape in shapes {
                guard segment.hasPrefix("$") else { next.append(shape + [.literal(segment)]); continue }
                let prefix = shape.map { key -> DBKey in
                    if case .literal(let text) = key { return .literal(text) }
                    return .symbol("other")
                }
                let literals = literalChildren(programs, prefix, mentioned: mentioned)
                // Any other key first: its witnesses read best.
                next.append(shape + [.other(literals)])
                for literal in literals where DatabaseSymbolicTree.isValidKey(literal) { next.append(shape + [.literal(literal)]) }
            }
            shapes = next
            if shapes.count > limit { return nil }
        }
        return shapes
    }
}

/// A goal as a core and further conjuncts: `core ∧ rest…`.
struct DatabaseGoal {
    var core: String
    var rest: [String] = []

    /// `allowedBy` allows and `deniedBy` denies (validations both share drop out of the denial),
    /// with `also` true; the allowing file's validations are the rest.
    static func allows(_ allowedBy: DatabaseDecisionTerms, denies deniedBy: DatabaseDecisionTerms, also: String = "true") -> DatabaseGoal {
        let shared = Set(allowedBy.validations)
        let denial = SMT.not(SMT.and([deniedBy.grant] + deniedBy.validations.filter { !shared.contains($0) }))
        return DatabaseGoal(core: SMT.and([allowedBy.grant, denial, also]), rest: allowedBy.validations)
    }
}

/// The answer to one question.
enum DatabaseQueryOutcome {
    /// No request of the shape satisfies the goal.
    case none
    /// A case that replays, with what the replay gave.
    case witness(DatabaseWitness, DatabaseReplay.Outcome)
    /// Undecided, with the reason and the constructs not modelled exactly.
    case unknown(String, [Abstraction])
}

/// One question: the goal over a shape, solved and replayed.
struct DatabaseQuestion {
    var shape: [DBShapeKey]
    var isWrite: Bool
    var programs: [DatabaseProgram]
    var extraExpressions: [DatabaseExpression] = []
    var deadline: Date
    var timeout: Double
    var resourceLimit: UInt64
    var depthBound = DatabaseSymbolicTree.defaultDepthBound

    /// Builds the encoding, asks for a model of `goal` and returns a case `accept` confirms.
    ///
    /// - Parameters:
    ///   - goal: the goal from the encoder and each program's decision.
    ///   - name: the case's name; `expectAllow`: its `expect`.
    ///   - accept: replays the case, nil when it confirms the goal, else why not.
    func solve(goal: (DatabaseExpressionEncoder, [DatabaseDecisionTerms]) -> DatabaseGoal, name: String, expectAllow: Bool,
               accept: (DatabaseWitness) -> Result<DatabaseReplay.Outcome, DatabaseReplay.ReplayFailure>) -> DatabaseQueryOutcome {
        let timeoutText = "timeout after \(formatSeconds(timeout)) s"
        guard deadline.timeIntervalSinceNow > 0.05 else { return .unknown(timeoutText, []) }
        let mentioned = DatabaseShapes.mentionedKeys(programs.flatMap(DatabaseShapes.expressions) + extraExpressions)
        let programs = self.programs
        let tree = DatabaseSymbolicTree(shape: shape, isWrite: isWrite, mentioned: mentioned, depthBound: depthBound) { keys in
            DatabaseShapes.literalChildren(programs, keys, mentioned: mentioned)
        }
        let encoder = DatabaseExpressionEncoder(tree: tree)
        let decisions = programs.map { DatabaseRuleEncoding(program: $0, encoder: encoder).decision() }
        let goalTerms = goal(encoder, decisions)
        tree.finish()
        let base = tree.declarations + tree.assertions
        // The core alone first: when it is unsatisfiable, so is the goal (the rest only adds conjuncts).
        if !goalTerms.rest.isEmpty {
            let core = (base + ["(assert \(goalTerms.core))"]).joined(separator: "\n")
            let limits = SolverLimits.decision(resourceLimit, secondsLeft: deadline.timeIntervalSinceNow)
            if case .unsat = Z3Solver.check(core, values: [], limits: limits) { return .none }
        }
        let script = (base + ["(assert \(SMT.and([goalTerms.core] + goalTerms.rest)))"]).joined(separator: "\n")
        if let dump = ProcessInfo.processInfo.environment["RULESKIT_VERIFY_DUMP"] {
            try? script.write(toFile: dump + "-database.smt2", atomically: true, encoding: .utf8)
        }
        let limits = SolverLimits.decision(resourceLimit, secondsLeft: deadline.timeIntervalSinceNow)
        switch Z3Solver.check(script, values: tree.valueSymbols, limits: limits) {
        case .unsat:
            return .none
        case .outOfResources:
            return .unknown(Z3Solver.outOfResourcesReason(resourceLimit), encoder.abstractions)
        case .unknown(let why):
            if deadline.timeIntervalSinceNow <= 0.05 || why.contains("timeout") || why.contains("canceled") { return .unknown(timeoutText, []) }
            return .unknown("the solver gave up (\(why))", encoder.abstractions)
        case .sat(var values):
            // Prefer path keys of lowercase letters and whole numbers: a readable case that replays exactly.
            let integers = tree.valueSymbols.filter { tree.declarations.contains("(declare-const \($0) Real)") }
                .map { "(assert (is_int \($0)))" }
            let keys = tree.target.compactMap { key -> String? in
                guard case .symbol(let name) = key else { return nil }
                return "(assert (str.in_re \(name) (re.+ (re.range \"a\" \"z\"))))"
            }
            // Then, when possible, no stored data and string `auth` fields.
            let plain = tree.oldNodes.values.map { "(assert (not \($0.exists)))" }
                + encoder.authChains.values.map { "(assert (or (= \($0.tag) 0) (= \($0.tag) 3)))" }
            for tier in [keys + integers + plain, keys + integers, integers] where !tier.isEmpty && deadline.timeIntervalSinceNow > 0.05 {
                let answer = Z3Solver.check(script + "\n" + tier.joined(separator: "\n"), values: tree.valueSymbols,
                                            limits: .decision(resourceLimit / 2, secondsLeft: deadline.timeIntervalSinceNow))
                if case .sat(let better) = answer {
                    values = better
                    break
                }
            }
            var builder = DatabaseWitnessBuilder(tree: tree, encoder: encoder, model: Model(values))
            guard let witness = builder.build(name: name, expectAllow: expectAllow) else {
                return .unknown("the model could not be written as a case (\(builder.problem))", encoder.abstractions)
            }
            switch accept(witness) {
            case .success(let outcome): return .witness(witness, outcome)
            case .failure(let problem):
                if ProcessInfo.processInfo.environment["RULESKIT_VERIFY_DEBUG"] == "1" {
                    FileHandle.standardError.write(Data("rejected witness (\(problem.message)): \(witness.json)\n".utf8))
                }
                let constructs = encoder.abstractions.map { "\($0.construct) at \($0.location)" }.uniqued()
                let named = constructs.isEmpty ? "" : "; not modelled exactly: " + constructs.prefix(5).joined(separator: ", ")
                    + (constructs.count > 5 ? " and \(constructs.count - 5) more" : "")
                return .unknown("the solver's counterexample did not replay (\(problem.message))\(named)", encoder.abstractions)
            }
        }
    }
}
