// `validate rules agree`: does a rules function accept exactly the names a rule pack accepts?
import ArgumentParser
import Diagnostics
import BatchValidation
import FieldCheckers
import FieldValidation
import Foundation
import RulesLanguage
import RulesLoading
import RulesVerification

/// `validate rules agree RULES --function NAME --field display-name [--rules DIR] [--app-name NAME]
/// [--format text|json] [--timeout SECONDS]`.
struct RulesAgreeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agree",
        abstract: "Prove that a rules function accepts exactly the strings a field's rule pack accepts, or show one they disagree on.",
        discussion: """
            For every string, the function of one parameter returns true exactly when the effective \
            pack (the shipped one with --rules DIR and --app-name applied, as `validate display-name` \
            uses it) accepts the string. A witness is replayed through both engines before it is \
            printed. See docs/VERIFICATION.md. Exit status: 0 equivalent, 1 differs, 2 when the rules \
            or the packs cannot be used, 3 unknown, 64 on usage errors.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Argument(help: ArgumentHelp("The rules file.", valueName: "RULES"))
    var rules: String

    @Option(help: ArgumentHelp("The rules function of one parameter to compare.", valueName: "NAME"))
    var function: String

    @Option(help: ArgumentHelp("The field whose rule pack is compared (only `display-name`).", valueName: "FIELD"))
    var field: String

    @Option(name: .customLong("rules"), help: ArgumentHelp("Load extra or overriding rule packs from this directory.", valueName: "DIR"))
    var rulesDirectory: String?

    @Option(name: .customLong("app-name"), help: "The app's name, reserved like the shipped reserved names.")
    var appName: String?

    @Option(help: "Output: `text` (a short summary) or `json` (one document).")
    var format: Format = .text

    @Option(help: ArgumentHelp("Time for the comparison, in seconds.", valueName: "SECONDS"))
    var timeout: Double = 30

    func validate() throws {
        guard field == FieldKind.displayName.rawValue else {
            throw ValidationError("--field must be `display-name`, not `\(field)`: only display-name packs are compared")
        }
        guard timeout > 0, timeout <= 3600 else { throw ValidationError("--timeout must be more than 0 and at most 3600 seconds") }
    }

    func run() throws {
        let program = try loadRules()
        let declaration = try findFunction(in: program)
        // The packs exactly as `validate display-name --rules DIR --app-name NAME` builds them.
        var checker: (any FieldChecker)?
        do {
            checker = try FieldCheckers.make(.displayName, rulesDirectory: rulesDirectory, appName: appName)
        } catch {
            printError("\(error)")
        }
        guard let validator = (checker as? DisplayNameChecker)?.validator else {
            printError("error[\(VerificationCodes.agreePack.id)]: the display-name rule packs cannot be used")
            throw ExitCode(2)
        }
        let result = RulesAgreement(timeout: timeout).check(program: program, function: declaration, validator: validator)
        switch format {
        case .text: print(AgreementReport.text(result, function: function, rules: rules))
        case .json: print(AgreementReport.json(result))
        }
        if result.verdict.exitStatus != 0 { throw ExitCode(result.verdict.exitStatus) }
    }

    private func loadRules() throws -> Program {
        let source: SourceFile
        do {
            source = try RulesLoader.readSource(rules)
        } catch {
            printError("\(rules): error[\(VerificationCodes.unusableRules.id)]: cannot read rules file: \(error.message)")
            throw ExitCode(2)
        }
        if RulesLoader.isDatabaseRules(source) {
            printError("\(rules): error[\(VerificationCodes.unusableRules.id)]: Realtime Database rules have no functions; give a Firestore or Storage rules file")
            throw ExitCode(2)
        }
        let compiled = RulesCompiler.compile(source, regexEngine: RulesLoader.defaultRegexEngine)
        guard let program = compiled.program, !compiled.hasErrors else {
            printError(renderDiagnostics(compiled.diagnostics.filter { $0.severity == .error }, in: source))
            printError("\(rules): error[\(VerificationCodes.unusableRules.id)]: the rules do not compile")
            throw ExitCode(2)
        }
        return program
    }

    private func findFunction(in program: Program) throws -> FunctionDecl {
        let found = program.functions(named: function)
        let unary = found.filter { $0.parameters.count == 1 }
        if unary.count == 1 { return unary[0] }
        let code = VerificationCodes.agreeFunction.id
        if unary.count > 1 {
            let places = unary.map { "\(rules):\(program.source.location(of: $0.nameSpan.start))" }.joined(separator: ", ")
            printError("\(rules): error[\(code)]: \(unary.count) functions named `\(function)` take one parameter (\(places)); rename all but one")
        } else if let other = found.first {
            printError("\(rules):\(program.source.location(of: other.nameSpan.start)): error[\(code)]: `\(function)` takes \(other.parameters.count) parameters; "
                       + "`rules agree` compares a function of one string")
        } else {
            let names = Set(program.functionDeclarations.filter { $0.parameters.count == 1 }.map(\.name)).sorted()
            let hint = names.isEmpty ? "" : "; functions of one parameter: " + names.map { "`\($0)`" }.joined(separator: ", ")
            printError("\(rules): error[\(code)]: no function named `\(function)`\(hint)")
        }
        throw ExitCode(2)
    }
}
