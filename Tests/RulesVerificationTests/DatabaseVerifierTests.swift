import DatabaseRules
import Diagnostics
import Foundation
import RulesCases
import RulesLoading
@testable import RulesVerification
import Testing

/// The repository's `rules/` directory.
let repositoryRules = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("rules")

func repositoryRulesText(_ name: String) throws -> String {
    try String(contentsOf: repositoryRules.appendingPathComponent(name), encoding: .utf8)
}

/// Compiles database rules text with the production `matches()` engine.
func databaseProgram(_ text: String) throws -> DatabaseProgram {
    try RulesLoader.compileDatabase(SourceFile(name: "database.rules.json", text: text))
}

/// Replays a database witness through the case loader and DatabaseProgram: whether it is allowed.
func databaseReplayAllowed(_ witness: String, program: DatabaseProgram) throws -> (allowed: Bool, testCase: DatabaseTestCase, root: DataNode?) {
    let testCase = try DatabaseCaseFileLoader.decodeRequest(witness, path: "witness.json")
    let root = try DatabaseTestCase.root(testCase.data ?? .null, time: testCase.time)
    return (program.evaluate(testCase.request, data: root).allowed, testCase, root)
}

/// Decides every property of a database property file against `rules`, checking that each
/// witness replays (allowed by the evaluator).
func verifyDatabase(_ rules: String, props: String, only name: String? = nil, timeout: Double = 60) throws -> [PropertyResult] {
    let program = try databaseProgram(rules)
    let file = try DatabasePropertyFileLoader.decode(props, path: "database.props.json")
    let verifier = DatabaseVerifier(timeout: timeout)
    var results: [PropertyResult] = []
    for property in file.properties where name == nil || property.name == name {
        let result = verifier.verify(property, in: file, program: program)
        if let witness = result.witness {
            #expect(try databaseReplayAllowed(witness, program: program).allowed, "witness \(witness)")
        }
        results.append(result)
    }
    return results
}

func databaseProps(_ properties: [String]) -> String {
    "{\"rules\": \"database.rules.json\", \"service\": \"database\", \"properties\": [\(properties.joined(separator: ", "))]}"
}

@Suite("Realtime Database properties")
struct DatabaseVerifierTests {
    @Test("the app's presence properties all pass")
    func appProperties() throws {
        let results = try verifyDatabase(try repositoryRulesText("database.rules.json"), props: try repositoryRulesText("properties/database.props.json"))
        #expect(results.count == 8)
        for result in results {
            #expect(result.passed, "\(result.property.name): \(result.verdict) \(result.reason ?? "")")
        }
        let witnessed = results.filter { $0.property.kind == .possible }.allSatisfy { $0.witness != nil }
        #expect(witnessed)
    }

    struct Hole: Sendable, CustomTestStringConvertible {
        var name: String
        var replace: String
        var with: String
        var property: String
        var testDescription: String { name }
    }

    static let holes: [Hole] = [
        Hole(name: "drop the uid check", replace: "\"auth != null && auth.uid == $uid\"", with: "\"auth != null\"",
             property: "only the owner writes their presence"),
        Hole(name: "a fourth status", replace: "newData.val() == 'away'", with: "newData.val() == 'away' || newData.val() == 'busy'",
             property: "status is online, offline or away"),
        Hole(name: "drop `$other: false`", replace: "\"$other\": { \".validate\": false }", with: "\"$other\": { \".validate\": true }",
             property: "a presence record has no other children"),
        Hole(name: "lastSeen from the client's clock", replace: "newData.isNumber() && newData.val() == now", with: "newData.isNumber()",
             property: "lastSeen is never in the future"),
        Hole(name: "reads for everyone", replace: "\".read\": \"auth != null\"", with: "\".read\": true",
             property: "reads need sign-in"),
    ]

    @Test("each planted hole is found violated, with a witness that replays and breaks the condition", arguments: holes)
    func plantedHole(_ hole: Hole) throws {
        let rules = try repositoryRulesText("database.rules.json")
        #expect(rules.contains(hole.replace))
        let planted = rules.replacingOccurrences(of: hole.replace, with: hole.with)
        let props = try repositoryRulesText("properties/database.props.json")
        let results = try verifyDatabase(planted, props: props, only: hole.property)
        let result = try #require(results.first)
        #expect(result.verdict == .violated, "\(result.reason ?? "")")
        let witness = try #require(result.witness)
        // The condition is false for the witness, by the evaluator.
        let program = try databaseProgram(planted)
        let file = try DatabasePropertyFileLoader.decode(props, path: "database.props.json")
        let property = try #require(file.properties.first { $0.name == hole.property })
        let (allowed, testCase, root) = try databaseReplayAllowed(witness, program: program)
        #expect(allowed)
        let keys = try DataTree.keys(of: testCase.path)
        var bindings: [String: String] = [:]
        for (index, segment) in property.segments.enumerated() where segment.hasPrefix("$") { bindings[segment] = keys[index] }
        var newRoot = root
        if testCase.method == .set {
            var budget = 1000
            let node = try DataTree.node(from: testCase.value ?? .null, existing: nil, now: testCase.time, path: testCase.path, budget: &budget)
            newRoot = DataTree.setting(root, at: keys[...], to: node)
        }
        let environment = ExpressionEnvironment(auth: testCase.auth, oldRoot: root, newRoot: newRoot, location: keys, bindings: bindings,
                                                now: testCase.time)
        let condition = try #require(property.condition)
        #expect(DatabaseRulesCompiler.evaluate(condition, in: environment, regexEngine: program.regexEngine) != .value(true))
        // The unplanted rules deny it.
        let original = try databaseProgram(rules)
        let before = try databaseReplayAllowed(witness, program: original)
        #expect(!before.allowed)
    }

    @Test("`.read` and `.write` cascade: a grant above cannot be revoked below")
    func cascade() throws {
        let rules = #"{"rules": {"public": {".read": true, "secret": {".read": false}}}}"#
        let results = try verifyDatabase(rules, props: databaseProps([
            #"{"name": "secret is never read", "path": "/public/secret", "methods": ["read"], "kind": "never", "expect": "violated"}"#,
            #"{"name": "nothing else is read", "path": "/$other", "methods": ["read"], "kind": "only-if", "condition": "$other == 'public'"}"#,
            #"{"name": "nothing is written", "path": "/public/$x", "methods": ["write"], "kind": "never"}"#,
        ]))
        #expect(results.map(\.verdict) == [.violated, .holds, .holds])
        let allPassed = results.allSatisfy { $0.passed }
        #expect(allPassed)
    }

    @Test("`.validate` runs on every written node and never on null")
    func validation() throws {
        let rules = #"""
            {"rules": {"items": {"$id": {".write": "auth != null", ".validate": "newData.hasChildren(['n'])",
              "n": {".validate": "newData.isNumber() && newData.val() >= 0"}, "tags": {"$t": {".validate": "newData.isString()"}}}}}}
            """#
        let results = try verifyDatabase(rules, props: databaseProps([
            #"{"name": "n is never negative", "path": "/items/$id", "methods": ["write"], "kind": "only-if", "condition": "!newData.exists() || newData.child('n').val() >= 0"}"#,
            #"{"name": "tags is never a string (it can be: only its children are validated)", "path": "/items/$id", "methods": ["write"], "kind": "only-if", "condition": "!newData.child('tags').isString()", "expect": "violated"}"#,
            #"{"name": "a record can be deleted", "path": "/items/$id", "methods": ["write"], "kind": "possible", "condition": "data.exists() && !newData.exists()"}"#,
            #"{"name": "a tag is written on its own", "path": "/items/$id/tags/$t", "methods": ["write"], "kind": "possible", "condition": "newData.val() == 'red'"}"#,
            #"{"name": "a number tag is never written", "path": "/items/$id/tags/$t", "methods": ["write"], "kind": "only-if", "condition": "!newData.isNumber()"}"#,
        ]))
        #expect(results.map(\.verdict) == [.holds, .violated, .holds, .holds, .holds], "\(results.map { $0.reason ?? "" })")
        let witness = try #require(results[1].witness)
        #expect(witness.contains("\"tags\": \""))
    }

    @Test("a `possible` property no request satisfies is violated (a proof)")
    func impossible() throws {
        let results = try verifyDatabase(try repositoryRulesText("database.rules.json"), props: databaseProps([
            #"{"name": "a signed-out write", "path": "/userPresence/$uid", "methods": ["write"], "kind": "possible", "condition": "auth == null", "expect": "violated"}"#,
            #"{"name": "a busy status", "path": "/userPresence/$uid/status", "methods": ["write"], "kind": "possible", "condition": "newData.val() == 'busy'", "expect": "violated"}"#,
        ]))
        #expect(results.map(\.verdict) == [.violated, .violated])
    }

    @Test("a construct that is not encoded makes the answer unknown, naming it and its location")
    func unknownConstruct() throws {
        let rules = #"{"rules": {"$k": {".read": "data.child(auth.uid).val() == 'x'"}}}"#
        let results = try verifyDatabase(rules, props: databaseProps([
            #"{"name": "nothing is read", "path": "/$k", "methods": ["read"], "kind": "never", "expect": "unknown"}"#,
        ]))
        let result = try #require(results.first)
        #expect(result.verdict == .unknown)
        #expect(result.reason?.contains("`child()` with a computed key at database.rules.json:1:") == true, "\(result.reason ?? "")")
    }

    @Test("the depth bound is reported when a witness needs a deeper value")
    func depthBound() throws {
        let rules = #"{"rules": {".write": true, "a": {"b": {"c": {"d": {".validate": "newData.val() == 1"}}}}}}"#
        let results = try verifyDatabase(rules, props: databaseProps([
            #"{"name": "a deep value", "path": "/", "methods": ["write"], "kind": "possible", "condition": "newData.child('a/b/c/d').val() == 2", "expect": "unknown"}"#,
        ]))
        let result = try #require(results.first)
        #expect(result.verdict == .unknown)
        #expect(result.reason?.contains("depth bound (2)") == true, "\(result.reason ?? "")")
    }

    @Test("`$` in `matches()` is the very end, as in the evaluator's dialect (never before a final line feed)")
    func dollarBeforeLineFeed() throws {
        let rules = #"{"rules": {"$k": {".write": "newData.isString() && newData.val().matches(/^a+$/)"}}}"#
        let results = try verifyDatabase(rules, props: databaseProps([
            #"{"name": "a value ending in a line feed", "path": "/$k", "methods": ["write"], "kind": "possible", "condition": "newData.val().endsWith('\\n')", "expect": "violated"}"#,
            #"{"name": "only a's", "path": "/$k", "methods": ["write"], "kind": "only-if", "condition": "!newData.val().contains('b')"}"#,
        ]))
        #expect(results.map(\.verdict) == [.violated, .holds], "\(results.map { $0.reason ?? "" })")
    }

    @Test("a property file with a bad condition or method is refused with its location")
    func badFile() throws {
        #expect(throws: PropertyFileError.self) {
            _ = try DatabasePropertyFileLoader.decode(databaseProps([
                #"{"name": "x", "path": "/a", "methods": ["get"], "kind": "never"}"#]), path: "p.json")
        }
        do {
            _ = try DatabasePropertyFileLoader.decode(databaseProps([
                #"{"name": "x", "path": "/a", "methods": ["read"], "kind": "only-if", "condition": "newData.exists()"}"#]), path: "p.json")
            Issue.record("a read condition with newData loaded")
        } catch {
            #expect(error.code == VerificationCodes.propertyCondition.id)
            #expect(error.location.hasPrefix("p.json:1:"))
        }
    }
}
