import CorpusGeneration
import RulesTesting
import Testing

/// Generated rules requests get the decision they were built for.
@Suite("Generated rules requests")
struct RulesRequestCorpusTests {
    @Test("the evaluator's decision equals the label", arguments: [
        (RulesRequestCorpus.Service.firestore, 3_000), (.storage, 1_500),
    ])
    func decisionsMatchLabels(service: RulesRequestCorpus.Service, count: Int) throws {
        var corpus = RulesRequestCorpus(seed: 20_261_122, service: service)
        let cases = corpus.cases(count)
        let text = RulesRequestCorpus.caseFile(rules: "../\(service.rawValue).rules", service: service, cases: cases)
        // Decoded as if it sat next to the app's own case files, so the relative `rules` resolves.
        let file = try CaseFileLoader.decode(text, path: repoPath("rules/tests/generated.cases.json"))
        let results = try RulesTestRunner().run(file)
        #expect(results.count == cases.count)
        var failures: [String: (count: Int, example: String)] = [:]
        for result in results where !result.passed {
            let mutation = String(result.name.prefix { $0 != "/" })
            failures[mutation, default: (0, "\(result.name): expected \(result.expect), got \(result.actual)\n\(result.explanation)")].count += 1
        }
        for (mutation, failure) in failures.sorted(by: { $0.key < $1.key }) {
            Issue.record("\(mutation): \(failure.count) cases wrong, e.g. \(failure.example)")
        }
        let seen = Set(cases.map(\.mutation))
        for mutation in RulesRequestCorpus.mutations[service] ?? [] where !seen.contains(mutation.name) {
            Issue.record("mutation \(mutation.name) never generated")
        }
    }

    @Test("the committed case-file samples are current and pass", arguments: [
        (RulesRequestCorpus.Service.firestore, 200), (.storage, 100),
    ])
    func samples(service: RulesRequestCorpus.Service, count: Int) throws {
        let path = repoPath("corpus/generated-samples/\(service.rawValue).cases.json")
        var corpus = RulesRequestCorpus(seed: 1, service: service)
        let expected = RulesRequestCorpus.caseFile(rules: "../../rules/\(service.rawValue).rules", service: service, cases: corpus.cases(count))
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text == expected, "\(path) is stale (docs/CORPORA.md, Samples)")
        let results = try RulesTestRunner().run(caseFileAt: path)
        #expect(results.count == count)
        let failed = results.filter { !$0.passed }.map(\.name)
        #expect(failed.isEmpty, "\(failed)")
    }
}
