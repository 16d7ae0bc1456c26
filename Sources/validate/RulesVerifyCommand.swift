// `validate rules verify`: prove properties of rules or find a request that breaks them.
import ArgumentParser
import DatabaseRules
import Diagnostics
import Foundation
import RulesLanguage
import RulesLoading
import RulesReports
import RulesVerification

/// `validate rules verify PROPS… [--format text|jsonl|sarif] [--timeout SECONDS]`.
struct RulesVerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Prove properties of rules for every request, or find a request that breaks them.",
        discussion: """
            Property files are JSON or YAML (docs/VERIFICATION.md), for Firestore, Storage or Realtime \
            Database rules (`"service": "database"`). Each property gets a verdict: holds, \
            violated or unknown; witnesses are case objects that replay with `validate rules test`. \
            Exit status: 0 when every property passes (verdict == expect, or holds), 1 when any does not, \
            2 when a file cannot be used, 64 on usage errors.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, jsonl, sarif
    }

    @Argument(help: ArgumentHelp("Property files.", valueName: "PROPS"))
    var properties: [String]

    @Option(help: "Output: `text` (a line per property, witnesses explained), `jsonl` (one object per property) or `sarif` (a SARIF 2.1.0 log of the properties that do not pass).")
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
        var loadedDatabase: [(DatabasePropertyFile, DatabaseProgram)] = []
        var order: [Bool] = []
        var problems = 0
        var sarif: [SARIFResult] = []
        for path in properties {
            // The rules file guards another service than the property file says.
            func mismatch(_ message: String) {
                writeError("\(path): \(message)")
                sarif.append(SARIFResult(code: VerificationCodes.propertyFileFormat.id, level: .error, message: message, file: path))
                problems += 1
            }
            do {
                if DatabasePropertyFileLoader.isDatabase(path: path) {
                    let file = try DatabasePropertyFileLoader.load(path: path)
                    guard case .database(let program) = try RulesLoader.load(path: file.rulesPath, namedIn: path) else {
                        mismatch("`service` is `database` but `\(file.rulesPath)` is not a database.rules.json file")
                        continue
                    }
                    loadedDatabase.append((file, program))
                    order.append(true)
                    continue
                }
                let file = try PropertyFileLoader.load(path: path)
                let program = try RulesLoader.loadProgram(path: file.rulesPath, namedIn: path)
                let expected: ServiceKind = file.service == .firestore ? .firestore : .storage
                guard program.service == expected else {
                    mismatch("`service` is `\(file.service.rawValue)` but `\(file.rulesPath)` declares `service \(program.service.rawValue)`")
                    continue
                }
                loaded.append((file, program))
                order.append(false)
            } catch let error as PropertyFileError {
                writeError(error.description)
                sarif.append(Self.sarifResult(error, path: path))
                problems += 1
            } catch let error as RulesLoadError {
                writeError(error.description)
                sarif += Self.sarifResults(error, path: path)
                problems += 1
            }
        }
        if problems > 0 {
            if format == .sarif { print(SARIFLog(toolName: "validate rules verify", results: sarif).json(), terminator: "") }
            throw ExitCode(2)
        }
        let verifier = RulesVerifier(timeout: timeout)
        let databaseVerifier = DatabaseVerifier(timeout: timeout)
        var failed = 0
        var total = 0
        var nextSecurity = loaded.makeIterator(), nextDatabase = loadedDatabase.makeIterator()
        for isDatabase in order {
            let results: [PropertyResult]
            let filePath: String
            if isDatabase, let (file, program) = nextDatabase.next() {
                filePath = file.path
                results = file.properties.map { databaseVerifier.verify($0, in: file, program: program) }
            } else if let (file, program) = nextSecurity.next() {
                filePath = file.path
                results = file.properties.map { verifier.verify($0, in: file, program: program) }
            } else {
                continue
            }
            for result in results {
                total += 1
                if !result.passed { failed += 1 }
                switch format {
                case .text: print(VerificationReport.text(result))
                case .jsonl: print(VerificationReport.jsonl(result))
                case .sarif:
                    guard !result.passed else { break }
                    let code = VerificationReport.failureCode(result)
                    sarif.append(SARIFResult(code: code, level: .error, message: VerificationReport.failureMessage(result), file: filePath,
                                             line: result.property.location.line, column: result.property.location.column))
                }
            }
        }
        if format == .sarif {
            let help = Dictionary(uniqueKeysWithValues: VerificationReport.failureCodes.values.map { ($0.code, $0.help) })
            print(SARIFLog(toolName: "validate rules verify", ruleHelp: help, results: sarif).json(), terminator: "")
        }
        if format == .text {
            print("\(total) propert\(total == 1 ? "y" : "ies"): \(total - failed) passed, \(failed) failed")
        }
        if failed > 0 { throw ExitCode(1) }
    }

    /// A property file's problem as a SARIF result at its `file:line:column`.
    static func sarifResult(_ error: PropertyFileError, path: String) -> SARIFResult {
        // `location` is `FILE`, `FILE:LINE:COLUMN`, or a condition's `FILE (condition of …):LINE:COLUMN`.
        let parts = error.location.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count >= 3, let line = Int(parts[parts.count - 2]), let column = Int(parts[parts.count - 1]) {
            return SARIFResult(code: error.code, level: .error, message: error.message, file: path, line: line, column: column)
        }
        return SARIFResult(code: error.code, level: .error, message: error.message, file: path)
    }

    /// The rules file's problems as SARIF results: its diagnostics where they are, or one result
    /// on the property file.
    static func sarifResults(_ error: RulesLoadError, path: String) -> [SARIFResult] {
        if case .invalid(let source, let diagnostics) = error {
            return diagnostics.filter { $0.severity == .error }.map { SARIFResult($0, in: source) }
        }
        return [SARIFResult(code: VerificationCodes.unreadablePropertyFile.id, level: .error, message: error.description, file: path)]
    }

    private func writeError(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
