import RulesCases
import Testing

/// Plain YAML integers in case files, including YAML 1.1's base 60 (`1:30`), which Yams computes
/// without overflow checks (a trap past 64 bits, found by FuzzRulesCaseFile,
/// corpus/regressions/FuzzRulesCaseFile/yaml-base-60-integer-overflow).
struct YAMLIntegerTests {
    @Test("base 60 and the other integer forms read as Yams reads them", arguments: [
        ("1:30", 90), ("-1:30", -90), ("+1:0:0", 3_600), ("1_0:30", 630),
        // 60^10 fits in 64 bits, though Yams's running base (60^11) would not.
        ("1:0:0:0:0:0:0:0:0:0:0", 604_661_760_000_000_000),
        ("0x1F", 31), ("0o17", 15), ("0b101", 5), ("-42", -42), ("9223372036854775807", Int64.max),
    ] as [(String, Int64)])
    func integers(text: String, expected: Int64) throws {
        #expect(try YAMLReader.read("n: \(text)\n") == .map([("n", .int(expected))]))
    }

    @Test("a base-60 integer past 64 bits is an error at its place, not a trap", arguments: [
        "1111100000000000011:11", "1:0:0:0:0:0:0:0:0:0:0:0", "-1:0:0:0:0:0:0:0:0:0:0:0",
    ])
    func overflow(text: String) throws {
        let error = try #require(throws: DocumentSyntaxError.self) { try YAMLReader.read("a: 1\nn: \(text)\n") }
        #expect((error.line, error.column) == (2, 4), "\(error)")
        #expect(error.message == "integer `\(text)` does not fit in 64 bits")
    }

    @Test("the fuzzer's input (a document that is only the integer) is a located error")
    func fuzzerInput() throws {
        let error = try #require(throws: DocumentSyntaxError.self) { try YAMLReader.read("1111100000000000011:11") }
        #expect((error.line, error.column) == (1, 1), "\(error)")
    }
}
