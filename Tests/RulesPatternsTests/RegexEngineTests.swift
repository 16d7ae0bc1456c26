import Foundation
import RulesLanguage
import RulesPatterns
import RulesTestSupport
import Testing

@Suite struct RE2SyntaxTests {
    @Test(arguments: [
        ("(a)\\1", "backreference `\\1`"),
        ("\\k<x>", "backreference `\\k`"),
        ("a(?=b)", "lookahead `(?=`"),
        ("a(?!b)", "negative lookahead `(?!`"),
        ("(?<=a)b", "lookbehind `(?<=`"),
        ("(?<!a)b", "negative lookbehind `(?<!`"),
        ("(?>a+)", "atomic group `(?>`"),
        ("a++", "possessive quantifier"),
        ("a*+", "possessive quantifier"),
        ("a{2}+", "possessive quantifier"),
        ("(?R)", "recursion `(?R)`"),
        ("(a)(?1)", "subroutine call `(?n)`"),
        ("(?(1)a|b)", "conditional `(?(`"),
        ("(*FAIL)", "verb `(*…)`"),
        ("a\\Z", "escape `\\Z`"),
        ("\\Ga", "escape `\\G`"),
        ("a{1001}", "repetition count above 1000"),
        ("(?x) a b", "flag `x`"),
        ("(?i-x:a)", "flag `x`"),
        ("(?'n'a)", "named group `(?'name'…)`"),
        ("(?^)a", "flag `^`"),
    ])
    func rejectsWhatRE2Lacks(pattern: String, construct: String) {
        #expect(RE2Syntax.unsupportedConstruct(in: pattern) == construct)
    }

    @Test(arguments: [
        "a+?", "a*?b", "a??", "[(?=]", "\\Q(?=\\E", "(?P<name>a)", "(?i)abc", "\\pL+", "[[:alpha:]]+",
        "a{2,1000}", "\\d\\w\\s\\b", "(?:a|b)*", "[\\]a]", "a{,", "\\\\1", "(?i)a", "(?ims-U:a)", "(?<n>a)",
    ])
    func acceptsRE2Syntax(pattern: String) {
        #expect(RE2Syntax.unsupportedConstruct(in: pattern) == nil)
    }
}

@Suite struct PCRE2RegexEngineTests {
    let engine = PCRE2RegexEngine()

    @Test func matchesIsWholeString() throws {
        #expect(try engine.matches("hello world", pattern: ".*world"))
        #expect(try !engine.matches("hello world", pattern: "world"))
        #expect(try !engine.matches("bob\n", pattern: "[a-z]+$"))
    }

    @Test func unsupportedSyntaxIsAnErrorNotAMismatch() {
        #expect(throws: RegexError(code: "RL3020", message: "lookahead `(?=` is not supported in RE2 syntax")) {
            try engine.matches("ab", pattern: "a(?=b)b")
        }
        #expect(engine.validate(pattern: "(") != nil)
        #expect(engine.validate(pattern: "[a-z]+") == nil)
    }

    @Test func catastrophicBacktrackingHitsTheLimit() {
        let subject = String(repeating: "a", count: 60) + "!"
        #expect(throws: RegexError(code: "RL3021", message: "regular expression match limit exceeded")) {
            try engine.matches(subject, pattern: "(a|aa)*")
        }
    }

    @Test func replaceIsLiteralAndGlobal() throws {
        #expect(try engine.replace("banana", pattern: "ana", with: "ee") == "beena")
        #expect(try engine.replace("a.b", pattern: "\\.", with: "$1") == "a$1b")
        #expect(try engine.replace("éé", pattern: "", with: "-") == "-é-é-")
    }

    @Test func splitFollowsJava() throws {
        #expect(try engine.split("a/b/c", pattern: "/") == ["a", "b", "c"])
        #expect(try engine.split("a,,b,,", pattern: ",") == ["a", "", "b"])
        #expect(try engine.split(",a", pattern: ",") == ["", "a"])
        #expect(try engine.split("", pattern: ",") == [""])
    }

    @Test func cacheIsSharedAcrossThreads() async throws {
        let engine = self.engine
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for i in 0..<32 {
                group.addTask { try engine.matches("user\(i)", pattern: "user[0-9]+") }
            }
            for try await matched in group { #expect(matched) }
        }
    }
}

/// Runs every expression conformance file (including `regex.txt`) with the PCRE2 engine.
@Suite struct ExpressionCorpusWithPCRE2Tests {
    static func cases() -> [ExpressionCase] {
        ExpressionCase.loadFiles(in: packageRoot.appendingPathComponent("corpus/rules/expressions"))
    }

    @Test func regexFileIsPresent() {
        #expect(Self.cases().contains { $0.name.hasPrefix("regex.txt/") })
    }

    @Test(arguments: cases())
    func expression(_ testCase: ExpressionCase) {
        let failure = testCase.run(regexEngine: PCRE2RegexEngine())
        #expect(failure == nil, "\(testCase.name): `\(testCase.expression)`: \(failure ?? "")")
    }
}

/// `replace` with a bound sizes its result from the matches and never builds one past it.
@Suite struct BoundedReplaceTests {
    let engine = PCRE2RegexEngine()

    @Test("a result at the bound is built; one byte more is only measured", arguments: [(7, true), (6, false)])
    func boundary(limit: Int, built: Bool) throws {
        // `abc` with every zero-width match replaced by `-`: `-a-b-c-`, 7 bytes.
        let answer = try engine.replace("abc", pattern: "", with: "-", maxResultBytes: limit)
        #expect(answer == (built ? .text("-a-b-c-") : .tooLarge(bytes: 7)))
    }

    @Test("replace('', s) of a 30,000-character string is measured, not built")
    func quadratic() throws {
        let s = String(repeating: "a", count: 30_000)
        #expect(try engine.replace(s, pattern: "", with: s, maxResultBytes: 1 << 20) == .tooLarge(bytes: 30_001 * 30_000 + 30_000))
    }

    @Test("the unbounded replace gives what the bounded one builds")
    func sameText() throws {
        #expect(try engine.replace("a1b22c", pattern: "[0-9]+", with: "#") == "a#b#c")
        #expect(try engine.replace("a1b22c", pattern: "[0-9]+", with: "#", maxResultBytes: 5) == .text("a#b#c"))
    }
}
