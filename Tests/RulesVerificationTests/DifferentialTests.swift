import Foundation
import RulesCases
import RulesLanguage
import RulesTesting
@testable import RulesVerification
import Testing

/// A small deterministic generator (SplitMix64).
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Generated rulesets and properties over one collection, and random requests to check them with.
enum DifferentialGenerator {
    static let atoms = [
        "request.auth != null", "request.auth == null", "request.auth.uid == id", "request.auth.uid == 'u1'",
        "resource.data.owner == request.auth.uid", "request.resource.data.owner == request.auth.uid",
        "request.resource.data.n > 3", "request.resource.data.n <= resource.data.n",
        "request.resource.data.keys().hasOnly(['owner', 'n'])", "'n' in request.resource.data",
        "exists(/databases/$(database)/documents/c/$(request.auth.uid))",
        "get(/databases/$(database)/documents/c/u1).data.n == 1", "id.size() > 2", "id.matches('[a-z]+')",
        "request.resource.data.owner.lower() == id", "request.time < timestamp.date(2026, 6, 1)",
        "resource == null", "request.resource.data.n is int",
        "!request.resource.data.diff(resource.data).affectedKeys().hasAny(['owner'])",
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
        let methods = ["read", "write", "get", "list", "create", "update", "delete"]
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

    static let ids = ["u1", "u2", "abc", "Ab"]

    static func value(_ rng: inout SeededGenerator) -> Value {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: return .int(Int64.random(in: 0...6, using: &rng))
        case 1: return .string(ids.randomElement(using: &rng)!)
        case 2: return .null
        case 3: return .bool(Bool.random(using: &rng))
        default: return .string(ids.randomElement(using: &rng)!)
        }
    }

    static func document(_ rng: inout SeededGenerator) -> [String: Value] {
        var data: [String: Value] = [:]
        for key in ["owner", "n", "x"] where Int.random(in: 0..<4, using: &rng) > 0 { data[key] = value(&rng) }
        return data
    }

    static func request(_ rng: inout SeededGenerator, method: RequestMethod) -> (RulesRequest, InMemoryDatabase, String) {
        let id = ids.randomElement(using: &rng)!
        let path = "/databases/(default)/documents/c/\(id)"
        let auth: Auth? = Int.random(in: 0..<4, using: &rng) == 0 ? nil : Auth(uid: ids.randomElement(using: &rng)!)
        let resource: [String: Value]? = Bool.random(using: &rng) ? document(&rng) : nil
        let requestResource: [String: Value]? = method == .create || method == .update ? document(&rng) : nil
        var documents: [String: [String: Value]] = [:]
        for other in ids where Bool.random(using: &rng) { documents["/databases/(default)/documents/c/\(other)"] = document(&rng) }
        if let resource { documents[path] = resource } else { documents[path] = nil }
        let time = Timestamp(seconds: 1_767_225_600 + Int64.random(in: -20_000_000...20_000_000, using: &rng))
        let request = RulesRequest(service: .firestore, path: path, method: method, auth: auth,
                                   resource: resource.map(Value.map), requestResource: requestResource.map(Value.map), time: time,
                                   query: method == .list ? [:] : nil)
        return (request, InMemoryDatabase(documents: documents), id)
    }
}

@Suite("differential: generated rules and properties against sampled requests")
struct DifferentialTests {
    @Test("no sampled request contradicts a holds, and every witness replays")
    func differential() throws {
        var rng = SeededGenerator(state: 16)
        let verifier = RulesVerifier(timeout: 20)
        var verdicts: [Verdict: Int] = [:]
        var samplesChecked = 0
        var allowedSamples = 0
        var witnessesReplayed = 0
        for round in 0..<24 {
            let rulesText = DifferentialGenerator.rules(&rng)
            let program = try compile(rulesText, name: "generated-\(round).rules")
            let kind = Int.random(in: 0..<3, using: &rng)
            let method = RequestMethod.allCases.randomElement(using: &rng)!
            let conditionText = DifferentialGenerator.condition(&rng, depth: 1)
            let property: String
            switch kind {
            case 0: property = "{\"name\": \"p\", \"path\": \"/databases/{database}/documents/c/{id}\", \"methods\": [\"\(method.rawValue)\"], \"kind\": \"never\"}"
            case 1: property = "{\"name\": \"p\", \"path\": \"/databases/{database}/documents/c/{id}\", \"methods\": [\"\(method.rawValue)\"], \"kind\": \"possible\", \"condition\": \"\(conditionText)\"}"
            default: property = "{\"name\": \"p\", \"path\": \"/databases/{database}/documents/c/{id}\", \"methods\": [\"\(method.rawValue)\"], \"kind\": \"only-if\", \"condition\": \"\(conditionText)\"}"
            }
            let file = try properties(propertyFile([property]))
            let result = verifier.verify(file.properties[0], in: file, program: program)
            verdicts[result.verdict, default: 0] += 1
            if let witness = result.witness {
                #expect(try replayWitness(witness, service: .firestore, program: program).actual == .allow, "\(rulesText)\n\(witness)")
                witnessesReplayed += 1
            }
            // Sample requests: none may contradict the verdict.
            let condition = file.properties[0].condition
            for _ in 0..<300 {
                let (request, database, id) = DifferentialGenerator.request(&rng, method: method)
                let decision = program.evaluate(request, lookup: database)
                samplesChecked += 1
                guard decision.allowed else { continue }
                allowedSamples += 1
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
        // The run must have exercised every verdict that can be checked against samples.
        #expect(samplesChecked == 24 * 300)
        #expect(allowedSamples > 100)
        #expect((verdicts[.holds] ?? 0) >= 5)
        #expect((verdicts[.violated] ?? 0) >= 3)
        #expect(witnessesReplayed >= 5)
        #expect((verdicts[.unknown] ?? 0) <= 4, "\(verdicts)")
    }
}
