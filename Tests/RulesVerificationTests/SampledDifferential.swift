import Foundation
import RulesLanguage
import RulesTesting
import Testing
@testable import RulesVerification

/// Generated rules over one collection, from a list of condition atoms.
enum AtomRules {
    static func condition(_ atoms: [String], _ rng: inout SeededGenerator, depth: Int = 2) -> String {
        if depth == 0 || Int.random(in: 0..<3, using: &rng) == 0 { return atoms.randomElement(using: &rng)! }
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: return "(\(condition(atoms, &rng, depth: depth - 1)) && \(condition(atoms, &rng, depth: depth - 1)))"
        case 1: return "(\(condition(atoms, &rng, depth: depth - 1)) || \(condition(atoms, &rng, depth: depth - 1)))"
        default: return "!(\(condition(atoms, &rng, depth: depth - 1)))"
        }
    }

    static func rules(_ atoms: [String], methods: [String], _ rng: inout SeededGenerator) -> String {
        var allows: [String] = []
        for _ in 0..<Int.random(in: 1...2, using: &rng) {
            allows.append("      allow \(methods.randomElement(using: &rng)!): if \(condition(atoms, &rng));")
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
}

/// What a sampled differential run reached.
struct SampledRun {
    var verdicts: [Verdict: Int] = [:]
    var reasons: [String] = []
    var allowedSamples = 0
    var samplesUnderProof = 0
    var allowedUnderProof = 0
    var witnessesReplayed = 0
}

/// Decides `rounds` generated properties on generated rules over `/c/{id}`; replays every
/// witness, and records an issue for every sampled request that contradicts a proof.
func sampledDifferential(seed: UInt64, rounds: Int, samples: Int, atoms: [String], methods: [RequestMethod],
                         request: (inout SeededGenerator, RequestMethod) -> (RulesRequest, InMemoryDatabase, String)) throws -> SampledRun {
    var rng = SeededGenerator(state: seed)
    let verifier = RulesVerifier(timeout: 20)
    var run = SampledRun()
    let allowMethods = ["read", "write"] + methods.map(\.rawValue)
    for round in 0..<rounds {
        let rulesText = AtomRules.rules(atoms, methods: allowMethods, &rng)
        let program = try compile(rulesText, name: "generated-\(round).rules")
        let kind = Int.random(in: 0..<3, using: &rng)
        let method = methods.randomElement(using: &rng)!
        let conditionText = AtomRules.condition(atoms, &rng, depth: 1)
        let path = "/databases/{database}/documents/c/{id}"
        let head = "{\"name\": \"p\", \"path\": \"\(path)\", \"methods\": [\"\(method.rawValue)\"]"
        let property: String
        switch kind {
        case 0: property = head + ", \"kind\": \"never\"}"
        case 1: property = head + ", \"kind\": \"possible\", \"condition\": \"\(conditionText)\"}"
        default: property = head + ", \"kind\": \"only-if\", \"condition\": \"\(conditionText)\"}"
        }
        let file = try properties(propertyFile([property]))
        let result = verifier.verify(file.properties[0], in: file, program: program)
        run.verdicts[result.verdict, default: 0] += 1
        if result.verdict == .unknown { run.reasons.append(result.reason ?? "") }
        if let witness = result.witness {
            #expect(try replayWitness(witness, service: .firestore, program: program).actual == .allow, "\(rulesText)\n\(witness)")
            run.witnessesReplayed += 1
        }
        let kindOf = file.properties[0].kind
        let proof = (kindOf != .possible && result.verdict == .holds) || (kindOf == .possible && result.verdict == .violated)
        let condition = file.properties[0].condition
        for _ in 0..<samples {
            let (request, database, id) = request(&rng, method)
            if proof { run.samplesUnderProof += 1 }
            guard program.evaluate(request, lookup: database).allowed else { continue }
            run.allowedSamples += 1
            if proof { run.allowedUnderProof += 1 }
            var conditionTrue = true
            if let condition {
                let (value, _) = Program.evaluateExpression(condition, request: request, variables: ["id": .string(id), "database": .string("(default)")],
                                                            lookup: database, regexEngine: RulesTestRunner.defaultRegexEngine)
                if case .success(.bool(true)) = value { conditionTrue = true } else { conditionTrue = false }
            }
            switch (kindOf, result.verdict) {
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
    return run
}
