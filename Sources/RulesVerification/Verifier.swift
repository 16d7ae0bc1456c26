// Verifier: decides properties. For each method, encodes "an allowed request that breaks (or,
// for `possible`, shows) the property", asks Z3, turns a model into a case object, and replays
// that case through the evaluator before believing it.
import Diagnostics
import Foundation
import RulesCases
import RulesLanguage
import RulesLoading
import RulesPatterns

/// The outcome for one property.
public struct PropertyResult: Sendable {
    /// The property file's path.
    public var file: String
    /// The property.
    public var property: RulesProperty
    /// The verdict.
    public var verdict: Verdict
    /// A case object (JSON text, keys in case-file order) with `expect` set to the rules' decision:
    /// present for a violated `only-if`/`never` and a holding `possible`.
    public var witness: String?
    /// The evaluator's explanation of the witness's decision.
    public var explanation: String?
    /// Why the verdict is `unknown`: the construct and `file:line:column`, or a timeout.
    public var reason: String?
    /// The methods the answer was decided for.
    public var methods: [RequestMethod]
    /// Units of encoding work spent on the property, all queries together (see
    /// ``RulesVerifier/encodingWorkLimit``); a work counter for tests and tools.
    public var encodingWork = 0
    /// The methods as reports name them, when not ``methods`` (database properties: `read`, `write`).
    public var methodNames: [String]?
    /// Whether the property has a condition, when ``property`` does not carry it (database properties).
    public var conditionGiven: Bool?

    /// The expectation in force: the file's, or `holds`.
    public var expected: Verdict { property.expect ?? .holds }
    /// `verdict == expect` (or `holds` when the file gives none).
    public var passed: Bool { verdict == expected }
}

/// Decides the properties of property files against their rules.
public struct RulesVerifier: Sendable {
    /// Solver time for one property, in seconds.
    public var timeout: Double
    /// The `matches()` engine used when replaying witnesses.
    public var regexEngine: any RegexEngine
    /// How many times a model whose witness the evaluator rejects is refined before giving up.
    public var refinements: Int
    /// Units of encoding work per query, when not the default 200,000 (see docs/VERIFICATION.md);
    /// past it the verdict is `unknown` with a `VF2001` reason.
    public var encodingWorkLimit: Int?
    /// Z3 resource units (`rlimit`) per solver query, when not the default 20,000,000
    /// (``defaultSolverResourceLimit``); past it the verdict is `unknown` with a `VF2002` reason,
    /// the same on a fast or a slow machine. The timeout stays a safety net.
    public var solverResourceLimit: UInt64?

    /// Z3 resource units per solver query unless ``solverResourceLimit`` says otherwise: six
    /// times the most a query of the verifier's tests takes (docs/VERIFICATION.md, "Budget").
    public static var defaultSolverResourceLimit: UInt64 { Z3Solver.decisionResourceLimit }

    /// Creates a verifier.
    ///
    /// - Parameters:
    ///   - timeout: solver time per property, in seconds.
    ///   - regexEngine: the engine for replaying witnesses (PCRE2 with RE2 checks by default).
    public init(timeout: Double = 10, regexEngine: any RegexEngine = RulesLoader.defaultRegexEngine, refinements: Int = 4) {
        self.timeout = timeout
        self.regexEngine = regexEngine
        self.refinements = refinements
    }

    /// Decides every property of `file` against `program` (the compiled rules the file names).
    public func verify(_ file: PropertyFile, program: Program) -> [PropertyResult] {
        file.properties.map { verify($0, in: file, program: program) }
    }

    /// Decides one property.
    public func verify(_ property: RulesProperty, in file: PropertyFile, program: Program) -> PropertyResult {
        var result = PropertyResult(file: file.path, property: property, verdict: .unknown, methods: property.methods)
        let deadline = Date().addingTimeInterval(timeout)
        let shapes = PathShape.shapes(for: property, rules: program.file)
        var outcomes: [(RequestMethod, MethodOutcome)] = []
        search: for method in property.methods {
            for shape in shapes {
                let outcome = decide(property, method: method, shape: shape, file: file, program: program, deadline: deadline,
                                     work: &result.encodingWork)
                outcomes.append((method, outcome))
                // A confirmed witness settles the property.
                if case .witness = outcome { break search }
            }
        }
        for (_, outcome) in outcomes {
            guard case .witness(let json, let explanation) = outcome else { continue }
            result.verdict = property.kind == .possible ? .holds : .violated
            result.witness = json
            result.explanation = explanation
            return result
        }
        let unknowns = outcomes.compactMap { if case .unknown(let why) = $0.1 { why } else { nil } }
        if unknowns.isEmpty {
            // Unsatisfiable for every method.
            result.verdict = property.kind == .possible ? .violated : .holds
        } else {
            result.reason = unknowns.uniqued().joined(separator: "; ")
        }
        return result
    }

    enum MethodOutcome {
        case none
        case witness(String, String)
        case unknown(String)
    }

    private func decide(_ property: RulesProperty, method: RequestMethod, shape: PathShape, file: PropertyFile,
                        program: Program, deadline: Date, work: inout Int) -> MethodOutcome {
        guard deadline.timeIntervalSinceNow > 0.05 else { return .unknown("timeout after \(formatSeconds(timeout)) s") }
        let encoder = Encoder(program: program, method: method)
        // The timeout covers the encoding too: inlining can take longer than the solver.
        encoder.deadline = deadline
        if let encodingWorkLimit { encoder.workLimit = encodingWorkLimit }
        encoder.setUpRequest(shape: shape)
        let allowed = encoder.allowed()
        var goal = allowed
        if let condition = property.condition {
            let value = encoder.encodeCondition(condition, source: property.conditionSource, variables: encoder.pathVariables())
            let truth = encoder.truth(value)
            goal = property.kind == .possible ? SMT.and([allowed, truth.isTrue]) : SMT.and([allowed, SMT.not(truth.isTrue)])
        }
        work += encoder.work
        if let stopped = encoder.stopped {
            return .unknown(stopped == "timeout" ? "timeout after \(formatSeconds(timeout)) s" : stopped)
        }
        encoder.assert(goal)
        encoder.finish()
        guard encoder.complete else { return .unknown("internal error: the encoding of this property is incomplete; please report the input") }
        var facts: [String] = []
        var lastProblem = ""
        for _ in 0...refinements {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0.05 else { return .unknown("timeout after \(formatSeconds(timeout)) s") }
            let script = (encoder.declarations + encoder.assertions + facts).joined(separator: "\n")
            if let dump = ProcessInfo.processInfo.environment["RULESKIT_VERIFY_DUMP"] {
                try? script.write(toFile: dump + "-" + method.rawValue + ".smt2", atomically: true, encoding: .utf8)
            }
            let symbols = encoder.valueSymbols
            var answer: SolverAnswer?
            var preferred = false
            if property.kind == .possible {
                // A witness is the goal: first ask for one where lower()/upper() are exact.
                for tier in encoder.eagerPreferences() {
                    let left = deadline.timeIntervalSinceNow
                    guard left > 0.05 else { break }
                    let narrowed = script + "\n" + tier.map { "(assert \($0))" }.joined(separator: "\n")
                    let limits = SolverLimits.preference(secondsLeft: left)
                    if case .sat(let values) = Z3Solver.check(narrowed, values: symbols, limits: limits) {
                        answer = .sat(values: values)
                        preferred = true
                        break
                    }
                }
            }
            let remainingNow = deadline.timeIntervalSinceNow
            guard answer != nil || remainingNow > 0.05 else { return .unknown("timeout after \(formatSeconds(timeout)) s") }
            let resources = solverResourceLimit ?? Z3Solver.decisionResourceLimit
            let limits = SolverLimits.decision(resources, secondsLeft: remainingNow)
            switch answer ?? Z3Solver.check(script, values: symbols, limits: limits) {
            case .unsat:
                return .none
            case .outOfResources:
                return .unknown(Z3Solver.outOfResourcesReason(resources))
            case .unknown(let why):
                if deadline.timeIntervalSinceNow <= 0.05 || why.contains("timeout") || why.contains("canceled") {
                    return .unknown("timeout after \(formatSeconds(timeout)) s")
                }
                return .unknown("the solver gave up (\(why))")
            case .sat(var text):
                // Ask again with preferences for a readable witness; keep the first that is sat.
                for preference in preferred ? [] : encoder.preferences() {
                    let remaining = deadline.timeIntervalSinceNow
                    guard remaining > 0.05 else { break }
                    let preferred = script + "\n" + preference.map { "(assert \($0))" }.joined(separator: "\n")
                    let limits = SolverLimits.preference(secondsLeft: remaining)
                    let answer = Z3Solver.check(preferred, values: symbols, limits: limits)
                    if case .sat(let better) = answer {
                        text = better
                        break
                    }
                    // Weaker preferences are rarely faster than a stronger one that ran out.
                    if case .unsat = answer { continue }
                    break
                }
                let model = Model(text)
                let builder = WitnessBuilder(encoder: encoder, model: model, name: property.name, method: method, service: file.service)
                guard let witness = builder.build() else {
                    lastProblem = "the model could not be written as a case (\(builder.problem))"
                    break
                }
                switch replay(witness, property: property, file: file, program: program) {
                case .success(let explanation):
                    return .witness(witness.json, explanation)
                case .failure(let problem):
                    lastProblem = problem.message
                    if ProcessInfo.processInfo.environment["RULESKIT_VERIFY_DEBUG"] == "1" {
                        FileHandle.standardError.write(Data("rejected witness (\(problem.message)): \(witness.json)\n".utf8))
                    }
                }
                // Refine: pin lower()/upper() on the strings of this model to their real values.
                let newFacts = builder.caseMappingFacts()
                let fresh = newFacts.filter { !facts.contains($0) }
                if fresh.isEmpty { return .unknown(unconfirmed(encoder, lastProblem)) }
                facts += fresh
            }
        }
        return .unknown(unconfirmed(encoder, lastProblem))
    }

    private func unconfirmed(_ encoder: Encoder, _ problem: String) -> String {
        let constructs = encoder.abstractions.map { "\($0.construct) at \($0.location)" }.uniqued()
        let named = constructs.isEmpty ? "" : "; not modelled exactly: " + constructs.prefix(5).joined(separator: ", ")
            + (constructs.count > 5 ? " and \(constructs.count - 5) more" : "")
        return "the solver's counterexample did not replay (\(problem))\(named)"
    }

    struct ReplayProblem: Error { var message: String }

    /// Loads the witness as `validate rules test` would and checks the evaluator agrees.
    private func replay(_ witness: Witness, property: RulesProperty, file: PropertyFile,
                        program: Program) -> Result<String, ReplayProblem> {
        let caseText = CaseFileWriter.file(rules: "rules", service: file.service, cases: [witness.json])
        let loaded: RulesCaseFile
        do {
            loaded = try CaseFileLoader.decode(caseText, path: "witness.json")
        } catch {
            return .failure(ReplayProblem(message: "the case does not load: \(error.message)"))
        }
        guard let testCase = loaded.cases.first else { return .failure(ReplayProblem(message: "no case")) }
        let decision = program.evaluate(testCase.request(service: loaded.service),
                                        lookup: CaseDocumentLookup(testCase: testCase, mode: loaded.lookupMode))
        guard decision.allowed else {
            // The encoding leaves out the evaluator's limits, which only ever deny: such a
            // request is never a witness, and proofs are unaffected.
            if let error = decision.requestError, error.isLimit {
                return .failure(ReplayProblem(message: "the evaluator denies it at a limit the encoding does not model: \(error.code) \(error.message)"))
            }
            return .failure(ReplayProblem(message: "the evaluator denies it"))
        }
        if let condition = property.condition {
            let request = testCase.request(service: file.service)
            var variables: [String: Value] = [:]
            let concrete = PathValue(testCase.path).segments
            for (index, segment) in property.path.enumerated() {
                if case .variable(let name) = segment, index < concrete.count { variables[name] = .string(concrete[index]) }
            }
            if let rest = property.rest, concrete.count > property.path.count {
                variables[rest] = .path(PathValue(segments: Array(concrete[property.path.count...])))
            }
            let (value, _) = Program.evaluateExpression(condition, request: request, variables: variables,
                                                        lookup: CaseDocumentLookup(testCase: testCase, mode: loaded.lookupMode),
                                                        regexEngine: regexEngine)
            let isTrue: Bool
            if case .success(.bool(true)) = value { isTrue = true } else { isTrue = false }
            if property.kind == .possible && !isTrue { return .failure(ReplayProblem(message: "the condition is not true for it")) }
            if property.kind == .onlyIf && isTrue { return .failure(ReplayProblem(message: "the condition holds for it")) }
        }
        return .success(decision.explanation(in: program.source))
    }
}

extension Array where Element: Hashable {
    /// The elements in order, each once.
    func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}

func formatSeconds(_ value: Double) -> String {
    value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
}

/// Model values by symbol.
struct Model {
    var values: [String: SExpr] = [:]

    init(_ text: String) {
        guard case .list(let pairs)? = SExpr.parse(text).first else { return }
        for pair in pairs {
            guard case .list(let items) = pair, items.count == 2 else { continue }
            values[Model.key(items[0])] = items[1]
        }
    }

    static func key(_ expr: SExpr) -> String {
        switch expr {
        case .atom(let a): return a.hasPrefix("|") ? a : "|\(a)|"
        case .string(let s): return s
        case .list(let items): return "(" + items.map(key).joined(separator: " ") + ")"
        }
    }

    func string(_ symbol: String) -> String? { values[symbol]?.text }
    func int(_ symbol: String) -> Int64? { values[symbol]?.integer }
    func bool(_ symbol: String) -> Bool? { values[symbol]?.boolean }
    func real(_ symbol: String) -> Double? { values[symbol]?.real }
}
