import DatabaseRules
import Diagnostics
import Foundation
import RulesPatterns
import RulesTesting
import RulesVerification

/// `validate rules diff` on two small `database.rules.json` files built from the fuzz bytes, the
/// second an edit of the first, with the verdicts checked against the evaluator
/// (``DatabaseProgram``).
///
/// The rule tree is `/c/$id` with a literal child `n` and a wildcard child `$k` (and a rule or
/// two at the root); `.read`, `.write` and `.validate` conditions are built from atoms over
/// `auth`, the path's variables, `data`/`newData` children (`isString()`, `val() ==` a literal or
/// one of a small set, `hasChildren([...])`, `matches(/re/)`), `now` and `root.child(...)`. The
/// edit replaces, strengthens (`&&`) or weakens (`||`) a condition, moves a rule to another node,
/// adds or removes a `.validate`, or adds or removes a `.read`/`.write`.
///
/// Checks: diffing never traps; every (pattern, method) of ``DatabaseDiffer/patterns(old:new:)``
/// is compared once; an `unknown` has a reason; every witness loads as a database case whose path
/// falls under its pattern and whose method is the change's (`read`, or `set` for `write`), and
/// NEW and OLD decide it as the change claims (newly allowed: NEW allows, OLD denies; newly
/// denied: the reverse); none of ``samples`` reads and sets derived from the same bytes, with a
/// stored tree, contradicts the verdict of a pattern it falls under; the JSON and SARIF reports
/// parse as JSON.
///
/// What the diff quantifies over (docs/VERIFICATION.md, "Realtime Database") bounds the sampled
/// requests: plain reads (no query) and `set`s, no multi-location `update`s; paths at the depth of
/// a compared pattern (a `$` segment stands for every valid key, the literal keys at its level
/// included, as the diff's request shapes do). Written values may reach below the depth bound: a
/// proof (`equivalent`, `narrower`, and the no-newly-denied half of a `wider` without a reason)
/// covers values of every depth, so such a request may not contradict one either.
public enum DatabaseDiffHarness {
    static let regex = PCRE2DatabaseRegexEngine()
    /// Sampled requests per input.
    static let samples = 32

    // MARK: - The rules

    /// One condition atom: its text, the path variables it needs, and whether it reads `newData`
    /// (then only `.write` and `.validate` may use it).
    struct Atom {
        var text: String
        var variables: Set<String> = []
        var writes = false

        init(_ text: String, _ variables: Set<String> = [], writes: Bool = false) {
            self.text = text
            self.variables = variables
            self.writes = writes
        }
    }

    static let atoms: [Atom] = [
        Atom("auth != null"),
        Atom("auth == null"),
        Atom("auth.uid == 'u1'"),
        Atom("auth.uid == $id", ["$id"]),
        Atom("auth.uid == $k", ["$k"]),
        Atom("auth.token.admin == true"),
        Atom("data.exists()"),
        Atom("!data.exists()"),
        Atom("data.child('n').val() == 1"),
        Atom("data.child('s').isString()"),
        Atom("data.hasChildren(['n'])"),
        Atom("now > 1767225650000"),
        Atom("now < 1767225700000"),
        Atom("$id.matches(/^[a-z]+[0-9]?$/)", ["$id"]),
        Atom("$id.beginsWith('a')", ["$id"]),
        Atom("$k.length < 2", ["$k"]),
        Atom("root.child('flags').child('open').val() == true"),
        Atom("root.child('c').child('u1').exists()"),
        Atom("newData.exists()", writes: true),
        Atom("!newData.exists()", writes: true),
        Atom("newData.isString()", writes: true),
        Atom("newData.isNumber()", writes: true),
        Atom("newData.val() == 'x'", writes: true),
        Atom("newData.val() > 0", writes: true),
        Atom("newData.child('n').isString()", writes: true),
        Atom("newData.child('n').isNumber()", writes: true),
        Atom("newData.child('n').val() == 1", writes: true),
        Atom("newData.child('n').val() > 2", writes: true),
        Atom("(newData.child('s').val() == 'x' || newData.child('s').val() == 'y')", writes: true),
        Atom("newData.child('s').val().matches(/^x+$/)", writes: true),
        Atom("newData.hasChildren(['n', 's'])", writes: true),
        Atom("newData.hasChildren(['n'])", writes: true),
        Atom("newData.child('n').val() == data.child('n').val()", writes: true),
        Atom("newData.val() == now", writes: true),
        Atom("!newData.child('x').exists()", writes: true),
    ]

    enum Kind: String, CaseIterable {
        case read = ".read", write = ".write", validate = ".validate"
    }

    /// A node of the rule tree: its keys below the root and its rules.
    struct Slot {
        var keys: [String]
        var rules: [Kind: String] = [:]

        var variables: Set<String> { Set(keys.filter { $0.hasPrefix("$") }) }
    }

    /// The rule tree: the root, `c`, `c/$id`, `c/$id/n`, `c/$id/$k` (every node present, with or
    /// without rules).
    struct Rules {
        var slots: [Slot] = [Slot(keys: []), Slot(keys: ["c"]), Slot(keys: ["c", "$id"]), Slot(keys: ["c", "$id", "n"]),
                             Slot(keys: ["c", "$id", "$k"])]

        var text: String {
            func render(_ index: Int) -> String {
                let slot = slots[index]
                var members = Kind.allCases.compactMap { kind in slot.rules[kind].map { "\"\(kind.rawValue)\": \(jsonRule($0))" } }
                for child in slots.indices where slots[child].keys.count == slot.keys.count + 1 && Array(slots[child].keys.dropLast()) == slot.keys {
                    members.append("\"\(slots[child].keys.last!)\": \(render(child))")
                }
                return "{" + members.joined(separator: ", ") + "}"
            }
            return "{\"rules\": \(render(0))}\n"
        }

        /// `true`/`false` as JSON booleans, anything else as a JSON string.
        func jsonRule(_ condition: String) -> String {
            condition == "true" || condition == "false" ? condition : "\"\(condition)\""
        }

        /// The (slot, kind) pairs that have a rule.
        var present: [(Int, Kind)] {
            slots.indices.flatMap { index in Kind.allCases.filter { slots[index].rules[$0] != nil }.map { (index, $0) } }
        }
    }

    /// An atom usable by a `kind` rule at `slot`.
    static func atom(_ reader: inout ByteReader, slot: Slot, kind: Kind) -> String {
        let usable = atoms.filter { $0.variables.isSubset(of: slot.variables) && (kind != .read || !$0.writes) }
        return usable[reader.choose(usable.count)].text
    }

    /// A condition of up to `depth` levels of `&&`, `||` and `!` over atoms, or a constant.
    static func condition(_ reader: inout ByteReader, slot: Slot, kind: Kind, depth: Int = 2) -> String {
        let choice = reader.choose(depth == 0 ? 8 : 12)
        switch choice {
        case 0: return depth == 2 ? "true" : atom(&reader, slot: slot, kind: kind)
        case 1: return depth == 2 ? "false" : atom(&reader, slot: slot, kind: kind)
        case 8: return "!(\(condition(&reader, slot: slot, kind: kind, depth: depth - 1)))"
        case 9, 10: return "(\(condition(&reader, slot: slot, kind: kind, depth: depth - 1)) && \(condition(&reader, slot: slot, kind: kind, depth: depth - 1)))"
        case 11: return "(\(condition(&reader, slot: slot, kind: kind, depth: depth - 1)) || \(condition(&reader, slot: slot, kind: kind, depth: depth - 1)))"
        default: return atom(&reader, slot: slot, kind: kind)
        }
    }

    /// The rules before the edit: each node's rules present or not (the root's rarely).
    static func rules(_ reader: inout ByteReader) -> Rules {
        var rules = Rules()
        for index in rules.slots.indices {
            for kind in Kind.allCases where reader.choose(index == 0 ? 8 : 3) == 0 {
                rules.slots[index].rules[kind] = condition(&reader, slot: rules.slots[index], kind: kind)
            }
        }
        return rules
    }

    /// One edit: a condition replaced, strengthened or weakened, a rule moved to another node, a
    /// `.validate` added or removed, or a `.read`/`.write` added or removed. Returns the edit's name.
    static func edit(_ rules: inout Rules, _ reader: inout ByteReader) -> String {
        let present = rules.present
        let operation = reader.choose(8)
        if operation <= 3, !present.isEmpty {
            let (index, kind) = present[reader.choose(present.count)]
            let slot = rules.slots[index]
            let old = slot.rules[kind]!
            switch operation {
            case 0:
                rules.slots[index].rules[kind] = condition(&reader, slot: slot, kind: kind)
                return "replaced"
            case 1:
                rules.slots[index].rules[kind] = "(\(old)) && \(atom(&reader, slot: slot, kind: kind))"
                return "strengthened"
            case 2:
                rules.slots[index].rules[kind] = "(\(old)) || \(atom(&reader, slot: slot, kind: kind))"
                return "weakened"
            default:
                // Moved to a node where its variables are bound (every node binds the variables
                // of the nodes above it).
                let targets = rules.slots.indices.filter { target in
                    target != index && variables(of: old).isSubset(of: rules.slots[target].variables)
                }
                guard !targets.isEmpty else { rules.slots[index].rules[kind] = nil; return "removed" }
                rules.slots[index].rules[kind] = nil
                rules.slots[targets[reader.choose(targets.count)]].rules[kind] = old
                return "moved"
            }
        }
        let index = 1 + reader.choose(rules.slots.count - 1)
        let kind: Kind = operation == 4 || operation == 5 ? .validate : (reader.choose(2) == 0 ? .read : .write)
        if rules.slots[index].rules[kind] != nil, operation % 2 == 0 {
            rules.slots[index].rules[kind] = nil
            return "removed"
        }
        rules.slots[index].rules[kind] = condition(&reader, slot: rules.slots[index], kind: kind, depth: 1)
        return "added"
    }

    /// The `$` variables a condition names.
    static func variables(of condition: String) -> Set<String> {
        Set(["$id", "$k"].filter { condition.contains($0) })
    }

    // MARK: - Requests

    static let ids = ["a1", "bob", "u1", "n", "ab", "s", "zz9"]
    static let childKeys = ["n", "s", "x", "k", "a1"]

    /// Keys a stored or written object may have at absolute depth `depth`.
    static func keys(atDepth depth: Int) -> [String] {
        switch depth {
        case 0: ["c", "flags"]
        case 1: ids
        case 2, 3: childKeys
        default: ["n", "s"]
        }
    }

    /// A value for a node at absolute depth `depth`: a primitive, or (up to depth 5) an object.
    static func value(_ reader: inout ByteReader, depth: Int) -> JSONValue {
        let choice = reader.choose(depth >= 5 ? 6 : 9)
        switch choice {
        case 0: return .null
        case 1: return .number([0, 1, 3, 2000][reader.choose(4)])
        case 2: return .string(["x", "y", "xx", ""][reader.choose(4)])
        case 3: return .bool(reader.choose(2) == 0)
        case 4: return .number(1_767_225_650_000)
        case 5: return .string("u1")
        default:
            var members: [String: JSONValue] = [:]
            let keys = keys(atDepth: depth)
            for key in keys where reader.choose(3) == 0 { members[key] = value(&reader, depth: depth + 1) }
            return .object(members)
        }
    }

    /// Whether concrete path keys fall under a pattern (`/`-separated keys, `$x` any key).
    static func matches(_ pattern: String, _ keys: [String]) -> Bool {
        let segments = pattern.split(separator: "/").map(String.init)
        guard segments.count == keys.count else { return false }
        return zip(segments, keys).allSatisfy { $0.hasPrefix("$") || $0 == $1 }
    }

    // MARK: - The run

    /// What one input reached, for the tests' floors.
    struct Stats {
        var compiled = false
        var verdicts: [DiffVerdict: Int] = [:]
        var witnessesReplayed = 0
        /// Sampled requests checked against a verdict, by the verdict.
        var samplesChecked: [DiffVerdict: Int] = [:]
        /// Sampled requests that OLD and NEW decide differently.
        var differing = 0
        var edit = ""
        /// The reasons of `unknown` changes.
        var unknownReasons: [String] = []
    }

    @Sendable public static func run(_ input: UnsafeRawBufferPointer) -> [FuzzFinding] {
        check(input).findings
    }

    static func check(_ input: UnsafeRawBufferPointer) -> (findings: [FuzzFinding], stats: Stats) {
        var reader = ByteReader(input)
        var stats = Stats()
        var rules = rules(&reader)
        let oldText = rules.text
        stats.edit = edit(&rules, &reader)
        let newText = rules.text
        let oldResult = DatabaseRulesCompiler.compile(SourceFile(name: "old.json", text: oldText), regexEngine: regex)
        let newResult = DatabaseRulesCompiler.compile(SourceFile(name: "new.json", text: newText), regexEngine: regex)
        let context = "OLD \(oldText)NEW \(newText)"
        guard let old = oldResult.program, let new = newResult.program else {
            // The generator only builds rules that compile.
            let messages = (oldResult.diagnostics + newResult.diagnostics).map { "\($0.code) \($0.message)" }
            return ([FuzzFinding("generated rules do not compile: \(messages)\n\(context)")], stats)
        }
        stats.compiled = true
        let diff = DatabaseDiffer(timeout: 2).diff(old: old, new: new)
        var findings: [FuzzFinding] = []

        // Every pattern of either tree, for `read` and `write`, once.
        let expected = DatabaseDiffer.patterns(old: old, new: new).flatMap { [$0 + " read", $0 + " write"] }
        let compared = diff.compared.map { $0.path + " " + $0.methodName }
        if compared.sorted() != expected.sorted() {
            findings.append(FuzzFinding("compared \(compared), expected \(expected)\n\(context)"))
        }

        for change in diff.compared {
            stats.verdicts[change.verdict, default: 0] += 1
            if change.verdict == .unknown { stats.unknownReasons.append(change.reason ?? "") }
            if change.verdict == .unknown, (change.reason ?? "").isEmpty {
                findings.append(FuzzFinding("`unknown` without a reason for \(change.methodName) \(change.path)\n\(context)"))
            }
            for (witness, allowedBy, deniedBy) in [(change.newlyAllowed, new, old), (change.newlyDenied, old, new)] {
                guard let witness else { continue }
                let testCase: DatabaseTestCase, root: DataNode?, keys: [String]
                do {
                    testCase = try DatabaseCaseFileLoader.decodeRequest(witness, path: "witness.json")
                    root = try DatabaseTestCase.root(testCase.data ?? .null, time: testCase.time)
                    keys = try DataTree.keys(of: testCase.path)
                } catch {
                    findings.append(FuzzFinding("a witness does not load as a case (\(error)): \(witness)\n\(context)"))
                    continue
                }
                stats.witnessesReplayed += 1
                let method = change.methodName == "write" ? DatabaseTestCase.Method.set : .read
                if testCase.method != method || !matches(change.path, keys) {
                    findings.append(FuzzFinding("a witness for \(change.methodName) \(change.path) is a \(testCase.method.rawValue) of "
                                                + "\(testCase.path)\n\(context)"))
                }
                if !allowedBy.evaluate(testCase.request, data: root).allowed || deniedBy.evaluate(testCase.request, data: root).allowed {
                    findings.append(FuzzFinding("a witness does not replay on both files: \(witness)\n\(context)"))
                }
            }
        }
        for report in [DiffReport.json(diff), DiffReport.sarif([diff])] {
            if (try? JSONSerialization.jsonObject(with: Data(report.utf8))) == nil {
                findings.append(FuzzFinding("a report is not JSON: \(report)"))
            }
        }
        _ = DiffReport.text(diff)

        for _ in 0..<samples {
            let depth = reader.choose(4)
            let id = ids[reader.choose(ids.count)]
            let keys = Array(["c", id, childKeys[reader.choose(childKeys.count)]].prefix(depth))
            let path = "/" + keys.joined(separator: "/")
            let auth: JSONValue? = switch reader.choose(5) {
            case 0: nil
            case 1: .object(["uid": .string(id)])
            case 2: .object(["uid": .string("u1"), "token": .object(["admin": .bool(true)])])
            case 3: .object(["uid": .string(keys.last ?? "zz")])
            default: .object(["uid": .string("zz")])
            }
            let now: Double = [1_767_225_600_000, 1_767_225_650_000, 1_767_225_800_000][reader.choose(3)]
            var budget = 100_000
            let stored = try? DataTree.node(from: value(&reader, depth: 0), existing: nil, now: now, path: "/", budget: &budget)
            let isWrite = reader.choose(2) == 0
            let operation: DatabaseRequest.Operation = isWrite ? .set(value(&reader, depth: depth)) : .read(DatabaseQuery())
            let request = DatabaseRequest(path: path, operation: operation, auth: auth, now: now)
            let oldAllows = old.isAllowed(request, data: stored)
            let newAllows = new.isAllowed(request, data: stored)
            if oldAllows != newAllows { stats.differing += 1 }
            let methodName = isWrite ? "write" : "read"
            for change in diff.compared where change.methodName == methodName && matches(change.path, keys) {
                stats.samplesChecked[change.verdict, default: 0] += 1
                if change.isContradicted(oldAllows: oldAllows, newAllows: newAllows) {
                    findings.append(FuzzFinding("\(isWrite ? "set" : "read") \(path) \(operation) auth=\(String(describing: auth)) now=\(now) "
                                                + "stored=\(String(describing: stored)) (OLD \(oldAllows), NEW \(newAllows)) contradicts "
                                                + "`\(change.verdict.rawValue)` for \(change.methodName) \(change.path)\n\(context)"))
                }
            }
        }
        return (findings, stats)
    }
}
