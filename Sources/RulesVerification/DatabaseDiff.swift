// DatabaseDiff: `validate rules diff` for two `database.rules.json` files. Each path pattern of
// either rule tree (its keys, `$x` as wildcards) is compared for `read` and for `write` (a `set`
// of any value): "NEW allows and OLD denies" and the reverse, over one symbolic database. Every
// model is replayed through DatabaseProgram on both files before it is shown; one that does not
// replay makes the change `unknown`. Verdicts, reports and exit codes are Firestore's.
import DatabaseRules
import Diagnostics
import Foundation

/// Compares two Realtime Database rules files.
public struct DatabaseDiffer: Sendable {
    /// Time for one change (one method on one pattern, both directions), in seconds.
    public var timeout: Double
    /// Z3 resource units per query.
    public var solverResourceLimit: UInt64
    /// Levels of the written value modelled below the write path.
    public var depthBound: Int

    public init(timeout: Double = 30, solverResourceLimit: UInt64 = RulesVerifier.defaultSolverResourceLimit,
                depthBound: Int = DatabaseVerifier.defaultDepthBound) {
        self.timeout = timeout
        self.solverResourceLimit = solverResourceLimit
        self.depthBound = depthBound
    }

    /// The path patterns compared: every node of NEW's rule tree, then OLD's not in NEW (`$x`
    /// segments of either spelling are one wildcard), NEW's spelling first.
    public static func patterns(old: DatabaseProgram, new: DatabaseProgram) -> [String] {
        var seen = Set<[String]>()
        var out: [String] = []
        for program in [new, old] {
            for node in program.root.allNodes {
                let segments = node.path.split(separator: "/").map(String.init)
                guard seen.insert(segments.map { $0.hasPrefix("$") ? "$" : $0 }).inserted else { continue }
                out.append("/" + segments.joined(separator: "/"))
            }
        }
        return out
    }

    /// Compares `new` with `old`.
    public func diff(old: DatabaseProgram, new: DatabaseProgram) -> RulesDiff {
        var compared: [RulesChange] = []
        // `RULESKIT_DIFF_TIMES=1` writes each change's wall-clock time to standard error, as for Firestore.
        let times = ProcessInfo.processInfo.environment["RULESKIT_DIFF_TIMES"] == "1"
        for pattern in Self.patterns(old: old, new: new) {
            let segments = pattern.split(separator: "/").map(String.init)
            for method in DatabaseMethod.allCases {
                let start = Date()
                if Self.sameRules(segments, isWrite: method == .write, old: old, new: new) {
                    compared.append(RulesChange(path: pattern, method: .get, methodLabel: method.rawValue, verdict: .equivalent))
                } else {
                    compared.append(decide(segments, pattern: pattern, method: method, old: old, new: new))
                }
                if times {
                    let seconds = String(format: "%.3f", Date().timeIntervalSince(start))
                    FileHandle.standardError.write(Data("diff-time \(seconds) s \(method.rawValue) \(pattern)\n".utf8))
                }
            }
        }
        return RulesDiff(old: old.source.name, new: new.source.name, service: .firestore, serviceLabel: "database", compared: compared)
    }

    /// Whether every rule that decides the pattern is the same in both files (the same syntax
    /// trees at the same places): then every request is decided alike. A `$` segment stands for
    /// every key, as ``DatabaseShapes/expand(_:programs:mentioned:limit:)`` compares it: the
    /// literal children at that level (their rules and what lies below them on the pattern's
    /// path) and the wildcard.
    static func sameRules(_ segments: [String], isWrite: Bool, old: DatabaseProgram, new: DatabaseProgram) -> Bool {
        sameRules(segments[...], isWrite: isWrite, old.root, new.root)
    }

    private static func sameRules(_ segments: ArraySlice<String>, isWrite: Bool, _ a: RuleNode?, _ b: RuleNode?) -> Bool {
        guard let x = a, let y = b else { return a == nil && b == nil }
        let kinds: [RuleKind] = isWrite ? [.write, .validate] : [.read]
        for kind in kinds where x.rule(kind)?.body != y.rule(kind)?.body { return false }
        // Wildcard names are what `$x` in the rules refers to.
        guard x.path == y.path else { return false }
        guard let segment = segments.first else { return !isWrite || x.sameRules(as: y) }
        let rest = segments.dropFirst()
        guard segment.hasPrefix("$") else {
            let key = DBKey.literal(segment)
            return sameRules(rest, isWrite: isWrite, DatabaseRuleEncoding.child(x, key), DatabaseRuleEncoding.child(y, key))
        }
        guard Set(x.children.keys) == Set(y.children.keys) else { return false }
        for (key, child) in x.children where !sameRules(rest, isWrite: isWrite, child, y.children[key]) { return false }
        return sameRules(rest, isWrite: isWrite, x.wildcard?.node, y.wildcard?.node)
    }

    private func decide(_ segments: [String], pattern: String, method: DatabaseMethod, old: DatabaseProgram,
                        new: DatabaseProgram) -> RulesChange {
        let deadline = Date().addingTimeInterval(timeout)
        var widen = RulesDiffer.Outcome.none
        var narrow = RulesDiffer.Outcome.none
        var result = RulesChange(path: pattern, method: .get, methodLabel: method.rawValue, verdict: .equivalent)
        let mentioned = DatabaseShapes.mentionedKeys(DatabaseShapes.expressions(old) + DatabaseShapes.expressions(new))
        guard let shapes = DatabaseShapes.expand(segments, programs: [old, new], mentioned: mentioned) else {
            result.verdict = .unknown
            result.reason = "the pattern has more than 64 request shapes (literal keys times wildcards)"
            return result
        }
        for shape in shapes {
            if widen.isWitness && narrow.isWitness { break }
            let question = DatabaseQuestion(shape: shape, isWrite: method == .write, programs: [old, new], deadline: deadline,
                                            timeout: timeout, resourceLimit: solverResourceLimit, depthBound: depthBound)
            for widening in [true, false] where !(widening ? widen : narrow).isWitness {
                let label = widening ? "newly allowed" : "newly denied"
                let (allowedBy, deniedBy) = widening ? (new, old) : (old, new)
                let outcome = question.solve(goal: { _, decisions in
                    widening ? DatabaseGoal.allows(decisions[1], denies: decisions[0]) : DatabaseGoal.allows(decisions[0], denies: decisions[1])
                }, name: "\(label): \(method.rawValue) \(pattern)", expectAllow: widening, accept: { witness in
                    Self.replay(witness, allowedBy: allowedBy, deniedBy: deniedBy)
                })
                let merged: RulesDiffer.Outcome
                switch outcome {
                case .none: merged = .none
                case .unknown(let why, let abstractions): merged = .unknown([why], abstractions)
                case .witness(let witness, let replayed):
                    var location: DiffLocation?
                    if widening, let grant = replayed.grants.first {
                        let position = new.source.location(of: grant.start)
                        location = DiffLocation(file: new.source.name, line: position.line, column: position.column)
                    }
                    let grantLine = replayed.explanation.split(separator: "\n").first.map(String.init) ?? "allowed"
                    merged = .witness(.init(json: witness.json, compact: witness.compact, grantLine: grantLine, location: location))
                }
                if widening { widen.merge(merged) } else { narrow.merge(merged) }
            }
        }
        RulesDiffer.combine(&result, widen: widen, narrow: narrow) { RulesDiffer.firstLocation($0, in: new.source.name) }
        return result
    }

    /// `allowedBy` allows the case and `deniedBy` denies it.
    static func replay(_ witness: DatabaseWitness, allowedBy: DatabaseProgram,
                       deniedBy: DatabaseProgram) -> Result<DatabaseReplay.Outcome, DatabaseReplay.ReplayFailure> {
        switch (DatabaseReplay.run(witness.json, program: allowedBy), DatabaseReplay.run(witness.json, program: deniedBy)) {
        case (.failure(let problem), _), (_, .failure(let problem)): return .failure(problem)
        case (.success(let allowed), .success(let denied)):
            guard allowed.allowed else { return .failure(.init(message: "`\(allowedBy.source.name)` denies it")) }
            guard !denied.allowed else { return .failure(.init(message: "`\(deniedBy.source.name)` allows it too")) }
            return .success(allowed)
        }
    }
}
