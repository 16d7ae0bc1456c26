import DatabaseRules
import Foundation
import RulesCases
@testable import RulesVerification
import Testing

/// Generated database rulesets over `/c/$id` (with a literal child `n`) and one random edit of
/// each, and random requests to check `rules diff`'s verdicts with.
enum DatabaseDiffGenerator {
    static let readAtoms = [
        "auth != null", "auth == null", "auth.uid == $id", "auth.uid == 'u1'", "data.exists()", "data.child('n').val() == 1",
        "data.child('n').isNumber()", "root.child('flags').child('open').val() == true", "$id.beginsWith('a')", "now > 1000",
        "$id.length > 2", "$id.matches(/^[a-z]+$/)", "data.hasChildren(['n', 's'])", "auth.token.admin == true",
    ]
    static let writeAtoms = readAtoms + [
        "newData.exists()", "newData.child('n').isNumber()", "newData.child('n').val() > 5", "newData.hasChildren(['n'])",
        "newData.child('s').val() == 'x'", "newData.child('n').val() == data.child('n').val()", "newData.isString()",
        "newData.child('s').val().contains('y')", "!newData.child('extra').exists()",
    ]
    static let validateAtoms = ["newData.isNumber()", "newData.val() > 0", "newData.val() == now", "newData.isString()",
                                "newData.val() != 3", "auth != null"]

    static func condition(_ atoms: [String], _ rng: inout SeededGenerator, depth: Int = 2) -> String {
        AtomRules.condition(atoms, &rng, depth: depth)
    }

    /// The rules: `.read`, `.write` and `.validate` at `$id` (each present or not), and a `.validate` at `n`.
    struct Rules {
        var read: String?
        var write: String?
        var validate: String?
        var nValidate: String?
        var cRead: String?

        var text: String {
            func rule(_ name: String, _ value: String?) -> String? { value.map { "\"\(name)\": \"\($0)\"" } }
            let n = ([rule(".validate", nValidate)].compactMap { $0 }).joined(separator: ", ")
            let id = ([rule(".read", read), rule(".write", write), rule(".validate", validate)].compactMap { $0 } + ["\"n\": {\(n)}"])
                .joined(separator: ", ")
            let c = ([rule(".read", cRead)].compactMap { $0 } + ["\"$id\": {\(id)}"]).joined(separator: ", ")
            return "{\"rules\": {\"c\": {\(c)}}}"
        }
    }

    static func rules(_ rng: inout SeededGenerator) -> Rules {
        func maybe(_ atoms: [String]) -> String? { Int.random(in: 0..<4, using: &rng) == 0 ? nil : condition(atoms, &rng) }
        return Rules(read: maybe(readAtoms), write: maybe(writeAtoms), validate: maybe(writeAtoms),
                     nValidate: Int.random(in: 0..<2, using: &rng) == 0 ? nil : condition(validateAtoms, &rng, depth: 1),
                     cRead: Int.random(in: 0..<4, using: &rng) == 0 ? condition(["auth.uid == 'u1'", "auth != null"], &rng, depth: 0) : nil)
    }

    /// One random edit: a rule replaced, dropped or added, or the operands of a top-level `&&`/`||` swapped.
    static func edit(_ rules: Rules, _ rng: inout SeededGenerator) -> Rules {
        var edited = rules
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: edited.read = Int.random(in: 0..<3, using: &rng) == 0 ? nil : condition(readAtoms, &rng)
        case 1: edited.write = Int.random(in: 0..<3, using: &rng) == 0 ? nil : condition(writeAtoms, &rng)
        case 2: edited.validate = Int.random(in: 0..<3, using: &rng) == 0 ? nil : condition(writeAtoms, &rng)
        case 3: edited.nValidate = condition(validateAtoms, &rng, depth: 1)
        case 4: edited.cRead = edited.cRead == nil ? "auth.uid == 'u1'" : nil
        default:
            // The write rule narrowed to signed-in users, in a roundabout spelling.
            if let write = edited.write { edited.write = "(\(write)) && auth != null || false && (\(write))" }
        }
        return edited
    }

    static let ids = ["a1", "bob", "n", "u1", "ab"]

    static func value(_ rng: inout SeededGenerator, depth: Int = 2) -> JSONValue {
        switch Int.random(in: 0..<(depth == 0 ? 5 : 7), using: &rng) {
        case 0: return .null
        case 1: return .number([0, 1, 3, 6, 2000].randomElement(using: &rng)!)
        case 2: return .string(["x", "y", "xy", ""].randomElement(using: &rng)!)
        case 3: return .bool(Bool.random(using: &rng))
        case 4: return .number(5000)
        default:
            var members: [String: JSONValue] = [:]
            for key in ["n", "s", "extra"] where Bool.random(using: &rng) { members[key] = value(&rng, depth: depth - 1) }
            return .object(members)
        }
    }

    /// A random request on `/c/ID` or `/c/ID/n`, the stored data, and its pattern.
    static func request(_ rng: inout SeededGenerator) -> (DatabaseRequest, DataNode?, pattern: String, method: String) {
        let id = ids.randomElement(using: &rng)!
        let deep = Bool.random(using: &rng)
        let path = deep ? "/c/\(id)/n" : "/c/\(id)"
        let auth: JSONValue? = switch Int.random(in: 0..<4, using: &rng) {
        case 0: nil
        case 1: .object(["uid": .string(id)])
        case 2: .object(["uid": .string("u1"), "token": .object(["admin": .bool(true)])])
        default: .object(["uid": .string("zz")])
        }
        let write = Bool.random(using: &rng)
        let now: Double = [0, 5000].randomElement(using: &rng)!
        var stored: [String: JSONValue] = [:]
        if Bool.random(using: &rng) { stored["c"] = .object([id: value(&rng)]) }
        if Bool.random(using: &rng) { stored["flags"] = .object(["open": .bool(Bool.random(using: &rng))]) }
        var budget = 10_000
        let root = try? DataTree.node(from: .object(stored), existing: nil, now: now, path: "/", budget: &budget)
        let operation: DatabaseRequest.Operation = write ? .set(value(&rng)) : .read(DatabaseQuery())
        return (DatabaseRequest(path: path, operation: operation, auth: auth, now: now), root ?? nil,
                deep ? "/c/$id/n" : "/c/$id", write ? "write" : "read")
    }
}

@Suite("rules diff on generated database rulesets: no sampled request contradicts a verdict")
struct DatabaseDiffDifferentialTests {
    @Test("generated rulesets and edits, sampled requests")
    func sampled() throws {
        var rng = SeededGenerator(state: 0xDA7A_BA5E)
        let rounds = 24
        var verdicts: [DiffVerdict: Int] = [:]
        var samplesPerVerdict: [DiffVerdict: Int] = [:]
        var differing = 0
        var witnesses = 0
        for _ in 0..<rounds {
            let oldRules = DatabaseDiffGenerator.rules(&rng)
            let newRules = DatabaseDiffGenerator.edit(oldRules, &rng)
            let old = try databaseProgram(oldRules.text)
            let new = try databaseProgram(newRules.text)
            // `databaseDiff` replays every witness on both files.
            let diff = try databaseDiff(oldRules.text, newRules.text, timeout: 30)
            for change in diff.compared {
                verdicts[change.verdict, default: 0] += 1
                if change.newlyAllowed != nil { witnesses += 1 }
                if change.newlyDenied != nil { witnesses += 1 }
            }
            for _ in 0..<60 {
                let (request, root, pattern, method) = DatabaseDiffGenerator.request(&rng)
                let oldAllows = old.isAllowed(request, data: root)
                let newAllows = new.isAllowed(request, data: root)
                if oldAllows != newAllows { differing += 1 }
                let change = try #require(diff.change(pattern, method), "no change for \(method) \(pattern)")
                samplesPerVerdict[change.verdict, default: 0] += 1
                let context = "\(method) \(request.path) auth=\(String(describing: request.auth)) old=\(oldRules.text) new=\(newRules.text)"
                switch change.verdict {
                case .equivalent: #expect(oldAllows == newAllows, "\(context)")
                case .narrower: #expect(!(newAllows && !oldAllows), "a newly allowed request under `narrower`: \(context)")
                case .wider where change.reason == nil: #expect(!(oldAllows && !newAllows), "a newly denied request under `wider`: \(context)")
                default: break
                }
            }
        }
        // Seed 0xDA7A_BA5E reached: 159 equivalent, 15 wider, 12 narrower, 6 incomparable, 0 unknown changes; 39
        // witnesses; 955 samples under equivalent changes, 485 under the others; 48 differing decisions.
        print("database diff differential: verdicts \(verdicts), samples \(samplesPerVerdict), differing \(differing), witnesses \(witnesses)")
        #expect(differing >= 40, "the edits must change some sampled decisions")
        #expect((verdicts[.equivalent] ?? 0) >= 120, "\(verdicts)")
        #expect((verdicts[.wider] ?? 0) + (verdicts[.incomparable] ?? 0) >= 15, "\(verdicts)")
        #expect((verdicts[.narrower] ?? 0) + (verdicts[.incomparable] ?? 0) >= 12, "\(verdicts)")
        #expect((verdicts[.unknown] ?? 0) <= 2, "\(verdicts)")
        #expect(witnesses >= 30, "\(witnesses)")
        #expect((samplesPerVerdict[.equivalent] ?? 0) >= 700, "\(samplesPerVerdict)")
        let underChange: Int = [DiffVerdict.wider, .narrower, .incomparable].map { samplesPerVerdict[$0] ?? 0 }.reduce(0, +)
        #expect(underChange >= 400, "\(samplesPerVerdict)")
    }
}

@Suite("rules verify on generated database rulesets: no sampled request contradicts a proof")
struct DatabaseVerifyDifferentialTests {
    @Test("generated rulesets and properties, sampled requests")
    func sampled() throws {
        var rng = SeededGenerator(state: 0x5EED_DA7A)
        let rounds = 30
        var verdicts: [Verdict: Int] = [:]
        var allowedUnderProof = 0
        var checked = 0
        for round in 0..<rounds {
            let rules = DatabaseDiffGenerator.rules(&rng)
            let program = try databaseProgram(rules.text)
            let write = Bool.random(using: &rng)
            let possible = Int.random(in: 0..<3, using: &rng) == 0
            let atoms = write ? DatabaseDiffGenerator.writeAtoms : DatabaseDiffGenerator.readAtoms
            // A random condition, or one built from the granting rule itself (likely to hold).
            let own = write ? rules.write : rules.read
            let random = DatabaseDiffGenerator.condition(atoms, &rng, depth: 1)
            let condition: String = switch (own, Int.random(in: 0..<3, using: &rng)) {
            case (let own?, 0): own
            case (let own?, 1): "(\(own)) || \(random)"
            default: random
            }
            let props = databaseProps(["{\"name\": \"p\(round)\", \"path\": \"/c/$id\", \"methods\": [\"\(write ? "write" : "read")\"], "
                                       + "\"kind\": \"\(possible ? "possible" : "only-if")\", \"condition\": \"\(condition)\"}"])
            // `verifyDatabase` replays every witness through DatabaseProgram.
            let result = try #require(try verifyDatabase(rules.text, props: props, timeout: 30).first)
            verdicts[result.verdict, default: 0] += 1
            let file = try DatabasePropertyFileLoader.decode(props, path: "p.json")
            let expression = try #require(file.properties[0].condition)
            for _ in 0..<150 {
                let (request, root, pattern, method) = DatabaseDiffGenerator.request(&rng)
                guard pattern == "/c/$id", method == (write ? "write" : "read"), program.isAllowed(request, data: root) else { continue }
                checked += 1
                let keys = try DataTree.keys(of: request.path)
                var newRoot = root
                if case .set(let value) = request.operation {
                    var budget = 10_000
                    newRoot = DataTree.setting(root, at: keys[...], to: try DataTree.node(from: value, existing: nil, now: request.now,
                                                                                           path: request.path, budget: &budget))
                }
                let environment = ExpressionEnvironment(auth: request.auth, oldRoot: root, newRoot: newRoot, location: keys,
                                                        bindings: ["$id": keys[1]], now: request.now)
                let holds = DatabaseRulesCompiler.evaluate(expression, in: environment, regexEngine: program.regexEngine) == .value(true)
                let context = "\(request.path) auth=\(String(describing: request.auth)) rules=\(rules.text) condition=\(condition)"
                switch (result.verdict, possible) {
                case (.holds, false):
                    allowedUnderProof += 1
                    #expect(holds, "an allowed request breaks a proved only-if: \(context)")
                case (.violated, true):
                    allowedUnderProof += 1
                    #expect(!holds, "an allowed request satisfies a `possible` proved impossible: \(context)")
                default: break
                }
            }
        }
        // Seed 0x5EED_DA7A reached: 24 holds, 6 violated, 0 unknown; 403 allowed samples, 205 under a proof.
        print("database verify differential: verdicts \(verdicts), allowed samples \(checked), under a proof \(allowedUnderProof)")
        #expect((verdicts[.holds] ?? 0) >= 20, "\(verdicts)")
        #expect((verdicts[.violated] ?? 0) >= 5, "\(verdicts)")
        #expect((verdicts[.unknown] ?? 0) <= 2, "\(verdicts)")
        #expect(allowedUnderProof >= 180, "\(allowedUnderProof)")
    }
}
