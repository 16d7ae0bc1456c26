// `validate rules diff`: does a change to rules grant anyone new access? Prove it, or show a request.
import ArgumentParser
import DatabaseRules
import Diagnostics
import Foundation
import RulesLanguage
import RulesLoading
import RulesVerification

/// `validate rules diff OLD NEW | --base GITREF FILE… [--format text|json|sarif] [--timeout SECONDS]`.
struct RulesDiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Prove that a change to rules grants no new access, or show a request it newly allows.",
        usage: """
            validate rules diff OLD NEW [--format text|json|sarif] [--timeout SECONDS]
            validate rules diff --base GITREF FILE... [--format text|json|sarif] [--timeout SECONDS]
            """,
        discussion: """
            Each method on each match pattern of either file (Realtime Database rules: read and write \
            on each path pattern of either rule tree) is compared: equivalent, narrower (only \
            newly denied requests), wider (newly allowed requests), incomparable (both) or unknown. \
            Every witness replays through the evaluator on both files. With --base, OLD is each FILE \
            at GITREF (`git show GITREF:FILE`); a FILE absent there is compared against rules that \
            deny everything. See docs/VERIFICATION.md. Exit status: 0 no new access (equivalent or \
            narrower), 1 new access (wider or incomparable), 2 when a file cannot be used, 3 when \
            undecided, 64 on usage errors.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, sarif
    }

    @Option(help: ArgumentHelp("Compare each FILE with its version at this git revision.", valueName: "GITREF"))
    var base: String?

    @Argument(help: ArgumentHelp("OLD and NEW rules files; with --base, the files to compare.", valueName: "FILE"))
    var files: [String] = []

    @Option(help: "Output: `text` (a summary per path and method), `json` (one document per compared file, one per line) or `sarif` (SARIF 2.1.0).")
    var format: Format = .text

    @Option(help: ArgumentHelp("Time per change (one method on one path pattern), in seconds.", valueName: "SECONDS"))
    var timeout: Double = 30

    func validate() throws {
        if let base {
            guard !base.isEmpty else { throw ValidationError("--base needs a git revision") }
            guard !files.isEmpty else { throw ValidationError("give at least one FILE to compare with its version at `\(base)`") }
        } else {
            guard files.count == 2 else {
                throw ValidationError("give OLD and NEW (\(files.count) file\(files.count == 1 ? "" : "s") given), or --base GITREF FILE…")
            }
        }
        guard timeout > 0, timeout <= 3600 else { throw ValidationError("--timeout must be more than 0 and at most 3600 seconds") }
    }

    /// A compiled rules file of any service.
    enum Loaded {
        case security(Program)
        case database(DatabaseProgram)

        var name: String {
            switch self {
            case .security(let program): program.source.name
            case .database(let program): program.source.name
            }
        }

        var serviceName: String {
            switch self {
            case .security(let program): program.service.rawValue
            case .database: "database"
            }
        }
    }

    func run() throws {
        // Load and compile every file first: report all problems, compare nothing.
        var pairs: [(old: Loaded, new: Loaded, oldAbsent: Bool)] = []
        var problems = 0
        if let base {
            let git = GitRevision(base)
            if let problem = git.problem {
                printError("error[\(VerificationCodes.baseUnavailable.id)]: \(problem)")
                throw ExitCode(2)
            }
            for file in files {
                guard let new = load(path: file) else { problems += 1; continue }
                let name = "\(base):\(file)"
                switch git.contents(of: file) {
                case .failure(let problem):
                    printError("\(file): error[\(VerificationCodes.baseUnavailable.id)]: \(problem)")
                    problems += 1
                case .success(nil):
                    guard let old = Self.denyEverything(like: new, name: name) else {
                        printError("\(file): error[\(VerificationCodes.unusableRules.id)]: internal error: the rules that deny everything do not compile; please report this")
                        problems += 1
                        continue
                    }
                    pairs.append((old, new, true))
                case .success(let text?):
                    guard let old = compile(SourceFile(name: name, text: text), path: name) else { problems += 1; continue }
                    pairs.append((old, new, false))
                }
            }
        } else {
            let old = load(path: files[0])
            let new = load(path: files[1])
            if let old, let new { pairs.append((old, new, false)) } else { problems += 1 }
        }
        for pair in pairs where pair.old.serviceName != pair.new.serviceName {
            printError("\(pair.new.name): error[\(VerificationCodes.serviceMismatch.id)]: `\(pair.old.name)` guards "
                       + "`service \(pair.old.serviceName)` but `\(pair.new.name)` guards `service \(pair.new.serviceName)`")
            problems += 1
        }
        if problems > 0 { throw ExitCode(2) }
        let differ = RulesDiffer(timeout: timeout)
        let databaseDiffer = DatabaseDiffer(timeout: timeout)
        var diffs: [RulesDiff] = []
        for (index, pair) in pairs.enumerated() {
            var diff: RulesDiff
            switch (pair.old, pair.new) {
            case (.security(let old), .security(let new)):
                // INVARIANT: the services were compared above.
                guard let compared = try? differ.diff(old: old, new: new) else { throw ExitCode(2) }
                diff = compared
            case (.database(let old), .database(let new)):
                diff = databaseDiffer.diff(old: old, new: new)
            default:
                // INVARIANT: the services were compared above.
                throw ExitCode(2)
            }
            diff.oldIsEmpty = pair.oldAbsent
            diffs.append(diff)
            switch format {
            case .text: print(DiffReport.text(diff) + (index == pairs.count - 1 ? "" : "\n"))
            case .json: print(DiffReport.json(diff))
            case .sarif: break
            }
        }
        if format == .sarif { print(DiffReport.sarif(diffs)) }
        let status = RulesDiff.exitStatus(RulesDiff.join(diffs.map(\.verdict)))
        if status != 0 { throw ExitCode(status) }
    }

    /// Reads and compiles one rules file, reporting why it cannot be used.
    private func load(path: String) -> Loaded? {
        let source: SourceFile
        do {
            source = try RulesLoader.readSource(path)
        } catch {
            printError("\(path): error[\(VerificationCodes.unusableRules.id)]: cannot read rules file: \(error.message)")
            return nil
        }
        return compile(source, path: path)
    }

    private func compile(_ source: SourceFile, path: String) -> Loaded? {
        if RulesLoader.isDatabaseRules(source) {
            do {
                return .database(try RulesLoader.compileDatabase(source))
            } catch {
                if case .invalid(let source, let diagnostics) = error {
                    printError(renderDiagnostics(diagnostics.filter { $0.severity == .error }, in: source))
                }
                printError("\(path): error[\(VerificationCodes.unusableRules.id)]: the rules do not compile")
                return nil
            }
        }
        let compiled = RulesCompiler.compile(source, regexEngine: RulesLoader.defaultRegexEngine)
        guard let program = compiled.program, !compiled.hasErrors else {
            printError(renderDiagnostics(compiled.diagnostics.filter { $0.severity == .error }, in: source))
            printError("\(path): error[\(VerificationCodes.unusableRules.id)]: the rules do not compile")
            return nil
        }
        return .security(program)
    }

    /// Rules like `file`'s that allow nothing: what a file absent at the base revision is compared with.
    static func denyEverything(like file: Loaded, name: String) -> Loaded? {
        switch file {
        case .security(let program): denyEverything(program.service, name: name).map(Loaded.security)
        case .database: (try? RulesLoader.compileDatabase(SourceFile(name: name, text: "{\"rules\": {}}\n"))).map(Loaded.database)
        }
    }

    /// Rules of `service` that allow nothing: what a file absent at the base revision is compared with.
    static func denyEverything(_ service: ServiceKind, name: String) -> Program? {
        let text = "rules_version = '2';\nservice \(service.rawValue) {\n}\n"
        return RulesCompiler.compile(text, name: name, regexEngine: RulesLoader.defaultRegexEngine).program
    }
}

/// A git revision of the repository around the working directory, read with the `git` CLI.
struct GitRevision {
    let revision: String
    /// Why the revision cannot be used, or nil.
    private(set) var problem: String?

    init(_ revision: String) {
        self.revision = revision
        let check = Self.git(["rev-parse", "--verify", "--quiet", "--end-of-options", revision + "^{commit}"])
        if check.status != 0 {
            let inRepository = Self.git(["rev-parse", "--is-inside-work-tree"]).status == 0
            problem = inRepository ? "`\(revision)` is not a commit of this git repository"
                : "`--base` needs a git work tree, and the working directory is not in one"
        }
    }

    /// The file's text at the revision, nil when it does not exist there.
    func contents(of path: String) -> Result<String?, GitProblem> {
        let spec = "\(revision):\(Self.relative(path))"
        let type = Self.git(["cat-file", "-t", spec])
        guard type.status == 0 else { return .success(nil) }
        guard String(decoding: type.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "blob" else {
            return .failure(GitProblem(message: "`\(spec)` is not a file"))
        }
        let blob = Self.git(["cat-file", "blob", spec])
        guard blob.status == 0 else { return .failure(GitProblem(message: "cannot read `\(spec)`: \(String(decoding: blob.stderr, as: UTF8.self))")) }
        guard blob.stdout.count <= BoundedFile.maxBytes else {
            return .failure(GitProblem(message: "`\(spec)` is larger than \(BoundedFile.maxBytes >> 20) MiB"))
        }
        guard let text = String(data: blob.stdout, encoding: .utf8) else {
            return .failure(GitProblem(message: "`\(spec)` is not UTF-8 text"))
        }
        return .success(text)
    }

    /// A path for `REV:PATH`: relative ones as `./PATH` (resolved against the working
    /// directory), absolute ones relative to the work tree's top.
    static func relative(_ path: String) -> String {
        guard path.hasPrefix("/") else { return "./" + path }
        let top = String(decoding: git(["rev-parse", "--show-toplevel"]).stdout, as: UTF8.self).trimmingCharacters(in: .newlines)
        let resolvedTop = URL(fileURLWithPath: top).resolvingSymlinksInPath().path
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard resolved.hasPrefix(resolvedTop + "/") else { return path }
        return String(resolved.dropFirst(resolvedTop.count + 1))
    }

    struct GitProblem: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// Runs git in the working directory; output goes to temporary files so neither stream can
    /// fill a pipe and block it.
    static func git(_ arguments: [String]) -> (status: Int32, stdout: Data, stderr: Data) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ruleskit-git-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            return (127, Data(), Data("cannot create a temporary directory".utf8))
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("stdout"), err = directory.appendingPathComponent("stderr")
        guard FileManager.default.createFile(atPath: out.path, contents: nil),
              FileManager.default.createFile(atPath: err.path, contents: nil) else {
            return (127, Data(), Data("cannot create a temporary file".utf8))
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git"] + arguments
        do {
            process.standardOutput = try FileHandle(forWritingTo: out)
            process.standardError = try FileHandle(forWritingTo: err)
            process.standardInput = FileHandle.nullDevice
            try process.run()
        } catch {
            return (127, Data(), Data("cannot run git: \(error.localizedDescription)".utf8))
        }
        process.waitUntilExit()
        return (process.terminationStatus, (try? Data(contentsOf: out)) ?? Data(), (try? Data(contentsOf: err)) ?? Data())
    }
}
