import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import RulesTestSupport
import Testing

/// The CI-native outputs (issue 29 §5): JUnit XML from `rules test`, SARIF from `rules lint` and
/// `rules verify`, lcov coverage and `--min-coverage`, each parsed back.
@Suite("CI outputs")
struct CIOutputTests {
    static let fixtures = "corpus/cli/rules/fixtures"

    // MARK: - JUnit

    @Test("rules test --format junit: a suite per case file, a case per case, failures and errors")
    func junit() throws {
        let failing = "\(Self.fixtures)/failing.cases.yaml", broken = "\(Self.fixtures)/broken-rules.cases.yaml"
        let run = try runValidate(["rules", "test", failing, broken, "--format", "junit"])
        #expect(run.status == 2, "a file that cannot be used wins over failed cases")
        // The same run as jsonl: the oracle for names and verdicts.
        let jsonl = try runValidate(["rules", "test", failing, broken, "--format", "jsonl"])
        let expected = try String(decoding: jsonl.stdout, as: UTF8.self).split(separator: "\n").map { line in
            try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(expected.count == 3)

        let document = try XMLDocument(data: run.stdout)
        let root = try #require(document.rootElement())
        #expect(root.name == "testsuites")
        let suites = root.elements(forName: "testsuite")
        #expect(suites.map { $0.attribute(forName: "name")?.stringValue } == [failing, broken])
        #expect(root.attribute(forName: "tests")?.stringValue == "4")
        #expect(root.attribute(forName: "failures")?.stringValue == "\(expected.filter { $0["pass"] as? Bool == false }.count)")
        #expect(root.attribute(forName: "errors")?.stringValue == "1")

        let cases = suites[0].elements(forName: "testcase")
        #expect(cases.map { $0.attribute(forName: "name")?.stringValue } == expected.map { $0["name"] as? String })
        #expect(suites[0].attribute(forName: "tests")?.stringValue == "\(cases.count)")
        for (element, oracle) in zip(cases, expected) {
            let failures = element.elements(forName: "failure")
            #expect(element.attribute(forName: "classname")?.stringValue == failing)
            if oracle["pass"] as? Bool == true {
                #expect(failures.isEmpty)
            } else {
                let failure = try #require(failures.first)
                #expect(failure.attribute(forName: "message")?.stringValue
                        == "expected \(oracle["expect"] as? String ?? "?"), got \(oracle["actual"] as? String ?? "?")")
                // The explanation, as the text format prints it (indented there).
                let text = try #require(failure.stringValue)
                let textRun = try runValidate(["rules", "test", failing])
                let indented = text.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n")
                #expect(String(decoding: textRun.stdout, as: UTF8.self).contains(indented))
                #expect(text.contains("denied") || text.contains("allowed"))
            }
        }
        let errorCase = try #require(suites[1].elements(forName: "testcase").first)
        let error = try #require(errorCase.elements(forName: "error").first)
        #expect(suites[1].attribute(forName: "errors")?.stringValue == "1")
        #expect(error.stringValue == String(decoding: run.stderr, as: UTF8.self).trimmingCharacters(in: .newlines))
        #expect(error.stringValue?.contains("error[RL") == true)
    }

    @Test("JUnit XML escapes what case names and explanations hold")
    func junitEscapes() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("junit-escape-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let name = "a <b> & \"c\" 'd'\u{1}"
        let cases = """
            {"rules": "\(packageRoot.path)/\(Self.fixtures)/coverage.rules", "service": "firestore",
             "cases": [{"name": "\(name.replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\u{1}", with: "\\u0001"))",
                        "path": "/databases/(default)/documents/notes/x", "method": "get", "expect": "allow"}]}
            """
        let file = directory.appendingPathComponent("escape.cases.json")
        try Data(cases.utf8).write(to: file)
        let run = try runValidate(["rules", "test", file.path, "--format", "junit"])
        #expect(run.status == 1)
        let document = try XMLDocument(data: run.stdout)
        let testCase = try #require(document.rootElement()?.elements(forName: "testsuite").first?.elements(forName: "testcase").first)
        // U+0001 cannot appear in XML 1.0: it becomes U+FFFD, the rest round-trips.
        #expect(testCase.attribute(forName: "name")?.stringValue == "a <b> & \"c\" 'd'\u{FFFD}")
        #expect(testCase.elements(forName: "failure").count == 1)
    }

    // MARK: - SARIF

    /// The fields every SARIF result must carry, checked on the parsed log; returns the results.
    func sarifResults(_ data: Data) throws -> (rules: [[String: Any]], results: [[String: Any]]) {
        let log = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(log["version"] as? String == "2.1.0")
        #expect((log["$schema"] as? String)?.hasSuffix("sarif-schema-2.1.0.json") == true)
        let runs = try #require(log["runs"] as? [[String: Any]])
        #expect(runs.count == 1)
        let driver = try #require((runs[0]["tool"] as? [String: Any])?["driver"] as? [String: Any])
        #expect((driver["name"] as? String)?.isEmpty == false)
        let rules = try #require(driver["rules"] as? [[String: Any]])
        let ids = rules.compactMap { $0["id"] as? String }
        #expect(Set(ids).count == rules.count, "each code once")
        for rule in rules {
            #expect(((rule["help"] as? [String: Any])?["text"] as? String)?.isEmpty == false, "\(rule)")
        }
        let results = try #require(runs[0]["results"] as? [[String: Any]])
        for result in results {
            let ruleId = try #require(result["ruleId"] as? String)
            #expect(ids.contains(ruleId))
            #expect((result["ruleIndex"] as? Int).map { ids[$0] } == ruleId)
            #expect(["error", "warning", "note"].contains(result["level"] as? String ?? ""))
            #expect(((result["message"] as? [String: Any])?["text"] as? String)?.isEmpty == false)
            let location = try #require((result["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any])
            #expect(((location["artifactLocation"] as? [String: Any])?["uri"] as? String)?.isEmpty == false)
            let region = try #require(location["region"] as? [String: Any])
            #expect((region["startLine"] as? Int ?? 0) >= 1)
            #expect((region["startColumn"] as? Int ?? 0) >= 1)
        }
        return (rules, results)
    }

    @Test("rules lint --format sarif: the diagnostics of --format json, as SARIF 2.1.0")
    func lintSARIF() throws {
        let files = ["\(Self.fixtures)/holes.rules", "\(Self.fixtures)/broken.rules", "\(Self.fixtures)/missing.rules"]
        let run = try runValidate(["rules", "lint"] + files + ["--format", "sarif"])
        let json = try runValidate(["rules", "lint"] + files + ["--format", "json"])
        #expect(run.status == json.status)
        #expect(run.status == 2)
        let (rules, results) = try sarifResults(run.stdout)
        let oracle = try String(decoding: json.stdout, as: UTF8.self).split(separator: "\n").map { line in
            try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(oracle.count >= 2)
        // The unreadable file is the last result, on line 1.
        #expect(results.count == oracle.count + 1)
        for (result, diagnostic) in zip(results, oracle) {
            let location = (result["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any]
            let region = location?["region"] as? [String: Any]
            #expect(result["ruleId"] as? String == diagnostic["code"] as? String)
            #expect(result["level"] as? String == diagnostic["severity"] as? String)
            #expect((result["message"] as? [String: Any])?["text"] as? String == diagnostic["message"] as? String)
            #expect((location?["artifactLocation"] as? [String: Any])?["uri"] as? String == diagnostic["file"] as? String)
            #expect(region?["startLine"] as? Int == diagnostic["line"] as? Int)
            #expect(region?["startColumn"] as? Int == diagnostic["column"] as? Int)
        }
        // Each code's help text is the first help its diagnostics give, else the first message.
        for rule in rules where rule["id"] as? String != "CLI3001" {
            let code = rule["id"] as? String
            let first = try #require(oracle.first { $0["code"] as? String == code })
            let help = oracle.first { $0["code"] as? String == code && $0["help"] != nil }?["help"] as? String ?? first["message"] as? String
            let text = (rule["help"] as? [String: Any])?["text"] as? String
            #expect(text == help)
        }
        let unreadable = try #require(results.last)
        #expect(unreadable["ruleId"] as? String == "CLI3001")
        #expect(unreadable["level"] as? String == "error")
        #expect(Set(results.compactMap { $0["ruleId"] as? String }) == Set(rules.compactMap { $0["id"] as? String }))
    }

    @Test("rules lint --format sarif with nothing to report is a log with no results")
    func lintSARIFClean() throws {
        let run = try runValidate(["rules", "lint", "\(Self.fixtures)/coverage.rules", "--format", "sarif"])
        #expect(run.status == 0)
        let (rules, results) = try sarifResults(run.stdout)
        #expect(rules.isEmpty)
        #expect(results.isEmpty)
    }

    @Test("rules verify --format sarif: a result per property that does not pass, at the property")
    func verifySARIF() throws {
        let props = "\(Self.fixtures)/verify/notes.props.json"
        let run = try runValidate(["rules", "verify", props, "--format", "sarif"])
        let jsonl = try runValidate(["rules", "verify", props, "--format", "jsonl"])
        #expect(run.status == 1)
        #expect(run.status == jsonl.status)
        let failed = try String(decoding: jsonl.stdout, as: UTF8.self).split(separator: "\n").compactMap { line -> [String: Any]? in
            let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return object["pass"] as? Bool == false ? object : nil
        }
        #expect(failed.count == 1)
        let (_, results) = try sarifResults(run.stdout)
        #expect(results.count == failed.count)
        let text = try String(contentsOfFile: packageRoot.appendingPathComponent(props).path, encoding: .utf8)
        for (result, property) in zip(results, failed) {
            let name = try #require(property["property"] as? String)
            #expect(result["ruleId"] as? String == (property["verdict"] as? String == "violated" ? "VF3001" : "other"))
            let message = (result["message"] as? [String: Any])?["text"] as? String ?? ""
            #expect(message.hasPrefix("property `\(name)`: violated (expected holds); witness: {"))
            // Where the property's quoted name starts in the file.
            let prefix = try #require(text.range(of: "\"\(name)\"")).lowerBound
            let before = text[..<prefix]
            let line = before.split(separator: "\n", omittingEmptySubsequences: false).count
            let column = before.distance(from: before.lastIndex(of: "\n").map { before.index(after: $0) } ?? before.startIndex, to: before.endIndex) + 1
            let location = (result["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any]
            #expect((location?["artifactLocation"] as? [String: Any])?["uri"] as? String == props)
            #expect((location?["region"] as? [String: Any])?["startLine"] as? Int == line)
            #expect((location?["region"] as? [String: Any])?["startColumn"] as? Int == column)
        }
    }

    @Test("rules verify --format sarif reports a property file that cannot be used at its position")
    func verifySARIFBadFile() throws {
        let run = try runValidate(["rules", "verify", "\(Self.fixtures)/verify/broken.props.json", "--format", "sarif"])
        #expect(run.status == 2)
        let (_, results) = try sarifResults(run.stdout)
        #expect(results.count == 1)
        #expect(results.first?["ruleId"] as? String == "VF1004")
        // The same position the text on standard error names.
        let stderr = String(decoding: run.stderr, as: UTF8.self)
        let region = ((results.first?["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any])?["region"] as? [String: Any]
        let line = region?["startLine"] as? Int ?? 0, column = region?["startColumn"] as? Int ?? 0
        #expect(stderr.contains(":\(line):\(column): error[VF1004]"), "\(stderr)")
    }

    // MARK: - lcov and --min-coverage

    /// coverage.cases.yaml against coverage.rules, worked out by hand. The condition of `allow
    /// get` is `(A && B) || C`: A `request.auth != null`, B `request.auth.uid == noteId`, C
    /// `noteId == 'public'`. Signed out on `n1`: A false, `A && B` false, C false, the whole false.
    /// alice on `alice`: A, B, `A && B` and the whole true, C not evaluated. So the conditions in
    /// source order (the whole, `A && B`, A, B, C) were true 1, 1, 1, 1, 0 times and false 1, 1, 1,
    /// 0, 1 times: 8 of 10 outcomes.
    static let coverageCases = "\(fixtures)/coverage.cases.yaml"

    @Test("--coverage-format lcov: SF, BRDA per condition outcome, DA per allow, end_of_record")
    func lcov() throws {
        let run = try runValidate(["rules", "test", Self.coverageCases, "--format", "jsonl", "--coverage", "-", "--coverage-format", "lcov"])
        #expect(run.status == 0)
        let lines = String(decoding: run.stdout, as: UTF8.self).split(separator: "\n").map(String.init).filter { !$0.hasPrefix("{") }
        // One record: TN, SF, BRDA…, BRF, BRH, DA…, LF, LH, end_of_record.
        #expect(lines.first == "TN:")
        #expect(lines.last == "end_of_record")
        #expect(lines.filter { $0 == "end_of_record" }.count == 1)
        #expect(lines.dropFirst().first == "SF:\(Self.fixtures)/coverage.rules")
        let rulesText = try String(contentsOfFile: packageRoot.appendingPathComponent("\(Self.fixtures)/coverage.rules").path, encoding: .utf8)
        let allowLine = try #require(rulesText.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("allow get") }) + 1
        let branches = lines.filter { $0.hasPrefix("BRDA:") }.map { $0.dropFirst(5).split(separator: ",").map(String.init) }
        #expect(branches.count == 10)
        #expect(branches.allSatisfy { $0.count == 4 && $0[0] == "\(allowLine)" })
        #expect(branches.map { "\($0[1]).\($0[2])" } == (0..<5).flatMap { ["\($0).0", "\($0).1"] })
        #expect(branches.map { $0[3] } == ["1", "1", "1", "1", "1", "1", "1", "0", "0", "1"])
        #expect(lines.contains("BRF:10"))
        #expect(lines.contains("BRH:8"))
        #expect(lines.filter { $0.hasPrefix("DA:") } == ["DA:\(allowLine),2"])
        #expect(lines.contains("LF:1"))
        #expect(lines.contains("LH:1"))
    }

    @Test("--coverage FILE writes lcov to the file; json stays the default")
    func lcovFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("coverage-\(getpid()).info")
        defer { try? FileManager.default.removeItem(at: path) }
        let run = try runValidate(["rules", "test", Self.coverageCases, "--coverage", path.path, "--coverage-format", "lcov"])
        #expect(run.status == 0)
        let written = try String(contentsOf: path, encoding: .utf8)
        #expect(written.hasPrefix("TN:\nSF:"))
        #expect(written.hasSuffix("end_of_record\n"))
        let json = try runValidate(["rules", "test", Self.coverageCases, "--format", "jsonl", "--coverage", "-"])
        let coverage = String(decoding: json.stdout, as: UTF8.self).split(separator: "\n", maxSplits: 2).dropFirst(2).joined()
        #expect(try JSONSerialization.jsonObject(with: Data(coverage.utf8)) is [String: Any])
    }

    @Test("database rules in lcov: a DA per rule, a BRDA pair per condition")
    func lcovDatabase() throws {
        let run = try runValidate(["rules", "test", "\(Self.fixtures)/db-small.cases.json", "--format", "jsonl",
                                   "--coverage", "-", "--coverage-format", "lcov"])
        let lines = String(decoding: run.stdout, as: UTF8.self).split(separator: "\n").map(String.init).filter { !$0.hasPrefix("{") }
        #expect(lines.dropFirst().first == "SF:\(Self.fixtures)/db-small.rules.json")
        let rules = try String(contentsOfFile: packageRoot.appendingPathComponent("\(Self.fixtures)/db-small.rules.json").path, encoding: .utf8)
        // One DA line per line holding a `.read`, `.write` or `.validate`.
        let ruleLines = rules.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            .filter { $0.element.contains("\".read\"") || $0.element.contains("\".write\"") || $0.element.contains("\".validate\"") }.map { $0.offset + 1 }
        #expect(lines.filter { $0.hasPrefix("DA:") }.compactMap { Int($0.dropFirst(3).split(separator: ",")[0]) }.sorted() == ruleLines)
        let branches = lines.filter { $0.hasPrefix("BRDA:") }
        #expect(branches.count % 2 == 0 && !branches.isEmpty)
        let taken = branches.map { $0.split(separator: ",")[3] }.filter { $0 != "-" && $0 != "0" }.count
        #expect(lines.contains("BRF:\(branches.count)"))
        #expect(lines.contains("BRH:\(taken)"))
    }

    @Test("--min-coverage at, just below and just above the exact share", arguments: [
        ("80", Int32(0)), ("79.999999", Int32(0)), ("80.000001", Int32(1)), ("0", Int32(0)), ("100", Int32(1)),
    ])
    func minCoverage(_ threshold: String, _ status: Int32) throws {
        let run = try runValidate(["rules", "test", Self.coverageCases, "--min-coverage", threshold])
        #expect(run.status == status)
        let meets = status == 0 ? "meets" : "below"
        #expect(String(decoding: run.stdout, as: UTF8.self).hasSuffix(
            "coverage: 8 of 10 condition outcomes covered (80%), \(meets) --min-coverage \(threshold)\n"))
    }

    @Test("--min-coverage with a machine format prints the share on standard error")
    func minCoverageMachineFormat() throws {
        let run = try runValidate(["rules", "test", Self.coverageCases, "--format", "junit", "--min-coverage", "90"])
        #expect(run.status == 1)
        #expect(String(decoding: run.stderr, as: UTF8.self) == "coverage: 8 of 10 condition outcomes covered (80%), below --min-coverage 90\n")
        #expect(try XMLDocument(data: run.stdout).rootElement()?.name == "testsuites")
    }

    @Test("a failed case keeps exit status 1 and an unusable file 2, whatever the coverage")
    func minCoverageKeepsWorseStatus() throws {
        let broken = try runValidate(["rules", "test", Self.coverageCases, "\(Self.fixtures)/broken-rules.cases.yaml", "--min-coverage", "0"])
        #expect(broken.status == 2)
    }

    @Test("--min-coverage and --coverage-format refuse bad values", arguments: [
        ["--min-coverage", "100.5"], ["--min-coverage", "-1"], ["--min-coverage", "1e2"], ["--min-coverage", "80."],
        ["--min-coverage", "0.1234567"], ["--min-coverage", "nan"], ["--coverage-format", "lcov"], ["--coverage", "-", "--coverage-format", "xml"],
    ])
    func usage(_ arguments: [String]) throws {
        let run = try runValidate(["rules", "test", Self.coverageCases] + arguments)
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
    }
}
