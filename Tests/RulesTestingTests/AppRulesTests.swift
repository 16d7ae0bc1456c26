import Diagnostics
import Foundation
import RulesLanguage
import Testing
@testable import RulesTesting

/// The app's own rules (`rules/*.rules`) against their case files and the display-name list.
@Suite("App rules")
struct AppRulesTests {
    /// Every case of every app case file, named `file/case`.
    static let appCases: [AppCase] = RepoPaths.appCaseFiles.flatMap { file -> [AppCase] in
        guard let loaded = try? CaseFileLoader.load(path: RepoPaths.path(file)) else {
            return [AppCase(file: file, name: "(file does not load)")]
        }
        return loaded.cases.map { AppCase(file: file, name: $0.name) }
    }

    @Test("app case", arguments: appCases)
    func appCase(_ appCase: AppCase) throws {
        let file = try CaseFileLoader.load(path: RepoPaths.path(appCase.file))
        let testCase = try #require(file.cases.first { $0.name == appCase.name })
        let runner = RulesTestRunner()
        let result = try #require(try runner.run(RulesCaseFile(
            path: file.path, rulesPath: file.rulesPath, service: file.service, lookupMode: file.lookupMode,
            cases: [testCase])).first)
        #expect(result.passed, "expected \(result.expect.rawValue), got \(result.actual.rawValue)\n\(result.explanation)")
    }

    @Test("the app's rules compile without diagnostics and lint clean",
          arguments: ["rules/firestore.rules", "rules/storage.rules"])
    func appRulesAreClean(_ path: String) throws {
        let source = try RulesTestRunner.readSource(RepoPaths.path(path))
        let result = RulesCompiler.compile(source, regexEngine: RulesTestRunner.defaultRegexEngine)
        #expect(result.diagnostics.isEmpty, "\(renderDiagnostics(result.diagnostics, in: source))")
        let warnings = RulesLinter.lint(result.tree)
        #expect(warnings.isEmpty, "\(renderDiagnostics(warnings, in: source))")
    }

    // MARK: Display names: the create rule agrees with the display-name rule

    static let displayNames: [DisplayNameCase] = DisplayNameCase.load(RepoPaths.path("corpus/rules/display-names.txt"))

    @Test("display-name list has at least 60 names")
    func displayNameListSize() {
        #expect(Self.displayNames.count >= 60)
    }

    @Test("display-name create rule agrees", arguments: displayNames)
    func displayNameCreate(_ name: DisplayNameCase) throws {
        let program = try RulesTestRunner.compile(rulesPath: RepoPaths.path("rules/firestore.rules"))
        let request = RulesRequest(
            service: .firestore, path: "/databases/(default)/documents/displayNames/" + name.name, method: .create,
            auth: Auth(uid: "alice"), requestResource: .map(["userId": .string("alice")]))
        let decision = program.evaluate(request, lookup: EmptyDatabase())
        #expect(decision.allowed == name.valid,
                "\(name.why): expected \(name.valid ? "allow" : "deny")\n\(decision.explanation(in: program.source))")
    }

    static let reservedListPath = RepoPaths.path("rules/lists/reserved-names.txt")

    @Test("every name of the display-name pack's reserved list is denied by the create rule",
          .enabled(if: FileManager.default.fileExists(atPath: reservedListPath),
                   "rules/lists/reserved-names.txt comes with the display-name rule pack (branch fieldval)"))
    func reservedKeysInSync() throws {
        let listPath = Self.reservedListPath
        let names = try String(contentsOfFile: listPath, encoding: .utf8)
            .split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        let program = try RulesTestRunner.compile(rulesPath: RepoPaths.path("rules/firestore.rules"))
        for name in names {
            let request = RulesRequest(
                service: .firestore, path: "/databases/(default)/documents/displayNames/" + name, method: .create,
                auth: Auth(uid: "alice"), requestResource: .map(["userId": .string("alice")]))
            let decision = program.evaluate(request, lookup: EmptyDatabase())
            let wellFormed = name.count >= 3 && name.count <= 30
            #expect(!decision.allowed || !wellFormed, "reserved name `\(name)` is accepted by the create rule")
        }
    }
}

/// One case of an app case file, by file and name (the test's argument).
struct AppCase: Sendable, CustomTestStringConvertible {
    let file: String
    let name: String
    var testDescription: String { "\(file)/\(name)" }
}

/// One line of `corpus/rules/display-names.txt`.
struct DisplayNameCase: Sendable, CustomTestStringConvertible {
    let name: String
    let valid: Bool
    let why: String
    var testDescription: String { "\(valid ? "valid" : "invalid"): \(why)" }

    static func load(_ path: String) -> [DisplayNameCase] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            if line.hasPrefix("#") || line.isEmpty { return nil }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 3, fields[0] == "valid" || fields[0] == "invalid" else {
                return DisplayNameCase(name: "", valid: true, why: "malformed line: \(line)")
            }
            return DisplayNameCase(name: unescape(String(fields[1])), valid: fields[0] == "valid", why: String(fields[2]))
        }
    }

    /// Undoes `\\`, `\n`, `\r`, `\t` and `\u{HEX}`.
    static func unescape(_ text: String) -> String {
        var out = ""
        var chars = text.makeIterator()
        while let char = chars.next() {
            guard char == "\\", let next = chars.next() else { out.append(char); continue }
            switch next {
            case "n": out.append("\n")
            case "r": out.append("\r")
            case "t": out.append("\t")
            case "u":
                var hex = ""
                _ = chars.next()  // `{`
                while let digit = chars.next(), digit != "}" { hex.append(digit) }
                if let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) { out.unicodeScalars.append(scalar) }
            default: out.append(next)
            }
        }
        return out
    }
}
