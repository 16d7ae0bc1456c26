// `validate rules test|lint|eval`: run case files, lint rules, decide one request.
import ArgumentParser
import DatabaseRules
import Diagnostics
import Foundation
import RulesLanguage
import RulesTesting
import RulesVerification

/// `validate rules`.
struct RulesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "Test, lint and evaluate Firebase security rules offline.",
        subcommands: [RulesTestCommand.self, RulesLintCommand.self, RulesEvalCommand.self, RulesVerifyCommand.self, RulesDiffCommand.self])
}

// MARK: - rules test

/// `validate rules test CASES… [--format text|jsonl] [--coverage FILE]`.
struct RulesTestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run case files (JSON or YAML; see docs/RULES-TESTING.md).",
        discussion: """
            A case or rules file that cannot be used is reported with its diagnostics and the other \
            files still run. Exit status: 2 when any file cannot be used, otherwise 1 when any case \
            fails, 0 when every case passes; 64 on usage errors.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, jsonl
    }

    @Argument(help: ArgumentHelp("Case files to run.", valueName: "CASES"))
    var cases: [String]

    @Option(help: "Output: `text` (one line per case, explanations for failures) or `jsonl`.")
    var format: Format = .text

    @Option(help: ArgumentHelp("Write coverage of all cases as JSON to this file (`-`: standard output, after the results).", valueName: "FILE"))
    var coverage: String?

    func validate() throws {
        guard !cases.isEmpty else { throw ValidationError("give at least one case file") }
    }

    func run() throws {
        let runner = CaseFileRunner(collectCoverage: coverage != nil)
        // Every file runs on its own: one that cannot be used is reported with its diagnostics
        // on standard error and the others still run. The service comes from the case file.
        var report = RulesTestReport(files: [])
        for path in cases {
            let outcome = runner.outcome(caseFileAt: path)
            if let error = outcome.error { printError(error.description) }
            for result in outcome.cases { print(line(for: result)) }
            report.files.append(outcome)
        }
        if format == .text {
            let total = report.caseCount, failed = report.failedCases, unusable = report.unusableFiles
            print("\(total) case\(total == 1 ? "" : "s"): \(total - failed) passed, \(failed) failed"
                  + (unusable == 0 ? "" : "; \(unusable) of \(cases.count) file\(cases.count == 1 ? "" : "s") could not be used"))
        }
        let coverageJSON = runner.coverageJSON()
        if coverage == "-" {
            print(coverageJSON)
        } else if let coverage {
            do {
                try (coverageJSON + "\n").write(toFile: coverage, atomically: false, encoding: .utf8)
            } catch {
                printError("error: cannot write coverage to `\(coverage)`: \(error.localizedDescription)")
                throw ExitCode(2)
            }
        }
        if report.exitStatus != 0 { throw ExitCode(report.exitStatus) }
    }

    /// One case's output: a `PASS`/`FAIL` line (with the explanation of a failure) or a JSON object.
    private func line(for result: any CaseOutcome) -> String {
        switch format {
        case .text:
            var text = "\(result.passed ? "PASS" : "FAIL") \(result.file): \(result.name)"
            if !result.passed {
                text += " (expected \(result.expect.rawValue), got \(result.actual.rawValue))\n"
                text += result.explanation.split(separator: "\n", omittingEmptySubsequences: false)
                    .map { "    " + $0 }.joined(separator: "\n")
            }
            return text
        case .jsonl:
            return "{\"file\": \(jsonString(result.file)), \"name\": \(jsonString(result.name)), "
                + "\"expect\": \(jsonString(result.expect.rawValue)), \"actual\": \(jsonString(result.actual.rawValue)), "
                + "\"pass\": \(result.passed)}"
        }
    }
}

// MARK: - rules lint

/// `validate rules lint RULES…`.
struct RulesLintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Parse and check rules files and warn about common security mistakes.",
        discussion: """
            Warnings: RL8001 unconditional write, RL8002 write under a {userId}-style wildcard that never \
            compares request.auth.uid with it, RL8003 a rule covering delete that reads request.resource, \
            RL8004 function never called. With --prove, each RL8002 warning is decided by the verifier \
            (docs/VERIFICATION.md): proven safe (a note), or a request that breaks it (a case object in \
            the help). Realtime Database rules (a JSON file): RD8001–RD8006, see docs/DATABASE-RULES.md. \
            Exit status: 2 when any file has errors, 0 otherwise; 64 on usage errors.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Argument(help: ArgumentHelp("Rules files to lint.", valueName: "RULES"))
    var rules: [String]

    @Option(help: "Output: `text` (like a compiler) or `json` (one diagnostic object per line).")
    var format: Format = .text

    @Flag(help: "Decide each RL8002 ownership warning for every request: proven safe, or a counterexample.")
    var prove = false

    @Option(help: ArgumentHelp("With --prove: solver time per warning, in seconds.", valueName: "SECONDS"))
    var timeout: Double = 30

    func validate() throws {
        guard !rules.isEmpty else { throw ValidationError("give at least one rules file") }
        guard timeout > 0, timeout <= 3600 else { throw ValidationError("--timeout must be more than 0 and at most 3600 seconds") }
    }

    func run() throws {
        var errors = 0
        var warnings = 0
        for path in rules {
            let source: SourceFile
            do {
                source = try RulesTestRunner.readSource(path)
            } catch {
                printError("error: cannot read `\(path)`: \(error.message)")
                errors += 1
                continue
            }
            var diagnostics: [Diagnostic]
            if DatabaseCaseFileLoader.isDatabaseRules(source) {
                diagnostics = lintDatabaseRules(source)
            } else {
                let compiled = RulesCompiler.compile(source, regexEngine: RulesTestRunner.defaultRegexEngine)
                diagnostics = compiled.diagnostics
                if !compiled.hasErrors { diagnostics += RulesLinter.lint(compiled.tree) }
                if prove, let program = compiled.program, !compiled.hasErrors {
                    diagnostics = OwnershipProver.prove(diagnostics, holes: RulesLinter.ownershipHoles(compiled.tree), program: program,
                                                        rulesPath: path, verifier: RulesVerifier(timeout: timeout))
                }
            }
            diagnostics.sort { ($0.span?.start ?? -1, $0.code) < ($1.span?.start ?? -1, $1.code) }
            errors += diagnostics.filter { $0.severity == .error }.count
            warnings += diagnostics.filter { $0.severity == .warning }.count
            switch format {
            case .text:
                if !diagnostics.isEmpty { print(renderDiagnostics(diagnostics, in: source) + "\n") }
            case .json:
                for diagnostic in diagnostics { print(diagnostic.json(in: source)) }
            }
        }
        if format == .text {
            print("\(rules.count) file\(rules.count == 1 ? "" : "s"): \(errors) error\(errors == 1 ? "" : "s"), "
                  + "\(warnings) warning\(warnings == 1 ? "" : "s")")
        }
        if errors > 0 { throw ExitCode(2) }
    }
}

// MARK: - rules eval

/// `validate rules eval RULES --request FILE.json`.
struct RulesEvalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Decide one request and explain the decision.",
        discussion: """
            The request file holds one case in the case-file format (docs/RULES-TESTING.md) without \
            `name` and `expect`, plus an optional `lookupMode`. Exit status: 0 when the request is \
            allowed, 1 when it is denied, 2 when a file cannot be used, 64 on usage errors.
            """)

    @Argument(help: ArgumentHelp("The rules file.", valueName: "RULES"))
    var rules: String

    @Option(help: ArgumentHelp("The request, as JSON or YAML.", valueName: "FILE"))
    var request: String

    func run() throws {
        if let source = try? RulesTestRunner.readSource(rules), DatabaseCaseFileLoader.isDatabaseRules(source) {
            return try evalDatabaseRequest(rules: rules, request: request)
        }
        let program: Program
        let loaded: (testCase: RulesTestCase, mode: LookupMode)
        do {
            program = try RulesTestRunner.compile(rulesPath: rules)
            loaded = try CaseFileLoader.loadRequest(path: request, service: program.service == .firestore ? .firestore : .storage)
        } catch let error as RulesTestError {
            printError(error.description)
            throw ExitCode(2)
        } catch let error as CaseFileError {
            printError(error.description)
            throw ExitCode(2)
        }
        let service: CaseService = program.service == .firestore ? .firestore : .storage
        let decision = program.evaluate(
            loaded.testCase.request(service: service),
            lookup: CaseDocumentLookup(testCase: loaded.testCase, mode: loaded.mode))
        print(decision.allowed ? "allow" : "deny")
        print(decision.explanation(in: program.source))
        if !decision.allowed { throw ExitCode(1) }
    }
}

// MARK: - Helpers

/// Writes one line to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
