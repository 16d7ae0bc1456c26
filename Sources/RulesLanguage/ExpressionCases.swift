// ExpressionCases: the loader and runner for expression conformance files
// (`corpus/rules/expressions/*.txt`, format in that directory's README), shared by the tests of
// RulesLanguage and RulesPatterns.
import Foundation

/// One line of an expression conformance file: `EXPRESSION => EXPECTED`.
package struct ExpressionCase: Sendable, CustomStringConvertible {
    /// What the case expects.
    package enum Expectation: Sendable, Equatable {
        /// Equal to this expression's value, with the same type.
        case value(String)
        /// Evaluation fails with this code.
        case evaluationError(String)
        /// Parsing or checking reports this code.
        case compileError(String)
    }

    /// `file/section/line`.
    package var name: String
    /// The rules expression under test.
    package var expression: String
    /// What it must produce.
    package var expectation: Expectation

    /// The case name.
    package var description: String { name }

    /// Creates a case.
    package init(name: String, expression: String, expectation: Expectation) {
        self.name = name
        self.expression = expression
        self.expectation = expectation
    }

    /// Parses a conformance file.
    ///
    /// - Parameters:
    ///   - text: the file's contents.
    ///   - file: the file name used in case names.
    /// - Returns: the cases, or a message naming the first malformed line.
    package static func load(_ text: String, file: String) -> Result<[ExpressionCase], ExpressionCaseError> {
        var cases: [ExpressionCase] = []
        var section = "main"
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingSpaces
            if line.isEmpty { continue }
            if line.hasPrefix("## ") { section = String(line.dropFirst(3)); continue }
            if line.hasPrefix("#") { continue }
            let parts = line.components(separatedBy: " => ")
            guard parts.count >= 2, let expected = parts.last else {
                return .failure(ExpressionCaseError(message: "\(file):\(offset + 1): expected `EXPRESSION => EXPECTED`"))
            }
            let expression = parts.dropLast().joined(separator: " => ")
            let expectation: Expectation
            if expected.hasPrefix("error ") {
                expectation = .evaluationError(String(expected.dropFirst(6)))
            } else if expected.hasPrefix("compile ") {
                expectation = .compileError(String(expected.dropFirst(8)))
            } else {
                expectation = .value(expected)
            }
            cases.append(ExpressionCase(name: "\(file)/\(section)/\(offset + 1)", expression: expression, expectation: expectation))
        }
        return .success(cases)
    }

    /// Loads every `*.txt` file of a directory in name order, skipping `skipping`. A malformed
    /// file becomes one case named after the problem, which fails when run.
    package static func loadFiles(in directory: URL, skipping: Set<String> = []) -> [ExpressionCase] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasSuffix(".txt") && !skipping.contains($0) }.sorted()
        return names.flatMap { name -> [ExpressionCase] in
            guard let text = try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8) else {
                return [ExpressionCase(name: "\(name): unreadable", expression: "", expectation: .value("unreadable"))]
            }
            switch load(text, file: name) {
            case .success(let cases): return cases
            case .failure(let error): return [ExpressionCase(name: error.message, expression: "", expectation: .value("malformed"))]
            }
        }
    }

    /// Runs the case; returns nil when it passes, else a description of the mismatch.
    package func run(regexEngine: any RegexEngine) -> String? {
        let (parsed, parseDiagnostics) = RulesParser.parseExpression(expression)
        var diagnostics = parseDiagnostics
        if let parsed {
            diagnostics += RulesCompiler.checkExpression(parsed, regexEngine: regexEngine)
        }
        let codes = diagnostics.filter { $0.severity == .error }.map(\.code)
        if case .compileError(let code) = expectation {
            return codes.contains(code) ? nil : "expected compile error \(code), got \(codes.isEmpty ? "none" : codes.joined(separator: ", "))"
        }
        guard let parsed, codes.isEmpty else {
            return "does not compile: " + diagnostics.map { "\($0.code) \($0.message)" }.joined(separator: "; ")
        }
        let (actual, _) = Program.evaluateExpression(parsed, regexEngine: regexEngine)
        switch (expectation, actual) {
        case (.evaluationError(let code), .failure(let error)):
            return error.code == code ? nil : "expected error \(code), got \(error.code) (\(error.message))"
        case (.evaluationError(let code), .success(let value)):
            return "expected error \(code), got \(value.typeName) \(value)"
        case (.value(let text), _):
            let (expectedExpr, expectedDiagnostics) = RulesParser.parseExpression(text)
            guard let expectedExpr else {
                return "expected value does not parse: " + expectedDiagnostics.map(\.message).joined(separator: "; ")
            }
            guard case .success(let expected) = Program.evaluateExpression(expectedExpr, regexEngine: regexEngine).0 else {
                return "expected value does not evaluate"
            }
            switch actual {
            case .failure(let error): return "expected \(expected), got error \(error.code) (\(error.message))"
            case .success(let value):
                return value.isIdentical(to: expected) ? nil : "expected \(expected.typeName) \(expected), got \(value.typeName) \(value)"
            }
        case (.compileError, _):
            return nil
        }
    }
}

/// A malformed conformance file.
package struct ExpressionCaseError: Error, Sendable, CustomStringConvertible {
    /// Which line is malformed and why.
    package var message: String
    /// The message.
    package var description: String { message }
}

extension Value {
    /// Equal and of the same type all the way down (`1` is not identical to `1.0`).
    package func isIdentical(to other: Value) -> Bool {
        guard typeName == other.typeName, self == other else { return false }
        switch (self, other) {
        case (.list(let a), .list(let b)): return zip(a, b).allSatisfy { $0.isIdentical(to: $1) }
        case (.map(let a), .map(let b)): return a.allSatisfy { key, value in b[key].map { value.isIdentical(to: $0) } ?? false }
        default: return true
        }
    }
}

extension Substring {
    var trimmingSpaces: String {
        var s = self
        while let first = s.first, first == " " || first == "\t" || first == "\r" { s.removeFirst() }
        while let last = s.last, last == " " || last == "\t" || last == "\r" { s.removeLast() }
        return String(s)
    }
}
