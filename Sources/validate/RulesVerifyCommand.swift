// `validate rules verify`: prove properties of rules or find a request that breaks them.
import ArgumentParser
import Diagnostics
import Foundation
import RulesLanguage
import RulesTesting
import RulesVerification

/// `validate rules verify PROPS… [--format text|jsonl] [--timeout SECONDS]`.
struct RulesVerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Prove properties of rules for every request, or find a request that breaks them.",
        discussion: """
            Property files are JSON or YAML (docs/VERIFICATION.md). Each property gets a verdict: holds, \
            violated or unknown; witnesses are case objects that replay with `validate rules test`. \
            Exit status: 0 when every property passes (verdict == expect, or holds), 1 when any does not, \
            2 when a file cannot be used, 64 on usage errors.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, jsonl
    }

    @Argument(help: ArgumentHelp("Property files.", valueName: "PROPS"))
    var properties: [String]

    @Option(help: "Output: `text` (a line per property, witnesses explained) or `jsonl` (one object per property).")
    var format: Format = .text

    @Option(help: ArgumentHelp("Solver time per property, in seconds.", valueName: "SECONDS"))
    var timeout: Double = 30

    func validate() throws {
        guard !properties.isEmpty else { throw ValidationError("give at least one property file") }
        guard timeout > 0, timeout <= 3600 else { throw ValidationError("--timeout must be more than 0 and at most 3600 seconds") }
    }

    func run() throws {
        // Load every file and compile its rules first: report all problems, decide nothing.
        var loaded: [(PropertyFile, Program)] = []
        var problems = 0
        for path in properties {
            do {
                let file = try PropertyFileLoader.load(path: path)
                let program = try RulesTestRunner.compile(rulesPath: file.rulesPath, caseFile: path)
                let expected: ServiceKind = file.service == .firestore ? .firestore : .storage
                guard program.service == expected else {
                    writeError("\(path): `service` is `\(file.service.rawValue)` but `\(file.rulesPath)` declares `service \(program.service.rawValue)`")
                    problems += 1
                    continue
                }
                loaded.append((file, program))
            } catch let error as PropertyFileError {
                writeError(error.description)
                problems += 1
            } catch let error as RulesTestError {
                writeError(error.description)
                problems += 1
            }
        }
        if problems > 0 { throw ExitCode(2) }
        let verifier = RulesVerifier(timeout: timeout)
        var failed = 0
        var total = 0
        for (file, program) in loaded {
            for property in file.properties {
                let result = verifier.verify(property, in: file, program: program)
                total += 1
                if !result.passed { failed += 1 }
                switch format {
                case .text: print(VerificationReport.text(result))
                case .jsonl: print(VerificationReport.jsonl(result))
                }
            }
        }
        if format == .text {
            print("\(total) propert\(total == 1 ? "y" : "ies"): \(total - failed) passed, \(failed) failed")
        }
        if failed > 0 { throw ExitCode(1) }
    }

    private func writeError(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
