// DatabaseVerifier: decides database properties. For each method and each request shape of the
// property's path, encodes "an allowed request that breaks (or, for `possible`, shows) the
// property", asks Z3, and replays the model's case through DatabaseProgram (and the condition
// through the expression evaluator) before believing it.
import DatabaseRules
import Diagnostics
import Foundation

/// Decides the properties of database property files.
public struct DatabaseVerifier: Sendable {
    /// Solver time for one property, in seconds.
    public var timeout: Double
    /// Z3 resource units per query.
    public var solverResourceLimit: UInt64
    /// Levels of the written value modelled below the write path (docs/VERIFICATION.md).
    public var depthBound: Int

    /// The levels of a written value modelled below the write path unless told otherwise.
    public static let defaultDepthBound = 2

    public init(timeout: Double = 10, solverResourceLimit: UInt64 = RulesVerifier.defaultSolverResourceLimit,
                depthBound: Int = defaultDepthBound) {
        self.timeout = timeout
        self.solverResourceLimit = solverResourceLimit
        self.depthBound = depthBound
    }

    /// Decides every property of `file` against `program`.
    public func verify(_ file: DatabasePropertyFile, program: DatabaseProgram) -> [PropertyResult] {
        file.properties.map { verify($0, in: file, program: program) }
    }

    /// Decides one property.
    public func verify(_ property: DatabaseProperty, in file: DatabasePropertyFile, program: DatabaseProgram) -> PropertyResult {
        var result = PropertyResult(file: file.path, property: property.reported, verdict: .unknown, methods: [])
        result.methodNames = property.methods.map(\.rawValue)
        result.conditionGiven = property.condition != nil
        let deadline = Date().addingTimeInterval(timeout)
        let extra = property.condition.map { [$0] } ?? []
        let mentioned = DatabaseShapes.mentionedKeys(DatabaseShapes.expressions(program) + extra)
        guard let shapes = DatabaseShapes.expand(property.segments, programs: [program], mentioned: mentioned) else {
            result.reason = "the path has more than 64 request shapes (literal keys times variables)"
            return result
        }
        var unknowns: [String] = []
        for method in property.methods {
            for shape in shapes {
                let question = DatabaseQuestion(shape: shape, isWrite: method == .write, programs: [program], extraExpressions: extra,
                                                deadline: deadline, timeout: timeout, resourceLimit: solverResourceLimit, depthBound: depthBound)
                let outcome = question.solve(goal: { encoder, decisions in
                    let decision = decisions[0]
                    guard let condition = property.condition else { return DatabaseGoal(core: decision.grant, rest: decision.validations) }
                    let scope = conditionScope(property, encoder: encoder, isRead: method == .read)
                    let truth = encoder.passes(condition, scope: scope)
                    return DatabaseGoal(core: SMT.and([decision.grant, property.kind == .possible ? truth : SMT.not(truth)]),
                                        rest: decision.validations)
                }, name: property.name, expectAllow: true, accept: { witness in
                    replay(witness, property: property, program: program)
                })
                switch outcome {
                case .none: continue
                case .unknown(let why, _): unknowns.append(why)
                case .witness(let witness, let replayed):
                    result.verdict = property.kind == .possible ? .holds : .violated
                    result.witness = witness.json
                    result.explanation = replayed.explanation
                    return result
                }
            }
        }
        if unknowns.isEmpty {
            result.verdict = property.kind == .possible ? .violated : .holds
        } else {
            result.reason = unknowns.uniqued().joined(separator: "; ")
        }
        return result
    }

    private func conditionScope(_ property: DatabaseProperty, encoder: DatabaseExpressionEncoder, isRead: Bool) -> DBScope {
        var bindings: [String: DBKey] = [:]
        for (index, segment) in property.segments.enumerated() where segment.hasPrefix("$") { bindings[segment] = encoder.tree.target[index] }
        let location = property.conditionLocation
        return DBScope(location: encoder.tree.target, bindings: bindings, locate: { _ in location }, isRead: isRead)
    }

    /// The evaluator allows the case, and the condition is true (`possible`) or not true (`only-if`).
    private func replay(_ witness: DatabaseWitness, property: DatabaseProperty,
                        program: DatabaseProgram) -> Result<DatabaseReplay.Outcome, DatabaseReplay.ReplayFailure> {
        switch DatabaseReplay.run(witness.json, program: program) {
        case .failure(let problem): return .failure(problem)
        case .success(let outcome):
            guard outcome.allowed else { return .failure(.init(message: "the evaluator denies it")) }
            guard let condition = property.condition else { return .success(outcome) }
            var bindings: [String: String] = [:]
            for (index, segment) in property.segments.enumerated() where segment.hasPrefix("$") { bindings[segment] = witness.keys[index] }
            let environment = ExpressionEnvironment(auth: outcome.testCase.auth, oldRoot: outcome.root, newRoot: outcome.newRoot,
                                                    location: witness.keys, bindings: bindings, now: outcome.testCase.time)
            let isTrue = DatabaseRulesCompiler.evaluate(condition, in: environment, regexEngine: program.regexEngine) == .value(true)
            if property.kind == .possible && !isTrue { return .failure(.init(message: "the condition is not true for it")) }
            if property.kind == .onlyIf && isTrue { return .failure(.init(message: "the condition holds for it")) }
            return .success(outcome)
        }
    }
}
