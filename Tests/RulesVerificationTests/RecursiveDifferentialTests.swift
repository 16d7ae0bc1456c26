import Foundation
import RulesCases
import RulesLanguage
import RulesTesting
@testable import RulesVerification
import Testing

/// Generated rules with recursive wildcards, `{rest=**}` properties, and requests at any depth.
enum RecursiveDifferentialGenerator {
    /// Blocks that all bind `id`, so the generated conditions may use it.
    static let blocks = ["/c/{id}", "/c/{id}/{sub=**}", "/{pre=**}/c/{id}", "/{pre=**}/c/{id}/d/{leaf}"]

    static let propertyAtoms = [
        "rest[0] == 'c'", "rest[1] == 'u1'", "rest == /c/u1", "rest == /x/c/u2", "request.auth != null",
        "request.auth.uid == 'u1'", "resource == null", "request.path == /databases/$(database)/documents/$(rest)",
    ]

    static func rules(_ rng: inout SeededGenerator) -> String {
        let methods = ["read", "write", "get", "list", "create", "update", "delete"]
        var text = ""
        for block in blocks where Bool.random(using: &rng) {
            text += "    match \(block) {\n"
            for _ in 0..<Int.random(in: 1...2, using: &rng) {
                text += "      allow \(methods.randomElement(using: &rng)!): if \(DifferentialGenerator.condition(&rng, depth: 1));\n"
            }
            text += "    }\n"
        }
        return """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
            \(text)    match /never/{n} { allow read: if false; }
              }
            }
            """
    }

    static func condition(_ rng: inout SeededGenerator) -> String {
        let a = propertyAtoms.randomElement(using: &rng)!
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: return a
        case 1: return "(\(a) && \(propertyAtoms.randomElement(using: &rng)!))"
        default: return "(\(a) || !(\(propertyAtoms.randomElement(using: &rng)!)))"
        }
    }

    /// A request below `documents` with 1 to 6 segments drawn from names the rules mention.
    static func request(_ rng: inout SeededGenerator, method: RequestMethod) -> (RulesRequest, InMemoryDatabase, [String]) {
        let names = ["c", "u1", "u2", "x", "d"]
        func some(_ range: ClosedRange<Int>, _ rng: inout SeededGenerator) -> [String] {
            (0..<Int.random(in: range, using: &rng)).map { _ in names.randomElement(using: &rng)! }
        }
        let id = ["u1", "u2"].randomElement(using: &rng)!
        // Half the paths are shaped like the blocks (any depth), half are any segments.
        let rest: [String] = switch Int.random(in: 0..<6, using: &rng) {
        case 0: ["c", id]
        case 1: ["c", id] + some(1...4, &rng)
        case 2: some(1...3, &rng) + ["c", id, "d", names.randomElement(using: &rng)!]
        default: some(1...6, &rng)
        }
        let path = "/databases/(default)/documents/" + rest.joined(separator: "/")
        let auth: Auth? = Int.random(in: 0..<4, using: &rng) == 0 ? nil : Auth(uid: ["u1", "u2"].randomElement(using: &rng)!)
        let resource: [String: Value]? = Bool.random(using: &rng) ? DifferentialGenerator.document(&rng) : nil
        let requestResource: [String: Value]? = method == .create || method == .update ? DifferentialGenerator.document(&rng) : nil
        var documents: [String: [String: Value]] = [:]
        for other in DifferentialGenerator.ids where Bool.random(using: &rng) {
            documents["/databases/(default)/documents/c/\(other)"] = DifferentialGenerator.document(&rng)
        }
        documents[path] = resource
        let time = Timestamp(seconds: 1_767_225_600 + Int64.random(in: -20_000_000...20_000_000, using: &rng))
        let request = RulesRequest(service: .firestore, path: path, method: method, auth: auth,
                                   resource: resource.map(Value.map), requestResource: requestResource.map(Value.map), time: time,
                                   query: method == .list ? [:] : nil)
        return (request, InMemoryDatabase(documents: documents), rest)
    }
}

@Suite("differential: `{rest=**}` properties against requests at every depth")
struct RecursiveDifferentialTests {
    @Test("no sampled request of any depth contradicts a verdict, and every witness replays")
    func differential() throws {
        var rng = SeededGenerator(state: 2026)
        let verifier = RulesVerifier(timeout: 20)
        var verdicts: [Verdict: Int] = [:]
        var samplesChecked = 0
        var allowedSamples = 0
        var witnessesReplayed = 0
        let rounds = 40
        for round in 0..<rounds {
            let rulesText = RecursiveDifferentialGenerator.rules(&rng)
            let program = try compile(rulesText, name: "generated-\(round).rules")
            let method = RequestMethod.allCases.randomElement(using: &rng)!
            let conditionText = RecursiveDifferentialGenerator.condition(&rng)
            let kind = ["never", "possible", "only-if"][Int.random(in: 0..<3, using: &rng)]
            let condition = kind == "never" ? "" : ", \"condition\": \"\(conditionText)\""
            let file = try properties(propertyFile(["""
                {"name": "p", "path": "/databases/{database}/documents/{rest=**}", "methods": ["\(method.rawValue)"], "kind": "\(kind)"\(condition)}
                """]))
            let property = file.properties[0]
            let result = verifier.verify(property, in: file, program: program)
            verdicts[result.verdict, default: 0] += 1
            if let witness = result.witness {
                #expect(try replayWitness(witness, service: .firestore, program: program).actual == .allow, "\(rulesText)\n\(witness)")
                witnessesReplayed += 1
            }
            for _ in 0..<200 {
                let (request, database, rest) = RecursiveDifferentialGenerator.request(&rng, method: method)
                let decision = program.evaluate(request, lookup: database)
                samplesChecked += 1
                guard decision.allowed else { continue }
                allowedSamples += 1
                var conditionTrue = true
                if let condition = property.condition {
                    let variables: [String: Value] = ["rest": .path(PathValue(segments: rest)), "database": .string("(default)")]
                    let (value, _) = Program.evaluateExpression(condition, request: request, variables: variables,
                                                                lookup: database, regexEngine: RulesTestRunner.defaultRegexEngine)
                    if case .success(.bool(true)) = value { conditionTrue = true } else { conditionTrue = false }
                }
                switch (property.kind, result.verdict) {
                case (.never, .holds):
                    Issue.record("never proved, but \(request.path) \(method) is allowed\n\(rulesText)")
                case (.onlyIf, .holds) where !conditionTrue:
                    Issue.record("only-if proved, but \(request.path) breaks `\(conditionText)`\n\(rulesText)")
                case (.possible, .violated) where conditionTrue:
                    Issue.record("possible refuted, but \(request.path) satisfies `\(conditionText)`\n\(rulesText)")
                default: break
                }
            }
        }
        // The run must exercise proofs, refutations and witnesses over paths of every depth.
        #expect(samplesChecked == rounds * 200)
        #expect(allowedSamples > 200, "\(allowedSamples)")
        #expect(witnessesReplayed >= 10, "\(witnessesReplayed)")
        #expect((verdicts[.holds] ?? 0) >= 10, "\(verdicts)")
        #expect((verdicts[.violated] ?? 0) >= 10, "\(verdicts)")
        #expect((verdicts[.unknown] ?? 0) <= 4, "\(verdicts)")
    }
}
