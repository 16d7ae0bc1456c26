// `validate breached import FILE… --output STORE`: Pwned Passwords files into a store.
// Exit status: 0 done, 2 an input unreadable or malformed (or the store unwritable), 64 usage.
import ArgumentParser
import BatchValidation
import BreachedPasswords

/// `validate breached`.
struct BreachedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "breached",
        abstract: "Breached-password stores built from Pwned Passwords files.",
        subcommands: [BreachedImportCommand.self])
}

/// `validate breached import`.
struct BreachedImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import Pwned Passwords files (HEX40:COUNT lines) into a memory-mappable store.",
        discussion: """
            Lines are 40 hex digits in either case, a colon and a count, ended by LF or CRLF, in any \
            order; a hash given twice keeps its highest count. A malformed line stops the import \
            with its file:line (exit 2) and leaves nothing at --output. Exit status: 0 done, 2 an \
            input unreadable or malformed or the store unwritable, 64 usage error. See docs/CLI.md.
            """)

    @Argument(help: ArgumentHelp("Pwned Passwords files (regular files: each is read twice).", valueName: "FILE"))
    var files: [String] = []

    @Option(help: ArgumentHelp("Where to write the store (replaced only once it is complete).", valueName: "STORE"))
    var output: String

    @Option(help: "Bits of each hash kept: 160 (exact, the default) or 64 (smaller; false positives at about N / 2^64 per lookup).")
    var bits = 160

    @Flag(name: .shortAndLong, help: "No progress bar.")
    var quiet = false

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give at least one Pwned Passwords FILE to import") }
        guard bits == 160 || bits == 64 else { throw ValidationError("--bits must be 160 (exact) or 64, not \(bits)") }
    }

    func run() throws {
        let errors = OutputSink.standardError()
        let bar = !quiet && errors.isTerminal ? ProgressBar(sink: errors) : nil
        let summary: BreachedImport.Summary
        do throws(BreachedImportError) {
            summary = try BreachedImport(hashBits: bits).run(files: files, output: output) { done, total in
                bar?.update(name: "import", bytesDone: done, bytesTotal: total, records: done / 45)
            }
        } catch {
            bar?.finish()
            errors.write("validate: error: \(error)\n")
            throw ExitCode(2)
        }
        bar?.finish()
        let perHash = summary.hashes == 0 ? 0 : Double(summary.storeBytes) / Double(summary.hashes)
        let rounded = (perHash * 100).rounded() / 100
        OutputSink.standardOutput().write(
            "imported \(summary.lines) lines (\(summary.hashes) hashes) from \(files.count) file\(files.count == 1 ? "" : "s") into \(output): "
                + "\(summary.storeBytes) bytes, \(rounded) per hash, \(bits == 160 ? "exact" : "64 bits per hash")\n")
    }
}
