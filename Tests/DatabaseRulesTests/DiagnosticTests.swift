import DatabaseRules
import Diagnostics
import RulesTestSupport
import Testing

/// Rules-file diagnostics pinned with markers: `1️⃣` marks where the span starts.
@Suite struct DiagnosticTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var marked: String
        var code: String
        var message: String
        var help: String?
        var testDescription: String { code + ": " + message }
    }

    static let cases: [Case] = [
        Case(marked: #"{"rules": {".read": true,, }}"#.replacingOccurrences(of: ",,", with: ",1️⃣,"),
             code: "RD1001", message: "expected a member name in double quotes or `}`"),
        Case(marked: "{\"rules\": {1️⃣'a': {}}}", code: "RD1001", message: "expected a member name in double quotes or `}`"),
        Case(marked: "{\"rules\": {\".read\": true}} 1️⃣x", code: "RD1001", message: "unexpected text after the JSON value"),
        Case(marked: "{\"rules\": {}, 1️⃣\"rules\": {}}", code: "RD1002", message: "duplicate key `rules`", help: "each key may appear once in an object"),
        Case(marked: "{\"rules\": {}, 1️⃣\"extra\": 1}", code: "RD1004", message: "unexpected top-level member `extra`", help: "a rules file holds exactly one member, `rules`"),
        Case(marked: "1️⃣{\"rule\": {}}", code: "RD1003", message: "expected `rules` property", help: "wrap the rule tree in `{\"rules\": …}`"),
        Case(marked: "{\"rules\": {\"a\": {\"$x\": {}, 1️⃣\"$y\": {}}}}", code: "RD1005",
             message: "cannot have multiple default rules (`$x` and `$y`)", help: "a node has at most one `$wildcard` child"),
        Case(marked: "{\"rules\": {1️⃣\".valdiate\": \"true\"}}", code: "RD1006", message: "unknown rule `.valdiate`",
             help: "did you mean `.validate`? (production: \"Expected '{'.\")"),
        Case(marked: "{\"rules\": {\"b\": 1️⃣\"true\"}}", code: "RD1006", message: "child `b` must be an object, found a string",
             help: "a child is a rule node: `{\".read\": …}`"),
        Case(marked: "{\"rules\": {1️⃣\"a.b\": {}}}", code: "RD1007", message: "child key `a.b` contains `.`",
             help: "keys can't contain \".\", \"#\", \"$\" (except leading), \"/\", \"[\", \"]\" or control characters"),
        Case(marked: "{\"rules\": {\".read\": 1️⃣1}}", code: "RD1008", message: "`.read` must be `true`, `false` or an expression string, found a number",
             help: "quote the condition: `\".read\": \"auth != null\"`"),
        Case(marked: "{\"rules\": {\".indexOn\": 1️⃣5}}", code: "RD1009", message: "`.indexOn` must be a string or an array of strings, found a number"),
        Case(marked: "{\"rules\": {\".read\": 1️⃣\"  \"}}", code: "RD1010", message: "empty rule expression in `/rules/.read`", help: "write `true`, `false` or a condition"),
        Case(marked: "{\"rules\": {\"$a\": {1️⃣\"$a\": {}}}}", code: "RD1011", message: "wildcard `$a` reuses the name of an enclosing wildcard",
             help: "give each wildcard on a path its own name"),
        // Inside expressions: the span points into the JSON string, after JSON escapes.
        Case(marked: "{\"rules\": {\".read\": \"auth != null && 1️⃣auht.uid == 'x'\"}}", code: "RD3012",
             message: "unknown variable `auht` in `/rules/.read`", help: "did you mean `auth`?"),
        Case(marked: "{\"rules\": {\"a\": {\".write\": \"1️⃣newData.val()\"}}}", code: "RD3001",
             message: "expression must evaluate to a boolean in `/rules/a/.write`",
             help: "a value from `val()` or `auth` is not known to be a boolean; compare it, e.g. `newData.val() == true`"),
        Case(marked: "{\"rules\": {\".read\": \"\\\"x\\\" == 1️⃣newData.val()\"}}", code: "RD3011",
             message: "`newData` is invalid in `.read` expressions in `/rules/.read`", help: "a read writes nothing; use `data` or `root`"),
        Case(marked: "{\"rules\": {\".read\": \"data.exists() &&\n    1️⃣data.isArray()\"}}", code: "RD3006",
             message: "no such method/property `isArray` on a snapshot in `/rules/.read`"),
        Case(marked: "{\"rules\": {\".read\": \"'a'.matches(/a1️⃣\\\\b/)\"}}", code: "RD2007",
             message: "escape `\\b` is not supported in database rules regular expressions in `/rules/.read`",
             help: "the dialect knows \\d \\w \\s \\D \\W \\S and escaped punctuation only"),
        Case(marked: "{\"rules\": {\".read\": \"1 == 1 1️⃣= 1\"}}", code: "RD2005",
             message: "rule expressions may not contain assignments in `/rules/.read`", help: "compare with `==`"),
        Case(marked: "{\"rules\": /* open */ {\".read\": \"true\", // fine\n \".write\": \"1️⃣x\"}}", code: "RD3012",
             message: "unknown variable `x` in `/rules/.write`",
             help: "variables are auth, root, data, newData, now, query and enclosing `$` wildcards"),
    ]

    @Test(arguments: cases)
    func diagnostic(_ c: Case) throws {
        let source = MarkedSource(c.marked)
        let result = compile(source.text)
        #expect(result.program == nil)
        let first = try #require(result.diagnostics.first { $0.severity == .error })
        #expect(first.code == c.code)
        #expect(first.message == c.message)
        #expect(first.help == c.help)
        #expect(first.span?.start == source.offsets["1️⃣"], "span \(String(describing: first.span)) in \(source.text)")
    }

    @Test func everyProblemIsReported() {
        let result = compile(#"{"rules": {".read": "foo", ".write": "bar", "a.b": {}, ".validate": 3}}"#)
        #expect(result.diagnostics.map(\.code) == ["RD3012", "RD3012", "RD1007", "RD1008"])
    }

    @Test func renderedLikeACompiler() {
        let source = SourceFile(name: "database.rules.json", text: "{\"rules\": {\n  \".read\": \"auth != null && auht.uid == 'x'\"\n}}")
        let result = DatabaseRulesCompiler.compile(source)
        #expect(renderDiagnostics(result.diagnostics, in: source) == """
            database.rules.json:2:29: error[RD3012]: unknown variable `auht` in `/rules/.read`
              |
            2 |   ".read": "auth != null && auht.uid == 'x'"
              |                             ^^^^
              = help: did you mean `auth`?
            """)
    }

    @Test func commentsTrailingCommasAndRawLineBreaksAreAccepted() throws {
        let text = """
            /* Visit the docs */
            {
              "rules": {
                ".read": "auth != null &&
                          auth.uid == 'x'", // a comment
                "a": { ".indexOn": ["b", "c"], },
              },
            }
            """
        let result = compile(text)
        #expect(result.diagnostics.isEmpty)
        let program = try #require(result.program)
        #expect(program.root.children["a"]?.indexOn == ["b", "c"])
    }

    @Test func limitsHaveTheirOwnCodes() {
        let big = "{\"rules\": {\".read\": \"" + Array(repeating: "true", count: 3000).joined(separator: " && ") + "\"}}"
        #expect(compile(big).diagnostics.map(\.code) == [DatabaseCode.expressionTooLong])
        let deep = "{\"rules\": {\".read\": \"" + String(repeating: "(", count: 300) + "true" + String(repeating: ")", count: 300) + "\"}}"
        #expect(compile(deep).diagnostics.map(\.code) == [DatabaseCode.expressionTooDeep])
        let chain = "{\"rules\": {\".read\": \"" + Array(repeating: "true", count: 300).joined(separator: " && ") + "\"}}"
        #expect(compile(chain).diagnostics.map(\.code) == [DatabaseCode.expressionTooDeep])
        let nested = "{\"rules\": " + String(repeating: "{\"a\": ", count: 80) + "{}" + String(repeating: "}", count: 80) + "}"
        #expect(compile(nested).diagnostics.map(\.code) == [DatabaseCode.nestingTooDeep])
        let huge = SourceFile(name: "r", text: "{\"rules\": {}}" + String(repeating: " ", count: 300_000))
        #expect(DatabaseRulesCompiler.compile(huge).diagnostics.map(\.code) == [DatabaseCode.rulesAboveDocumentedSize])
        #expect(DatabaseRulesCompiler.compile(huge, limits: DatabaseLimits(maxSourceBytes: 1000)).diagnostics.map(\.code) == [DatabaseCode.rulesTooLarge])
    }
}
