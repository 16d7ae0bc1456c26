// The Realtime Database branch of `validate rules test|lint|eval`: chosen by the case file's
// `service` (test) or by the rules file's shape (lint, eval); output contracts are shared.
import ArgumentParser
import DatabaseRules
import Diagnostics
import Foundation
import RulesCases
import RulesLoading
import RulesTesting

/// Compile diagnostics and, when there are no errors, lint warnings of a database rules file.
func lintDatabaseRules(_ source: SourceFile) -> [Diagnostic] {
    let compiled = DatabaseRulesCompiler.compile(source, regexEngine: RulesLoader.defaultDatabaseRegexEngine)
    guard let program = compiled.program else { return compiled.diagnostics }
    return compiled.diagnostics + DatabaseRulesLinter.lint(program)
}

/// `validate rules eval database.rules.json --request FILE.json`, once the rules are compiled:
/// prints `allow` or `deny` and the explanation; exit 1 when the request is denied or refused, 2
/// when the request file cannot be used.
func evalDatabaseRequest(_ program: DatabaseProgram, request: String) throws {
    let testCase: DatabaseTestCase
    let root: DataNode?
    do {
        testCase = try DatabaseCaseFileLoader.loadRequest(path: request)
        root = try DatabaseTestRunner.root(testCase.data ?? .null, time: testCase.time)
    } catch let error as CaseFileError {
        printError(error.description)
        throw ExitCode(2)
    } catch let error as DataError {
        printError("\(request): invalid `data`: \(error.message)")
        throw ExitCode(2)
    }
    let decision = program.evaluate(testCase.request, data: root)
    print(decision.allowed ? "allow" : "deny")
    print(decision.explanation(in: program.source))
    if !decision.allowed { throw ExitCode(1) }
}
