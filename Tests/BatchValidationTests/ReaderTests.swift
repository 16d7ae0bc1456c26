@testable import BatchValidation
import Testing

@Suite("Record framing and damage")
struct ReaderTests {
    let jsonl = BatchConfiguration(writer: WriterOptions(format: .jsonl), jobs: 2)

    @Test("LF, CRLF, a BOM and a last line without a newline each give one record")
    func lineEndings() throws {
        let input: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("abc\r\ndef\nghi".utf8)
        let run = try runBatch([input], jsonl)
        #expect(lines(run.output) == [
            #"{"record": 1, "valid": true, "errors": [], "normalized": "abc"}"#,
            #"{"record": 2, "valid": true, "errors": [], "normalized": "def"}"#,
            #"{"record": 3, "valid": true, "errors": [], "normalized": "ghi"}"#,
        ])
        #expect(run.report.exitStatus == 0)
        #expect(run.errors.isEmpty)
    }

    @Test("every kind of damaged line gets its own code and processing continues")
    func damagedLines() throws {
        let input: [UInt8] = Array("ok\n".utf8) + [0x61, 0xC3, 0x28, 0x0A] + Array("a\0b\n\n\r\n".utf8)
            + Array(repeating: UInt8(ascii: "x"), count: 40) + Array("\nlast\n".utf8)
        var configuration = jsonl
        configuration.maxRecordBytes = 16
        let run = try runBatch([input], configuration)
        let codes = lines(run.output).map { line -> String in
            guard line.contains(#""code": ""#) else { return "valid" }
            let after = line.split(separator: #""code": ""#, maxSplits: 1)[1]
            return String(after.prefix { $0 != "\"" })
        }
        #expect(codes == ["valid", "input.invalid-utf8", "input.nul-byte", "input.empty", "input.empty", "input.too-long", "valid"])
        #expect(run.report.total.records == 7)
        #expect(run.report.total.valid == 2)
        #expect(run.report.exitStatus == 1)
    }

    @Test("an over-long line across many reads is one record and its bytes are skipped", arguments: [1, 3])
    func longLineAcrossChunks(jobs: Int) throws {
        var configuration = jsonl
        configuration.maxRecordBytes = 1000
        configuration.jobs = jobs
        let long = String(repeating: "y", count: 1_600_000)
        let run = try runBatch("first\n\(long)\nafter\n\(long)", configuration)
        let output = lines(run.output)
        #expect(output.count == 4)
        #expect(output[1].contains("input.too-long"))
        #expect(output[2] == #"{"record": 3, "valid": true, "errors": [], "normalized": "after"}"#)
        #expect(output[3].contains(#""record": 4"#) && output[3].contains("input.too-long"))
    }

    @Test("many records over many chunks: one output per input, in order, for any job count", arguments: [1, 2, 5])
    func orderAcrossChunks(jobs: Int) throws {
        var text = ""
        var expected: [String] = []
        for index in 1...30_000 {
            let value = index % 7 == 0 ? "Bad\(index)" : String(repeating: "q", count: index % 13 + 1)
            text += value + (index % 5 == 0 ? "\r\n" : "\n")
            expected.append("\(index):\(index % 7 == 0 ? "false" : "true")")
        }
        var configuration = BatchConfiguration(writer: WriterOptions(format: .csv), jobs: jobs)
        configuration.jobs = jobs
        let run = try runBatch(text, configuration)
        let rows = lines(run.output).dropFirst().map { row -> String in
            let parts = row.split(separator: ",", omittingEmptySubsequences: false)
            return "\(parts[0]):\(parts[1])"
        }
        #expect(rows == expected)
        #expect(run.report.total.records == 30_000)
    }

    @Test("CSV: header names, quoting, escaped quotes and line breaks inside quotes")
    func csvQuoting() throws {
        let input = "id,name,user\r\n1,\"abc\",x\r\n2,\"a\"\"b\",y\n3,\"multi\nline\",z\n4,plain,w\n"
        var configuration = jsonl
        configuration.input = .csv
        configuration.fields = FieldSelection(value: .name("name"))
        let run = try runBatch(input, configuration)
        let output = lines(run.output)
        #expect(output.count == 4)
        #expect(output[0] == #"{"record": 1, "valid": true, "errors": [], "normalized": "abc"}"#)
        #expect(output[1].contains(#""normalized": "a\"b""#))
        #expect(output[2].contains(#""normalized": "multi\nline""#))
        #expect(output[3].contains(#""record": 4, "valid": true"#))
    }

    @Test("CSV: a closed multi-line quoted field in a last row without a line feed is one record")
    func csvLastRowMultiLineWithoutNewline() throws {
        // Found by FuzzRecordReader (corpus/regressions/FuzzRecordReader/csv-last-row-multiline):
        // it was taken for an unclosed quote and split into three records.
        let input = "name\n\"two\nlines\nhere\""
        var configuration = jsonl
        configuration.input = .csv
        let run = try runBatch(input, configuration)
        let output = lines(run.output)
        try #require(output.count == 1)
        #expect(output[0].contains(#""normalized": "two\nlines\nhere""#))
    }

    @Test("CSV: a 1-based column, context columns, malformed quoting and short rows")
    func csvDamage() throws {
        let input = "pw,user\nhellobob,bob\nab\"c,x\n\"open,y\nonly\nfine,zed\n"
        var configuration = jsonl
        configuration.input = .csv
        configuration.fields = FieldSelection(value: .column(1), username: .name("user"))
        let run = try runBatch(input, configuration)
        let output = lines(run.output)
        let expected = ["TOY2", "input.malformed-csv", "input.malformed-csv", "input.missing-field", #""valid": true"#]
        try #require(output.count == expected.count)
        for (line, fragment) in zip(output, expected) { #expect(line.contains(fragment)) }
        #expect(output[3].contains("`user`"))
    }

    @Test("CSV: an over-long quoted field is skipped to the next line and framing starts afresh")
    func csvTooLongQuoted() throws {
        var configuration = jsonl
        configuration.input = .csv
        configuration.maxRecordBytes = 64
        // The quoted field is longer than one read, so the record is cut off mid-quote.
        let input = "name\nabc\n\"" + String(repeating: "z", count: 300_000) + "\"\nnext\n\"quoted\"\n"
        let run = try runBatch(input, configuration)
        let output = lines(run.output)
        try #require(output.count == 4)
        #expect(output[0].contains(#""normalized": "abc""#))
        #expect(output[1].contains("input.too-long"))
        #expect(output[2].contains(#""normalized": "next""#))
        #expect(output[3].contains(#""normalized": "quoted""#))
    }

    @Test("CSV: an unknown header name makes the input unusable (exit 2)")
    func csvUnknownColumn() throws {
        var configuration = jsonl
        configuration.input = .csv
        configuration.fields = FieldSelection(value: .name("email"))
        let run = try runBatch("name\nabc\n", configuration)
        #expect(run.report.exitStatus == 2)
        #expect(run.errors.contains("no column `email` in the header"))
        #expect(run.output.isEmpty)
    }

    @Test("JSONL: dotted paths, escapes, and every kind of damage")
    func jsonlRecords() throws {
        let input = """
        {"user": {"name": "abc"}}
        {"user": {"name": "\\u0061\\u0062"}, "x": [1, 2.5e3, true, null]}
        {"user": {"name": 5}}
        {"user": {}}
        {"user": {"name": "a\\u0000b"}}
        {"user": {"name": ""}}
        {"user": {"name": "abc"}
        [1]
        {"user": {"name": "\\ud800"}}

        """
        var configuration = jsonl
        configuration.input = .jsonl
        configuration.fields = FieldSelection(value: .name("user.name"))
        let run = try runBatch(input, configuration)
        let output = lines(run.output)
        #expect(output.count == 9)
        #expect(output[0].contains(#""normalized": "abc""#))
        #expect(output[1].contains(#""normalized": "ab""#))
        #expect(output[2].contains("input.not-a-string"))
        #expect(output[3].contains("input.missing-field"))
        #expect(output[4].contains("input.nul-byte"))
        #expect(output[5].contains("input.empty"))
        #expect(output[6].contains("input.malformed-json"))
        #expect(output[7].contains("input.malformed-json"))
        #expect(output[8].contains("input.malformed-json"))
    }

    @Test("JSONL: nesting beyond the depth limit is malformed, not a crash")
    func jsonDepth() throws {
        let deep = "{\"a\": " + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}"
        let result = Array(deep.utf8).withUnsafeBytes { JSONParser.parseObject($0) }
        guard case let .failure(damage) = result else { Issue.record("expected a failure"); return }
        #expect(damage.code == "input.malformed-json")
        #expect(damage.message.contains("nesting deeper than 64 levels"))
    }

    @Test("JSONL: a key named twice in one object is damage, at any depth, after unescaping, in narrow and wide objects")
    func duplicateKeys() throws {
        func damage(_ text: String) -> InputDamage? {
            Array(text.utf8).withUnsafeBytes { StrictJSON.damage(inObject: $0) }
        }
        #expect(damage(#"{"value": "john.doe", "value": "ab"}"#)?.code == "input.duplicate-key")
        #expect(damage(#"{"a": [{"b": {"k": 1, "\u006b": 2}}]}"#)?.code == "input.duplicate-key")
        #expect(damage(#"{"a": {"k": 1}, "b": {"k": 1}}"#) == nil, "the same key in two objects is fine")
        // Past sixteen members, repeats are found through a set; the first and last both count.
        for members in [15, 16, 17, 5_000] {
            let keys = (0..<members).map { #""k\#($0)": 0"# }
            #expect(damage("{" + keys.joined(separator: ", ") + "}") == nil, "\(members) distinct keys")
            for repeated in [0, members - 1] {
                let text = "{" + (keys + [#""k\#(repeated)": 1"#]).joined(separator: ", ") + "}"
                #expect(damage(text)?.message.contains("`k\(repeated)` appears twice") == true, "\(members) keys, k\(repeated) again")
            }
        }
    }

    @Test("line feeds are counted exactly, eight bytes at a time, whatever the neighbours")
    func lineFeedCounting() {
        var generator = SeededGenerator()
        let seed = generator.seed
        let bytes: [UInt8] = [0x0A, 0x8A, 0x0B, 0x09, 0xFF, 0x00, 0x7F, 0x80, 0x61]
        for length in 0..<300 {
            let buffer = (0..<length).map { _ in bytes.randomElement(using: &generator) ?? 0 }
            let counted = buffer.withUnsafeBytes { countLineFeeds($0) }
            #expect(counted == buffer.filter { $0 == 0x0A }.count, "length \(length), RULESKIT_TEST_SEED=\(seed)")
        }
        let many = [UInt8](repeating: 0x0A, count: 8 * 600 + 5)
        #expect(many.withUnsafeBytes { countLineFeeds($0) } == many.count)
    }

    @Test("more lines than a chunk may hold are split over chunks and numbered in order", arguments: [1, 3])
    func manyShortLines(jobs: Int) throws {
        // 70,000 records in about 200 KB: more than 16,384 per 128 KiB chunk.
        var text = ""
        for index in 1...70_000 { text += index % 1000 == 0 ? "X\n" : index % 3 == 0 ? "\n" : "ab\n" }
        var configuration = BatchConfiguration(writer: WriterOptions(format: .csv), jobs: jobs)
        configuration.jobs = jobs
        let run = try runBatch(text, configuration)
        let numbers = lines(run.output).dropFirst().map { $0.split(separator: ",", maxSplits: 1)[0] }
        #expect(numbers == (1...70_000).map { Substring(String($0)) })
        #expect(run.report.total.records == 70_000)
        #expect(run.report.total.valid == 70_000 - 70_000 / 3 - 70 + 23)
    }

    @Test("tiny chunks and reads with 2 jobs write exactly what one job with default chunks writes",
          arguments: [InputFormat.lines, .csv, .jsonl], [(1, 1), (2, 3), (7, 2), (64, 16_384)])
    func tinyChunksTwoJobs(format: InputFormat, chunking: (Int, Int)) throws {
        let text: String = switch format {
        case .lines: "\u{FEFF}abc\r\nAbc\n\nq\u{1}\nabc\n" + String(repeating: "z", count: 40) + "\nab\nlast"
        case .csv: "\u{FEFF}name,x\nabc,1\n\"multi\nline\",2\n\"a\"\"b\",3\nAbc,4\n\"open,5\nabc,6"
        default: "{\"v\": \"abc\"}\n{\"v\": 1}\n{bad\n{\"v\": \"Abc\"}\r\n\n{\"w\": \"abc\"}\n{\"v\": \"a\\nb\"}"
        }
        let simple = BatchConfiguration(input: format, fields: FieldSelection(value: format == .jsonl ? .name("v") : nil),
                                        writer: WriterOptions(format: .jsonl), maxRecordBytes: 30, jobs: 1)
        var tiny = simple
        tiny.jobs = 2
        (tiny.chunkBytes, tiny.maxRecordsPerChunk) = chunking
        let expected = try runBatch(text, simple), actual = try runBatch(text, tiny)
        #expect(actual.output == expected.output)
        #expect(actual.report.total == expected.report.total)
        #expect(expected.report.total.records == [InputFormat.lines: 8, .csv: 6, .jsonl: 7][format])
    }

    @Test("a checker's valid-as-is shortcut changes no output, for every format and filter",
          arguments: [OutputFormat.jsonl, .csv, .text, .summaryJSON], [RecordFilter.all, .invalid, .valid])
    func validAsIsShortcut(format: OutputFormat, only: RecordFilter) throws {
        var text = "\u{FEFF}"
        for index in 1...20_000 {
            text += ["abc", "Abc", "", "abc\r", "q\(index)", String(repeating: "z", count: index % 40 + 1)][index % 6] + "\n"
        }
        text += "tail"
        var configuration = BatchConfiguration(writer: WriterOptions(format: format, only: only), jobs: 2)
        configuration.maxRecordBytes = 30
        let plain = try runBatch(text, configuration)
        let shortcut = try runBatch(text, configuration, checker: AsIsToyChecker())
        // Summaries end with the input's (temporary, so different) path.
        let files = #""files""#
        #expect(shortcut.output.components(separatedBy: files)[0] == plain.output.components(separatedBy: files)[0])
        #expect(shortcut.report.total == plain.report.total)
    }

    @Test("a checker's rule bits change no output, for every format and filter",
          arguments: [OutputFormat.jsonl, .csv, .text, .summaryJSON], [RecordFilter.all, .invalid, .valid])
    func ruleBitsShortcut(format: OutputFormat, only: RecordFilter) throws {
        var text = ""
        for index in 1...20_000 {
            text += ["abc", "Abc", "", "abc\r", "q\(index)", "qqqqqqq", "Ab\"c\\", "ab\u{1}", "abcdefgh", "ABCDEFGH",
                     String(repeating: "z", count: index % 40 + 1)][index % 11] + "\n"
        }
        text += "tail"
        var configuration = BatchConfiguration(writer: WriterOptions(format: format, only: only), jobs: 2)
        configuration.maxRecordBytes = 30
        let plain = try runBatch(text, configuration, checker: twoRuleChecker)
        let bits = try runBatch(text, configuration, checker: TwoRuleBitsChecker())
        let files = #""files""#
        #expect(bits.output.components(separatedBy: files)[0] == plain.output.components(separatedBy: files)[0])
        #expect(bits.report.total == plain.report.total)
        #expect(plain.report.total.codes["TOY5"] ?? 0 > 0 && plain.report.total.codes["TOY1"] ?? 0 > 0)
    }
}

/// A checker with two rules: lowercase letters only (fixed wording), and at most 5 bytes (the
/// message names the length, so its wording is not fixed). Only valid values are normalized.
let twoRuleChecker = ClosureChecker { value, _ in
    let violations = TwoRuleBitsChecker.rules(value.utf8).map(\.violation)
    return FieldOutcome(violations: violations, normalized: violations.isEmpty ? value : nil)
}

/// ``twoRuleChecker`` that also says which rules broke as bits — except for values holding a
/// `q`, which it leaves to ``check(_:context:detail:)`` (a checker may decline).
struct TwoRuleBitsChecker: FieldCheckerShortcuts {
    static let lowercase = FieldViolation(code: "TOY1", rule: "toy.lowercase", message: "Only lowercase letters.")

    /// The broken rules of `value`, by index, with their violations.
    static func rules<C: Collection<UInt8>>(_ value: C) -> [(index: Int, violation: FieldViolation)] {
        var broken: [(index: Int, violation: FieldViolation)] = []
        if !value.allSatisfy({ $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }) { broken.append((0, lowercase)) }
        if value.count > 5 {
            broken.append((1, FieldViolation(code: "TOY5", rule: "toy.length", message: "\(value.count) bytes is too long.")))
        }
        return broken
    }

    func check(_ value: UnsafeRawBufferPointer, context: RecordContext, detail: OutcomeDetail) -> FieldOutcome {
        twoRuleChecker.check(value, context: context, detail: detail)
    }

    var indexedRules: [IndexedRule] { [IndexedRule(code: "TOY1", fixedViolation: Self.lowercase), IndexedRule(code: "TOY5")] }

    func violatedRules(_ value: UnsafeRawBufferPointer) -> UInt64? {
        guard !value.contains(UInt8(ascii: "q")) else { return nil }
        return Self.rules(value).reduce(0) { $0 | 1 << UInt64($1.index) }
    }
}

/// ``toyChecker`` with the valid-as-is shortcut: lowercase letters only (the toy's `normalized`
/// is the value; its `key` is never written, as `includesKey` is off).
struct AsIsToyChecker: FieldCheckerShortcuts {
    func check(_ value: UnsafeRawBufferPointer, context: RecordContext, detail: OutcomeDetail) -> FieldOutcome {
        toyChecker.check(value, context: context, detail: detail)
    }

    func isValidAsIs(_ value: UnsafeRawBufferPointer) -> Bool {
        value.allSatisfy { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }
    }
}
