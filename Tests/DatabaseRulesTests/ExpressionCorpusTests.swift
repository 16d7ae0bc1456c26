import DatabaseRules
import Foundation
import RulesTestSupport
import Testing

/// One line of `corpus/database/expressions/*.txt` with its environment.
struct DatabaseExpressionCase: CustomTestStringConvertible, Sendable {
    enum Expectation: Sendable, Equatable {
        case value(Bool)
        case evaluationError(String)
        case compileError(String)
    }

    var name: String
    var expression: String
    var expectation: Expectation
    var kind: RuleKind
    var environment: ExpressionEnvironment
    var testDescription: String { name }

    /// Runs the case; nil when it passes, else what went wrong.
    func run() -> String? {
        let checked: DatabaseExpression
        do {
            checked = try DatabaseRulesCompiler.checkExpression(expression, kind: kind, variables: Set(environment.bindings.keys))
        } catch {
            if case .compileError(let code) = expectation, code == error.code { return nil }
            return "compile error \(error.code): \(error.message)"
        }
        if case .compileError(let code) = expectation { return "expected compile error \(code), but it compiled" }
        let outcome = DatabaseRulesCompiler.evaluate(checked, in: environment, regexEngine: pcre2)
        switch (outcome, expectation) {
        case (.value(let got), .value(let want)) where got == want: return nil
        case (.error(let code, _), .evaluationError(let want)) where code == want: return nil
        default: return "got \(outcome)"
        }
    }

    /// Loads every `.txt` file in the corpus directory.
    static func loadAll() -> (cases: [DatabaseExpressionCase], problems: [String]) {
        let directory = RepositoryFiles.root.appendingPathComponent("corpus/database/expressions")
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasSuffix(".txt") }.sorted()
        var cases: [DatabaseExpressionCase] = []
        var problems: [String] = []
        for file in files {
            guard let text = try? String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8) else {
                problems.append("\(file): unreadable")
                continue
            }
            let (loaded, fileProblems) = load(text, file: file)
            cases += loaded
            problems += fileProblems
        }
        return (cases, problems)
    }

    static func load(_ text: String, file: String) -> ([DatabaseExpressionCase], [String]) {
        var cases: [DatabaseExpressionCase] = []
        var problems: [String] = []
        var section = "main"
        var kind = RuleKind.validate
        var environment = ExpressionEnvironment()
        var newSet = false
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            let lineNumber = index + 1
            if line.hasPrefix("## ") {
                section = String(line.dropFirst(3))
                kind = .validate
                environment = ExpressionEnvironment()
                newSet = false
                continue
            }
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("@") {
                let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
                let argument = parts.count > 1 ? parts[1] : ""
                switch parts[0] {
                case "@data":
                    environment.oldRoot = tree(argument)
                    if !newSet { environment.newRoot = environment.oldRoot }
                case "@new":
                    environment.newRoot = tree(argument)
                    newSet = true
                case "@at": environment.location = argument.split(separator: "/").map(String.init)
                case "@bind":
                    let pair = argument.split(separator: "=", maxSplits: 1).map(String.init)
                    if pair.count == 2 { environment.bindings[pair[0]] = pair[1] } else { problems.append("\(file):\(lineNumber): bad @bind") }
                case "@auth": environment.auth = json(argument)
                case "@now": environment.now = Double(argument) ?? 0
                case "@kind":
                    if let k = RuleKind(rawValue: "." + argument) { kind = k } else { problems.append("\(file):\(lineNumber): bad @kind") }
                case "@query":
                    guard case .object(let q) = json(argument) else { problems.append("\(file):\(lineNumber): bad @query"); continue }
                    var query = DatabaseQuery()
                    if case .string(let s)? = q["orderByChild"] { query.orderByChild = s }
                    if case .string(let s)? = q["equalTo"] { query.equalTo = .string(s) }
                    if case .number(let n)? = q["limitToFirst"] { query.limitToFirst = n }
                    environment.query = query
                default: problems.append("\(file):\(lineNumber): unknown directive \(parts[0])")
                }
                continue
            }
            guard let arrow = line.range(of: " => ", options: .backwards) else {
                problems.append("\(file):\(lineNumber): expected `EXPRESSION => EXPECTED`")
                continue
            }
            let expression = String(line[..<arrow.lowerBound])
            let expected = line[arrow.upperBound...].trimmingCharacters(in: .whitespaces)
            let expectation: Expectation
            switch expected {
            case "true": expectation = .value(true)
            case "false": expectation = .value(false)
            case _ where expected.hasPrefix("error "): expectation = .evaluationError(String(expected.dropFirst(6)))
            case _ where expected.hasPrefix("compile "): expectation = .compileError(String(expected.dropFirst(8)))
            default:
                problems.append("\(file):\(lineNumber): unknown expectation `\(expected)`")
                continue
            }
            cases.append(DatabaseExpressionCase(name: "\(file)/\(section)/\(lineNumber)", expression: expression, expectation: expectation,
                                                kind: kind, environment: environment))
        }
        return (cases, problems)
    }
}

@Suite struct DatabaseExpressionCorpusTests {
    static let loaded = DatabaseExpressionCase.loadAll()

    @Test func corpusLoadsAndIsNotEmpty() {
        #expect(Self.loaded.problems.isEmpty, "\(Self.loaded.problems)")
        #expect(Self.loaded.cases.count > 250)
    }

    @Test(arguments: loaded.cases)
    func expression(_ testCase: DatabaseExpressionCase) {
        let failure = testCase.run()
        #expect(failure == nil, "\(testCase.name): `\(testCase.expression)`: \(failure ?? "")")
    }

    @Test func runnerReportsMismatches() {
        let wrong = DatabaseExpressionCase(name: "x", expression: "1 == 1", expectation: .value(false), kind: .validate, environment: .init())
        #expect(wrong.run() != nil)
        let wrongCode = DatabaseExpressionCase(name: "y", expression: "1 +", expectation: .compileError("RD3001"), kind: .validate, environment: .init())
        #expect(wrongCode.run() != nil)
        let (_, problems) = DatabaseExpressionCase.load("## s\n1 == 1\n@nope\n", file: "bad.txt")
        #expect(problems == ["bad.txt:2: expected `EXPRESSION => EXPECTED`", "bad.txt:3: unknown directive @nope"])
    }
}
