import CorpusGeneration
import FieldValidation
import Testing

/// Every generated record gets exactly the codes its mutation was built to produce.
///
/// Counts are moderate so the suite stays fast; docs/CORPORA.md has a run of the full sizes.
@Suite("Generated corpora")
struct GeneratedCorpusTests {
    static let seed: UInt64 = 20_261_122

    /// Checks `records` and reports mismatches grouped by mutation (value shown only when `showValues`).
    func check(_ records: [CorpusRecord], mutations: [String], showValues: Bool = true,
               validate: (String) -> ValidationResult) {
        var failures: [String: (count: Int, example: String)] = [:]
        for record in records {
            let codes = validate(record.value).codes
            guard codes != record.expect else { continue }
            let shown = showValues ? "\(record.value.debugDescription) " : ""
            let example = "\(shown)\(record.detail) expected \(record.expect) got \(codes)"
            failures[record.mutation, default: (0, example)].count += 1
        }
        for (mutation, failure) in failures.sorted(by: { $0.key < $1.key }) {
            Issue.record("\(mutation): \(failure.count) records wrong, e.g. \(failure.example)")
        }
        let seen = Set(records.map(\.mutation))
        for mutation in mutations where !seen.contains(mutation) {
            Issue.record("mutation \(mutation) never generated")
        }
    }

    @Test("display names: 30 000 records")
    func displayNames() throws {
        let validator = try #require(Validators.displayName)
        var corpus = DisplayNameCorpus(seed: Self.seed)
        check(corpus.records(30_000), mutations: DisplayNameCorpus.mutations.map(\.name)) { validator.validate($0) }
    }

    @Test("display names: the byte entry point agrees (20 000 records)")
    func displayNamesAsBytes() throws {
        let validator = try #require(Validators.displayName)
        var corpus = DisplayNameCorpus(seed: Self.seed + 1)
        let records = corpus.records(20_000).filter { !$0.value.unicodeScalars.contains("\0") }
        check(records, mutations: []) { name in
            var name = name
            return name.withUTF8 { validator.validate(utf8: UnsafeRawBufferPointer($0)) }
        }
    }

    @Test("emails: 20 000 records")
    func emails() throws {
        let validator = try #require(Validators.email)
        var corpus = EmailCorpus(seed: Self.seed)
        check(corpus.records(20_000), mutations: EmailCorpus.mutations.map(\.name)) { validator.validate($0) }
    }

    @Test("passwords: 5 000 records, checked with the corpus context; values never shown")
    func passwords() throws {
        let validator = try #require(Validators.password)
        var corpus = PasswordCorpus(seed: Self.seed)
        check(corpus.records(5_000), mutations: PasswordCorpus.mutations.map(\.name), showValues: false) {
            validator.validate($0, context: PasswordCorpus.context)
        }
    }

    @Test("the same seed gives the same records; another seed does not")
    func deterministic() {
        var first = EmailCorpus(seed: 7), second = EmailCorpus(seed: 7), other = EmailCorpus(seed: 8)
        let records = first.records(500)
        #expect(records == second.records(500))
        #expect(records != other.records(500))
        var names = DisplayNameCorpus(seed: 7), namesAgain = DisplayNameCorpus(seed: 7)
        #expect(names.records(500) == namesAgain.records(500))
    }

    @Test("the committed samples are what the generator writes for their seed")
    func samplesAreCurrent() throws {
        let samples: [(String, () -> [CorpusRecord])] = [  // passwords: 100, some are 4 KB long
            ("display-names", { var c = DisplayNameCorpus(seed: 1); return c.records(300) }),
            ("emails", { var c = EmailCorpus(seed: 1); return c.records(300) }),
            ("passwords", { var c = PasswordCorpus(seed: 1); return c.records(100) }),
        ]
        for (name, generate) in samples {
            let path = repoPath("corpus/generated-samples/\(name).jsonl")
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let expected = generate().map { $0.jsonLine + "\n" }.joined()
            #expect(text == expected, "\(path) is stale: regenerate it (docs/CORPORA.md, Samples) with --seed 1 --output \(path)`")
        }
    }

    @Test("JSONL lines escape controls and keep the label")
    func jsonLine() {
        let record = CorpusRecord(value: "a\u{0}\"b\n", mutation: "control-character", detail: "U+0000 at 1", expect: ["DN103"])
        #expect(record.jsonLine == #"{"value": "a\u0000\"b\n", "mutation": "control-character", "detail": "U+0000 at 1", "expect": ["DN103"]}"#)
        #expect(!record.fitsPlainLine)
    }
}
