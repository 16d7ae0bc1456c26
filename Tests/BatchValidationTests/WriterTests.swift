@testable import BatchValidation
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("Output formats, filters and exit status")
struct WriterTests {
    let input = "abc\nBad\nq,\"x\n"

    @Test("csv escapes commas and quotes and has a header")
    func csvOutput() throws {
        let run = try runBatch(input, BatchConfiguration(writer: WriterOptions(format: .csv, includesKey: true)))
        #expect(lines(run.output) == [
            "record,valid,codes,messages,normalized,key",
            "1,true,,,abc,3",
            "2,false,TOY1,Only lowercase letters.,Bad,3",
            #"3,false,TOY1,Only lowercase letters.,"q,""x",4"#,
        ])
    }

    @Test("secret fields never show the value or normalized form", arguments: OutputFormat.allCases)
    func secretFields(format: OutputFormat) throws {
        let run = try runBatch("hunter\nHunter2\n", BatchConfiguration(writer: WriterOptions(format: format, isSecret: true)))
        #expect(!run.output.contains("hunter"), "format \(format.rawValue) leaked a value")
        #expect(!run.output.contains("Hunter2"), "format \(format.rawValue) leaked a value")
        #expect(run.report.total.records == 2)
    }

    @Test("text shows values quoted, escapes invisible characters, then a summary")
    func textOutput() throws {
        let run = try runBatch("abc\nB\u{202E}d\n", BatchConfiguration(writer: WriterOptions(format: .text)))
        #expect(lines(run.output) == [
            #"1: valid "abc""#,
            #"2: invalid "B\u{202E}d": Only lowercase letters. [TOY1]"#,
            "",
            "2 records: 1 valid, 1 invalid",
            "errors by code:",
            "  TOY1  1",
        ])
    }

    @Test("--only filters records but the summary counts all of them")
    func onlyFilter() throws {
        let run = try runBatch(input, BatchConfiguration(writer: WriterOptions(format: .jsonl, only: .invalid)))
        #expect(lines(run.output).map { $0.prefix(13) } == [#"{"record": 2,"#, #"{"record": 3,"#])
        let valid = try runBatch(input, BatchConfiguration(writer: WriterOptions(format: .text, only: .valid)))
        #expect(lines(valid.output).first == #"1: valid "abc""#)
        #expect(valid.output.contains("3 records: 1 valid, 2 invalid"))
    }

    @Test("summary-json over several files names each file")
    func summaryJSON() throws {
        let run = try runBatch([Array("abc\nBad\n".utf8), Array("xyz\n\n".utf8)],
                               BatchConfiguration(writer: WriterOptions(format: .summaryJSON)))
        #expect(run.output.hasPrefix(#"{"records": 4, "valid": 2, "invalid": 2, "errors": {"TOY1": 1, "input.empty": 1}, "files": [{"file": "#))
        #expect(run.report.files.map(\.tally.records) == [2, 2])
    }

    @Test("several files: records are numbered per file and carry the file name")
    func severalFiles() throws {
        let run = try runBatch([Array("abc\n".utf8), Array("def\n".utf8)], BatchConfiguration(writer: WriterOptions(format: .jsonl, showsFile: true)))
        let output = lines(run.output)
        #expect(output.count == 2)
        #expect(output.allSatisfy { $0.contains(#""record": 1,"#) && $0.hasPrefix(#"{"file": "/tmp/"#) })
    }

    @Test("--fail-fast stops after the first invalid record, whatever the job count", arguments: [1, 4])
    func failFast(jobs: Int) throws {
        let text = String(repeating: "ok\n", count: 20_000) + "BAD\n" + String(repeating: "ok\n", count: 20_000)
        let run = try runBatch(text, BatchConfiguration(writer: WriterOptions(format: .csv), failFast: true, jobs: jobs))
        let output = lines(run.output)
        #expect(output.count == 20_002)
        #expect(output.last?.hasPrefix("20001,false") == true)
        #expect(run.report.stoppedEarly)
        #expect(run.report.total.records == 20_001)
        #expect(run.report.exitStatus == 1)
    }

    @Test("an unreadable input is reported, the others still run, and the status is 2")
    func unreadableInput() throws {
        let outPath = temporaryPath("-out")
        let errPath = temporaryPath("-err")
        let good = temporaryPath("-good")
        writeFile(good, Array("abc\n".utf8))
        defer { for path in [outPath, errPath, good] { unlink(path) } }
        let report = BatchRunner(configuration: BatchConfiguration(writer: WriterOptions(format: .summary)), checker: toyChecker,
                                 output: try OutputSink.file(outPath), errors: try OutputSink.file(errPath))
            .run([InputSpec(path: "/nonexistent/file.txt"), InputSpec(path: "/tmp"), InputSpec(path: good)])
        #expect(report.exitStatus == 2)
        #expect(report.total.records == 1)
        #expect(readFile(errPath) == "validate: error: /nonexistent/file.txt: No such file or directory\nvalidate: error: /tmp: is a directory\n")
    }
}

@Suite("Text colour")
struct ColourTests {
    @Test("colour marks valid green and invalid red only when asked")
    func colour() throws {
        let coloured = try runBatch("abc\nBad\n", BatchConfiguration(writer: WriterOptions(format: .text, color: true)))
        #expect(lines(coloured.output).prefix(2) == ["1: \u{1B}[32mvalid\u{1B}[0m \"abc\"", "2: \u{1B}[31minvalid\u{1B}[0m \"Bad\": Only lowercase letters. [TOY1]"])
        let plain = try runBatch("abc\nBad\n", BatchConfiguration(writer: WriterOptions(format: .text, color: false)))
        #expect(!plain.output.contains("\u{1B}"))
    }

    @Test("decimal numbers are written digit for digit, at every length and sign")
    func decimals() {
        var values = [0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 12_345, 9_000_000, Int.max, Int.min, -1, -10, -105]
        var power = 1
        while power <= Int.max / 10 {
            power *= 10
            values += [power - 1, power, power + 1]
        }
        for value in values {
            var out: [UInt8] = []
            appendDecimal(value, &out)
            #expect(String(decoding: out, as: UTF8.self) == String(value))
        }
    }
}

@Suite("Record pieces written in place")
struct RecordPieceTests {
    @Test("a record head counts up through every carry and jumps where told, digit for digit")
    func recordHead() {
        let prefix: [UInt8] = Array(#"{"file": "a", "record": "#.utf8)
        prefix.withUnsafeBytes { prefix in
            var head = RecordHead(prefix: prefix, number: 1)
            defer { head.deallocate() }
            func expectHead(_ number: Int) {
                #expect(Array(head.bytes) == Array(prefix) + Array(String(number).utf8), "record \(number)")
            }
            expectHead(1)
            // Up through 9 → 10, 99 → 100, …, then jumps (forward, back, to the same number).
            for number in 2...1_200 {
                head.move(to: number)
                expectHead(number)
            }
            for number in [9_999, 10_000, 10_001, 5, 5, 99_999_999, 100_000_000, Int.max - 1, Int.max, 0, 1] {
                head.move(to: number)
                expectHead(number)
            }
        }
    }

    /// The byte-at-a-time JSON string literal the word-wide writer must match.
    func referenceJSON(_ bytes: [UInt8], lowercased: Bool) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""): out += Array(#"\""#.utf8)
            case UInt8(ascii: "\\"): out += Array(#"\\"#.utf8)
            case 0x0A: out += Array(#"\n"#.utf8)
            case 0x0D: out += Array(#"\r"#.utf8)
            case 0x09: out += Array(#"\t"#.utf8)
            case 0..<0x20, 0x7F:
                let hex = String(byte, radix: 16)
                out += Array(("\\u00" + (hex.count == 1 ? "0" : "") + hex).utf8)
            default: out.append(lowercased && byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte)
            }
        }
        out.append(UInt8(ascii: "\""))
        return out
    }

    @Test("JSON strings written a word at a time escape and lowercase exactly like byte by byte")
    func wordWideJSON() {
        var generator = SeededGenerator()
        let seed = generator.seed
        // Neighbours of every class boundary the word-wide tests draw: controls, `"`, `\`, DEL,
        // `@`/`A`, `Z`/`[`, `` ` ``/`a`, and UTF-8 bytes whose low seven bits look like capitals.
        let alphabet: [[UInt8]] = [[0x00], [0x1F], [0x20], [0x21], [0x22], [0x5C], [0x7E], [0x7F], [0x40], [0x41], [0x5A],
                                   [0x5B], [0x60], [0x61], [0x7A], [0x09], [0x0A], Array("é".utf8), Array("Ä".utf8),
                                   Array("€".utf8), Array("😀".utf8), [UInt8(ascii: "x")], [UInt8(ascii: "Q")]]
        for length in 0..<48 {
            for _ in 0..<40 {
                let value = (0..<length).flatMap { _ in alphabet.randomElement(using: &generator) ?? [] }
                for lowercased in [false, true] {
                    // `writeJSONValue` may store 8 bytes past its end; `writeJSON` must not.
                    for (valueWriter, slack) in [(false, 0), (true, 8)] {
                        let written = value.withUnsafeBytes { bytes in
                            [UInt8](unsafeUninitializedCapacity: 2 + 6 * bytes.count + slack) { buffer, count in
                                var cursor = ByteCursor(next: buffer.baseAddress!)
                                if valueWriter {
                                    cursor.writeJSONValue(bytes, lowercased: lowercased)
                                } else {
                                    cursor.writeJSON(bytes, lowercased: lowercased)
                                }
                                count = cursor.next - buffer.baseAddress!
                            }
                        }
                        #expect(written == referenceJSON(value, lowercased: lowercased),
                                "\(value) lowercased: \(lowercased), RULESKIT_TEST_SEED=\(seed)")
                    }
                }
            }
        }
    }

    @Test("a plain valid-as-is value is written the same with or without the plain promise, at every length")
    func plainValidAsIs() {
        let writer = RecordWriter(options: WriterOptions(format: .jsonl, includesKey: true))
        let head = Array(#"{"record": 1234567"#.utf8)
        let plainBytes = Array("AZaz09._-QqMm~ !".utf8)
        for length in 1..<40 {
            let value = (0..<length).map { plainBytes[($0 &* 7 &+ length) % plainBytes.count] }
            let records = [false, true].map { plain in
                head.withUnsafeBytes { head in
                    value.withUnsafeBytes { value in
                        [UInt8](unsafeUninitializedCapacity: writer.validAsIsCapacity(head: head, value: value)) { buffer, count in
                            var cursor = ByteCursor(next: buffer.baseAddress!)
                            writer.writeValidAsIs(head: head, value: value, plain: plain, into: &cursor)
                            count = cursor.next - buffer.baseAddress!
                        }
                    }
                }
            }
            let text = String(decoding: value, as: UTF8.self)
            #expect(records[0] == records[1], "length \(length)")
            #expect(String(decoding: records[1], as: UTF8.self)
                == #"{"record": 1234567, "valid": true, "errors": [], "normalized": "\#(text)", "key": "\#(text.lowercased())"}"# + "\n")
        }
    }

    @Test("short pieces copied a word at a time arrive whole, at every length")
    func wordWideCopies() {
        for length in 0..<40 {
            let piece = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let written = piece.withUnsafeBytes { bytes in
                [UInt8](unsafeUninitializedCapacity: length + 1) { buffer, count in
                    var cursor = ByteCursor(next: buffer.baseAddress!)
                    cursor.write(UInt8(ascii: "<"))
                    cursor.writeWords(bytes)
                    count = cursor.next - buffer.baseAddress!
                }
            }
            #expect(written == [UInt8(ascii: "<")] + piece)
        }
    }

    @Test("an output buffer keeps what was written as it grows, and its memory when emptied")
    func outputBuffer() {
        let buffer = OutputBuffer(capacity: 3)
        var expected: [UInt8] = []
        for round in 0..<200 {
            let piece = Array(repeating: UInt8(truncatingIfNeeded: round), count: round % 17)
            buffer.append(piece)
            expected += piece
        }
        #expect(Array(buffer.bytes) == expected)
        let grown = buffer.bytes.baseAddress
        buffer.removeAll()
        #expect(buffer.bytes.isEmpty)
        buffer.append([1, 2, 3])
        #expect(buffer.bytes.baseAddress == grown)
        #expect(Array(buffer.bytes) == [1, 2, 3])
    }
}
