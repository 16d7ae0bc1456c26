import Foundation
import RulesLanguage
import RulesTesting

/// The inputs of `validate rules test` and `validate rules eval` on arbitrary bytes: case files
/// (``CaseFileHarness``) and request files (``RequestFileHarness``), read as JSON or YAML and
/// decoded; whatever decodes is evaluated against the app's rules (`rules/firestore.rules` or
/// `rules/storage.rules`, by the file's service; a case file's own `rules` path is not read).
enum CaseInputChecks {
    /// The reader a selector byte picks, as a file name the loader goes by.
    static func path(_ selector: UInt8, stem: String) -> String {
        selector & 1 == 0 ? "fuzz.\(stem).json" : "fuzz.\(stem).yaml"
    }

    /// A loader error names the file (with `:line:column` inside the text for a syntax error),
    /// its case when it has one, and says what is wrong.
    static func check(_ error: CaseFileError, path: String, text: String) -> [FuzzFinding] {
        var findings: [FuzzFinding] = []
        if error.message.isEmpty { findings.append(FuzzFinding("error without a message: \(error)")) }
        if error.caseName == "" { findings.append(FuzzFinding("error with an empty case name: \(error)")) }
        if error.file != path {
            let location = error.file.dropFirst(path.count)
            let parts = location.split(separator: ":", omittingEmptySubsequences: false)
            let breaks = text.unicodeScalars.filter { $0 == "\n" || $0 == "\r" }.count
            guard error.file.hasPrefix(path), parts.count == 3, parts[0].isEmpty,
                  let line = Int(parts[1]), let column = Int(parts[2]),
                  (1...breaks + 2).contains(line), (1...text.count + 1).contains(column)
            else { return findings + [FuzzFinding("error located outside the text (\(text.utf8.count) bytes): \(error)")] }
        }
        return findings
    }

    /// Evaluates a decoded case twice (once with coverage, the `--coverage` path) and checks
    /// that the decision is the same, that a grant names a granting candidate and carries no
    /// request error, and that the explanation is not empty.
    static func evaluate(_ testCase: RulesTestCase, service: CaseService, mode: LookupMode) -> [FuzzFinding] {
        guard let program = service == .firestore ? RulesEvalHarness.firestore : RulesEvalHarness.storage else {
            return [FuzzFinding("the app's rules do not compile")]
        }
        let file = RulesCaseFile(path: "fuzz", rulesPath: "fuzz.rules", service: service, lookupMode: mode, cases: [testCase])
        let result = RulesTestRunner.evaluate(testCase, of: file, with: program)
        let covered = RulesTestRunner.evaluate(testCase, of: file, with: program, coverage: CoverageCollector(program: program))
        var findings: [FuzzFinding] = []
        if result.actual != covered.actual {
            findings.append(FuzzFinding("`\(testCase.name)`: \(result.actual) without coverage, \(covered.actual) with"))
        }
        if result.decision.allowed {
            if result.decision.requestError != nil { findings.append(FuzzFinding("`\(testCase.name)`: allowed despite a request error")) }
            if !result.decision.candidates.contains(where: { $0.verdict == .granted }) {
                findings.append(FuzzFinding("`\(testCase.name)`: allowed without a granting candidate"))
            }
        }
        if result.explanation.isEmpty { findings.append(FuzzFinding("`\(testCase.name)`: empty explanation")) }
        return findings
    }
}

/// Case files (`validate rules test`) on arbitrary bytes.
///
/// Input layout: the first byte picks the reader (even: JSON, odd: YAML); the rest is the file.
///
/// Checks: decoding never traps; it is deterministic; an error names the file, is located inside
/// the text when it is a syntax error, and has a message; a decoded file has uniquely named
/// cases, a path of its service's form for each, and a non-empty `rules` path; every case (at most 16) evaluates consistently against the app's rules.
public enum CaseFileHarness {
    @Sendable public static func run(_ input: UnsafeRawBufferPointer) -> [FuzzFinding] {
        guard let selector = input.first else { return [] }
        let text = String(decoding: input.dropFirst(), as: UTF8.self)
        let path = CaseInputChecks.path(selector, stem: "cases")
        let outcome = Result { () throws(CaseFileError) in try CaseFileLoader.decode(text, path: path) }
        let again = Result { () throws(CaseFileError) in try CaseFileLoader.decode(text, path: path) }
        switch (outcome, again) {
        case (.failure(let error), .failure(let second)):
            if error != second { return [FuzzFinding("decoded twice with different errors: \(error) / \(second)")] }
            return CaseInputChecks.check(error, path: path, text: text)
        case (.success(let file), .success(let second)):
            var findings: [FuzzFinding] = []
            if file.cases != second.cases || file.rulesPath != second.rulesPath {
                findings.append(FuzzFinding("decoded twice into different files"))
            }
            if Set(file.cases.map(\.name)).count != file.cases.count { findings.append(FuzzFinding("two cases share a name")) }
            if file.rulesPath.isEmpty { findings.append(FuzzFinding("`rules` resolved to an empty path")) }
            let root = file.service == .firestore ? "/databases/" : "/b/"
            for testCase in file.cases where !testCase.path.hasPrefix(root) || testCase.name.isEmpty {
                findings.append(FuzzFinding("case `\(testCase.name)` with path `\(testCase.path)` for \(file.service)"))
            }
            for testCase in file.cases.prefix(16) {
                findings += CaseInputChecks.evaluate(testCase, service: file.service, mode: file.lookupMode)
            }
            return findings
        default:
            return [FuzzFinding("decoded twice with different outcomes")]
        }
    }
}

/// Request files (`validate rules eval`) on arbitrary bytes.
///
/// Input layout: the first byte picks the reader (bit 0: JSON or YAML) and the service (bit 1:
/// Firestore or Storage); the rest is the file.
///
/// Checks: decoding never traps and is deterministic; an error is located and named as for case
/// files; a decoded request is named `request` unless it names itself, and evaluates
/// consistently against the app's rules, exactly as the same text decoded as a one-case case
/// file would (the `eval` and `test` paths agree).
public enum RequestFileHarness {
    @Sendable public static func run(_ input: UnsafeRawBufferPointer) -> [FuzzFinding] {
        guard let selector = input.first else { return [] }
        let text = String(decoding: input.dropFirst(), as: UTF8.self)
        let path = CaseInputChecks.path(selector, stem: "request")
        let service: CaseService = selector & 2 == 0 ? .firestore : .storage
        let outcome = Result { () throws(CaseFileError) in try CaseFileLoader.decodeRequest(text, path: path, service: service) }
        let again = Result { () throws(CaseFileError) in try CaseFileLoader.decodeRequest(text, path: path, service: service) }
        switch (outcome, again) {
        case (.failure(let error), .failure(let second)):
            if error != second { return [FuzzFinding("decoded twice with different errors: \(error) / \(second)")] }
            return CaseInputChecks.check(error, path: path, text: text)
        case (.success(let request), .success(let second)):
            var findings: [FuzzFinding] = []
            if request.testCase != second.testCase || request.mode != second.mode {
                findings.append(FuzzFinding("decoded twice into different requests"))
            }
            if request.testCase.name.isEmpty { findings.append(FuzzFinding("a request without a name")) }
            findings += CaseInputChecks.evaluate(request.testCase, service: service, mode: request.mode)
            return findings
        default:
            return [FuzzFinding("decoded twice with different outcomes")]
        }
    }
}
