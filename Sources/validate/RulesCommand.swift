// `validate rules test|lint|eval`: run case files, lint rules, decide one request.
import ArgumentParser
import Diagnostics
import Foundation
import RulesLanguage
import RulesTesting

/// `validate rules`.
struct RulesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "Test, lint and evaluate Firebase security rules offline.",
        subcommands: [RulesTestCommand.self, RulesLintCommand.self, RulesEvalCommand.self, RulesVerifyCommand.self])
}

// MARK: - rules test

/// `validate rules test CASES… [--format text|jsonl] [--coverage FILE]`.
struct RulesTestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run case files (JSON or YAML; see docs/RULES-TESTING.md).",
        discussion: "Exit status: 0 when every case passes, 1 when any fails, 2 when a file cannot be used, 64 on usage errors.")

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
        let runner = RulesTestRunner(collectCoverage: coverage != nil)
        // Load every file and compile its rules first: report all problems, run nothing.
        var files: [RulesCaseFile] = []
        var problems = 0
        for path in cases {
            do {
                let file = try loadCaseFile(path)
                _ = try runner.program(for: file)
                files.append(file)
            } catch {
                printError(error.description)
                problems += 1
            }
        }
        if problems > 0 { throw ExitCode(2) }
        var results: [CaseResult] = []
        for file in files {
            do {
                results += try runner.run(file)
            } catch {
                printError(error.description)
                throw ExitCode(2)
            }
        }
        for result in results {
            switch format {
            case .text:
                print("\(result.passed ? "PASS" : "FAIL") \(result.file): \(result.name)"
                      + (result.passed ? "" : " (expected \(result.expect.rawValue), got \(result.actual.rawValue))"))
                if !result.passed {
                    print(result.explanation.split(separator: "\n", omittingEmptySubsequences: false)
                        .map { "    " + $0 }.joined(separator: "\n"))
                }
            case .jsonl:
                print("{\"file\": \(jsonString(result.file)), \"name\": \(jsonString(result.name)), "
                      + "\"expect\": \(jsonString(result.expect.rawValue)), \"actual\": \(jsonString(result.actual.rawValue)), "
                      + "\"pass\": \(result.passed)}")
            }
        }
        let failed = results.filter { !$0.passed }.count
        if format == .text {
            print("\(results.count) case\(results.count == 1 ? "" : "s"): \(results.count - failed) passed, \(failed) failed")
        }
        if coverage == "-" {
            print(runner.coverageJSON())
        } else if let coverage {
            do {
                try (runner.coverageJSON() + "\n").write(toFile: coverage, atomically: false, encoding: .utf8)
            } catch {
                printError("error: cannot write coverage to `\(coverage)`: \(error.localizedDescription)")
                throw ExitCode(2)
            }
        }
        if failed > 0 { throw ExitCode(1) }
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
            RL8004 function never called. Exit status: 2 when any file has errors, 0 otherwise; 64 on usage errors.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Argument(help: ArgumentHelp("Rules files to lint.", valueName: "RULES"))
    var rules: [String]

    @Option(help: "Output: `text` (like a compiler) or `json` (one diagnostic object per line).")
    var format: Format = .text

    func validate() throws {
        guard !rules.isEmpty else { throw ValidationError("give at least one rules file") }
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
            let compiled = RulesCompiler.compile(source, regexEngine: RulesTestRunner.defaultRegexEngine)
            var diagnostics = compiled.diagnostics
            if !compiled.hasErrors { diagnostics += RulesLinter.lint(compiled.tree) }
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
            `name` and `expect`, plus an optional `lookupMode`. Exit status: 0 when the request was \
            decided (allowed or denied), 2 when a file cannot be used, 64 on usage errors.
            """)

    @Argument(help: ArgumentHelp("The rules file.", valueName: "RULES"))
    var rules: String

    @Option(help: ArgumentHelp("The request, as JSON or YAML.", valueName: "FILE"))
    var request: String

    func run() throws {
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
    }
}

// MARK: - Helpers

/// Loads a case file, wrapping its error for uniform reporting.
private func loadCaseFile(_ path: String) throws(RulesTestError) -> RulesCaseFile {
    do { return try CaseFileLoader.load(path: path) } catch { throw .caseFile(error) }
}

/// Writes one line to standard error.
private func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
