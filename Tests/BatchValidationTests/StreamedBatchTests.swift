@testable import BatchValidation
import Testing

@Suite("StreamedBatch: pushed input, the batch's rows")
struct StreamedBatchTests {
    /// JSONL with every kind of line: valid, invalid, damaged (not JSON, empty, missing field,
    /// not a string, NUL, invalid UTF-8, too long, CRLF), a BOM and no final line feed.
    static let input: [UInt8] = Array("\u{FEFF}{\"value\": \"abc\", \"user\": {\"name\": \"q\"}}\n{\"value\": \"ABC\", \"user\": {\"name\": \"bc\"}}\r\nnot json\n\n{\"other\": 1}\n{\"value\": 5}\n{\"value\": \"a\\u0000b\"}\n".utf8)
        + [UInt8(ascii: "{"), 0xFF, UInt8(ascii: "}"), 0x0A]
        + Array("{\"value\": \"\(String(repeating: "x", count: 80))\"}\n{\"value\": \"abcd\", \"user\": {\"name\": \"q\"}}\n{\"value\": \"xbcx\", \"user\": {\"name\": \"bc\"}}".utf8)

    static func configuration() -> BatchConfiguration {
        var configuration = BatchConfiguration(input: .jsonl, fields: FieldSelection(value: .name("value"), username: .name("user.name")),
                                               writer: WriterOptions(format: .jsonl, includesKey: true), maxRecordBytes: 64)
        configuration.chunkBytes = 16
        configuration.maxRecordsPerChunk = 2
        return configuration
    }

    @Test("pushed in pieces of any size, the rows are the batch runner's rows for the same bytes", arguments: [1, 2, 3, 7, 64, 4096])
    func sameRowsAsTheRunner(pieceSize: Int) throws {
        let expected = try runBatch([Self.input], Self.configuration()).output
        let batch = try StreamedBatch(configuration: Self.configuration(), checker: toyChecker)
        var output: [UInt8] = []
        var start = 0
        while start < Self.input.count {
            let end = min(start + pieceSize, Self.input.count)
            output += Self.input[start..<end].withUnsafeBytes { batch.push($0) }
            start = end
        }
        output += batch.finish()
        #expect(String(decoding: output, as: UTF8.self) == expected)
        #expect(lines(expected).count == 11)
        #expect(batch.tally.records == 11)
        #expect(batch.tally.valid == 2)
    }

    /// A byte order mark split over reads was dropped after the framer had scanned its first
    /// bytes, and the next scan started past the first line end: record 1 swallowed line 2
    /// (a FuzzRecordReaderJobs finding with 2-byte reads).
    @Test("a byte order mark split over reads or pieces frames the lines after it as in one read", arguments: [1, 2, 3, 4])
    func byteOrderMarkSplitOverReads(size: Int) throws {
        let input: [UInt8] = [0xEF, 0xBB, 0xBF, 0x0A, 0x00, 0x00, 0x00, 0x0A] + Array("abc\n".utf8)
        let expected = try runBatch([input], BatchConfiguration(writer: WriterOptions(format: .jsonl))).output
        #expect(lines(expected).map { $0.contains("input.empty") } == [true, false, false])
        var configuration = BatchConfiguration(writer: WriterOptions(format: .jsonl))
        configuration.chunkBytes = size
        configuration.maxRecordsPerChunk = 1
        #expect(try runBatch([input], configuration).output == expected)
        let batch = try StreamedBatch(configuration: configuration, checker: toyChecker)
        var output: [UInt8] = []
        var start = 0
        while start < input.count {
            let end = min(start + size, input.count)
            output += input[start..<end].withUnsafeBytes { batch.push($0) }
            start = end
        }
        output += batch.finish()
        #expect(String(decoding: output, as: UTF8.self) == expected)
    }

    @Test("rows come out as soon as their line is complete, not at the end")
    func rowsArePromptlyWritten() throws {
        let batch = try StreamedBatch(configuration: Self.configuration(), checker: toyChecker)
        let first = Array("{\"value\": \"abc\", \"user\": {\"name\": \"q\"}}\n{\"value\"".utf8).withUnsafeBytes { batch.push($0) }
        #expect(String(decoding: first, as: UTF8.self) == "{\"record\": 1, \"valid\": true, \"errors\": [], \"normalized\": \"abc\", \"key\": \"3\"}\n")
        let second = Array(": \"ab\", \"user\": {\"name\": \"q\"}}".utf8).withUnsafeBytes { batch.push($0) }
        #expect(second.isEmpty)
        #expect(String(decoding: batch.finish(), as: UTF8.self).hasPrefix("{\"record\": 2, \"valid\": true"))
    }

    @Test("optional context: a record without its context or confirmation fields is checked, not damaged")
    func optionalContext() throws {
        let configuration = BatchConfiguration(
            input: .jsonl, fields: FieldSelection(value: .name("value"), username: .name("context.username"),
                                                  confirmation: .name("confirmation"), contextRequired: false),
            writer: WriterOptions(format: .jsonl))
        let batch = try StreamedBatch(configuration: configuration, checker: toyChecker)
        let rows = Array("{\"value\": \"abc\"}\n{\"value\": \"abc\", \"context\": {\"username\": \"b\"}}\n{\"value\": \"abc\", \"confirmation\": 3}\n".utf8)
            .withUnsafeBytes { batch.push($0) }
        #expect(lines(String(decoding: rows, as: UTF8.self)) == [
            #"{"record": 1, "valid": true, "errors": [], "normalized": "abc"}"#,
            #"{"record": 2, "valid": false, "errors": [{"code": "TOY2", "rule": "toy.username", "message": "Contains the username."}], "normalized": "abc"}"#,
            #"{"record": 3, "valid": false, "errors": [{"code": "input.not-a-string", "rule": "input.not-a-string", "message": "The field `confirmation` is not a string."}]}"#,
        ])
    }

    @Test("CSV is refused: it needs its header first")
    func csvIsRefused() {
        #expect(throws: InputError.self) {
            try StreamedBatch(configuration: BatchConfiguration(input: .csv, writer: WriterOptions(format: .jsonl)), checker: toyChecker)
        }
    }

    @Test("ValueCheck: one value is the batch's JSONL record without `record`")
    func valueCheck() {
        let check = ValueCheck(checker: toyChecker, writer: WriterOptions(format: .jsonl, includesKey: true))
        #expect(String(decoding: check.check("abc").json, as: UTF8.self) == #"{"valid": true, "errors": [], "normalized": "abc", "key": "3"}"#)
        #expect(String(decoding: check.check("").json, as: UTF8.self)
            == #"{"valid": false, "errors": [{"code": "input.empty", "rule": "input.empty", "message": "The record is empty."}]}"#)
        #expect(check.check("a\u{0}b").isValid == false)
        let secret = ValueCheck(checker: toyChecker, writer: WriterOptions(format: .jsonl, isSecret: true))
        #expect(String(decoding: secret.check("abc").json, as: UTF8.self) == #"{"valid": true, "errors": []}"#)
    }
}
