// Agreement: `validate rules agree`. Proves that a rules function of one string returns `true`
// exactly when a display-name rule pack accepts the string, or finds a string on which they
// differ and replays it through both engines (the pack's validator and the rules evaluator).
import Diagnostics
import FieldValidation
import Foundation
import RulesLanguage

/// What `rules agree` found.
public enum AgreementVerdict: String, Sendable {
    /// The function returns `true` exactly on the strings the pack accepts.
    case equivalent
    /// A replayed string on which they differ.
    case differs
    /// Not decided: a construct not encoded exactly, a witness that did not replay, or a timeout.
    case unknown

    /// The exit status of `validate rules agree`: 0 equivalent, 1 differs, 3 unknown.
    public var exitStatus: Int32 {
        switch self {
        case .equivalent: 0
        case .differs: 1
        case .unknown: 3
        }
    }
}

/// A string on which the pack and the function disagree, as both engines decided it.
public struct AgreementWitness: Sendable, Equatable {
    /// The string.
    public var value: String
    /// Whether the pack's validator accepts it.
    public var packAccepts: Bool
    /// Whether the function returned `true` for it (an error or any other value is `false`).
    public var rulesReturnTrue: Bool
}

/// The answer of ``RulesAgreement/check(program:function:validator:)``.
public struct AgreementResult: Sendable {
    public var verdict: AgreementVerdict
    /// Present exactly when the verdict is `differs`.
    public var witness: AgreementWitness?
    /// Why the verdict is `unknown`, naming the construct; nil otherwise.
    public var reason: String?
}

/// Compares a rules function with a display-name rule pack for every string.
public struct RulesAgreement: Sendable {
    /// Time for the whole comparison, in seconds.
    public var timeout: Double
    /// How many solver strings that do not replay are excluded and the query asked again.
    public var refinements: Int

    /// Creates a comparison with `timeout` seconds.
    public init(timeout: Double = 30, refinements: Int = 4) {
        self.timeout = timeout
        self.refinements = refinements
    }

    /// Decides whether `function` (one parameter, declared in `program`) returns `true`
    /// exactly on the strings `validator` accepts.
    public func check(program: Program, function: FunctionDecl, validator: DisplayNameValidator) -> AgreementResult {
        let deadline = Date().addingTimeInterval(timeout)
        func unknown(_ reason: String) -> AgreementResult { AgreementResult(verdict: .unknown, witness: nil, reason: reason) }
        guard function.parameters.count == 1 else {
            return unknown("`\(function.name)` takes \(function.parameters.count) parameters; it must take one")
        }
        let pack: PackEncoding
        switch PackEncoding.encode(validator.ruleSummaries) {
        case .success(let encoding): pack = encoding
        case .failure(let refusal): return unknown(refusal.message)
        }
        if let scalar = Self.outsideAlphabet(program.source.text) {
            return unknown("the rules name U+\(String(scalar, radix: 16, uppercase: true)), beyond the solver's alphabet (up to U+2FFFE)")
        }
        let encoder = Encoder(program: program, method: .get)
        encoder.deadline = deadline
        encoder.encodesForAgreement = true
        encoder.setUpRequest(shape: PathShape(fixed: [], restName: nil, rest: .none))
        let value = encoder.declare("value", "String")
        // Swift strings hold no surrogate code points; Z3's do.
        encoder.assert("(str.in_re \(value) (re.* (re.union (re.range \"\\u{0}\" \"\\u{d7ff}\") (re.range \"\\u{e000}\" \"\\u{2ffff}\"))))")
        guard let returned = encoder.callFunction(function, with: SymValue(.string(value))) else {
            return unknown("`\(function.name)` is not a function these rules declare")
        }
        let rulesTrue = encoder.truth(returned).isTrue
        var packAccepts = SMT.and([encoder.membership(value, pack.regex), pack.lengthAccepted(value)])
        if let listed = pack.listed { packAccepts = SMT.and([packAccepts, SMT.not(encoder.lazyMembership(value, listed, pack.listedAutomaton))]) }
        if let stopped = encoder.stopped { return unknown(stopped == "timeout" ? "timeout after \(formatSeconds(timeout)) s" : stopped) }
        encoder.assert("(distinct \(packAccepts) \(rulesTrue))")
        encoder.finish()
        guard encoder.complete else { return unknown("internal error: the encoding is incomplete; please report the input") }
        var excluded: [String] = []
        var lastProblem = ""
        // First without the list memberships' definitions (see ``Encoder/lazyMembership``).
        var definitions: [String] = []
        var split = false
        for _ in 0...refinements {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0.05 else { return unknown("timeout after \(formatSeconds(timeout)) s") }
            let script = (pack.definitions + encoder.declarations + encoder.assertions + definitions + excluded).joined(separator: "\n")
            if let dump = ProcessInfo.processInfo.environment["RULESKIT_VERIFY_DUMP"] {
                try? script.write(toFile: dump + "-agree.smt2", atomically: true, encoding: .utf8)
            }
            let limits = SolverLimits.decision(Z3Solver.decisionResourceLimit, secondsLeft: remaining)
            switch Z3Solver.check(script, values: [value], limits: limits) {
            case .unsat:
                return AgreementResult(verdict: .equivalent, witness: nil, reason: nil)
            case .outOfResources:
                return unknown(Z3Solver.outOfResourcesReason(Z3Solver.decisionResourceLimit))
            case .unknown(let why):
                if deadline.timeIntervalSinceNow <= 0.05 || why.contains("timeout") || why.contains("canceled") {
                    return unknown("timeout after \(formatSeconds(timeout)) s")
                }
                return unknown("the solver gave up (\(why))")
            case .sat(let text):
                guard let candidate = Model(text).string(value) else { return unknown("internal error: the solver's model has no string; please report the input") }
                let replayed = Self.replay(candidate, program: program, function: function, validator: validator)
                if replayed.packAccepts != replayed.rulesReturnTrue {
                    return AgreementResult(verdict: .differs, witness: replayed, reason: nil)
                }
                // Both engines agree on it: define the lists' memberships, or exclude it, and ask again.
                lastProblem = "on \(jsonString(candidate)) both engines answer \(replayed.packAccepts ? "valid/true" : "invalid/false")"
                if definitions.isEmpty && !encoder.lazyMemberships.isEmpty {
                    // First only where the lists differ; then the lists whole.
                    if let parts = encoder.splitLazyDefinitions() {
                        definitions = parts
                        split = true
                    } else {
                        definitions = encoder.lazyDefinitions()
                    }
                } else if split {
                    definitions = encoder.lazyDefinitions()
                    split = false
                } else {
                    excluded.append("(assert (not (= \(value) \(SMT.string(candidate)))))")
                }
            }
        }
        let constructs = encoder.abstractions.map { "\($0.construct) at \($0.location)" }.uniqued()
        let named = constructs.isEmpty ? "" : "; not modelled exactly: " + constructs.prefix(5).joined(separator: ", ")
        return unknown("the solver's counterexample did not replay (\(lastProblem))\(named)")
    }

    /// Runs both engines on `value`.
    public static func replay(_ value: String, program: Program, function: FunctionDecl,
                              validator: DisplayNameValidator) -> AgreementWitness {
        let packAccepts = validator.validate(value).isValid
        let returned: Bool
        if case .success(.bool(true)) = program.call(function, arguments: [.string(value)]) { returned = true } else { returned = false }
        return AgreementWitness(value: value, packAccepts: packAccepts, rulesReturnTrue: returned)
    }

    /// A code point at or above U+2FFFF that the rules' text names (written, or as an escape
    /// `\x{…}`, `\U…` or `\u{…}`), or nil.
    static func outsideAlphabet(_ text: String) -> UInt32? {
        if let found = PackEncoding.outsideAlphabet(text) { return found }
        var rest = Substring(text)
        while let range = rest.range(of: "\\U") {
            let digits = rest[range.upperBound...].prefix(8)
            if digits.allSatisfy(\.isHexDigit), let value = UInt32(digits, radix: 16), value >= PackEncoding.alphabetLimit { return value }
            rest = rest[range.upperBound...]
        }
        rest = Substring(text)
        while let range = rest.range(of: "u{") {
            let digits = rest[range.upperBound...].prefix { $0.isHexDigit }
            if let value = UInt32(digits, radix: 16), value >= PackEncoding.alphabetLimit { return value }
            rest = rest[range.upperBound...]
        }
        return nil
    }
}

extension Encoder {
    /// The value of a call of `declaration` with `argument`, outside any request path: the
    /// wildcards of the blocks around the declaration are unbound, as in ``Program/call``.
    /// Nil when these rules do not declare it.
    func callFunction(_ declaration: FunctionDecl, with argument: SymValue) -> SymValue? {
        guard let entry = functionEntry(declaration) else { return nil }
        bindings = []
        frame = []
        source = program.source
        return inline(entry, [argument])
    }

    /// The scope entry of `declaration`, wherever it is declared.
    private func functionEntry(_ declaration: FunctionDecl) -> FunctionEntry? {
        func search(_ blocks: [MatchBlock], _ scope: FunctionScope, _ wildcards: Int) -> FunctionEntry? {
            for block in blocks {
                let inner = wildcards + block.pattern.filter { $0.variable != nil }.count
                let child = scope.child(block.functions, wildcards: inner)
                if let found = child.functions[declaration.name], found.declaration == declaration { return found }
                if let found = search(block.matches, child, inner) { return found }
            }
            return nil
        }
        if let found = serviceScope.functions[declaration.name], found.declaration == declaration { return found }
        return search(program.file.services.first?.matches ?? [], serviceScope, 0)
    }
}
