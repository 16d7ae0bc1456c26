import Foundation
import RulesTestSupport
import Testing

/// `validate corpus generate` end to end: same bytes for the same seed, the committed samples,
/// plain lines, and clear errors.
@Suite("validate corpus generate")
struct CorpusCommandTests {
    @Test("stdout matches the committed sample for seed 1", arguments: ["display-names", "emails"])
    func sample(_ kind: String) throws {
        let run = try runValidate(["corpus", "generate", kind, "--count", "300", "--seed", "1"])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        let sample = try Data(contentsOf: packageRoot.appendingPathComponent("corpus/generated-samples/\(kind).jsonl"))
        #expect(run.stdout == sample)
    }

    @Test("--format lines writes the bare values, one per line, without line breaks inside")
    func lines() throws {
        let jsonl = try runValidate(["corpus", "generate", "display-names", "--count", "500", "--seed", "9"])
        let lines = try runValidate(["corpus", "generate", "display-names", "--count", "500", "--seed", "9", "--format", "lines"])
        #expect(lines.status == 0)
        let records = String(decoding: jsonl.stdout, as: UTF8.self).split(separator: "\n")
        let values = String(decoding: lines.stdout, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(values.count <= records.count && values.count > 400)
        #expect(!lines.stdout.contains(0))
    }

    @Test("the rules-requests case file names the rules file given with --rules")
    func rulesRequests() throws {
        let run = try runValidate(["corpus", "generate", "rules-requests", "--count", "3", "--seed", "1", "--rules", "../x.rules"])
        #expect(run.status == 0)
        let text = String(decoding: run.stdout, as: UTF8.self)
        #expect(text.contains(#""rules": "../x.rules""#) && text.contains(#""service": "firestore""#))
    }

    @Test("bad arguments are exit status 64 with a one-line reason", arguments: [
        (["corpus", "generate", "emails", "--count=-1"], "--count must be 0 or more"),
        (["corpus", "generate", "rules-requests", "--count", "1", "--format", "lines"], "--format lines does not apply"),
        (["corpus", "generate", "emails", "--count", "1", "--rules", "x"], "--rules only applies to rules-requests"),
        (["corpus", "generate", "usernames", "--count", "1"], "usernames"),
    ])
    func badArguments(_ arguments: [String], _ reason: String) throws {
        let run = try runValidate(arguments)
        #expect(run.status == 64)
        #expect(String(decoding: run.stderr, as: UTF8.self).contains(reason))
    }
}
