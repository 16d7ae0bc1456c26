// The options every field subcommand shares, and the run that turns them into a batch job.
import ArgumentParser
import BatchValidation
import FieldCheckers
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension InputFormat: ExpressibleByArgument {}
extension OutputFormat: ExpressibleByArgument {}
extension RecordFilter: ExpressibleByArgument {}

/// Options shared by `email`, `password` and `display-name`.
struct BatchOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("Input files; stdin when none or `-`.", valueName: "FILE"))
    var files: [String] = []

    @Option(help: "How records are laid out: lines, csv (header row) or jsonl.")
    var input: InputFormat = .lines

    @Option(help: ArgumentHelp("The field to check: a CSV header name or 1-based column, or a JSONL key (dotted paths like user.email).", valueName: "NAME"))
    var field: String?

    @Option(help: "Output: text, jsonl, csv, summary or summary-json.")
    var format: OutputFormat = .text

    @Option(help: "Write only invalid or only valid records (summaries still count all).")
    var only: RecordFilter = .all

    @Option(help: ArgumentHelp("Write the output to this file instead of stdout.", valueName: "FILE"))
    var output: String?

    @Option(help: ArgumentHelp("Load extra or overriding rule packs from this directory.", valueName: "DIR"))
    var rules: String?

    @Option(name: .customLong("max-line-bytes"), help: "Longest record accepted, in bytes (longer ones are reported as input.too-long).")
    var maxLineBytes: Int = 1 << 20

    @Flag(name: .customLong("fail-fast"), help: "Stop at the first invalid record.")
    var failFast = false

    @Flag(name: .shortAndLong, help: "No progress bar.")
    var quiet = false

    @Option(help: "Threads checking records, the one reading and writing among them: 1 to \(BatchConfiguration.maxJobs) (default: all cores).")
    var jobs: Int = BatchConfiguration.activeCores

    @Flag(name: .customLong("explain-plan"), help: "Print how each rule is decided (automata, PCRE2, lengths, lists, Swift rules) and exit.")
    var explainPlan = false

    func check(for kind: FieldKind) throws {
        guard (1...BatchConfiguration.maxJobs).contains(jobs) else {
            throw ValidationError("--jobs must be from 1 to \(BatchConfiguration.maxJobs), not \(jobs)")
        }
        guard maxLineBytes >= 1 else { throw ValidationError("--max-line-bytes must be at least 1, not \(maxLineBytes)") }
        switch input {
        case .lines:
            if field != nil { throw ValidationError("--field needs --input csv or jsonl") }
        case .jsonl:
            guard let field else { throw ValidationError("--input jsonl needs --field NAME") }
            if case .column = FieldSelector(field) { throw ValidationError("--input jsonl needs a field name, not a column number") }
        case .csv:
            break
        }
    }

    /// Runs the batch job and exits with its status (0 all valid, 1 some invalid, 2 unreadable).
    func run(_ kind: FieldKind, context: PasswordContextOptions? = nil, appName: String? = nil,
             options: CheckerOptions = CheckerOptions()) throws {
        let errors = OutputSink.standardError()
        if explainPlan {
            do {
                OutputSink.standardOutput().write(try FieldCheckers.plan(kind, rulesDirectory: rules, appName: appName ?? context?.appName,
                                                                         options: options).description)
                return
            } catch {
                errors.write("validate: error: \(error)\n")
                throw ExitCode(2)
            }
        }
        let checker: any FieldChecker
        do {
            // The mailbox key costs a provider lookup per address: built only for JSONL, which shows it.
            checker = try FieldCheckers.make(kind, rulesDirectory: rules, appName: appName ?? context?.appName,
                                             strength: context?.strength ?? false, mailboxKeys: format == .jsonl,
                                             options: options)
        } catch {
            errors.write("validate: error: \(error)\n")
            throw ExitCode(2)
        }
        let sink: OutputSink
        if let output, let input = files.first(where: { sameFile($0, output) }) {
            errors.write("validate: error: --output \(output) is the input \(input); it would be overwritten before it is read\n")
            throw ExitCode(2)
        }
        if let output {
            do { sink = try OutputSink.file(output) } catch {
                errors.write("validate: error: cannot write \(error)\n")
                throw ExitCode(2)
            }
        } else {
            sink = .standardOutput()
        }
        let inputs = files.isEmpty ? [InputSpec.stdin] : files.map(InputSpec.init(path:))
        let noColor = getenv("NO_COLOR").map { String(cString: $0).isEmpty == false } ?? false
        let writer = WriterOptions(
            format: format, only: only, isSecret: kind == .password, includesKey: kind == .displayName,
            color: format == .text && output == nil && sink.isTerminal && !noColor,
            showsFile: inputs.count > 1, includesStrength: context?.strength ?? false)
        let selector = { (text: String?) in text.map(FieldSelector.init) }
        let configuration = BatchConfiguration(
            input: input,
            fields: FieldSelection(value: selector(field), username: selector(context?.usernameField),
                                   email: selector(context?.emailField), appName: selector(context?.appNameField),
                                   confirmation: selector(context?.confirmField), userInputs: selector(context?.userInputsField)),
            fixedContext: RecordContext(username: context?.username, email: context?.email, appName: context?.appName),
            writer: writer, failFast: failFast, maxRecordBytes: maxLineBytes, jobs: jobs,
            showsProgress: !quiet && errors.isTerminal)
        let report = BatchRunner(configuration: configuration, checker: checker, output: sink, errors: errors).run(inputs)
        if report.exitStatus != 0 { throw ExitCode(report.exitStatus) }
    }
}

/// Whether two paths name the same existing file (same device and inode).
private func sameFile(_ first: String, _ second: String) -> Bool {
    guard first != "-" else { return false }
    var a = stat(), b = stat()
    guard stat(first, &a) == 0, stat(second, &b) == 0 else { return false }
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino
}
