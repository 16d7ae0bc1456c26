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
        static let configuration = CommandConfiguration(abstract: "Say whether names are available (advisory: the claim decides).")
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
        @Option(help: ArgumentHelp("Batch input format: jsonl (one {\"name\": …, \"user\": …} object per line).", valueName: "FORMAT"))
        var input: NamesInputFormat?

        func validate() throws {
            switch (input, user) {
            case (nil, nil): throw ValidationError("claim needs --user UID (or --input jsonl FILE for a batch)")
            case (.some, .some): throw ValidationError("--user and --input cannot be combined: a batch names each record's user")
            default: break
            }
        }

        func run() throws {
            if input == nil, let user {
                let name = argument
                let format = options.format
                try options.refuseInvalid(user: user, name: name)
                try options.withStore { store in
                    let outcome = try await store.claim(name, by: user)
                    NamesOutput.write(.claim(outcome, record: 1), format)
                    return outcome.succeeded ? 0 : 1
                }
                return
            }
            let records: [BatchRecord]
            do {
                records = try BatchRecord.read(argument)
            } catch {
                FileHandle.standardError.write(Data("validate: error: \(error)\n".utf8))
                throw ExitCode(2)
            }
            let format = options.format
            // A store that cannot be opened: every record is reported, none attempted.
            let unopened: @Sendable (ClaimStoreError) -> Void = { error in
                let policy = try? AppDisplayNamePolicy()
                for (index, record) in records.enumerated() {
                    let outcome = switch record {
                    case .claim(let name, _):
                        ClaimOutcome(name: name, key: policy?.evaluate(name).key ?? "", claimed: false, owner: nil,
                                     problems: [.notAttempted(stoppedAt: nil, by: error)])
                    case .malformed(let problem):
                        ClaimOutcome(name: "", key: "", claimed: false, owner: nil, problems: [problem])
                    }
                    NamesOutput.write(.claim(outcome, record: index + 1), format)
                }
            }
            try options.withStore(unopened: unopened) { store in
                // After a store fault no further record is sent: each is reported as not attempted
                // (AV3016), so the output keeps one row per input. A faulted record is never
                // reported claimed: its outcome is unknown or nothing was committed.
                var refused = false
                var fault: (record: Int, error: ClaimStoreError)?
                for (index, record) in records.enumerated() {
                    let outcome: ClaimOutcome
                    switch record {
                    case .claim(let name, let user):
                        let key = store.policy.evaluate(name).key
                        if let fault {
                            outcome = ClaimOutcome(name: name, key: key, claimed: false, owner: nil,
                                                   problems: [.notAttempted(stoppedAt: fault.record, by: fault.error)])
                            break
                        }
                        do throws(ClaimStoreError) {
                            outcome = try await store.claim(name, by: user)
                        } catch {
                            fault = (index + 1, error)
                            NamesOptions.printError(error, record: index + 1)
                            outcome = ClaimOutcome(name: name, key: key, claimed: false, owner: nil, problems: [.fault(error)])
                        }
                    case .malformed(let problem):
                        outcome = ClaimOutcome(name: "", key: "", claimed: false, owner: nil, problems: [problem])
                    }
                    refused = refused || !outcome.succeeded
                    NamesOutput.write(.claim(outcome, record: index + 1), format)
                }
                return fault != nil ? 2 : refused ? 1 : 0
            }
        }
    }

    /// `validate names release NAME --user UID`.
    struct Release: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Release a name the user holds.")
        @OptionGroup var options: NamesOptions
        @Argument(help: ArgumentHelp("The name to release.", valueName: "NAME")) var name: String
        @Option(help: ArgumentHelp("The user id holding the name.", valueName: "UID")) var user: String

        func run() throws {
            let (name, user) = (name, user)
            let format = options.format
            try options.refuseInvalid(user: user, name: name)
            try options.withStore { store in
                let outcome = try await store.release(name, by: user)
                NamesOutput.write(.claim(outcome, record: 1), format)
                return outcome.succeeded ? 0 : 1
            }
        }
    }

    /// `validate names rename OLD NEW --user UID`.
    struct Rename: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Atomically release OLD and claim NEW for the user.")
        @OptionGroup var options: NamesOptions
        @Argument(help: ArgumentHelp("The name the user holds.", valueName: "OLD")) var old: String
        @Argument(help: ArgumentHelp("The name to take instead.", valueName: "NEW")) var new: String
        @Option(help: ArgumentHelp("The user id holding OLD.", valueName: "UID")) var user: String

        func run() throws {
            let (old, new, user) = (old, new, user)
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

/// Batch input formats for `names claim --input`.
enum NamesInputFormat: String, ExpressibleByArgument, CaseIterable {
    case jsonl
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
        let place = record.map { "record \($0): " } ?? ""
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

/// One record of a `names claim --input jsonl` batch.
enum BatchRecord {
    case claim(name: String, user: String)
    case malformed(ClaimProblem)

    /// Reads a JSONL file (`-` for stdin): one `{"name": …, "user": …}` object per line. Every
    /// line is a record, so record N is line N: a blank or malformed line becomes a refused
    /// record (`CLI2001`); only the empty piece after a final line feed is not a line. The user
    /// is checked by the store (`AV1008` for an empty one).
    static func read(_ path: String) throws -> [BatchRecord] {
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
        return lines.map { line in
            let trimmed = line.last == UInt8(ascii: "\r") ? line.dropLast() : line[...]
            guard trimmed.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) else {
                return .malformed(ClaimProblem(code: "CLI2001", message: "the line is blank; expected a JSON object with string fields `name` and `user`"))
            }
            guard let object = try? JSONSerialization.jsonObject(with: Data(trimmed)) as? [String: Any],
                  let name = object["name"] as? String, let user = object["user"] as? String else {
                return .malformed(ClaimProblem(code: "CLI2001", message: "expected a JSON object with string fields `name` and `user`"))
            }
            return .claim(name: name, user: user)
        }
    }
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
