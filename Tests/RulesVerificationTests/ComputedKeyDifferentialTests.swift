import Foundation
import RulesLanguage
import RulesTesting
import Testing
@testable import RulesVerification

/// Generated rules and properties that read maps at computed keys, and sampled requests whose
/// documents hold role maps.
enum ComputedKeyGenerator {
    static let atoms = [
        "resource.data.roles[request.auth.uid] == 'owner'", "request.resource.data.roles[request.auth.uid] == 'owner'",
        "request.auth.uid in resource.data.roles", "resource.data.roles[id] == 'writer'", "resource.data.roles['u1'] == 'owner'",
        "'u2' in request.resource.data.roles", "request.resource.data.roles == resource.data.roles",
        "request.resource.data.roles.keys().hasOnly(['u1'])", "resource.data.roles.size() > 1", "request.auth.uid == id",
        "request.auth != null", "resource.data.roles.get(id, 'none') == 'none'", "request.auth.uid in {'u1': 1, 'abc': 2}",
        "resource.data.roles[request.resource.data.owner] == 'reader'", "request.resource.data.roles[id] is string",
    ]


    static let ids = ["u1", "u2", "abc"]
    static let roles: [Value] = [.string("owner"), .string("writer"), .string("reader"), .int(1)]

    static func document(_ rng: inout SeededGenerator) -> [String: Value] {
        var data: [String: Value] = [:]
        if Int.random(in: 0..<5, using: &rng) > 0 {
            var roles: [String: Value] = [:]
            for id in ids + ["x"] where Bool.random(using: &rng) { roles[id] = Self.roles.randomElement(using: &rng)! }
            data["roles"] = .map(roles)
        }
        if Bool.random(using: &rng) { data["owner"] = .string(ids.randomElement(using: &rng)!) }
        return data
    }

    static func request(_ rng: inout SeededGenerator, method: RequestMethod) -> (RulesRequest, InMemoryDatabase, String) {
        let id = ids.randomElement(using: &rng)!
        let path = "/databases/(default)/documents/c/\(id)"
        let auth: Auth? = Int.random(in: 0..<5, using: &rng) == 0 ? nil : Auth(uid: ids.randomElement(using: &rng)!)
        let resource: [String: Value]? = Int.random(in: 0..<4, using: &rng) > 0 ? document(&rng) : nil
        var requestResource: [String: Value]?
        if method == .create || method == .update {
            // Often the same roles, so equality and unchanged reads are reached.
            requestResource = Bool.random(using: &rng) ? resource ?? document(&rng) : document(&rng)
        }
        var documents: [String: [String: Value]] = [:]
        if let resource { documents[path] = resource }
        let request = RulesRequest(service: .firestore, path: path, method: method, auth: auth,
                                   resource: resource.map(Value.map), requestResource: requestResource.map(Value.map),
                                   time: Timestamp(seconds: 1_767_225_600), query: nil)
        return (request, InMemoryDatabase(documents: documents), id)
    }
}

@Suite("differential: computed map keys against sampled requests")
struct ComputedKeyDifferentialTests {
    @Test("no sampled request contradicts a proof, and every witness replays")
    func differential() throws {
        let run = try sampledDifferential(seed: 32, rounds: 60, samples: 200, atoms: ComputedKeyGenerator.atoms,
                                          methods: [.get, .create, .update, .delete], request: ComputedKeyGenerator.request)
        // Every verdict that can be checked against samples was reached, on allowed samples.
        #expect(run.allowedSamples > 300, "\(run.allowedSamples)")
        #expect(run.samplesUnderProof >= 4000, "\(run.samplesUnderProof)")
        #expect(run.allowedUnderProof >= 5, "\(run.allowedUnderProof)")
        #expect((run.verdicts[.holds] ?? 0) >= 15, "\(run.verdicts)")
        #expect((run.verdicts[.violated] ?? 0) >= 15, "\(run.verdicts)")
        #expect(run.witnessesReplayed >= 10)
        // Unknowns come only from data that may be a list or a string (indexing it, `in` on it).
        #expect((run.verdicts[.unknown] ?? 0) <= 3, "\(run.verdicts) \(run.reasons)")
        #expect(run.reasons.allSatisfy { !$0.contains("computed key") }, "\(run.reasons)")
    }
}
