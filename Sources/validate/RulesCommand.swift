// `validate rules test|lint|eval`: run case files, lint rules, decide one request.
import ArgumentParser
import DatabaseRules
import Diagnostics
import Foundation
import RulesCases
import RulesLanguage
import RulesLinting
import RulesLoading
import RulesReports
import RulesTesting
import RulesVerification

/// `validate rules`.
struct RulesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "Test, lint and evaluate Firebase security rules offline.",
        subcommands: [RulesTestCommand.self, RulesLintCommand.self, RulesEvalCommand.self, RulesVerifyCommand.self, RulesDiffCommand.self,
                      RulesAgreeCommand.self])
}

// MARK: - rules test

/// `validate rules test CASES… [--format text|jsonl|junit] [--coverage FILE [--coverage-format
/// json|lcov]] [--min-coverage PERCENT]`.
struct RulesTestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run case files (JSON or YAML; see docs/RULES-TESTING.md).",
        discussion: """
            A case or rules file that cannot be used is reported with its diagnostics and the other \
            files still run. Exit status: 2 when any file cannot be used, otherwise 1 when any case \
            fails or the covered share of condition outcomes is below --min-coverage, 0 when every \
            case passes; 64 on usage errors.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, jsonl, junit
    }

    enum CoverageFormat: String, ExpressibleByArgument, CaseIterable {
        case json, lcov
    }

    @Argument(help: ArgumentHelp("Case files to run.", valueName: "CASES"))
    var cases: [String]

    @Option(help: "Output: `text` (one line per case, explanations for failures), `jsonl`, or `junit` (JUnit XML).")
    var format: Format = .text

    @Option(help: ArgumentHelp("Write coverage of all cases to this file (`-`: standard output, after the results).", valueName: "FILE"))
    var coverage: String?

    @Option(help: "With --coverage: `json` (allows, expressions, never evaluated) or `lcov` (a tracefile).")
    var coverageFormat: CoverageFormat?

    @Option(help: ArgumentHelp(
        "Exit 1 when the covered share of condition outcomes (true and false of each condition) is below PERCENT (exact).",
        valueName: "PERCENT"))
    var minCoverage: String?

    func validate() throws {
        guard !cases.isEmpty else { throw ValidationError("give at least one case file") }
        if coverageFormat != nil, coverage == nil { throw ValidationError("--coverage-format needs --coverage FILE") }
        if let minCoverage, Percentage(minCoverage) == nil {
            throw ValidationError("--min-coverage must be a percentage from 0 to 100 (`80`, `87.5`; at most "
                                  + "\(Percentage.maxFractionDigits) digits after the point), not `\(minCoverage)`")
        }
    }

    func run() throws {
        let threshold = minCoverage.flatMap(Percentage.init)
        let runner = CaseFileRunner(collectCoverage: coverage != nil || threshold != nil)
        // Every file runs on its own: one that cannot be used is reported with its diagnostics
        // on standard error and the others still run. The service comes from the case file.
        var report = RulesTestReport(files: [])
        for path in cases {
            let outcome = runner.outcome(caseFileAt: path)
            if let error = outcome.error { printError(error.description) }
            if format != .junit {
                for result in outcome.cases { print(line(for: result)) }
            }
            report.files.append(outcome)
        }
        switch format {
        case .text:
            let total = report.caseCount, failed = report.failedCases, unusable = report.unusableFiles
            print("\(total) case\(total == 1 ? "" : "s"): \(total - failed) passed, \(failed) failed"
                  + (unusable == 0 ? "" : "; \(unusable) of \(cases.count) file\(cases.count == 1 ? "" : "s") could not be used"))
        case .jsonl:
            break
        case .junit:
            print(junit(report).xml(), terminator: "")
        }
        let files = runner.rules.coverage.map { FileCoverage($0.collector) } + runner.database.coverage.map { FileCoverage($0.collector) }
        if let coverage {
            let text = coverageFormat == .lcov ? files.map { $0.lcov() }.joined() : runner.coverageJSON() + "\n"
            if coverage == "-" {
                print(text, terminator: "")
            } else {
                do {
                    try text.write(toFile: coverage, atomically: false, encoding: .utf8)
                } catch {
                    printError("error: cannot write coverage to `\(coverage)`: \(error.localizedDescription)")
                    throw ExitCode(2)
                }
            }
        }
        var status = report.exitStatus
        if let threshold, let minCoverage {
            let share = CoverageShare(files)
            let meets = share.meets(threshold)
            let line = "coverage: \(share), \(meets ? "meets" : "below") --min-coverage \(minCoverage)"
            // Text output carries it; the machine formats keep standard output to themselves.
            if format == .text { print(line) } else { printError(line) }
            if !meets, status == 0 { status = 1 }
        }
        if status != 0 { throw ExitCode(status) }
    }

    /// One case's output: a `PASS`/`FAIL` line (with the explanation of a failure) or a JSON object.
    private func line(for result: any CaseOutcome) -> String {
        switch format {
        case .text, .junit:
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

    /// The run as JUnit XML: a suite per case file, a case per case, the explanation of a failure
    /// as its text, the diagnostics of a file that could not be used as an error.
    private func junit(_ report: RulesTestReport) -> JUnitReport {
        JUnitReport(name: "validate rules test", suites: report.files.map { file in
            JUnitReport.TestSuite(
                name: file.path,
                cases: file.cases.map { result in
                    JUnitReport.TestCase(name: result.name, failure: result.passed ? nil : (
                        message: "expected \(result.expect.rawValue), got \(result.actual.rawValue)", text: result.explanation))
                },
                error: file.error?.description)
        })
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
        case text, json, sarif
    }

    @Argument(help: ArgumentHelp("Rules files to lint.", valueName: "RULES"))
    var rules: [String]

    @Option(help: "Output: `text` (like a compiler), `json` (one diagnostic object per line) or `sarif` (a SARIF 2.1.0 log).")
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
        var sarif: [SARIFResult] = []
        for path in rules {
            let source: SourceFile
            do {
                source = try RulesLoader.readSource(path)
            } catch {
                printError("error: cannot read `\(path)`: \(error.message)")
                sarif.append(SARIFResult(code: "CLI3001", level: .error, message: "cannot read `\(path)`: \(error.message)", file: path,
                                         help: "give the path of a readable rules file"))
                errors += 1
                continue
            }
            var diagnostics: [Diagnostic]
            if RulesLoader.isDatabaseRules(source) {
                diagnostics = lintDatabaseRules(source)
            } else {
                let compiled = RulesCompiler.compile(source, regexEngine: RulesLoader.defaultRegexEngine)
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
            case .sarif:
                sarif += diagnostics.map { SARIFResult($0, in: source) }
            }
        }
        if format == .sarif {
            print(SARIFLog(toolName: "validate rules lint", results: sarif).json(), terminator: "")
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
        let compiled: LoadedRules
        do {
            compiled = try RulesLoader.load(path: rules)
        } catch {
            printError(error.description)
            throw ExitCode(2)
        }
        let program: Program
        switch compiled {
        case .database(let database): return try evalDatabaseRequest(database, request: request)
        case .security(let security): program = security
        }
        let loaded: (testCase: RulesTestCase, mode: LookupMode)
        do {
            loaded = try CaseFileLoader.loadRequest(path: request, service: program.service == .firestore ? .firestore : .storage)
        } catch {
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
