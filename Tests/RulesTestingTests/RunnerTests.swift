import Foundation
import RulesLanguage
import Testing
@testable import RulesTesting

@Suite("Case-file runner")
struct RunnerTests {
    /// The runner's own features as data: corpus/rules/runner/*.cases.* against features.rules.
    @Test("runner feature case", arguments: AppCase.all(in: RepoPaths.caseFiles(in: "corpus/rules/runner")))
    func featureCase(_ featureCase: AppCase) throws {
        try featureCase.check()
    }

    @Test("there are runner feature cases in JSON and YAML")
    func featureFilesExist() {
        let files = RepoPaths.caseFiles(in: "corpus/rules/runner")
        #expect(files.contains { $0.hasSuffix(".json") } && files.contains { $0.hasSuffix(".yaml") })
    }

    @Test("a result carries the decision and its explanation")
    func resultShape() throws {
        let file = try CaseFileLoader.decode("""
            rules: ../../rules/firestore.rules
            service: firestore
            cases:
              - {name: stranger updates, path: /databases/(default)/documents/users/alice, method: update,
                 auth: {uid: bob}, resource: {email: a}, requestResource: {email: a}, expect: allow}
            """, path: RepoPaths.path("corpus/rules/inline.cases.yaml"))
        let result = try #require(try RulesTestRunner().run(file).first)
        #expect(!result.passed)
        #expect(result.actual == .deny && result.expect == .allow)
        #expect(result.decision.candidates.count == 1)
        #expect(result.explanation.contains("`request.auth.uid == userId` is false"))
        #expect(result.explanation.contains("request.auth.uid = 'bob'"))
    }

    @Test("a file that cannot be used is reported and every other file still runs")
    func brokenFilesDoNotStopTheRun() {
        let paths = ["corpus/cli/rules/fixtures/read-request-resource.cases.yaml", "corpus/cli/rules/fixtures/broken-rules.cases.yaml",
                     "corpus/cli/rules/fixtures/does-not-exist.cases.json", "corpus/cli/rules/fixtures/bad-method.cases.json",
                     "corpus/cli/rules/fixtures/wrong-service.cases.json", "corpus/cli/rules/fixtures/failing.cases.yaml"]
            .map(RepoPaths.path)
        let report = RulesTestRunner().run(caseFilesAt: paths)
        #expect(report.files.map(\.path) == paths)
        #expect(report.files.map { $0.error == nil } == [true, false, false, false, false, true])
        #expect(report.files.map(\.results.count) == [4, 0, 0, 0, 0, 3])
        #expect(report.unusableFiles == 4)
        #expect(report.failedCases == 2)
        #expect(report.exitStatus == 2)
        // The broken rules file is reported with its diagnostics, located like a compiler.
        let rulesError = report.files[1].error.map(String.init(describing:)) ?? ""
        #expect(rulesError.contains("fixtures/broken.rules:6:52: error[RL1011]"), "\(rulesError)")
    }

    @Test("exit status: 2 for an unusable file, else 1 for a failing case, else 0", arguments: [
        (["read-request-resource.cases.yaml"], 0),
        (["read-request-resource.cases.yaml", "failing.cases.yaml"], 1),
        (["failing.cases.yaml", "bad-method.cases.json"], 2),
        (["broken-rules.cases.yaml"], 2),
    ] as [([String], Int32)])
    func exitStatus(files: [String], status: Int32) {
        let report = RulesTestRunner().run(caseFilesAt: files.map { RepoPaths.path("corpus/cli/rules/fixtures/" + $0) })
        #expect(report.exitStatus == status)
    }

    @Test("`request.resource` given on a get, list or delete is what the rules read")
    func requestResourceOnReadsAndDeletes() throws {
        let results = try RulesTestRunner().run(caseFileAt: RepoPaths.path("corpus/cli/rules/fixtures/read-request-resource.cases.yaml"))
        #expect(results.map(\.actual) == [.allow, .deny, .deny, .allow])
        #expect(results.allSatisfy { $0.passed })
        // Without `requestResource` the get reads an undefined `request.resource`: an error, so deny.
        #expect(results[1].explanation.contains("property `resource` is undefined on object"), "\(results[1].explanation)")
    }

    @Test("coverage JSON covers every rules file run")
    func coverageJSON() throws {
        let runner = RulesTestRunner(collectCoverage: true)
        var count = 0
        for file in RepoPaths.appCaseFiles { count += try runner.run(caseFileAt: RepoPaths.path(file)).count }
        let json = try #require(try JSONSerialization.jsonObject(with: Data(runner.coverageJSON().utf8)) as? [String: Any])
        let files = try #require(json["rules"] as? [[String: Any]])
        #expect(files.compactMap { $0["file"] as? String }.sorted() == [
            RepoPaths.path("rules/firestore.rules"), RepoPaths.path("rules/storage.rules"),
        ])
        #expect(files.compactMap { $0["requests"] as? Int }.reduce(0, +) == count)
    }

    @Test("problems with the rules file name the case file", arguments: [
        (#"{"rules": "missing.rules", "service": "firestore", "cases": []}"#, "cannot read rules file"),
        (#"{"rules": "../../rules/storage.rules", "service": "firestore", "cases": []}"#,
         "`service` is `firestore` but `\(RepoPaths.path("rules/storage.rules"))` declares `service firebase.storage`"),
        (#"{"rules": "runner/features.cases.yaml", "service": "firestore", "cases": []}"#, "error[RL"),
    ])
    func rulesProblems(text: String, fragment: String) throws {
        let file = try CaseFileLoader.decode(text, path: RepoPaths.path("corpus/rules/x.cases.json"))
        #expect {
            try RulesTestRunner().run(file)
        } throws: { error in
            String(describing: error).contains(fragment)
        }
    }

    @Test("mocks-only lookups fail for unlisted paths; database lookups find nothing")
    func lookupModes() {
        let testCase = RulesTestCase(
            name: "x", path: "/databases/(default)/documents/a/b", method: .get,
            existing: ["/databases/(default)/documents/u/1": .map(["k": .int(1)]), "/databases/(default)/documents/u/2": .null],
            existingAfter: ["/databases/(default)/documents/u/3": .map([:])], expect: .allow)
        let database = CaseDocumentLookup(testCase: testCase, mode: .database)
        let mocks = CaseDocumentLookup(testCase: testCase, mode: .mocksOnly)
        #expect(database.lookup(path: "/databases/(default)/documents/u/1", afterWrite: false) == .document(["k": .int(1)]))
        #expect(database.lookup(path: "/databases/(default)/documents/u/2", afterWrite: false) == .missing)
        #expect(database.lookup(path: "/databases/(default)/documents/u/9", afterWrite: false) == .missing)
        #expect(database.lookup(path: "/databases/(default)/documents/u/3", afterWrite: false) == .missing)
        #expect(database.lookup(path: "/databases/(default)/documents/u/3", afterWrite: true) == .document([:]))
        #expect(database.lookup(path: "/databases/(default)/documents/u/1", afterWrite: true) == .document(["k": .int(1)]))
        #expect(mocks.lookup(path: "/databases/(default)/documents/u/2", afterWrite: false) == .missing)
        #expect(mocks.lookup(path: "/databases/(default)/documents/u/9", afterWrite: false)
                == .failure("the path is not listed in `existing` (lookupMode mocks-only)"))
    }
}
