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

    static func condition(_ rng: inout SeededGenerator, depth: Int = 2) -> String {
        if depth == 0 || Int.random(in: 0..<3, using: &rng) == 0 { return atoms.randomElement(using: &rng)! }
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: return "(\(condition(&rng, depth: depth - 1)) && \(condition(&rng, depth: depth - 1)))"
        case 1: return "(\(condition(&rng, depth: depth - 1)) || \(condition(&rng, depth: depth - 1)))"
        default: return "!(\(condition(&rng, depth: depth - 1)))"
        }
    }

    static func rules(_ rng: inout SeededGenerator) -> String {
        let methods = ["read", "write", "get", "create", "update", "delete"]
        var allows: [String] = []
        for _ in 0..<Int.random(in: 1...2, using: &rng) {
            allows.append("      allow \(methods.randomElement(using: &rng)!): if \(condition(&rng));")
        }
        return """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                match /c/{id} {
            \(allows.joined(separator: "\n"))
                }
              }
            }
            """
    }

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
        var rng = SeededGenerator(state: 32)
        let verifier = RulesVerifier(timeout: 20)
        var verdicts: [Verdict: Int] = [:]
        var reasons: [String] = []
        var allowedSamples = 0
        var samplesUnderProof = 0
        var allowedUnderProof = 0
        var witnessesReplayed = 0
        let methods: [RequestMethod] = [.get, .create, .update, .delete]
        for round in 0..<60 {
            let rulesText = ComputedKeyGenerator.rules(&rng)
            let program = try compile(rulesText, name: "computed-\(round).rules")
            let kind = Int.random(in: 0..<3, using: &rng)
            let method = methods.randomElement(using: &rng)!
            let conditionText = ComputedKeyGenerator.condition(&rng, depth: 1)
            let path = "/databases/{database}/documents/c/{id}"
            let property: String
            switch kind {
            case 0: property = "{\"name\": \"p\", \"path\": \"\(path)\", \"methods\": [\"\(method.rawValue)\"], \"kind\": \"never\"}"
            case 1: property = "{\"name\": \"p\", \"path\": \"\(path)\", \"methods\": [\"\(method.rawValue)\"], \"kind\": \"possible\", \"condition\": \"\(conditionText)\"}"
            default: property = "{\"name\": \"p\", \"path\": \"\(path)\", \"methods\": [\"\(method.rawValue)\"], \"kind\": \"only-if\", \"condition\": \"\(conditionText)\"}"
            }
            let file = try properties(propertyFile([property]))
            let result = verifier.verify(file.properties[0], in: file, program: program)
            verdicts[result.verdict, default: 0] += 1
            if result.verdict == .unknown { reasons.append(result.reason ?? "") }
            if let witness = result.witness {
                #expect(try replayWitness(witness, service: .firestore, program: program).actual == .allow, "\(rulesText)\n\(witness)")
                witnessesReplayed += 1
            }
            let proof = (file.properties[0].kind != .possible && result.verdict == .holds)
                || (file.properties[0].kind == .possible && result.verdict == .violated)
            let condition = file.properties[0].condition
            for _ in 0..<200 {
                let (request, database, id) = ComputedKeyGenerator.request(&rng, method: method)
                if proof { samplesUnderProof += 1 }
                guard program.evaluate(request, lookup: database).allowed else { continue }
                allowedSamples += 1
                if proof { allowedUnderProof += 1 }
                var conditionTrue = true
                if let condition {
                    let (value, _) = Program.evaluateExpression(condition, request: request, variables: ["id": .string(id), "database": .string("(default)")],
                                                                lookup: database, regexEngine: RulesTestRunner.defaultRegexEngine)
                    if case .success(.bool(true)) = value { conditionTrue = true } else { conditionTrue = false }
                }
                switch (file.properties[0].kind, result.verdict) {
                case (.never, .holds):
                    Issue.record("never proved, but \(request.path) \(method) is allowed\n\(rulesText)")
                case (.onlyIf, .holds) where !conditionTrue:
                    Issue.record("only-if proved, but an allowed request breaks `\(conditionText)`\n\(rulesText)")
                case (.possible, .violated) where conditionTrue:
                    Issue.record("possible refuted, but an allowed request satisfies `\(conditionText)`\n\(rulesText)")
                default: break
                }
            }
        }
        // Every verdict that can be checked against samples was reached, on allowed samples.
        #expect(allowedSamples > 300, "\(allowedSamples)")
        #expect(samplesUnderProof >= 4000, "\(samplesUnderProof)")
        #expect(allowedUnderProof >= 5, "\(allowedUnderProof)")
        #expect((verdicts[.holds] ?? 0) >= 15, "\(verdicts)")
        #expect((verdicts[.violated] ?? 0) >= 15, "\(verdicts)")
        #expect(witnessesReplayed >= 10)
        // Unknowns come only from data that may be a list or a string (indexing it, `in` on it).
        #expect((verdicts[.unknown] ?? 0) <= 3, "\(verdicts) \(reasons)")
        #expect(reasons.allSatisfy { !$0.contains("computed key") }, "\(reasons)")
    }
}
