// Diff: `validate rules diff`. For every request shape either file can allow (each method on each
// full match pattern of either file, recursive wildcards included), encodes both rule sets over
// one symbolic request and one database, and asks Z3 for a request NEW allows and OLD denies,
// and for one OLD allows and NEW denies. Every model is replayed through the evaluator on both
// files before it is shown; one that does not replay makes the change `unknown`, never a claim.
import Diagnostics
import Foundation
import RulesCases
import RulesLanguage
import RulesPatterns

/// How NEW compares with OLD, for one request shape or for the whole file.
public enum DiffVerdict: String, Sendable, CaseIterable {
    /// Every request gets the same decision.
    case equivalent
    /// Only newly denied requests.
    case narrower
    /// Newly allowed requests (and, for one change, no newly denied ones, or none proven).
    case wider
    /// Both newly allowed and newly denied requests.
    case incomparable
    /// The encoding cannot decide; the reason names the construct and its location.
    case unknown
}

/// A position in a rules file.
public struct DiffLocation: Sendable, Hashable {
    /// The file, as named on the command line (or `REF:PATH` for `--base`).
    public var file: String
    /// 1-based line.
    public var line: Int
    /// 1-based column, in characters.
    public var column: Int

    /// Creates a location.
    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }
}

/// The comparison of one request shape: one method on one full match pattern.
public struct RulesChange: Sendable {
    /// The match pattern, e.g. `/databases/{database}/documents/users/{userId}`.
    public var path: String
    /// The method.
    public var method: RequestMethod
    /// The method's name when not ``method``'s (Realtime Database: `read`, `write`).
    public var methodLabel: String?
    /// The verdict.
    public var verdict: DiffVerdict
    /// A case object (JSON text) NEW allows and OLD denies; its `expect` is NEW's decision (`allow`).
    public var newlyAllowed: String?
    /// A case object (JSON text) OLD allows and NEW denies; its `expect` is NEW's decision (`deny`).
    public var newlyDenied: String?
    /// ``newlyAllowed`` on one line for people: method, path, then the other fields.
    public var newlyAllowedCompact: String?
    /// ``newlyDenied`` on one line for people.
    public var newlyDeniedCompact: String?
    /// NEW's explanation of why it allows ``newlyAllowed`` (the granting `allow`, located).
    public var newlyAllowedBy: String?
    /// OLD's explanation of why it allowed ``newlyDenied``.
    public var newlyDeniedWasAllowedBy: String?
    /// Why a direction is undecided (the construct and `file:line:column`, or a timeout).
    public var reason: String?
    /// The NEW rule that grants the new access; for `unknown`, the first construct of NEW the
    /// encoding does not model exactly, when there is one.
    public var location: DiffLocation?

    /// The method as reports name it.
    public var methodName: String { methodLabel ?? method.rawValue }
}

/// The comparison of two rules files.
public struct RulesDiff: Sendable {
    /// OLD's name.
    public var old: String
    /// NEW's name.
    public var new: String
    /// The service both files guard.
    public var service: ServiceKind
    /// The service's name when not ``service``'s (`database` for Realtime Database rules).
    public var serviceLabel: String?
    /// OLD is absent (a `--base` revision without the file) and stands for rules that deny everything.
    public var oldIsEmpty = false
    /// Every request shape compared, equivalent ones included, in pattern then method order.
    public var compared: [RulesChange]

    /// The shapes whose verdict is not `equivalent`.
    public var changes: [RulesChange] { compared.filter { $0.verdict != .equivalent } }

    /// The join of every change (see ``join(_:)``).
    public var verdict: DiffVerdict { Self.join(compared.map(\.verdict)) }

    /// Joins verdicts: `incomparable` when both directions occur, else `wider` when any change
    /// is wider, else `unknown` when any is unknown, else `narrower` when any is narrower, else
    /// `equivalent`.
    public static func join(_ verdicts: [DiffVerdict]) -> DiffVerdict {
        let allows = verdicts.contains { $0 == .wider || $0 == .incomparable }
        let denies = verdicts.contains { $0 == .narrower || $0 == .incomparable }
        if allows && denies { return .incomparable }
        if allows { return .wider }
        if verdicts.contains(.unknown) { return .unknown }
        if denies { return .narrower }
        return .equivalent
    }

    /// The exit status of a verdict: 0 no new access, 1 new access, 3 undecided.
    public static func exitStatus(_ verdict: DiffVerdict) -> Int32 {
        switch verdict {
        case .equivalent, .narrower: 0
        case .wider, .incomparable: 1
        case .unknown: 3
        }
    }
}

/// Two rules files of different services.
public struct RulesDiffServiceMismatch: Error, Sendable {
    /// OLD's service.
    public var old: ServiceKind
    /// NEW's service.
    public var new: ServiceKind
}

/// Compares two rules files request shape by request shape.
public struct RulesDiffer: Sendable {
    /// Time for one change (one method on one pattern, both directions), in seconds.
    public var timeout: Double
    /// How many times a model the evaluator rejects is refined before giving up.
    public var refinements: Int
    /// Z3 resource units (`rlimit`) per solver query, when not the default 20,000,000
    /// (``RulesVerifier/defaultSolverResourceLimit``); past it the change is `unknown` with a
    /// `VF2002` reason, the same on a fast or a slow machine. The timeout stays a safety net.
    public var solverResourceLimit: UInt64?

    /// Creates a differ.
    ///
    /// - Parameters:
    ///   - timeout: time per change (encoding and every query), in seconds.
    ///   - refinements: how often a rejected model is refined.
    ///
    /// Witnesses replay with the `matches()` engine each program was compiled with.
    public init(timeout: Double = 30, refinements: Int = 4) {
        self.timeout = timeout
        self.refinements = refinements
    }

    /// Compares `new` with `old`, which must guard the same service.
    ///
    /// - Returns: every request shape compared, with its verdict and witnesses.
    /// - Throws: ``RulesDiffServiceMismatch`` when the services differ.
    public func diff(old: Program, new: Program) throws(RulesDiffServiceMismatch) -> RulesDiff {
        guard old.service == new.service else { throw RulesDiffServiceMismatch(old: old.service, new: new.service) }
        var compared: [RulesChange] = []
        // `RULESKIT_DIFF_TIMES=1` writes each change's wall-clock time to standard error
        // (Benchmarks/diff-timing.sh reads it).
        let times = ProcessInfo.processInfo.environment["RULESKIT_DIFF_TIMES"] == "1"
        for pattern in DiffPattern.patterns(of: [new, old]) {
            for method in RequestMethod.allCases {
                let start = Date()
                // The rules that can apply to the pattern's requests are the same in both files,
                // up to wildcard names: every request is decided alike, no query needed.
                let unchanged = MethodFingerprint(old, method: method, region: pattern)
                    == MethodFingerprint(new, method: method, region: pattern)
                compared.append(unchanged ? RulesChange(path: pattern.text, method: method, verdict: .equivalent)
                                : decide(pattern, method: method, old: old, new: new))
                if times {
                    let seconds = String(format: "%.3f", Date().timeIntervalSince(start))
                    FileHandle.standardError.write(Data("diff-time \(seconds) s \(method.rawValue) \(pattern.text)\n".utf8))
                }
            }
        }
        return RulesDiff(old: old.source.name, new: new.source.name, service: new.service, compared: compared)
    }

    /// The full match patterns compared for `old` and `new`, as written (NEW's spelling first).
    public static func patterns(old: Program, new: Program) -> [String] {
        DiffPattern.patterns(of: [new, old]).map(\.text)
    }

    /// Whether concrete path `segments` fall under `pattern`, a change's path as
    /// ``diff(old:new:)`` spells it for `[new, old]`.
    public static func pattern(_ pattern: String, in programs: [Program], matches segments: [String]) -> Bool {
        DiffPattern.patterns(of: programs).first { $0.text == pattern }?.matches(segments) ?? false
    }

    // MARK: - One change

    enum Direction {
        /// NEW allows, OLD denies.
        case widen
        /// OLD allows, NEW denies.
        case narrow
    }

    struct Found {
        var json: String
        var compact: String
        var grantLine: String
        var location: DiffLocation?
    }

    enum Outcome {
        case none
        case witness(Found)
        case unknown([String], [Abstraction])

        var found: Found? { if case .witness(let f) = self { f } else { nil } }
        var isWitness: Bool { found != nil }

        /// Combines the outcomes of two shapes: a witness wins, then unknown, then none.
        mutating func merge(_ other: Outcome) {
            switch (self, other) {
            case (.witness, _): break
            case (_, .witness): self = other
            case (.unknown(let a, let x), .unknown(let b, let y)): self = .unknown((a + b).uniqued(), (x + y).uniqued())
            case (.none, .unknown): self = other
            default: break
            }
        }
    }

    func decide(_ pattern: DiffPattern, method: RequestMethod, old: Program, new: Program) -> RulesChange {
        let deadline = Date().addingTimeInterval(timeout)
        var widen = Outcome.none
        var narrow = Outcome.none
        let timedOut = "timeout after \(formatSeconds(timeout)) s"
        for shape in pattern.shapes(old: old, new: new) {
            if widen.isWitness && narrow.isWitness { break }
            guard deadline.timeIntervalSinceNow > 0.05 else {
                if !widen.isWitness { widen.merge(.unknown([timedOut], [])) }
                if !narrow.isWitness { narrow.merge(.unknown([timedOut], [])) }
                break
            }
            let encoder = Encoder(program: new, method: method)
            encoder.deadline = deadline
            encoder.setUpRequest(shape: shape)
            let region = encoder.pathMatches(pattern.segments, in: pattern.owner)
            let allowedNew = encoder.allowed(by: new)
            let allowedOld = encoder.allowed(by: old)
            if let stopped = encoder.stopped {
                let why = stopped == "timeout" ? timedOut : stopped
                if !widen.isWitness { widen.merge(.unknown([why], [])) }
                if !narrow.isWitness { narrow.merge(.unknown([why], [])) }
                continue
            }
            // The same term for both files: the same decision for every request of the shape.
            if allowedNew == allowedOld || region == "false" { continue }
            encoder.finish()
            guard encoder.complete else {
                let why = "internal error: the encoding of this change is incomplete; please report the input"
                if !widen.isWitness { widen.merge(.unknown([why], [])) }
                if !narrow.isWitness { narrow.merge(.unknown([why], [])) }
                continue
            }
            if !widen.isWitness {
                let goal = SMT.and([region, allowedNew, SMT.not(allowedOld)])
                widen.merge(solve(encoder, goal: goal, direction: .widen, pattern: pattern, method: method,
                                  old: old, new: new, deadline: deadline))
            }
            if !narrow.isWitness {
                let goal = SMT.and([region, allowedOld, SMT.not(allowedNew)])
                narrow.merge(solve(encoder, goal: goal, direction: .narrow, pattern: pattern, method: method,
                                   old: old, new: new, deadline: deadline))
            }
        }
        return change(pattern, method, widen: widen, narrow: narrow, new: new)
    }

    private func change(_ pattern: DiffPattern, _ method: RequestMethod, widen: Outcome, narrow: Outcome, new: Program) -> RulesChange {
        var result = RulesChange(path: pattern.text, method: method, verdict: .equivalent)
        Self.combine(&result, widen: widen, narrow: narrow) { Self.firstLocation($0, in: new.source.name) }
        return result
    }

    /// Sets `result`'s verdict, witnesses and reason from the two directions' outcomes (shared
    /// by every service); `locate` picks the location of an undecided change.
    static func combine(_ result: inout RulesChange, widen: Outcome, narrow: Outcome, locate: ([Abstraction]) -> DiffLocation?) {
        if let found = widen.found {
            result.newlyAllowed = found.json
            result.newlyAllowedCompact = found.compact
            result.newlyAllowedBy = found.grantLine
            result.location = found.location
        }
        if let found = narrow.found {
            result.newlyDenied = found.json
            result.newlyDeniedCompact = found.compact
            result.newlyDeniedWasAllowedBy = found.grantLine
        }
        func undecided(_ outcome: Outcome) -> (String, [Abstraction])? {
            if case .unknown(let reasons, let abstractions) = outcome { (reasons.joined(separator: "; "), abstractions) } else { nil }
        }
        switch (widen, narrow) {
        case (.none, .none): result.verdict = .equivalent
        case (.witness, .none): result.verdict = .wider
        case (.none, .witness): result.verdict = .narrower
        case (.witness, .witness): result.verdict = .incomparable
        case (.witness, .unknown):
            // New access is proven: the change is wider, whatever the other direction holds.
            result.verdict = .wider
            if let (why, _) = undecided(narrow) { result.reason = "whether it also denies requests the old rules allow is undecided: \(why)" }
        case (.none, .unknown):
            result.verdict = .unknown
            if let (why, abstractions) = undecided(narrow) {
                result.reason = "no request is newly allowed; whether any is newly denied is undecided: \(why)"
                result.location = locate(abstractions)
            }
        case (.unknown, .witness):
            result.verdict = .unknown
            if let (why, abstractions) = undecided(widen) {
                result.reason = "some requests are newly denied; whether any is newly allowed is undecided: \(why)"
                result.location = locate(abstractions)
            }
        case (.unknown, _):
            result.verdict = .unknown
            var reasons: [String] = []
            var abstractions: [Abstraction] = []
            for outcome in [widen, narrow] {
                if case .unknown(let r, let a) = outcome { reasons += r; abstractions += a }
            }
            result.reason = reasons.uniqued().joined(separator: "; ")
            result.location = locate(abstractions.uniqued())
        }
    }

    /// The first abstraction located in `new` (else in any file).
    static func firstLocation(_ abstractions: [Abstraction], in new: String) -> DiffLocation? {
        let located = abstractions.compactMap { DiffLocation(parsing: $0.location) }
        return located.first { $0.file == new } ?? located.first
    }

    // MARK: - Solving

    private func solve(_ encoder: Encoder, goal: String, direction: Direction, pattern: DiffPattern, method: RequestMethod,
                       old: Program, new: Program, deadline: Date) -> Outcome {
        let timedOut = Outcome.unknown(["timeout after \(formatSeconds(timeout)) s"], [])
        if goal == "false" { return .none }
        let service: CaseService = new.service == .firestore ? .firestore : .storage
        let (allowedBy, deniedBy) = direction == .widen ? (new, old) : (old, new)
        var facts: [String] = []
        var lastProblem = ""
        for _ in 0...refinements {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0.05 else { return timedOut }
            let script = (encoder.declarations + encoder.assertions + ["(assert \(goal))"] + facts).joined(separator: "\n")
            if let dump = ProcessInfo.processInfo.environment["RULESKIT_VERIFY_DUMP"] {
                try? script.write(toFile: "\(dump)-\(method.rawValue)-\(direction).smt2", atomically: true, encoding: .utf8)
            }
            let symbols = encoder.valueSymbols
            // A witness is one goal: first ask, on a small budget, for the most readable one (the
            // first preference: no unmentioned keys, every unmodelled construct erroring, …),
            // the witness the plain query's model would be replaced by anyway. It only narrows
            // the query, so a model is a model of the goal; anything else falls through to the
            // plain query. Z3 4.8 finds such a model quickly where the plain query makes it
            // satisfy the unmodelled constructs first (issue 32: with `split()` of the picture URL
            // in the profile's `update`, 0.04 s for this query where the plain one took 1.96 s).
            let tiers = encoder.preferences()
            var eager: String?
            if let first = tiers.first {
                let narrowed = script + "\n" + first.map { "(assert \($0))" }.joined(separator: "\n")
                if case .sat(let values) = Z3Solver.check(narrowed, values: symbols, limits: .preference(secondsLeft: remaining)) {
                    eager = values
                }
            }
            let resources = solverResourceLimit ?? Z3Solver.decisionResourceLimit
            let left = deadline.timeIntervalSinceNow
            guard eager != nil || left > 0.05 else { return timedOut }
            let limits = SolverLimits.decision(resources, secondsLeft: left)
            let answer = eager.map { SolverAnswer.sat(values: $0) } ?? Z3Solver.check(script, values: symbols, limits: limits)
            switch answer {
            case .unsat:
                return .none
            case .outOfResources:
                return .unknown([Z3Solver.outOfResourcesReason(resources)], encoder.abstractions)
            case .unknown(let why):
                if deadline.timeIntervalSinceNow <= 0.05 || why.contains("timeout") || why.contains("canceled") { return timedOut }
                return .unknown(["the solver gave up (\(why))"], encoder.abstractions)
            case .sat(var text):
                // Ask again with preferences for a readable witness; keep the first that is sat
                // (the first was asked above).
                for preference in eager != nil ? [] : tiers.dropFirst() {
                    let left = deadline.timeIntervalSinceNow
                    guard left > 0.05 else { break }
                    let narrowed = script + "\n" + preference.map { "(assert \($0))" }.joined(separator: "\n")
                    let limits = SolverLimits.preference(secondsLeft: left)
                    let answer = Z3Solver.check(narrowed, values: symbols, limits: limits)
                    if case .sat(let better) = answer {
                        text = better
                        break
                    }
                    if case .unsat = answer { continue }
                    break
                }
                let label = direction == .widen ? "newly allowed" : "newly denied"
                let builder = WitnessBuilder(encoder: encoder, model: Model(text), name: "\(label): \(method.rawValue) \(pattern.text)",
                                             expect: direction == .widen ? "allow" : "deny", method: method, service: service)
                if let witness = builder.build() {
                    switch replay(witness, service: service, allowedBy: allowedBy, deniedBy: deniedBy, pattern: pattern) {
                    case .success(let found): return .witness(found)
                    case .failure(let problem):
                        lastProblem = problem.message
                        if ProcessInfo.processInfo.environment["RULESKIT_VERIFY_DEBUG"] == "1" {
                            FileHandle.standardError.write(Data("rejected witness (\(problem.message)): \(witness.json)\n".utf8))
                        }
                    }
                } else {
                    lastProblem = "the model could not be written as a case (\(builder.problem))"
                }
                // Refine: pin lower()/upper() on the strings of this model to their real values.
                let fresh = builder.caseMappingFacts().filter { !facts.contains($0) }
                if fresh.isEmpty { return unconfirmed(encoder, lastProblem) }
                facts += fresh
            }
        }
        return unconfirmed(encoder, lastProblem)
    }

    private func unconfirmed(_ encoder: Encoder, _ problem: String) -> Outcome {
        let constructs = encoder.abstractions.map { "\($0.construct) at \($0.location)" }.uniqued()
        let named = constructs.isEmpty ? "" : "; not modelled exactly: " + constructs.prefix(5).joined(separator: ", ")
            + (constructs.count > 5 ? " and \(constructs.count - 5) more" : "")
        return .unknown(["the solver's counterexample did not replay (\(problem))\(named)"], encoder.abstractions)
    }

    /// Loads the witness as `validate rules test` would; `allowedBy` must allow it and
    /// `deniedBy` deny it (not at a limit the encoding leaves out), and its path must be one of
    /// the pattern's.
    private func replay(_ witness: Witness, service: CaseService, allowedBy: Program, deniedBy: Program,
                        pattern: DiffPattern) -> Result<Found, RulesVerifier.ReplayProblem> {
        let caseText = CaseFileWriter.file(rules: "rules", service: service, cases: [witness.json])
        let loaded: RulesCaseFile
        do {
            loaded = try CaseFileLoader.decode(caseText, path: "witness.json")
        } catch {
            return .failure(.init(message: "the case does not load: \(error.message)"))
        }
        guard let testCase = loaded.cases.first else { return .failure(.init(message: "no case")) }
        guard pattern.matches(PathValue(testCase.path).segments) else {
            return .failure(.init(message: "its path `\(testCase.path)` is not one of `\(pattern.text)`"))
        }
        let request = testCase.request(service: loaded.service)
        let lookup = CaseDocumentLookup(testCase: testCase, mode: loaded.lookupMode)
        let allowed = allowedBy.evaluate(request, lookup: lookup)
        guard allowed.allowed else {
            if let error = allowed.requestError, error.isLimit {
                return .failure(.init(message: "`\(allowedBy.source.name)` denies it at a limit the encoding does not model: \(error.code) \(error.message)"))
            }
            return .failure(.init(message: "`\(allowedBy.source.name)` denies it"))
        }
        let denied = deniedBy.evaluate(request, lookup: lookup)
        guard !denied.allowed else { return .failure(.init(message: "`\(deniedBy.source.name)` allows it too")) }
        if let error = denied.requestError, error.isLimit {
            return .failure(.init(message: "`\(deniedBy.source.name)` denies it at a limit the encoding does not model: \(error.code) \(error.message)"))
        }
        var location: DiffLocation?
        if let grant = allowed.grantedBy {
            let position = allowedBy.source.location(of: grant.span.start)
            location = DiffLocation(file: allowedBy.source.name, line: position.line, column: position.column)
        }
        let grantLine = allowed.explanation(in: allowedBy.source).split(separator: "\n").first.map(String.init) ?? "allowed"
        return .success(Found(json: witness.json, compact: Self.compact(witness.fields), grantLine: grantLine, location: location))
    }

    /// A case on one line: `METHOD PATH key=value …`, without `name`, `expect` and an empty `existing`.
    static func compact(_ fields: [(String, String)]) -> String {
        func unquoted(_ key: String) -> String {
            guard let value = fields.first(where: { $0.0 == key })?.1,
                  let data = value.data(using: .utf8),
                  let text = try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed) as? String else { return "" }
            return text
        }
        var parts = [unquoted("method"), unquoted("path")]
        for (key, value) in fields where !["name", "expect", "method", "path"].contains(key) {
            if key == "existing" && value == "{}" { continue }
            parts.append("\(key)=\(value)")
        }
        return parts.joined(separator: " ")
    }
}

extension DiffLocation {
    /// Parses `file:line:column` (the file may itself contain `:`).
    init?(parsing text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 3, let line = Int(parts[parts.count - 2]), let column = Int(parts[parts.count - 1]) else { return nil }
        self.init(file: parts.dropLast(2).joined(separator: ":"), line: line, column: column)
    }
}

// MARK: - Patterns

/// One full match pattern (the segments of a chain of nested `match` blocks).
struct DiffPattern {
    var segments: [PatternSegment]
    var text: String
    /// The file the pattern comes from (first NEW, then OLD): its version decides whether a
    /// `{x=**}` may match zero segments.
    var owner: Program

    /// Every full pattern of the files, each once (wildcard names do not matter), in file order.
    static func patterns(of programs: [Program]) -> [DiffPattern] {
        var seen = Set<String>()
        var out: [DiffPattern] = []
        for program in programs {
            func walk(_ blocks: [MatchBlock], _ prefix: [PatternSegment]) {
                for block in blocks {
                    let full = prefix + block.pattern
                    let key = full.map { segment -> String in
                        switch segment {
                        case .literal(let text): "/" + text
                        case .single: "/{}"
                        case .recursive: "/{**}"
                        }
                    }.joined()
                    if seen.insert(key).inserted {
                        out.append(DiffPattern(segments: full, text: Self.text(full), owner: program))
                    }
                    walk(block.matches, full)
                }
            }
            walk(program.file.services.first?.matches ?? [], [])
        }
        return out
    }

    static func text(_ segments: [PatternSegment]) -> String {
        segments.isEmpty ? "/" : segments.map { segment -> String in
            switch segment {
            case .literal(let text): "/" + text
            case .single(let name): "/{\(name)}"
            case .recursive(let name): "/{\(name)=**}"
            }
        }.joined()
    }

    /// The request shapes that together cover every path of the pattern: the segments before
    /// the first `{x=**}` spelled out, then (with one) zero segments (v2) and the shapes of
    /// one or more segments, measured against both files.
    func shapes(old: Program, new: Program) -> [PathShape] {
        let firstRecursive = segments.firstIndex { if case .recursive = $0 { true } else { false } }
        let fixed: [PropertyPathSegment] = segments[..<(firstRecursive ?? segments.count)].map { segment in
            switch segment {
            case .literal(let text): .literal(text)
            case .single(let name), .recursive(let name): .variable(name)
            }
        }
        guard let firstRecursive, case .recursive(let name) = segments[firstRecursive] else {
            return [PathShape(fixed: fixed, restName: nil, rest: .none)]
        }
        let longer = PathShape.shapes(fixed: fixed, restName: name, rules: [old.file, new.file])
        return owner.file.isVersion2 ? [PathShape(fixed: fixed, restName: nil, rest: .none)] + longer : longer
    }

    /// Whether concrete `path` segments match the pattern.
    func matches(_ path: [String]) -> Bool {
        Self.matches(segments[...], path[...], version2: owner.file.isVersion2)
    }

    private static func matches(_ pattern: ArraySlice<PatternSegment>, _ path: ArraySlice<String>, version2: Bool) -> Bool {
        guard let first = pattern.first else { return path.isEmpty }
        switch first {
        case .literal(let text):
            return path.first == text && matches(pattern.dropFirst(), path.dropFirst(), version2: version2)
        case .single:
            return !path.isEmpty && matches(pattern.dropFirst(), path.dropFirst(), version2: version2)
        case .recursive:
            let minimum = version2 ? 0 : 1
            guard path.count >= minimum else { return false }
            return (minimum...path.count).contains { matches(pattern.dropFirst(), path.dropFirst($0), version2: version2) }
        }
    }
}

// MARK: - Unchanged rules

/// What a file's decision for one method on the paths of one pattern (the region) depends on, up
/// to the names of wildcards: each `allow` covering the method whose block chain's pattern can
/// match a path of the region, in file order, with that pattern (wildcards by position) and its
/// condition (wildcard references renamed by position), and every function those conditions can
/// reach by name, with the pattern of the block that declares it. Two files with equal
/// fingerprints are alpha-equivalent there: they decide every such request alike. Unequal
/// fingerprints prove nothing; the solver decides.
struct MethodFingerprint: Equatable {
    struct AllowEntry: Equatable {
        var pattern: [String]
        var methods: [RuleMethod]
        var condition: Expr?
    }

    struct FunctionEntry: Equatable {
        var scope: [String]
        var name: String
        var parameters: [String]
        var lets: [String]
        var letValues: [Expr]
        var body: Expr
    }

    var version2: Bool
    var service: ServiceKind
    var allows: [AllowEntry] = []
    var functions: [FunctionEntry] = []

    init(_ program: Program, method: RequestMethod, region: DiffPattern) {
        let regionSegments = Self.expanded(region.segments, version2: region.owner.file.isVersion2)
        version2 = program.file.isVersion2
        service = program.service
        // Every function of the file by name, with its scope's pattern and wildcard names.
        var declarations: [String: [(FunctionDecl, [String], [String: String])]] = [:]
        for function in program.file.functions { declarations[function.name, default: []].append((function, ["file"], [:])) }
        for service in program.file.services {
            for function in service.functions { declarations[function.name, default: []].append((function, ["service"], [:])) }
        }
        var calls: [String] = []
        func walk(_ blocks: [MatchBlock], _ prefix: [PatternSegment]) {
            for block in blocks {
                let full = prefix + block.pattern
                let key = Self.key(full)
                let names = Self.wildcardNames(full)
                for function in block.functions { declarations[function.name, default: []].append((function, key, names)) }
                let reaches = Self.overlap(regionSegments[...], Self.expanded(full, version2: program.file.isVersion2)[...])
                for allow in block.allows where reaches && allow.methods.contains(where: { $0.covers(method) }) {
                    let condition = allow.condition.map { Self.renamed($0, names) }
                    allows.append(AllowEntry(pattern: key, methods: allow.methods, condition: condition))
                    if let condition = allow.condition { Self.calls(in: condition, into: &calls) }
                }
                walk(block.matches, full)
            }
        }
        walk(program.file.services.first?.matches ?? [], [])
        // The functions reachable from the conditions, by name (every declaration of a name).
        var seen = Set<String>()
        while let name = calls.popLast() {
            guard seen.insert(name).inserted, let entries = declarations[name] else { continue }
            for (function, scope, names) in entries {
                var visible = names
                for parameter in function.parameters { visible[parameter] = nil }
                for binding in function.lets { visible[binding.name] = nil }
                functions.append(FunctionEntry(scope: scope, name: function.name, parameters: function.parameters,
                                               lets: function.lets.map(\.name), letValues: function.lets.map { Self.renamed($0.value, visible) },
                                               body: Self.renamed(function.body, visible)))
                for binding in function.lets { Self.calls(in: binding.value, into: &calls) }
                Self.calls(in: function.body, into: &calls)
            }
        }
        functions.sort { ($0.name, $0.scope.joined()) < ($1.name, $1.scope.joined()) }
    }

    /// One step of a pattern over path segments: a literal, any one segment, or any number.
    enum Step: Equatable {
        case literal(String)
        case one
        case any
    }

    /// The pattern as steps: `{x=**}` is any number of segments (version 2) or one then any
    /// number (version 1).
    static func expanded(_ segments: [PatternSegment], version2: Bool) -> [Step] {
        segments.flatMap { segment -> [Step] in
            switch segment {
            case .literal(let text): [.literal(text)]
            case .single: [.one]
            case .recursive: version2 ? [.any] : [.one, .any]
            }
        }
    }

    /// Whether some path matches both step sequences.
    static func overlap(_ a: ArraySlice<Step>, _ b: ArraySlice<Step>) -> Bool {
        var memo: [Int: Bool] = [:]
        func f(_ i: Int, _ j: Int) -> Bool {
            let key = i * 10_000 + j
            if let known = memo[key] { return known }
            memo[key] = false
            var result = false
            if i == a.endIndex && j == b.endIndex {
                result = true
            } else if i < a.endIndex && a[i] == .any && f(i + 1, j) {
                result = true
            } else if j < b.endIndex && b[j] == .any && f(i, j + 1) {
                result = true
            } else if i < a.endIndex && j < b.endIndex {
                var compatible = true
                if case .literal(let x) = a[i], case .literal(let y) = b[j], x != y { compatible = false }
                let ni = a[i] == .any ? i : i + 1, nj = b[j] == .any ? j : j + 1
                if compatible && (ni, nj) != (i, j) && f(ni, nj) { result = true }
            }
            memo[key] = result
            return result
        }
        return f(a.startIndex, b.startIndex)
    }

    static func key(_ segments: [PatternSegment]) -> [String] {
        segments.map { segment in
            switch segment {
            case .literal(let text): "=" + text
            case .single: "{}"
            case .recursive: "{**}"
            }
        }
    }

    /// Each wildcard's canonical name: its position in the chain (a later one of the same name
    /// shadows an earlier one). The canonical names cannot be written in rules source.
    static func wildcardNames(_ segments: [PatternSegment]) -> [String: String] {
        var names: [String: String] = [:]
        for (index, segment) in segments.enumerated() {
            if let name = segment.variable { names[name] = "\u{1}w\(index)" }
        }
        return names
    }

    static func calls(in expr: Expr, into calls: inout [String]) {
        if case .call(nil, let name, _) = expr.kind { calls.append(name) }
        for child in expr.children { Self.calls(in: child, into: &calls) }
    }

    /// `expr` with every identifier in `names` replaced (member names, map keys and strings are
    /// not identifiers and stay), and the operands of each chain of `&&` (and of `||`) in a
    /// canonical order: both are commutative and associative in the evaluator (a decisive value
    /// on either side wins, otherwise the request errors), so reordered conjuncts are one rule.
    static func renamed(_ expr: Expr, _ names: [String: String]) -> Expr {
        func r(_ e: Expr) -> Expr { renamed(e, names) }
        if case .binary(let op, _, _) = expr.kind, op == .and || op == .or {
            var operands: [Expr] = []
            func flatten(_ e: Expr) {
                if case .binary(op, let lhs, let rhs) = e.kind { flatten(lhs); flatten(rhs) } else { operands.append(r(e)) }
            }
            flatten(expr)
            let sorted = operands.map { (RulesPrinter.print($0), $0) }.sorted { $0.0 < $1.0 }.map(\.1)
            return sorted.dropFirst().reduce(sorted[0]) { Expr(.binary(op, $0, $1), span: expr.span) }
        }
        let kind: ExprKind
        switch expr.kind {
        case .null, .bool, .int, .float, .string, .bytes: return expr
        case .identifier(let name): kind = .identifier(names[name] ?? name)
        case .list(let items): kind = .list(items.map(r))
        case .map(let entries): kind = .map(entries.map { MapLiteralEntry(key: $0.key, value: r($0.value)) })
        case .path(let segments):
            kind = .path(segments.map { segment in
                if case .interpolation(let inner) = segment { return .interpolation(r(inner)) }
                return segment
            })
        case .member(let base, let name): kind = .member(r(base), name)
        case .index(let base, let index): kind = .index(r(base), r(index))
        case .range(let base, let from, let to): kind = .range(r(base), r(from), r(to))
        case .call(let receiver, let name, let arguments): kind = .call(receiver: receiver.map(r), name: name, arguments: arguments.map(r))
        case .unary(let op, let operand): kind = .unary(op, r(operand))
        case .binary(let op, let lhs, let rhs): kind = .binary(op, r(lhs), r(rhs))
        case .isType(let value, let type): kind = .isType(r(value), type)
        case .ternary(let c, let t, let e): kind = .ternary(r(c), r(t), r(e))
        }
        return Expr(kind, span: expr.span)
    }
}
