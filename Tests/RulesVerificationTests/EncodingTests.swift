import Foundation
import RulesCases
import RulesLanguage
import RulesPatterns
import RulesTesting
@testable import RulesVerification
import Testing

@Suite("SMT building blocks")
struct EncodingTests {
    /// Whether Z3 says `subject` is in the translation of `pattern`.
    func z3Matches(_ pattern: String, _ subject: String) throws -> Bool {
        let regex = try RegexTranslator.translateMembership(pattern).get().combined
        let answer = Z3Solver.check("(assert (str.in_re \(SMT.string(subject)) \(regex)))", values: [], limits: .decision(Z3Solver.decisionResourceLimit, secondsLeft: 10))
        switch answer {
        case .sat: return true
        case .unsat: return false
        case .unknown(let why): throw TestFailure(message: "solver gave up: \(why)")
        case .outOfResources: throw TestFailure(message: "solver ran out of resources")
        }
    }

    static let patterns = [
        "[A-Za-z0-9_]+([.][A-Za-z0-9_]+)*", "image/.*", "image/[^/]+", "a|b|cd", "x{2,3}", "x{2,}", "(?:ab)?c",
        "\\d+\\.\\d*", "[^a-c]", "\\w\\s\\W", "^abc$", "[]a]", "a.c", "[.]", "\\x41", "colou?r", "(a|b)*abb",
    ]
    static let subjects = [
        "", "a", "b", "cd", "abc", "john.doe", "john..doe", ".john", "john.", "image/png", "image/", "image/svg+xml",
        "image/a/b", "xx", "xxx", "xxxx", "c", "abc", "12.5", "12.", "d", "]", "a c", "a_\t!", "a\nc", "a.c", "A", "color",
        "colour", "abb", "aabb", "babb", "é", "日本",
    ]

    @Test("translated patterns agree with PCRE2 on sample strings")
    func regexAgreesWithPCRE2() throws {
        let engine = RulesTestRunner.defaultRegexEngine
        var compared = 0
        for pattern in Self.patterns {
            for subject in Self.subjects {
                let expected = try engine.matches(subject, pattern: pattern)
                #expect(try z3Matches(pattern, subject) == expected, "\(pattern) on \(subject.debugDescription)")
                compared += 1
            }
        }
        #expect(compared == Self.patterns.count * Self.subjects.count)
    }

    @Test("unsupported regex constructs are refused with their name")
    func unsupportedRegex() {
        for (pattern, construct) in [("(?i)abc", "group flags"), ("a\\bb", "escape `\\b`"), ("[[:alpha:]]", "POSIX class"), ("a^b", "`^` inside")] {
            guard case .failure(let problem) = RegexTranslator.translate(pattern) else {
                Issue.record("\(pattern) was translated")
                continue
            }
            #expect(problem.message.contains(construct), "\(pattern): \(problem.message)")
        }
    }

    @Test("string literals survive the trip through Z3")
    func stringRoundTrip() throws {
        for text in ["plain", "quote \" and \\ backslash", "tab\tnewline\n", "é日本🙂", "\u{0}\u{7f}"] {
            let answer = Z3Solver.check("(declare-const s String)\n(assert (= s \(SMT.string(text))))", values: ["s"], limits: .decision(Z3Solver.decisionResourceLimit, secondsLeft: 10))
            guard case .sat(let values) = answer else { Issue.record("not sat: \(answer)"); continue }
            let model = Model(values)
            #expect(model.string("|s|") == text, "\(text.debugDescription) came back as \(String(describing: model.string("|s|")).debugDescription)")
        }
    }

    @Test("a query stops at its resource limit long before its time limit")
    func resourceLimit() {
        // Z3 4.8 does not decide this (a string's length is a nonlinear product) in any time.
        let hard = """
            (declare-const x Int)
            (declare-const y Int)
            (declare-const s String)
            (assert (= (str.len s) (* x y)))
            (assert (> x 1000))
            (assert (str.in_re s (re.+ (str.to_re "ab"))))
            """
        let started = Date()
        let answer = Z3Solver.check(hard, values: [], limits: SolverLimits(resourceLimit: 100_000, timeoutMilliseconds: 600_000))
        #expect(answer == .outOfResources)
        #expect(Date().timeIntervalSince(started) < 60)
    }

    @Test("reals are exact for doubles")
    func reals() {
        #expect(SMT.real(0.5) == "(/ 1.0 2.0)")
        #expect(SMT.real(-3) == "(- 3.0)")
        #expect(SExpr.parse("(/ 1.0 4.0)").first?.real == 0.25)
    }

    @Test("rules that read the request before it is set up make the encoding incomplete, never a proof")
    func requestNotSetUp() throws {
        let program = try compile("rules_version = '2';\nservice cloud.firestore { match /databases/{db}/documents { match /d/{id} { allow read: if true; } } }")
        let file = try properties(propertyFile([
            #"{"name": "p", "path": "/databases/{db}/documents/d/{id}", "methods": ["get"], "kind": "only-if", "condition": "request.auth != null || resource == null"}"#,
        ]))
        let property = try #require(file.properties.first)
        let condition = try #require(property.condition)
        let encoder = Encoder(program: program, method: .get)
        let value = encoder.encodeCondition(condition, source: property.conditionSource, variables: [])
        encoder.finish()
        #expect(value.err == "true")
        #expect(!encoder.complete)
    }
}

@Suite("property files")
struct PropertyFileTests {
    @Test("a well-formed file loads with its paths, methods and kinds")
    func loads() throws {
        let file = try properties("""
            {"rules": "../a.rules", "service": "firestore", "properties": [
              {"name": "p", "path": "/databases/{database}/documents/users/{userId}", "methods": ["get", "get", "list"],
               "kind": "only-if", "condition": "request.auth.uid == userId", "expect": "violated"}]}
            """, path: "dir/x.props.json")
        #expect(file.rulesPath == "a.rules")
        let property = try #require(file.properties.first)
        #expect(property.methods == [.get, .list])
        #expect(property.path == [.literal("databases"), .variable("database"), .literal("documents"), .literal("users"), .variable("userId")])
        #expect(property.expect == .violated)
    }

    @Test("YAML property files load like JSON ones")
    func yaml() throws {
        let file = try properties("""
            rules: a.rules
            service: storage
            properties:
              - name: owner deletes
                path: /b/{bucket}/o/pictures/{userId}/{file}
                methods: [delete]
                kind: possible
                condition: request.auth.uid == userId
            """, path: "x.props.yaml")
        #expect(file.service == .storage)
        #expect(file.properties.first?.kind == .possible)
        #expect(file.properties.first?.condition != nil)
    }

    @Test("bad files give a stable code and file:line:column", arguments: [
        ("{\"rules\": 1}", "VF1003", "x.props.json"),
        ("{\"rules\": \"a\", ", "VF1002", "x.props.json:1:"),
        ("{\"rules\": \"a\", \"service\": \"firestore\", \"properties\": [\n {\"name\": \"p\", \"path\": \"/databases/{d}/documents/u/{id}\",\n  \"methods\": [\"read\"], \"kind\": \"never\"}]}", "VF1003", "x.props.json:3:3"),
        ("{\"rules\": \"a\", \"service\": \"firestore\", \"properties\": [\n {\"name\": \"p\", \"path\": \"/databases/{d}/documents/u/{id}\",\n  \"methods\": [\"get\"], \"kind\": \"only-if\",\n  \"condition\": \"request.auth.uid == == id\"}]}", "VF1004", "x.props.json:4:37"),
        ("{\"rules\": \"a\", \"service\": \"firestore\", \"properties\": [\n {\"name\": \"p\", \"path\": \"/databases/{d}/documents/u/{id}\",\n  \"methods\": [\"get\"], \"kind\": \"only-if\"}]}", "VF1003", "x.props.json:2:11"),
        ("{\"rules\": \"a\", \"service\": \"storage\", \"properties\": [\n {\"name\": \"p\", \"path\": \"/databases/{d}/documents/u/{id}\",\n  \"methods\": [\"get\"], \"kind\": \"never\"}]}", "VF1003", "x.props.json:2:16"),
    ])
    func errors(_ input: (String, String, String)) {
        do {
            _ = try properties(input.0, path: "x.props.json")
            Issue.record("accepted: \(input.0)")
        } catch {
            #expect(error.code == input.1, "\(error)")
            #expect(error.location.hasPrefix(input.2), "\(error)")
        }
    }
}
