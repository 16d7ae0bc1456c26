import Diagnostics
import Foundation
import RulesLanguage
import Testing
@testable import RulesTesting

/// The app's own rules (`rules/*.rules`) against their case files and the display-name list.
@Suite("App rules")
struct AppRulesTests {
    @Test("app case", arguments: AppCase.all(in: RepoPaths.appCaseFiles))
    func appCase(_ appCase: AppCase) throws {
        try appCase.check()
    }

    @Test("the app's cases evaluate every sub-expression, and every boolean one both true and false")
    func appCasesCoverEverything() throws {
        let runner = RulesTestRunner(collectCoverage: true)
        for file in RepoPaths.appCaseFiles { _ = try runner.run(caseFileAt: RepoPaths.path(file)) }
        #expect(runner.coverage.count == 2)
        for (rulesPath, collector) in runner.coverage {
            for expr in collector.trackedExpressions {
                let text = String(decoding: collector.program.source.bytes[expr.span.start..<expr.span.end], as: UTF8.self)
                let location = "\(rulesPath):\(collector.program.source.location(of: expr.span.start))"
                let counts = try #require(collector.counts[expr.span], "never evaluated: `\(text)` at \(location)")
                if counts.valueCount == 0 {
                    #expect(counts.trueCount > 0 && counts.falseCount > 0, "not seen both ways: `\(text)` at \(location)")
                }
            }
        }
    }

    @Test("the app's case files load and hold at least 120 cases")
    func appCaseFilesLoad() throws {
        var total = 0
        for file in RepoPaths.appCaseFiles {
            total += try CaseFileLoader.load(path: RepoPaths.path(file)).cases.count
        }
        #expect(RepoPaths.appCaseFiles.count >= 3)
        #expect(total >= 120)
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
        let decision = try Self.claimCreate(name.name)
        let source = try Self.firestoreProgram().source
        #expect(decision.allowed == name.valid,
                "\(name.why): expected \(name.valid ? "allow" : "deny")\n\(decision.explanation(in: source))")
    }

    static let conformanceCases: [DisplayNameCase] = DisplayNameCase.loadConformance(RepoPaths.path("corpus/conformance/display-name.json"))

    @Test("the display-name conformance corpus has at least 150 cases")
    func conformanceSize() {
        #expect(Self.conformanceCases.count >= 150)
    }

    /// `corpus/conformance/display-name.json` holds the display-name validator's exact codes for
    /// every boundary (run by FieldValidationTests); a case with no codes is a valid name, which
    /// the claim create rule must allow, and every other case it must deny.
    @Test("the claim create rule agrees with the display-name validator on every conformance case", arguments: conformanceCases)
    func conformanceCreate(_ name: DisplayNameCase) throws {
        let decision = try Self.claimCreate(name.name)
        let source = try Self.firestoreProgram().source
        #expect(decision.allowed == name.valid,
                "\(name.why): expected \(name.valid ? "allow" : "deny")\n\(decision.explanation(in: source))")
    }

    static func firestoreProgram() throws -> Program {
        try #require(AppCase.programs[RepoPaths.path("rules/firestore.rules")])
    }

    /// The claim the app's client writes for `name` on sign-up: the document id is the canonical
    /// key (ASCII lowercase), the fields `userId`, `displayName` (as typed) and `createdAt`
    /// (a server timestamp, so the request time).
    static func claimCreate(_ name: String) throws -> Decision {
        let program = try firestoreProgram()
        let time = Timestamp(seconds: 1_767_607_200)
        let key = String(decoding: name.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
        let request = RulesRequest(
            service: .firestore, path: "/databases/(default)/documents/displayNames/" + key, method: .create,
            auth: Auth(uid: "alice"),
            requestResource: .map(["userId": .string("alice"), "displayName": .string(name), "createdAt": .timestamp(time)]),
            time: time)
        return program.evaluate(request, lookup: EmptyDatabase())
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
        #expect(names.count >= 50)
        var checked = 0
        for name in names {
            let decision = try Self.claimCreate(name)
            let wellFormed = name.count >= 3 && name.count <= 30
            #expect(!decision.allowed || !wellFormed, "reserved name `\(name)` is accepted by the create rule")
            if wellFormed { checked += 1 }
        }
        #expect(checked >= 50, "only \(checked) reserved names were long enough to check")
    }
}

/// One case of a case file, by file and name (a test argument, shown as `file/case`).
struct AppCase: Sendable, CustomTestStringConvertible {
    let file: String
    let name: String
    var testDescription: String { "\(file)/\(name)" }

    /// Every case of the given case files; a file that does not load becomes one failing case.
    static func all(in files: [String]) -> [AppCase] {
        files.flatMap { file -> [AppCase] in
            guard let loaded = try? CaseFileLoader.load(path: RepoPaths.path(file)) else {
                return [AppCase(file: file, name: "(file does not load)")]
            }
            return loaded.cases.map { AppCase(file: file, name: $0.name) }
        }
    }

    /// Compiled rules by path, shared by all cases (a `Program` is immutable and `Sendable`).
    static let programs: [String: Program] = {
        var programs: [String: Program] = [:]
        for path in ["rules/firestore.rules", "rules/storage.rules", "corpus/rules/runner/features.rules"] {
            let full = RepoPaths.path(path)
            programs[full] = try? RulesTestRunner.compile(rulesPath: full)
        }
        return programs
    }()

    /// Runs this one case and expects its decision.
    func check(sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let file = try CaseFileLoader.load(path: RepoPaths.path(self.file))
        let testCase = try #require(file.cases.first { $0.name == name }, sourceLocation: sourceLocation)
        let program = try Self.programs[file.rulesPath] ?? RulesTestRunner().program(for: file)
        let result = RulesTestRunner.evaluate(testCase, of: file, with: program)
        #expect(result.passed, "expected \(result.expect.rawValue), got \(result.actual.rawValue)\n\(result.explanation)",
                sourceLocation: sourceLocation)
    }
}

/// One line of `corpus/rules/display-names.txt`.
struct DisplayNameCase: Sendable, CustomTestStringConvertible {
    let name: String
    let valid: Bool
    let why: String
    var testDescription: String { "\(valid ? "valid" : "invalid"): \(why)" }

    /// The cases of a conformance file (`{"sections": [{"name", "cases": [{"name", "input", "codes"}]}]}`);
    /// a file that does not load becomes one failing case.
    static func loadConformance(_ path: String) -> [DisplayNameCase] {
        guard let data = FileManager.default.contents(atPath: path),
              let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let sections = root["sections"] as? [[String: Any]] else {
            return [DisplayNameCase(name: "", valid: true, why: "\(path) does not load")]
        }
        return sections.flatMap { section -> [DisplayNameCase] in
            let sectionName = section["name"] as? String ?? "?"
            return (section["cases"] as? [[String: Any]] ?? []).map { item in
                guard let input = item["input"] as? String, let codes = item["codes"] as? [String] else {
                    return DisplayNameCase(name: "", valid: true, why: "malformed case \(sectionName)/\(item["name"] ?? "?")")
                }
                let label = "\(sectionName)/\(item["name"] as? String ?? "?")"
                return DisplayNameCase(name: input, valid: codes.isEmpty, why: codes.isEmpty ? label : "\(label) \(codes)")
            }
        }
    }

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
