import Foundation
import RulesCases
import RulesLanguage
@testable import RulesVerification
import Testing

/// Generated rulesets and random edits of them (see ``DifferentialGenerator``).
enum DiffGenerator {
    static let methods = ["read", "write", "get", "list", "create", "update", "delete"]

    /// One `allow`: methods and condition.
    struct Allow {
        var method: String
        var condition: String
    }

    static func allows(_ rng: inout SeededGenerator) -> [Allow] {
        (0..<Int.random(in: 1...2, using: &rng)).map { _ in
            Allow(method: methods.randomElement(using: &rng)!, condition: DifferentialGenerator.condition(&rng))
        }
    }

    /// A random edit: what it did (for messages) and the edited allows.
    static func edit(_ allows: [Allow], _ rng: inout SeededGenerator) -> (String, [Allow]) {
        var edited = allows
        let index = Int.random(in: 0..<allows.count, using: &rng)
        switch Int.random(in: 0..<7, using: &rng) {
        case 0:
            edited[index].condition = DifferentialGenerator.condition(&rng)
            return ("replace a condition", edited)
        case 1:
            edited[index].method = methods.randomElement(using: &rng)!
            return ("change a method", edited)
        case 2:
            edited[index].condition = "(\(edited[index].condition) && \(DifferentialGenerator.atoms.randomElement(using: &rng)!))"
            return ("add a conjunct", edited)
        case 3:
            edited[index].condition = "(\(edited[index].condition) || \(DifferentialGenerator.atoms.randomElement(using: &rng)!))"
            return ("add a disjunct", edited)
        case 4:
            edited.append(Allow(method: methods.randomElement(using: &rng)!, condition: DifferentialGenerator.condition(&rng, depth: 1)))
            return ("add an allow", edited)
        case 5:
            guard edited.count > 1 else { return ("nothing", edited) }
            edited.remove(at: index)
            return ("remove an allow", edited)
        default:
            // A refactoring: the conjuncts swapped.
            edited[index].condition = "(true && \(edited[index].condition))"
            return ("add `true &&`", edited)
        }
    }

    static func rules(_ allows: [Allow]) -> String {
        """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /c/{id} {
        \(allows.map { "      allow \($0.method): if \($0.condition);" }.joined(separator: "\n"))
            }
          }
        }
        """
    }
}

@Suite("rules diff: generated ruleset pairs against sampled requests")
struct DiffDifferentialTests {
    @Test("no sampled request contradicts a verdict, and every witness replays on both files")
    func differential() throws {
        var rng = SeededGenerator(state: 32)
        var verdicts: [DiffVerdict: Int] = [:]
        var samples = 0
        var differing = 0
        var witnesses = 0
        let rounds = 24
        for round in 0..<rounds {
            let before = DiffGenerator.allows(&rng)
            let (edit, after) = DiffGenerator.edit(before, &rng)
            let oldText = DiffGenerator.rules(before), newText = DiffGenerator.rules(after)
            let old = try compile(oldText, name: "old-\(round).rules")
            let new = try compile(newText, name: "new-\(round).rules")
            // `diffRules` checks that every witness replays on both files.
            let diff = try diffRules(oldText, newText, oldName: "old-\(round).rules", newName: "new-\(round).rules", timeout: 30)
            witnesses += diff.compared.filter { $0.newlyAllowed != nil }.count + diff.compared.filter { $0.newlyDenied != nil }.count
            for method in RequestMethod.allCases {
                let change = try #require(diff.change("/c/{id}", method))
                verdicts[change.verdict, default: 0] += 1
                for _ in 0..<100 {
                    let (request, database, _) = DifferentialGenerator.request(&rng, method: method)
                    let oldAllows = old.evaluate(request, lookup: database).allowed
                    let newAllows = new.evaluate(request, lookup: database).allowed
                    samples += 1
                    if oldAllows != newAllows { differing += 1 }
                    let context = "\(edit), \(method): \(change.verdict)\nOLD\n\(oldText)\nNEW\n\(newText)\n\(request.path) auth=\(String(describing: request.auth))"
                    switch change.verdict {
                    case .equivalent:
                        #expect(oldAllows == newAllows, "\(context)")
                    case .narrower:
                        #expect(!(newAllows && !oldAllows), "a newly allowed request under `narrower`: \(context)")
                    case .wider where change.reason == nil:
                        #expect(!(oldAllows && !newAllows), "a newly denied request under `wider`: \(context)")
                    default: break
                    }
                }
            }
            // The enclosing block grants nothing in either file.
            #expect(diff.change("/documents", .get)?.verdict == .equivalent)
        }
        #expect(samples == rounds * 5 * 100)
        #expect(differing >= 50, "the edits must change some sampled decisions")
        #expect((verdicts[.equivalent] ?? 0) >= 20, "\(verdicts)")
        #expect((verdicts[.wider] ?? 0) + (verdicts[.incomparable] ?? 0) >= 4, "\(verdicts)")
        #expect((verdicts[.narrower] ?? 0) + (verdicts[.incomparable] ?? 0) >= 4, "\(verdicts)")
        #expect((verdicts[.unknown] ?? 0) <= 4, "\(verdicts)")
        #expect(witnesses >= 8, "\(witnesses)")
    }

    @Test("recursive wildcards: sampled requests at any depth agree with every pattern's verdict")
    func recursive() throws {
        var rng = SeededGenerator(state: 33)
        var checked = 0
        var differing = 0
        var nonEquivalent = 0
        for round in 0..<6 {
            let oldText = RecursiveDifferentialGenerator.rules(&rng)
            let newText = RecursiveDifferentialGenerator.rules(&rng)
            let old = try compile(oldText, name: "old-\(round).rules")
            let new = try compile(newText, name: "new-\(round).rules")
            let diff = try diffRules(oldText, newText, oldName: "old-\(round).rules", newName: "new-\(round).rules", timeout: 30)
            nonEquivalent += diff.changes.count
            let patterns = DiffPattern.patterns(of: [new, old])
            for method in RequestMethod.allCases {
                for _ in 0..<60 {
                    let (request, database, _) = RecursiveDifferentialGenerator.request(&rng, method: method)
                    let oldAllows = old.evaluate(request, lookup: database).allowed
                    let newAllows = new.evaluate(request, lookup: database).allowed
                    if oldAllows != newAllows { differing += 1 }
                    let segments = PathValue(request.path).segments
                    for pattern in patterns where pattern.matches(segments) {
                        let change = try #require(diff.compared.first { $0.path == pattern.text && $0.method == method })
                        checked += 1
                        let context = "\(method) \(request.path) under \(pattern.text): \(change.verdict)\nOLD\n\(oldText)\nNEW\n\(newText)"
                        switch change.verdict {
                        case .equivalent: #expect(oldAllows == newAllows, "\(context)")
                        case .narrower: #expect(!(newAllows && !oldAllows), "\(context)")
                        case .wider where change.reason == nil: #expect(!(oldAllows && !newAllows), "\(context)")
                        default: break
                        }
                    }
                }
            }
        }
        #expect(checked >= 500, "sampled requests must fall under the patterns")
        #expect(differing >= 20)
        #expect(nonEquivalent >= 6)
    }
}
