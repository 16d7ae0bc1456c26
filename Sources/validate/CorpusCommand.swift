// `validate corpus generate KIND`: write a labelled, deterministic corpus (docs/CORPORA.md).
import ArgumentParser
import BatchValidation
import CorpusGeneration
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `validate corpus`.
struct CorpusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "corpus",
        abstract: "Generate labelled test corpora.",
        subcommands: [CorpusGenerateCommand.self])
}

extension CorpusKind: ExpressibleByArgument {}
extension RulesRequestCorpus.Service: ExpressibleByArgument {}

/// `validate corpus generate`.
struct CorpusGenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write a labelled corpus: the same seed always writes the same bytes.",
        discussion: """
            display-names, emails, passwords: one record per value. --format jsonl (default) writes \
            {"value", "mutation", "detail", "expect": [codes]}; --format lines writes the bare values the \
            batch commands read (values holding a line break or NUL are left out). Check passwords with \
            --username corpus_user --email corpus.mail+signup@example.com --app-name RulesKit.
            rules-requests: a case file for `validate rules test` (--service firestore or storage).
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case jsonl, lines }

    @Argument(help: ArgumentHelp("What to generate: \(CorpusKind.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "KIND"))
    var kind: CorpusKind
    @Option(help: "How many records (or rules requests).")
    var count: Int
    @Option(help: "The seed: the same seed always gives the same corpus.")
    var seed: UInt64 = 1
    @Option(help: "Write to FILE instead of standard output.")
    var output: String?
    @Option(help: "jsonl (labelled records) or lines (bare values).")
    var format: Format = .jsonl
    @Option(help: "rules-requests only: firestore or storage.")
    var service: RulesRequestCorpus.Service = .firestore
    @Option(help: ArgumentHelp("rules-requests only: the case file's `rules` entry, relative to the case file (default: the absolute path of rules/SERVICE.rules in the current directory).", valueName: "PATH"))
    var rules: String?

    func validate() throws {
        guard count >= 0 else { throw ValidationError("--count must be 0 or more, found \(count)") }
        if kind == .rulesRequests, format == .lines { throw ValidationError("rules-requests are written as a case file; --format lines does not apply") }
        if kind != .rulesRequests, rules != nil { throw ValidationError("--rules only applies to rules-requests") }
    }

    func run() throws {
        let sink: OutputSink
        do { sink = try output.map(OutputSink.file) ?? .standardOutput() } catch {
            // The arguments are well-formed; the place they name cannot be written (exit 2).
            printError("validate: error: cannot write the corpus: \(error.description)")
            throw ExitCode(2)
        }
        switch kind {
        case .displayNames: var corpus = DisplayNameCorpus(seed: seed); write(&corpus, to: sink)
        case .emails: var corpus = EmailCorpus(seed: seed); write(&corpus, to: sink)
        case .passwords: var corpus = PasswordCorpus(seed: seed); write(&corpus, to: sink)
        case .rulesRequests:
            var corpus = RulesRequestCorpus(seed: seed, service: service)
            let cases = corpus.cases(count)
            sink.write(RulesRequestCorpus.caseFile(rules: rules ?? defaultRules(), service: service, cases: cases))
        }
        if let failure = sink.failure {
            OutputSink.standardError().write("validate: cannot write \(sink.name): \(failure)\n")
            throw ExitCode(2)
        }
    }

    /// Streams records in batches so a million of them never sit in memory at once.
    private func write<C: FieldCorpus>(_ corpus: inout C, to sink: OutputSink) {
        var remaining = count
        while remaining > 0, sink.failure == nil {
            let batch = corpus.records(min(remaining, 10_000))
            remaining -= batch.count
            var text = ""
            for record in batch {
                switch format {
                case .jsonl: text += record.jsonLine + "\n"
                case .lines where record.fitsPlainLine: text += record.value + "\n"
                case .lines: continue
                }
            }
            sink.write(text)
        }
    }

    private func defaultRules() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let directory = getcwd(&buffer, buffer.count) == nil ? "."
            : String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return directory + "/rules/\(service.rawValue).rules"
    }
}
