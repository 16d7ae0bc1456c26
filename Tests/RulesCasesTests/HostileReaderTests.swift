import DatabaseRules
import Foundation
import Testing
@testable import RulesCases

/// The case, request and property readers on hostile input: alias bombs and deep nesting end in
/// a located error, and what the readers build stays within their bounds (huge files:
/// `BoundedFileTests` in RulesLoadingTests).
@Suite("hostile case, request and property files")
struct HostileReaderTests {
    /// Ten levels of ten-way anchors: 600 bytes that stand for ten billion values.
    static let bomb: String = {
        var lines = ["note:", "  - &a0 [x, x, x, x, x, x, x, x, x, x]"]
        for level in 1..<10 {
            lines.append("  - &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]")
        }
        return lines.joined(separator: "\n") + "\n"
    }()

    /// Values in a document tree, map keys included.
    static func values(_ tree: DocumentTree) -> Int {
        var count = 0
        var stack = [tree]
        while let next = stack.popLast() {
            count += 1
            switch next {
            case .list(let items): stack += items
            case .map(let entries): count += entries.count; stack += entries.map(\.value)
            default: break
            }
        }
        return count
    }

    /// `a` holds 100 values (a list of 99 scalars); `b` repeats it `aliases` times.
    static func repeated(_ aliases: Int) -> String {
        "a: &a [" + Array(repeating: "x", count: 99).joined(separator: ", ") + "]\n"
            + "b: [" + Array(repeating: "*a", count: aliases).joined(separator: ", ") + "]\n"
    }

    @Test("aliases may repeat exactly 100,000 values; the document then has that many more")
    func aliasBoundaryAccepted() throws {
        let tree = try YAMLReader.read(Self.repeated(1_000))
        // The map and its two keys, the list `a` (100 values), the list `b` and its 1,000 copies of `a`.
        #expect(Self.values(tree) == 1 + 2 + 100 + 1 + 100_000)
    }

    @Test("a node reached again through an alias is converted once: the work follows the text, not the expansion")
    func aliasesConvertOnce() throws {
        // A map of 49 floats repeated 1,010 times by aliases: 99,990 values, each resolved by
        // Yams' float pattern when converted (8.9 s under ASan before, a FuzzRulesDocuments timeout).
        let text = "a: &a {" + (0..<49).map { "k\($0): \($0).5" }.joined(separator: ", ") + "}\n"
            + "b: [" + Array(repeating: "*a", count: 1_010).joined(separator: ", ") + "]\n"
        var converted = 0
        let tree = try YAMLReader.read(text, converted: &converted)
        #expect(Self.values(tree) > 1_010 * 99)
        // The root map, `a` with its 49 values, and the list `b`.
        #expect(converted == 1 + 1 + 49 + 1)
    }

    @Test("one value more is refused at the alias that passes the bound")
    func aliasBoundaryRefused() {
        #expect(throws: DocumentSyntaxError(
            message: "YAML aliases repeat more than 100000 values (an alias bomb?); write the values out",
            line: 2, column: 5 + 4 * 1_000)) {
            try YAMLReader.read(Self.repeated(1_001))
        }
    }

    @Test("an alias bomb under a key the reader ignores is refused in a case file, a request file and a property file")
    func bombInEveryFile() throws {
        let caseText = "rules: r.rules\nservice: firestore\n" + Self.bomb + "cases: []\n"
        #expect(throws: CaseFileError(file: "x.cases.yaml:8:45", message: "YAML aliases repeat more than 100000 values (an alias bomb?); write the values out")) {
            try CaseFileLoader.decode(caseText, path: "x.cases.yaml")
        }
        let requestText = Self.bomb + "path: /databases/(default)/documents/users/alice\nmethod: get\n"
        #expect(throws: CaseFileError(file: "x.request.yaml:6:45", message: "YAML aliases repeat more than 100000 values (an alias bomb?); write the values out")) {
            try CaseFileLoader.decodeRequest(requestText, path: "x.request.yaml", service: .firestore)
        }
        #expect(Self.bomb.utf8.count < 600)
    }

    @Test("an alias used as a map key is bounded like any other alias")
    func aliasKey() {
        let text = Self.bomb + "extra:\n  *a9 : 1\n"
        #expect(throws: DocumentSyntaxError.self) { try YAMLReader.read(text) }
        // A small list used as a key is still the reader's own error, after Yams' own checks,
        // located where Yams locates an aliased node: at its anchor.
        #expect(throws: DocumentSyntaxError(message: "map keys must be strings", line: 1, column: 4)) {
            try YAMLReader.read("a: &a [x]\nb:\n  *a : 1\n")
        }
    }

    @Test("nesting is counted with aliases expanded: an alias that would reach level 128 is refused where it stands")
    func aliasDepth() throws {
        let anchor = "a: &d " + String(repeating: "[", count: 100) + "x" + String(repeating: "]", count: 100) + "\n"
        func use(_ brackets: Int) -> String {
            anchor + "b: " + String(repeating: "[", count: brackets) + "*d" + String(repeating: "]", count: brackets) + "\n"
        }
        // `b`'s value is at level 1; the alias at 1 + 26; its scalar at 127 + 100 - 100 = 127.
        _ = try YAMLReader.read(use(26))
        #expect(throws: DocumentSyntaxError(message: "lists and maps are nested more than 128 levels deep", line: 2, column: 4 + 27)) {
            try YAMLReader.read(use(27))
        }
        // Written out, the same document is refused with the same message.
        let written = "b: " + String(repeating: "[", count: 127) + "x" + String(repeating: "]", count: 127) + "\n"
        #expect(throws: DocumentSyntaxError.self) { try YAMLReader.read(written) }
    }

    @Test("deep flow nesting is refused before Yams composes it (no stack overflow)")
    func deepFlow() {
        let text = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: DocumentSyntaxError.self) { try YAMLReader.read(text) }
    }

    @Test("a property file with an alias bomb is VF1002 at the alias")
    func propertyBomb() throws {
        // RulesVerification reads property files with the same reader; its tests check the code.
        let text = "rules: r.rules\nservice: firestore\n" + Self.bomb + "properties: []\n"
        #expect(throws: DocumentSyntaxError(message: "YAML aliases repeat more than 100000 values (an alias bomb?); write the values out",
                                            line: 8, column: 45)) {
            try YAMLReader.read(text)
        }
    }

    @Test("a database request nested past 128 levels is refused at file:line:column")
    func databaseDeepJSON() {
        let text = "{\"path\": \"/userPresence/alice\", \"method\": \"set\", \"value\": "
            + String(repeating: "[", count: 200) + String(repeating: "]", count: 200) + "}"
        #expect(throws: CaseFileError.self) { try DatabaseCaseFileLoader.decodeRequest(text, path: "r.json") }
        do {
            _ = try DatabaseCaseFileLoader.decodeRequest(text, path: "r.json")
        } catch {
            // The value starts at column 59; its 128th `[` is one level too deep.
            #expect(error.file == "r.json:1:\(59 + 127)")
        }
    }
}
