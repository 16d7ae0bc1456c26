import PropertyBased
import RulesLanguage
import Testing

/// Decision properties (issue 6) not covered by `PropertyTests`: errors never grant, adding an
/// `allow` never takes a grant away, and path matching agrees with a naive reference matcher.
/// A failure prints the input and the seed (`.fixedSeed("…")` replays it).
@Suite struct RulesPropertyTests {
    /// Conditions that are true, false or error (null member, division by zero, wrong types).
    static let conditions = ["true", "false", "request.auth != null", "request.auth.uid == 'u'", "resource.data.x == 1",
                             "1 / 0 == 1", "'a' + 1 == 'a1'", "request.auth.token.admin", "[1][5] == 1", "undefinedFn()",
                             "int('x') == 1", "request.path[9] == 'a'", "b == 'x'", "b.size() > 0", "resource == null"]

    static func condition(_ picks: ArraySlice<Int>) -> String {
        let ops = [" && ", " || "]
        var text = ""
        for (index, pick) in picks.enumerated() {
            if index > 0 { text += ops[pick % 2] }
            text += (pick / 2) % 3 == 0 ? "!(" + conditions[pick % conditions.count] + ")" : conditions[pick % conditions.count]
        }
        return text.isEmpty ? "true" : text
    }

    static func program(_ allows: [String]) -> Program? {
        let body = allows.map { "allow read: if \($0);" }.joined(separator: "\n      ")
        let source = "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n"
            + "    match /a/{b} {\n      \(body)\n    }\n  }\n}\n"
        return RulesCompiler.compile(source).program
    }

    static func request(_ signedIn: Bool) -> RulesRequest {
        RulesRequest(service: .firestore, path: "/databases/(default)/documents/a/x", method: .get, auth: signedIn ? Auth(uid: "u") : nil)
    }

    /// Whether a condition uses `undefinedFn()`, the one pool entry the checker refuses.
    static func refusedByTheChecker(_ condition: String) -> Bool { condition.contains("undefinedFn()") }

    @Test func anEvaluationErrorNeverAllows() async {
        var checked = 0, errored = 0
        await propertyCheck(count: 600, input: Gen.int(in: 0...200).array(of: 1...5)) { picks in
            let condition = Self.condition(picks[1...])
            guard let program = Self.program([condition]) else {
                // Only conditions calling the unknown function may fail to compile.
                #expect(Self.refusedByTheChecker(condition), "`\(condition)` does not compile")
                return
            }
            checked += 1
            let decision = program.evaluate(Self.request(picks[0] % 2 == 0))
            let hasError = decision.candidates.contains { candidate in
                if case let .denied(blame) = candidate.verdict { return blame.error != nil }
                return false
            }
            if hasError {
                errored += 1
                #expect(!decision.allowed, "`\(condition)` errored but allowed")
            }
            #expect(decision.allowed == decision.candidates.contains { $0.verdict == .granted }, "`\(condition)`")
        }
        // About 7 in 8 conditions avoid `undefinedFn()`; a fifth or more of those error.
        #expect(checked >= 400, "only \(checked) of 600 inputs compiled")
        #expect(errored >= 60, "only \(errored) decisions had an error")
    }

    @Test func addingAnAllowNeverTurnsAnAllowIntoADeny() async {
        var checked = 0, allowed = 0
        await propertyCheck(count: 600, input: Gen.int(in: 0...200).array(of: 2...7)) { picks in
            let split = 1 + picks[0] % (picks.count - 1)
            let first = Self.condition(picks[1..<max(2, split)])
            let second = Self.condition(picks[max(2, split)...])
            guard let one = Self.program([first]), let two = Self.program([first, second]),
                  let swapped = Self.program([second, first]) else {
                #expect(Self.refusedByTheChecker(first) || Self.refusedByTheChecker(second), "`\(first)` / `\(second)` do not compile")
                return
            }
            checked += 1
            for signedIn in [false, true] {
                let request = Self.request(signedIn)
                if one.evaluate(request).allowed {
                    allowed += 1
                    #expect(two.evaluate(request).allowed, "adding `\(second)` after `\(first)` denied")
                    #expect(swapped.evaluate(request).allowed, "adding `\(second)` before `\(first)` denied")
                }
            }
        }
        #expect(checked >= 300, "only \(checked) of 600 inputs compiled")
        #expect(allowed >= 60, "only \(allowed) requests were allowed by the first allow: the property was barely tested")
    }

    /// A pattern segment: literal `a`/`b`, a single-segment wildcard, or (last only) `{rest=**}`.
    static func pattern(_ picks: [Int]) -> [String] {
        picks.enumerated().map { index, pick in
            switch pick % 4 {
            case 0: "a"
            case 1: "b"
            case 2: "{v\(index)}"
            default: index == picks.count - 1 ? "{rest=**}" : "{v\(index)}"
            }
        }
    }

    /// The reference: literals match themselves, `{v}` one segment, `{rest=**}` zero or more.
    static func naiveMatch(_ pattern: ArraySlice<String>, _ path: ArraySlice<String>) -> Bool {
        guard let head = pattern.first else { return path.isEmpty }
        if head == "{rest=**}" { return true }
        guard let segment = path.first else { return false }
        if head.hasPrefix("{") || head == segment { return naiveMatch(pattern.dropFirst(), path.dropFirst()) }
        return false
    }

    @Test func pathMatchingAgreesWithANaiveMatcher() async {
        await propertyCheck(count: 800, input: Gen.int(in: 0...99).array(of: 2...12)) { picks in
            let split = 1 + picks[0] % (picks.count - 1)
            let pattern = Self.pattern(Array(picks[1..<max(2, split)]))
            let path = picks[max(1, split)...].map { ["a", "b", "c"][$0 % 3] }
            let source = "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n"
                + "    match /\(pattern.joined(separator: "/")) {\n      allow read;\n    }\n  }\n}\n"
            let compiled = RulesCompiler.compile(source)
            guard let program = compiled.program else {
                Issue.record("pattern /\(pattern.joined(separator: "/")) does not compile")
                return
            }
            let request = RulesRequest(service: .firestore, path: "/databases/(default)/documents/" + path.joined(separator: "/"),
                                       method: .get, auth: nil)
            #expect(program.evaluate(request).allowed == Self.naiveMatch(pattern[...], path[...]),
                    "pattern /\(pattern.joined(separator: "/")) path /\(path.joined(separator: "/"))")
        }
    }
}
