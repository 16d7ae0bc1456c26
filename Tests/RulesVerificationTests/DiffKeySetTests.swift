import Foundation
import RulesLanguage
import RulesTesting
import Testing
@testable import RulesVerification

/// The key sets of a map diff over keys the rules never name: their sizes, and their members
/// among the map's other keys.
@Suite("map diff key sets over unnamed keys")
struct DiffKeySetTests {
    @Test("a key the rules never name can change: changedKeys() has members outside the named keys")
    func changedOtherKey() throws {
        let rules = DocUpdate.rules("!\(DocUpdate.diff).changedKeys().hasOnly([])")
        // The evaluator allows an update that changes an unnamed key, so `possible` holds (it
        // was once refuted: the encoding let unnamed keys be added or removed, never changed).
        let program = try compile(rules)
        let changed = """
            {"name": "x changes", "path": "/databases/(default)/documents/docs/d", "method": "update", "auth": null,
             "resource": {"x": 1}, "requestResource": {"x": 2}, "expect": "allow"}
            """
        #expect(try replayWitness(changed, service: .firestore, program: program).actual == .allow)
        let result = try verifyOne(rules, DocUpdate.property("possible", nil))
        #expect(result.verdict == .holds, "\(result.reason ?? "")")
        #expect(result.witness != nil)
    }

    @Test("affectedKeys().size() == 1 with the one key named: only that key is affected")
    func affectedSizeOne() throws {
        let rules = DocUpdate.rules("\(DocUpdate.diff).affectedKeys().size() == 1 && \(DocUpdate.diff).affectedKeys().hasAny(['title'])")
        let onlyIf = try verifyOne(rules, DocUpdate.property("only-if", "\(DocUpdate.diff).affectedKeys().hasOnly(['title'])"))
        #expect(onlyIf.verdict == .holds, "\(onlyIf.reason ?? "")")
        let possible = try verifyOne(rules, DocUpdate.property("possible", nil))
        #expect(possible.verdict == .holds, "\(possible.reason ?? "")")
    }

    @Test("changedKeys().size() == 2 over unnamed keys: a witness changes two keys, and it replays")
    func changedSizeTwo() throws {
        let result = try verifyOne(DocUpdate.rules("\(DocUpdate.diff).changedKeys().size() == 2"), DocUpdate.property("possible", nil))
        #expect(result.verdict == .holds, "\(result.reason ?? "")")
        #expect(result.witness != nil)
    }

    @Test("no key added or removed: both maps have the same number of keys")
    func addedRemovedSizes() throws {
        let rules = DocUpdate.rules("\(DocUpdate.diff).addedKeys().size() == 0 && \(DocUpdate.diff).removedKeys().size() == 0")
        let result = try verifyOne(rules, DocUpdate.property("only-if", "request.resource.data.keys().size() == resource.data.keys().size()"))
        #expect(result.verdict == .holds, "\(result.reason ?? "")")
        let unchanged = try verifyOne(rules, DocUpdate.property("only-if", "\(DocUpdate.diff).unchangedKeys().size() + \(DocUpdate.diff).changedKeys().size() == resource.data.size()"))
        #expect(unchanged.verdict == .holds, "\(unchanged.reason ?? "")")
    }

    @Test("a diff's changed keys are never more than the map's keys")
    func changedBoundedByKeys() throws {
        let result = try verifyOne(DocUpdate.rules("\(DocUpdate.diff).changedKeys().size() > request.resource.data.size()"), DocUpdate.property("never", nil))
        #expect(result.verdict == .holds, "\(result.reason ?? "")")
    }

    @Test("the reversed diff has the same changed keys and swaps added and removed")
    func reversedDiff() throws {
        let reversed = "resource.data.diff(request.resource.data)"
        let rules = DocUpdate.rules("\(DocUpdate.diff).addedKeys().size() == 1 && \(reversed).removedKeys().size() == 0")
        let result = try verifyOne(rules, DocUpdate.property("never", nil))
        #expect(result.verdict == .holds, "\(result.reason ?? "")")
    }
}

/// Updates whose documents have keys the rules name (`a`, `b`) and keys they never name (`x`, `y`).
enum DiffKeySetGenerator {
    static let d = "request.resource.data.diff(resource.data)"
    static let atoms = [
        "\(d).affectedKeys().size() == 1", "\(d).changedKeys().size() == 0", "\(d).addedKeys().size() > 0",
        "\(d).removedKeys().size() == 1", "\(d).unchangedKeys().size() >= 1", "\(d).changedKeys().hasOnly(['a'])",
        "\(d).affectedKeys().hasAny(['a'])", "!\(d).changedKeys().hasOnly([])", "request.resource.data.size() == resource.data.size()",
        "request.resource.data.a == 1", "resource.data.keys().hasOnly(['a', 'b'])", "\(d).unchangedKeys().hasOnly(['b'])",
        "request.resource.data == resource.data", "\(d).changedKeys().size() == 2", "\(d).affectedKeys() == ['a', 'x'].toSet()",
        "\(d).changedKeys() == ['b'].toSet()", "resource.data.diff(request.resource.data).addedKeys().size() == 0",
    ]

    static func document(_ rng: inout SeededGenerator) -> [String: Value] {
        var data: [String: Value] = [:]
        for key in ["a", "b", "x", "y"] where Bool.random(using: &rng) { data[key] = .int(Int64.random(in: 1...2, using: &rng)) }
        return data
    }

    static func request(_ rng: inout SeededGenerator, method: RequestMethod) -> (RulesRequest, InMemoryDatabase, String) {
        let path = "/databases/(default)/documents/c/d1"
        let resource: [String: Value]? = method == .create ? nil : document(&rng)
        var after = resource ?? [:]
        // A few edits of the stored document, so every kind of diff is common.
        for _ in 0..<Int.random(in: 0...2, using: &rng) {
            let key = ["a", "b", "x", "y"].randomElement(using: &rng)!
            if Bool.random(using: &rng) { after[key] = .int(Int64.random(in: 1...2, using: &rng)) } else { after[key] = nil }
        }
        var documents: [String: [String: Value]] = [:]
        if let resource { documents[path] = resource }
        let request = RulesRequest(service: .firestore, path: path, method: method, auth: Auth(uid: "u1"),
                                   resource: resource.map(Value.map), requestResource: method == .delete ? nil : .map(after),
                                   time: Timestamp(seconds: 1_767_225_600), query: nil)
        return (request, InMemoryDatabase(documents: documents), "d1")
    }
}

@Suite("differential: map diff key sets against sampled requests")
struct DiffKeySetDifferentialTests {
    @Test("no sampled update contradicts a proof, and every witness replays")
    func differential() throws {
        let run = try sampledDifferential(seed: 64, rounds: 60, samples: 200, atoms: DiffKeySetGenerator.atoms,
                                          methods: [.update, .update, .create], request: DiffKeySetGenerator.request)
        #expect(run.allowedSamples > 300, "\(run.allowedSamples)")
        #expect(run.samplesUnderProof >= 4000, "\(run.samplesUnderProof)")
        #expect(run.allowedUnderProof >= 5, "\(run.allowedUnderProof)")
        #expect((run.verdicts[.holds] ?? 0) >= 15, "\(run.verdicts)")
        #expect((run.verdicts[.violated] ?? 0) >= 15, "\(run.verdicts)")
        #expect(run.witnessesReplayed >= 10, "\(run.witnessesReplayed)")
        #expect((run.verdicts[.unknown] ?? 0) == 0, "\(run.verdicts) \(run.reasons)")
    }
}
