// `validate names …`: display-name availability and claims against a SQLite file or PostgreSQL.
// Exit status: 0 done, 1 some claim/release/rename refused (or, for check, some name not
// available), 2 a store fault (unreachable, read-only, full, locked, …) or input unreadable,
// 64 usage.
import ArgumentParser
import Availability
import ClaimStoreLocations
import Diagnostics
import Foundation
import RulesKit

/// `validate names`: check, claim, release and rename display names.
struct NamesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "names",
        abstract: "Check, claim, release and rename display names in a claims store.",
        discussion: """
            Exit status: 0 done, 1 some request refused (check: some name not available), \
            2 a store fault (unreachable, read-only, full, locked, …; a batch reports each record \
            not attempted) or input unreadable, 64 usage error.
            """,
        subcommands: [Check.self, ClaimNames.self, Release.self, Rename.self])

    /// `validate names check NAME…`.
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check", abstract: "Say whether names are available (advisory: the claim decides).")
        @OptionGroup var options: NamesOptions
        @Argument(help: ArgumentHelp("Names to check.", valueName: "NAME")) var names: [String]

        func validate() throws {
            if names.isEmpty { throw ValidationError("give at least one NAME to check") }
        }

        func run() throws {
            let names = names
            let format = options.format
            try options.withStore { store in
                var allAvailable = true
                for (index, name) in names.enumerated() {
                    let answer = try await store.availability(of: name)
                    allAvailable = allAvailable && answer.isAvailable
                    NamesOutput.write(.check(answer, record: index + 1), format)
                }
                return allAvailable ? 0 : 1
            }
        }
    }

    /// `validate names claim NAME --user UID` or `validate names claim --input jsonl FILE`.
    struct ClaimNames: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "claim",
            abstract: "Claim a name for a user, or a batch of {\"name\", \"user\"} records.")
        @OptionGroup var options: NamesOptions
        @Argument(help: ArgumentHelp("The name to claim (or, with --input, the JSONL file; `-` for stdin).", valueName: "NAME|FILE"))
        var argument: String
        @Option(help: ArgumentHelp("The user id claiming the name.", valueName: "UID")) var user: String?
        @OptionGroup var batch: NamesBatchOptions

        func validate() throws {
            try batch.check(user: user, verb: "claim", record: "{\"name\", \"user\"}")
        }

        func run() throws {
            guard batch.input == nil, let user else {
                return try NamesBatch.run(.claim, file: argument, options: options, batchSize: batch.batchSize)
            }
            let name = argument
            let format = options.format
            try options.refuseInvalid(user: user, name: name)
            try options.withStore { store in
                let outcome = try await store.claim(name, by: user)
                NamesOutput.write(.claim(outcome, record: 1), format)
                return outcome.succeeded ? 0 : 1
            }
        }
    }

    /// `validate names release NAME --user UID` or `validate names release --input jsonl FILE`.
    struct Release: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "release",
            abstract: "Release a name the user holds, or a batch of {\"name\", \"user\"} records.")
        @OptionGroup var options: NamesOptions
        @Argument(help: ArgumentHelp("The name to release (or, with --input, the JSONL file; `-` for stdin).", valueName: "NAME|FILE"))
        var name: String
        @Option(help: ArgumentHelp("The user id holding the name.", valueName: "UID")) var user: String?
        @OptionGroup var batch: NamesBatchOptions

        func validate() throws {
            try batch.check(user: user, verb: "release", record: "{\"name\", \"user\"}")
        }

        func run() throws {
            guard batch.input == nil, let user else {
                return try NamesBatch.run(.release, file: name, options: options, batchSize: batch.batchSize)
            }
            let name = name
            let format = options.format
            try options.refuseInvalid(user: user, name: name)
            try options.withStore { store in
                let outcome = try await store.release(name, by: user)
                NamesOutput.write(.claim(outcome, record: 1), format)
                return outcome.succeeded ? 0 : 1
            }
        }
    }

    /// `validate names rename OLD NEW --user UID` or `validate names rename --input jsonl FILE`.
    struct Rename: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rename",
            abstract: "Atomically release OLD and claim NEW for the user, or a batch of {\"from\", \"to\", \"user\"} records.")
        @OptionGroup var options: NamesOptions
        @Argument(help: ArgumentHelp("The name the user holds (or, with --input, the JSONL file; `-` for stdin).", valueName: "OLD|FILE"))
        var old: String
        @Argument(help: ArgumentHelp("The name to take instead (not with --input).", valueName: "NEW")) var new: String?
        @Option(help: ArgumentHelp("The user id holding OLD.", valueName: "UID")) var user: String?
        @OptionGroup var batch: NamesBatchOptions

        func validate() throws {
            try batch.check(user: user, verb: "rename", record: "{\"from\", \"to\", \"user\"}")
            switch (batch.input, new) {
            case (nil, nil): throw ValidationError("rename needs OLD and NEW (or --input jsonl FILE for a batch)")
            case (.some, .some): throw ValidationError("with --input, give only the FILE: each record names `from` and `to`")
            default: break
            }
        }

        func run() throws {
            guard batch.input == nil, let user, let new else {
                return try NamesBatch.run(.rename, file: old, options: options, batchSize: batch.batchSize)
            }
            let old = old
            let format = options.format
            try options.refuseInvalid(user: user, name: new)
            try options.withStore { store in
                let outcome = try await store.rename(from: old, to: new, by: user)
                NamesOutput.write(.claim(outcome, record: 1), format)
                return outcome.succeeded ? 0 : 1
            }
        }
    }
}

/// Batch input formats for `names claim|release|rename --input`.
enum NamesInputFormat: String, ExpressibleByArgument, CaseIterable {
    case jsonl
}

/// `--input` and `--batch-size`, shared by `names claim`, `release` and `rename`.
struct NamesBatchOptions: ParsableArguments {
    /// The default for `--batch-size` (chosen by measurement: docs/BENCHMARKS.md, "Batch claims").
    static let defaultBatchSize = 5_000
    /// The largest `--batch-size`.
    static let maxBatchSize = 50_000

    @Option(help: ArgumentHelp("Batch input format: jsonl (one JSON object per line: {\"name\": …, \"user\": …}; rename: {\"from\": …, \"to\": …, \"user\": …}).", valueName: "FORMAT"))
    var input: NamesInputFormat?

    @Option(name: .customLong("batch-size"), help: ArgumentHelp("With --input: records per transaction (1 = one transaction per record).", valueName: "N"))
    var batchSize: Int = defaultBatchSize

    /// Checks the combination: `--user` for one request, `--input` for a batch, never both.
    func check(user: String?, verb: String, record: String) throws {
        switch (input, user) {
        case (nil, nil): throw ValidationError("\(verb) needs --user UID (or --input jsonl FILE for a batch of \(record) records)")
        case (.some, .some): throw ValidationError("--user and --input cannot be combined: a batch names each record's user")
        default: break
        }
        guard (1...Self.maxBatchSize).contains(batchSize) else {
            throw ValidationError("--batch-size must be between 1 and \(Self.maxBatchSize), not \(batchSize)")
        }
    }
}

/// Output formats for `names`.
enum NamesOutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, jsonl
}

/// Options every `names` subcommand shares.
struct NamesOptions: ParsableArguments {
    @Option(help: ArgumentHelp("sqlite:PATH or postgres://USER:PASSWORD@HOST:PORT/DATABASE[?sslmode=…&schema=…].", valueName: "STORE"))
    var store = "sqlite:./names.sqlite"

    @Option(help: "Output: text or jsonl (one object per name, in input order).")
    var format: NamesOutputFormat = .text

    @Option(name: .customLong("connect-timeout"), help: ArgumentHelp("PostgreSQL: seconds to wait for the first connection.", valueName: "SECONDS"))
    var connectTimeout: Int = 10

    func validate() throws {
        guard connectTimeout >= 1 else { throw ValidationError("--connect-timeout must be at least 1 second, not \(connectTimeout)") }
    }

    /// Refuses a `--user` that cannot act on claims (empty, control characters) as every store
    /// would, with its `AV1008` row and exit 1, before the store is opened.
    ///
    /// - Parameter name: The name the request is about (the row's name and key).
    func refuseInvalid(user: String, name: String) throws {
        guard UserID.problem(user) != nil else { return }
        let key = (try? AppDisplayNamePolicy())?.evaluate(name).key ?? ""
        if let refusal = ClaimVerdict.refusing(user: user, name: name, key: key) {
            NamesOutput.write(.claim(refusal, record: 1), format)
        }
        throw ExitCode(1)
    }

    /// Opens the store, runs `body`, and exits with the status it returns; a store that cannot be
    /// opened or reached exits 2, a malformed `--store` exits 64.
    ///
    /// - Parameters:
    ///   - unopened: Called with the error when the store cannot be opened (a batch reports its
    ///     records as not attempted); not called for a malformed `--store`.
    ///   - body: The work; returns the exit status.
    func withStore(unopened: (@Sendable (ClaimStoreError) -> Void)? = nil,
                   _ body: @escaping @Sendable (any ClaimStore) async throws -> Int32) throws {
        let spec = store
        let timeout = Duration.seconds(connectTimeout)
        let status: Int32 = waitFor {
            let opened: any ClaimStore
            do throws(ClaimStoreError) {
                opened = try await ClaimStoreLocation.open(spec, connectTimeout: timeout)
            } catch {
                if error.kind != .badLocation { unopened?(error) }
                return Self.report(error)
            }
            defer { ClaimStoreLocation.close(opened) }
            do {
                return try await body(opened)
            } catch {
                return Self.report(error)
            }
        }
        if status != 0 { throw ExitCode(status) }
    }

    /// Prints a store error (never a password: locations print without it) and picks the exit
    /// status: 64 for a malformed `--store`, 2 for every store fault.
    private static func report(_ error: any Error) -> Int32 {
        let error = error as? ClaimStoreError ?? ClaimStoreError(.failed, "unexpected \(type(of: error)); please report it")
        printError(error, record: nil)
        return error.kind == .badLocation ? 64 : 2
    }

    /// Writes `validate: error[CODE]: message` (with the batch record when there is one) and a
    /// `help:` line to stderr.
    static func printError(_ error: ClaimStoreError, record: Int?) {
        printError(error, records: record.map { $0...$0 })
    }

    /// As ``printError(_:record:)``, naming the batch records the fault met (`records 101–600`).
    static func printError(_ error: ClaimStoreError, records: ClosedRange<Int>?) {
        let place = records.map { $0.count == 1 ? "record \($0.lowerBound): " : "records \($0.lowerBound)–\($0.upperBound): " } ?? ""
        FileHandle.standardError.write(Data("validate: \(place)\(error)\nhelp: \(error.help)\n".utf8))
    }
}

/// One result line of `names`, in text or JSON (shapes fixed by issue 5).
enum NamesOutput {
    case check(NameAvailability, record: Int)
    case claim(ClaimOutcome, record: Int)

    /// Writes one result line to stdout.
    static func write(_ output: NamesOutput, _ format: NamesOutputFormat) {
        let line = format == .jsonl ? output.json : output.text
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Result lines gathered and written to stdout together (one write per batch).
    struct Buffer {
        let format: NamesOutputFormat
        private var bytes: [UInt8] = []

        init(_ format: NamesOutputFormat) { self.format = format }

        /// True when enough is gathered to be worth writing.
        var isFull: Bool { bytes.count >= 1 << 16 }

        mutating func append(_ output: NamesOutput) {
            bytes.append(contentsOf: (format == .jsonl ? output.json : output.text).utf8)
            bytes.append(UInt8(ascii: "\n"))
        }

        mutating func flush() {
            guard !bytes.isEmpty else { return }
            FileHandle.standardOutput.write(Data(bytes))
            bytes.removeAll(keepingCapacity: true)
        }
    }

    /// `{"record", "name", "key", "available"}` or `{"record", "name", "key", "claimed", "owner", "errors"}`.
    var json: String {
        switch self {
        case .check(let answer, let record):
            return "{\"record\": \(record), \"name\": \(jsonString(answer.name)), \"key\": \(jsonString(answer.key)), \"available\": \(answer.isAvailable)}"
        case .claim(let outcome, let record):
            let owner = outcome.owner.map(jsonString) ?? "null"
            let errors = outcome.problems.map { "{\"code\": \(jsonString($0.code)), \"message\": \(jsonString($0.message))}" }
            return "{\"record\": \(record), \"name\": \(jsonString(outcome.name)), \"key\": \(jsonString(outcome.key)), "
                + "\"claimed\": \(outcome.claimed), \"owner\": \(owner), \"errors\": [\(errors.joined(separator: ", "))]}"
        }
    }

    /// One human-readable line (a refusal adds one indented line per problem). Names, owners and
    /// messages are shown with ``escaped(_:)``, so no input reaches the terminal as a control
    /// sequence.
    var text: String {
        switch self {
        case .check(let answer, _):
            let verdict = answer.isAvailable ? "available" : (answer.problems.isEmpty ? "taken" : "not available")
            return ([Self.escaped(answer.name) + ": " + verdict] + answer.problems.map { "  \($0.code): \(Self.escaped($0.message))" })
                .joined(separator: "\n")
        case .claim(let outcome, _):
            let name = Self.escaped(outcome.name)
            guard outcome.succeeded else {
                let verdict = outcome.problems.contains { $0.code.hasPrefix("AV30") } ? "not done" : "refused"
                return (["\(name): \(verdict)"] + outcome.problems.map { "  \($0.code): \(Self.escaped($0.message))" }).joined(separator: "\n")
            }
            return outcome.claimed ? "\(name): held by \(Self.escaped(outcome.owner ?? ""))" : "\(name): released"
        }
    }

    /// `text` with control characters (Unicode `Cc`: C0, DEL, C1), line and paragraph separators
    /// and bidirectional controls written as `\u{XXXX}`, and `\` as `\\`, so that the line
    /// shows what the text holds and cannot move the cursor, recolour or reorder the terminal.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0 == "\\" || needsEscape($0) }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar == "\\" {
                out += "\\\\"
            } else if needsEscape(scalar) {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\u{" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return true
        default: return (0x200E...0x200F).contains(scalar.value) || (0x202A...0x202E).contains(scalar.value)
            || (0x2066...0x2069).contains(scalar.value)
        }
    }
}

/// What a `names … --input jsonl` batch asks of the store.
enum NamesBatchKind: Sendable {
    case claim, release, rename

    /// What a malformed line is told it should have been.
    var expected: String {
        switch self {
        case .claim, .release: "expected a JSON object with string fields `name` and `user`"
        case .rename: "expected a JSON object with string fields `from`, `to` and `user`"
        }
    }
}

/// One record of a `names claim|release|rename --input jsonl` batch.
enum BatchRecord: Sendable {
    /// A claim or release.
    case name(NameRequest)
    /// A rename.
    case rename(RenameRequest)
    /// A line that is not a record; never sent to the store.
    case malformed(ClaimProblem)

    /// The name the record's row shows (a rename's new name), and its key.
    func row(_ policy: any DisplayNamePolicy) -> (name: String, key: String) {
        switch self {
        case .name(let request): (request.name, policy.evaluate(request.name).key)
        case .rename(let request): (request.new, policy.evaluate(request.new).key)
        case .malformed: ("", "")
        }
    }

    /// Reads one line of a batch: a JSON object with string fields `name` and `user` (rename:
    /// `from`, `to` and `user`); other members are ignored. A blank or malformed line is a
    /// refused record (`CLI2001`). The user is checked by the store (`AV1008`).
    static func parse(_ line: Data.SubSequence, as kind: NamesBatchKind) -> BatchRecord {
        let trimmed = line.last == UInt8(ascii: "\r") ? line.dropLast() : line[...]
        guard trimmed.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) else {
            return .malformed(ClaimProblem(code: "CLI2001", message: "the line is blank; \(kind.expected)"))
        }
        let object = try? JSONSerialization.jsonObject(with: Data(trimmed)) as? [String: Any]
        switch kind {
        case .claim, .release:
            if let name = object?["name"] as? String, let user = object?["user"] as? String {
                return .name(NameRequest(name: name, user: user))
            }
        case .rename:
            if let old = object?["from"] as? String, let new = object?["to"] as? String, let user = object?["user"] as? String {
                return .rename(RenameRequest(old: old, new: new, user: user))
            }
        }
        return .malformed(ClaimProblem(code: "CLI2001", message: kind.expected))
    }

    /// The lines of a JSONL file (`-` for stdin). Every line is a record, so record N is line N;
    /// only the empty piece after a final line feed is not a line.
    static func lines(_ path: String) throws -> [Data.SubSequence] {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw ClaimStoreError(.unreachable, "cannot read `\(path)`")
            }
            data = contents
        }
        var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }
}

/// Runs `names claim|release|rename --input jsonl FILE`.
///
/// Records go to the store in batches of `--batch-size`, each decided in one transaction
/// (``ClaimStore/claim(batch:)``) exactly as one request per record in input order would be,
/// and each batch's rows are written once it has committed, so `"claimed": true` is only ever
/// printed for a committed claim. When the store fails, every record of the failed transaction
/// gets a row with the fault's code (none of them is committed; after a lost connection, whether
/// it committed is unknown), no further record is sent, and each later record gets `AV3016` (not
/// attempted): the output keeps one row per input, in input order.
enum NamesBatch {
    static func run(_ kind: NamesBatchKind, file: String, options: NamesOptions, batchSize: Int) throws {
        let lines: [Data.SubSequence]
        do {
            lines = try BatchRecord.lines(file)
        } catch {
            FileHandle.standardError.write(Data("validate: error: \(error)\n".utf8))
            throw ExitCode(2)
        }
        let format = options.format
        // A store that cannot be opened: every record is reported, none attempted.
        let unopened: @Sendable (ClaimStoreError) -> Void = { error in
            let policy = (try? AppDisplayNamePolicy()).map { $0 as any DisplayNamePolicy } ?? KeylessPolicy()
            var output = NamesOutput.Buffer(format)
            for (index, line) in lines.enumerated() {
                let record = BatchRecord.parse(line, as: kind)
                let outcome: ClaimOutcome
                if case .malformed(let problem) = record {
                    outcome = ClaimOutcome(name: "", key: "", claimed: false, owner: nil, problems: [problem])
                } else {
                    let row = record.row(policy)
                    outcome = ClaimOutcome(name: row.name, key: row.key, claimed: false, owner: nil,
                                           problems: [.notAttempted(stoppedAt: nil, by: error)])
                }
                output.append(.claim(outcome, record: index + 1))
                if output.isFull { output.flush() }
            }
            output.flush()
        }
        try options.withStore(unopened: unopened) { store in
            var refused = false
            var fault: (record: Int, error: ClaimStoreError)?
            var output = NamesOutput.Buffer(format)
            for start in stride(from: 0, to: lines.count, by: batchSize) {
                let end = min(start + batchSize, lines.count)
                let records = lines[start..<end].map { BatchRecord.parse($0, as: kind) }
                var outcomes = [ClaimOutcome?](repeating: nil, count: records.count)
                // The records the store is asked about, by their index in `records`.
                let sent = records.indices.filter { if case .malformed = records[$0] { false } else { true } }
                if fault == nil, !sent.isEmpty {
                    let batch = await Self.send(kind, sent.map { records[$0] }, to: store)
                    for (position, outcome) in batch.outcomes.enumerated() { outcomes[sent[position]] = outcome }
                    if let failed = batch.fault {
                        let first = start + sent[failed.records.lowerBound] + 1
                        let last = start + sent[failed.records.upperBound - 1] + 1
                        NamesOptions.printError(failed.error, records: first...last)
                        fault = (first, failed.error)
                        for position in failed.records {
                            let row = records[sent[position]].row(store.policy)
                            outcomes[sent[position]] = ClaimOutcome(name: row.name, key: row.key, claimed: false, owner: nil,
                                                                    problems: [.fault(failed.error)])
                        }
                    }
                }
                for (index, record) in records.enumerated() {
                    let outcome: ClaimOutcome
                    if let decided = outcomes[index] {
                        outcome = decided
                    } else if case .malformed(let problem) = record {
                        outcome = ClaimOutcome(name: "", key: "", claimed: false, owner: nil, problems: [problem])
                    } else {
                        // INVARIANT: a record without an outcome was not sent because of a fault.
                        let row = record.row(store.policy)
                        let cause = fault ?? (0, ClaimStoreError(.failed, "the store decided too few records; please report it"))
                        outcome = ClaimOutcome(name: row.name, key: row.key, claimed: false, owner: nil,
                                               problems: [.notAttempted(stoppedAt: cause.record, by: cause.error)])
                    }
                    refused = refused || !outcome.succeeded
                    output.append(.claim(outcome, record: start + index + 1))
                }
                output.flush()
            }
            return fault != nil ? 2 : refused ? 1 : 0
        }
    }

    /// Sends one batch's records (none malformed) to the store.
    private static func send(_ kind: NamesBatchKind, _ records: [BatchRecord], to store: any ClaimStore) async -> BatchOutcome {
        switch kind {
        case .claim, .release:
            let requests = records.compactMap { if case .name(let request) = $0 { request } else { nil } }
            return kind == .claim ? await store.claim(batch: requests) : await store.release(batch: requests)
        case .rename:
            return await store.rename(batch: records.compactMap { if case .rename(let request) = $0 { request } else { nil } })
        }
    }
}

/// The key of every name is the name itself: only used when the shipped rules do not load
/// (which `ClaimStoreLocation.open` reports on its own).
private struct KeylessPolicy: DisplayNamePolicy {
    func evaluate(_ name: String) -> NameEvaluation { NameEvaluation(key: "") }
}

/// Runs async work from a synchronous command (the root command is synchronous) and waits.
func waitFor(_ body: @escaping @Sendable () async -> Int32) -> Int32 {
    let box = StatusBox()
    let done = DispatchSemaphore(value: 0)
    Task {
        box.status = await body()
        done.signal()
    }
    done.wait()
    return box.status
}

/// Carries the status from the task to the waiting thread (the semaphore orders the accesses).
private final class StatusBox: @unchecked Sendable {
    var status: Int32 = 2
}
