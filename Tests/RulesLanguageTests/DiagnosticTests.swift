import Diagnostics
import RulesLanguage
import RulesTestSupport
import Testing

/// One expected diagnostic, pinned by markers: it starts at `1️⃣` (and ends at `2️⃣` when present).
struct DiagnosticCase: CustomTestStringConvertible, Sendable {
    let name: String
    let source: String
    let code: String
    let message: String
    var help: String?

    var testDescription: String { name }

    /// Wraps a condition in a minimal Firestore ruleset.
    static func condition(_ name: String, _ condition: String, _ code: String, _ message: String, help: String? = nil) -> DiagnosticCase {
        let source = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            function isOwner(uid) { return request.auth.uid == uid; }
            match /users/{userId} {
              allow read: if \(condition);
            }
          }
        }
        """
        return DiagnosticCase(name: name, source: source, code: code, message: message, help: help)
    }
}

@Suite struct DiagnosticTests {
    static let cases: [DiagnosticCase] = [
        // MARK: parse (RL1xxx)
        DiagnosticCase(name: "unterminated string", source: "service cloud.firestore { match /a/{b} { allow read: if 1️⃣'abc;2️⃣\n} }",
                       code: "RL1003", message: "unterminated string literal", help: "add a closing `'`"),
        .condition("unexpected character", "1 1️⃣#2️⃣ 2", "RL1002", "unexpected character `#`", help: "comments start with `//`"),
        .condition("single ampersand", "true 1️⃣&2️⃣ true", "RL1002", "unexpected character `&`", help: "use `&&` for logical and"),
        .condition("bad escape", "'a1️⃣\\q2️⃣' == 'a'", "RL1004", "invalid escape sequence", help: "use `\\\\` for a literal backslash"),
        .condition("integer too large", "1️⃣99999999999999999999992️⃣ > 1", "RL1005", "integer literal `9999999999999999999999` is out of range",
                   help: "integers are signed 64-bit (at most 9223372036854775807)"),
        .condition("exponent", "1️⃣1e52️⃣ > 1", "RL1006", "unsupported number literal `1e5`",
                   help: "write integers in decimal and floats as `1.5`; exponent and hex forms are not supported"),
        .condition("missing operand", "1 + 1️⃣)2️⃣", "RL1011", "expected an expression, found `)`"),
        .condition("unclosed call", "isOwner(userId 1️⃣;2️⃣", "RL1010", "expected `,`, found `;`", help: "separate arguments with `,`"),
        .condition("unclosed parenthesis in a path segment", "(/databases/$(database)/documents/1️⃣users(2️⃣['k']) == null", "RL1019",
                   "unclosed `(` in path segment `users(`", help: "close it with `)`, or build the path from a string: `path('/a/b(')`"),
        .condition("map key not a string", "{1️⃣a2️⃣: 1} == {}", "RL1018", "map keys must be string literals, found `a`",
                   help: "quote the key: `{'name': value}`"),
        .condition("call of a non-name", "1️⃣[isOwner]2️⃣(userId)", "RL1017", "only a name can be called",
                   help: "call functions by name: `f(x)` or `x.method()`"),
        .condition("assignment instead of comparison", "request.auth.uid 1️⃣=2️⃣ userId", "RL1010", "expected `;`, found `=`",
                   help: "use `==` to compare"),
        .condition("and instead of &&", "request.auth != null 1️⃣and2️⃣ true", "RL1010", "expected `;`, found `and`",
                   help: "use `&&` for logical and"),
        DiagnosticCase(name: "unknown method word", source: "service cloud.firestore { match /a/{b} { allow 1️⃣reed2️⃣: if true; } }",
                       code: "RL1014", message: "unknown method `reed`", help: "did you mean `read`?"),
        DiagnosticCase(name: "unknown service", source: "service 1️⃣cloud.firestor2️⃣ { }",
                       code: "RL1013", message: "unknown service `cloud.firestor`", help: "did you mean `cloud.firestore`?"),
        DiagnosticCase(name: "version not first", source: "service cloud.firestore { }\n1️⃣rules_version2️⃣ = '2';",
                       code: "RL1021", message: "`rules_version` must come first", help: "move `rules_version = '2';` to the top of the file"),
        DiagnosticCase(name: "unknown version", source: "rules_version = 1️⃣'3'2️⃣;", code: "RL1022", message: "unknown rules version `3`",
                       help: "use `'1'` or `'2'`"),
        DiagnosticCase(name: "empty pattern segment", source: "service cloud.firestore { match /a1️⃣/2️⃣/b { } }",
                       code: "RL1015", message: "empty segment in path pattern", help: "remove the extra `/`"),
        DiagnosticCase(name: "bad wildcard", source: "service cloud.firestore { match /a/1️⃣{b=*}2️⃣ { } }",
                       code: "RL1015", message: "invalid wildcard in path pattern", help: "write `{name}` for one segment or `{name=**}` for many"),
        DiagnosticCase(name: "unterminated comment", source: "service cloud.firestore { }\n1️⃣/*2️⃣ never closed",
                       code: "RL1007", message: "unterminated block comment", help: "close the comment with `*/`"),
        DiagnosticCase(name: "missing if", source: "service cloud.firestore { match /a/{b} { allow read: 1️⃣true2️⃣; } }",
                       code: "RL1010", message: "expected `if`, found `true`", help: "write `allow read: if <condition>;`"),
        DiagnosticCase(name: "statement expected", source: "service cloud.firestore { match /a/{b} { 1️⃣alow2️⃣ read; } }",
                       code: "RL1010", message: "expected `allow`, `match` or `function`, found `alow`", help: "did you mean `allow`?"),

        // MARK: check (RL2xxx)
        .condition("unknown variable", "1️⃣reqest2️⃣.auth != null", "RL2001", "unknown variable `reqest`", help: "did you mean `request`?"),
        .condition("unknown variable from wildcard", "request.auth.uid == 1️⃣userID2️⃣", "RL2001", "unknown variable `userID`", help: "did you mean `userId`?"),
        .condition("unknown function", "1️⃣isOwnr(userId)2️⃣", "RL2002", "unknown function `isOwnr`", help: "did you mean `isOwner`?"),
        .condition("wrong arity", "1️⃣isOwner()2️⃣", "RL2003", "`isOwner` takes 1 argument but 0 were given"),
        .condition("builtin arity", "1️⃣exists()2️⃣", "RL2003", "`exists` takes 1 argument but 0 were given"),
        .condition("unknown method", "1️⃣userId.lenght()2️⃣ > 3", "RL2004", "unknown method `lenght`"),
        .condition("contains is not a method", "1️⃣userId.contains('a')2️⃣", "RL2004", "unknown method `contains`",
                   help: "use `matches()` with a regular expression"),
        .condition("namespace as value", "1️⃣math2️⃣ != null", "RL2005", "`math` is a namespace, not a value",
                   help: "call one of its functions, e.g. `math.abs(…)`"),
        .condition("unknown namespace function", "1️⃣math.absolute(1)2️⃣ == 1", "RL2002", "unknown function `math.absolute`"),
        .condition("unknown type", "userId is 1️⃣strng2️⃣", "RL2016", "unknown type `strng`", help: "did you mean `string`?"),
        .condition("bool() is not in production", "1️⃣bool('true')2️⃣", "RL2002", "unknown function `bool`",
                   help: "`bool()` is documented but not available in production; compare with `== 'true'`"),
        .condition("never grants", "1️⃣false2️⃣", "RL2012", "unreachable: this rule never grants (`if false`)", help: "remove the rule"),
        DiagnosticCase(name: "recursion", source: """
            rules_version = '2';
            service cloud.firestore {
              function 1️⃣f2️⃣(x) { return g(x); }
              function g(x) { return f(x); }
              match /databases/{d}/documents { match /a/{b} { allow read: if f(1); } }
            }
            """, code: "RL2007", message: "function `f` calls itself (directly or through other functions)",
            help: "recursion is not allowed in rules; unroll the logic"),
        DiagnosticCase(name: "duplicate function", source: "service cloud.firestore { function f() { return true; } function 1️⃣f2️⃣() { return false; } }",
                       code: "RL2006", message: "function `f` is declared twice in the same scope", help: "rename or remove one of them"),
        DiagnosticCase(name: "let needs v2", source: "service cloud.firestore { function f() { 1️⃣let a = 1;2️⃣ return a == 1; } }",
                       code: "RL2015", message: "`let` requires `rules_version = '2'`", help: "add `rules_version = '2';` at the top of the file"),
        DiagnosticCase(name: "recursive wildcard not last in v1", source: "service cloud.firestore { match 1️⃣/{p=**}/posts/{id}2️⃣ { } }",
                       code: "RL2010", message: "`=**` must be the last segment with rules_version 1",
                       help: "add `rules_version = '2';` to use `=**` in the middle of a path"),
        DiagnosticCase(name: "two recursive wildcards", source: "rules_version = '2'; service cloud.firestore { match 1️⃣/{a=**}/x/{b=**}2️⃣ { } }",
                       code: "RL2019", message: "a `match` pattern may contain at most one `=**` wildcard"),
        DiagnosticCase(name: "unreachable root", source: "service cloud.firestore { match 1️⃣/users/{id}2️⃣ { allow read; } }",
                       code: "RL2013", message: "unreachable: Firestore paths start with `/databases/{database}/documents`",
                       help: "nest this block inside `match /databases/{database}/documents`"),
        DiagnosticCase(name: "collection, not document", source: "service cloud.firestore { match /databases/{d}/documents { match 1️⃣/users2️⃣ { allow read; } } }",
                       code: "RL2025", message: "unreachable: this pattern matches a collection, not a document",
                       help: "rules apply to documents: add a `/{docId}` segment"),
        DiagnosticCase(name: "wildcard shadows a global", source: "service cloud.firestore { match /databases/{d}/documents { match 1️⃣/a/{request}2️⃣ { allow read; } } }",
                       code: "RL2020", message: "wildcard `request` shadows the global `request`", help: "rename the wildcard, e.g. `{requestId}`"),
        DiagnosticCase(name: "get in storage", source: "service firebase.storage { match /b/{b}/o { allow read: if 1️⃣get(/databases/(default)/documents/a/b)2️⃣ != null; } }",
                       code: "RL2002", message: "`get()` is not available in Storage rules", help: "use `firestore.get(…)`"),
        DiagnosticCase(name: "too many parameters", source: "service cloud.firestore { function 1️⃣f2️⃣(a, b, c, d, e, f, g, h) { return true; } }",
                       code: "RL2008", message: "function `f` has 8 parameters (limit 7)", help: "pass a map instead of many arguments"),
        DiagnosticCase(name: "no service", source: "1️⃣2️⃣function f() { return true; }", code: "RL2024", message: "no `service` block",
                       help: "add `service cloud.firestore { … }` or `service firebase.storage { … }`"),
    ]

    @Test(arguments: cases)
    func diagnosticIsPinned(_ testCase: DiagnosticCase) throws {
        let marked = MarkedSource(testCase.source)
        let result = RulesCompiler.compile(marked.text, name: "t.rules", regexEngine: TestRegexEngine())
        let found = result.diagnostics.first { $0.code == testCase.code }
        let diagnostic = try #require(found, "\(testCase.name): no \(testCase.code) in \(result.diagnostics.map(\.code))")
        #expect(diagnostic.message == testCase.message)
        #expect(diagnostic.help == testCase.help)
        let start = try #require(marked.offsets["1️⃣"])
        #expect(diagnostic.span?.start == start)
        if let end = marked.offsets["2️⃣"] { #expect(diagnostic.span?.end == end) }
    }

    @Test func everyErrorIsReportedAtOnce() {
        let source = """
        service cloud.firestore {
          match /databases/{database}/documents {
            match /a/{id} { allow read: if 'unterminated;
            }
            match /b/{id} { allow reed: if true; }
            match /c/{id} { allow read: if 1 +; }
            match /d/{id} { allow read: if nope; }
          }
        }
        """
        let codes = RulesCompiler.compile(source).diagnostics.map(\.code)
        #expect(codes == ["RL1003", "RL1014", "RL1011"])
        // Check errors appear once the syntax is fixed, all together.
        let checked = RulesCompiler.compile("""
        service cloud.firestore {
          match /databases/{database}/documents {
            match /d/{id} { allow read: if nope && id.lenght() > 1 && f(); }
          }
        }
        """).diagnostics.map(\.code)
        #expect(checked == ["RL2001", "RL2004", "RL2002"])
    }

    @Test func diagnosticsAreCapped() {
        let blocks = (0..<150).map { "match /a\($0)/{id} { allow read: if nope\($0); }" }.joined(separator: "\n")
        let source = "service cloud.firestore { match /databases/{d}/documents {\n\(blocks)\n} }"
        let diagnostics = RulesCompiler.compile(source).diagnostics
        #expect(diagnostics.count == RulesCompiler.diagnosticCap + 1)
        #expect(diagnostics.last?.code == "RL1000")
        #expect(diagnostics.last?.message == "50 more diagnostics were truncated")
    }

    @Test func sourceSizeLimit() {
        let limits = RulesLimits(maxSourceBytes: 64)
        let result = RulesCompiler.compile(String(repeating: "/", count: 65), limits: limits)
        #expect(result.diagnostics.map(\.code) == ["RL1001"])
        #expect(result.diagnostics.first?.message == "rules source is too large (65 bytes, limit 64)")
    }

    @Test func nestingLimitStopsDeepExpressions() {
        let deep = String(repeating: "(", count: 500) + "true" + String(repeating: ")", count: 500)
        let chain = Array(repeating: "1", count: 500).joined(separator: " + ")
        let negations = String(repeating: "!", count: 500) + "true"
        for condition in [deep, chain, negations] {
            let result = RulesCompiler.compile("service cloud.firestore { match /databases/{d}/documents { allow read: if \(condition); } }")
            #expect(result.diagnostics.contains { $0.code == "RL1012" })
        }
        let blocks = String(repeating: "match /a/{b} { ", count: 200) + String(repeating: "}", count: 200)
        #expect(RulesCompiler.compile("service cloud.firestore { \(blocks) }").diagnostics.contains { $0.code == "RL1012" })
    }

    @Test func matchDepthLimit() {
        let blocks = (0..<11).map { "match /a\($0)/{b\($0)} { " }.joined() + String(repeating: "}", count: 11)
        let result = RulesCompiler.compile("service cloud.firestore { match /databases/{d}/documents { \(blocks) } }")
        #expect(result.diagnostics.contains { $0.code == "RL2014" && $0.message == "`match` blocks nest 11 deep (limit 10)" })
    }

    @Test func renderedLikeACompiler() throws {
        let source = SourceFile(name: "firestore.rules", text: """
        service cloud.firestore {
          match /databases/{database}/documents/users/{userId} {
            allow read: if reqest.auth != null;
          }
        }
        """)
        let diagnostics = RulesCompiler.compile(source).diagnostics
        #expect(diagnostics.count == 1)
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostic.rendered(in: source) == """
        firestore.rules:3:20: error[RL2001]: unknown variable `reqest`
          |
        3 |     allow read: if reqest.auth != null;
          |                    ^^^^^^
          = help: did you mean `request`?
        """)
    }
}
