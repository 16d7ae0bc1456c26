import Foundation
import RulesCases
import RulesLanguage
import RulesPatterns
import RulesTestSupport
import RulesTesting
@testable import RulesVerification
import Testing

let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

func fixtureText(_ name: String) throws -> String {
    try String(contentsOf: fixtures.appendingPathComponent(name), encoding: .utf8)
}

/// Compiles rules text with the production regex engine.
func compile(_ text: String, name: String = "test.rules") throws -> Program {
    let result = RulesCompiler.compile(text, name: name, regexEngine: RulesTestRunner.defaultRegexEngine)
    guard let program = result.program else {
        throw TestFailure(message: "rules do not compile: \(result.diagnostics.map(\.message))")
    }
    return program
}

struct TestFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Loads a property file from text (the `rules` key is ignored; the program is given).
func properties(_ text: String, path: String = "test.props.json") throws(PropertyFileError) -> PropertyFile {
    try PropertyFileLoader.decode(text, path: path)
}

/// A one-property file for `service`.
func propertyFile(service: String = "firestore", _ properties: [String]) -> String {
    "{\"rules\": \"x.rules\", \"service\": \"\(service)\", \"properties\": [\(properties.joined(separator: ", "))]}"
}

/// Runs the witness through the case-file loader and the test runner, as `validate rules test` would.
func replayWitness(_ witness: String, service: CaseService, program: Program) throws -> CaseResult {
    let text = "{\"rules\": \"rules\", \"service\": \"\(service.rawValue)\", \"cases\": [\(witness)]}"
    let file = try CaseFileLoader.decode(text, path: "witness.json")
    guard let testCase = file.cases.first else { throw TestFailure(message: "no case in the witness") }
    return RulesTestRunner.evaluate(testCase, of: file, with: program)
}

/// Decides one property of `service` against `rules`, and checks that a witness, if any, replays.
func verifyOne(_ rules: String, _ property: String, service: String = "firestore", timeout: Double = 60) throws -> PropertyResult {
    let program = try compile(rules)
    let file = try properties(propertyFile(service: service, [property]))
    let result = RulesVerifier(timeout: timeout).verify(file.properties[0], in: file, program: program)
    if let witness = result.witness {
        // Every witness the verifier shows replays through the case-file loader and runner.
        let replayed = try replayWitness(witness, service: file.service, program: program)
        #expect(replayed.actual == .allow, "witness \(witness)")
    }
    return result
}
