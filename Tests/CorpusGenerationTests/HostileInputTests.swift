import BatchValidation
import FieldValidation
import Foundation
import Testing

/// One curated hostile value (corpus/hostile/values.jsonl) and the validators that must reject it.
struct HostileValue: Decodable, CustomTestStringConvertible, Sendable {
    let name: String
    let category: String
    let value: String
    let invalidFor: [String]

    var testDescription: String { name }

    static func load() -> [HostileValue] {
        let path = repoPath("corpus/hostile/values.jsonl")
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? JSONDecoder().decode(HostileValue.self, from: Data($0.utf8)) }
    }

    /// Megabyte-long inputs, built at test time so the repository stays small; all invalid everywhere.
    static let megabyte: [HostileValue] = [
        ("letters", String(repeating: "a", count: 1 << 20)),
        ("periods", String(repeating: ".", count: 1 << 20)),
        ("two-byte letters", String(repeating: "é", count: 1 << 19)),
        ("zero-width spaces", String(repeating: "\u{200B}", count: 350_000)),
        ("one letter with a million combining marks", "a" + String(repeating: "\u{0301}", count: 1 << 19)),
        ("long local part", String(repeating: "a", count: 1 << 20) + "@example.com"),
        ("long domain", "user@" + String(repeating: "a.", count: 1 << 19) + "com"),
        ("many at signs", String(repeating: "@", count: 1 << 20)),
        ("nested comment brackets", String(repeating: "(", count: 1 << 19) + "@" + String(repeating: ")", count: 1 << 19)),
    ].map { HostileValue(name: "megabyte/\($0.0)", category: "megabyte", value: $0.1, invalidFor: ["display-name", "email", "password"]) }

    static let all = load() + megabyte
}

@Suite("Hostile inputs")
struct HostileInputTests {
    static let values = HostileValue.all

    @Test("the curated file loads and covers every category")
    func fileLoads() {
        let categories = Set(HostileValue.load().map(\.category))
        #expect(HostileValue.load().count >= 300)
        for category in ["control", "format", "bidi", "zero-width", "non-character", "compatibility", "combining", "emoji", "separator"] {
            #expect(categories.contains(category), "no \(category) values")
        }
    }

    @Test("every validator handles it and rejects it where labelled", arguments: values)
    func validators(_ hostile: HostileValue) throws {
        let displayName = try #require(Validators.displayName)
        let email = try #require(Validators.email)
        let password = try #require(Validators.password)
        let results: [(String, ValidationResult)] = [
            ("display-name", displayName.validate(hostile.value)),
            ("email", email.validate(hostile.value)),
            ("password", password.validate(hostile.value)),
        ]
        for (field, result) in results where hostile.invalidFor.contains(field) {
            #expect(!result.isValid, "\(hostile.name) is valid as \(field)")
        }
        // The byte entry points (valid UTF-8 without NUL, as the batch reader guarantees) agree.
        guard !hostile.value.unicodeScalars.contains("\0") else { return }
        var value = hostile.value
        value.withUTF8 { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            #expect(displayName.validate(utf8: raw).codes == results[0].1.codes, "\(hostile.name): display-name bytes")
            #expect(email.validate(utf8: raw).codes == results[1].1.codes, "\(hostile.name): email bytes")
            #expect(password.validate(utf8: raw).codes == results[2].1.codes, "\(hostile.name): password bytes")
        }
    }

    static let displayNameChecker = ValidatorChecker { bytes in
        Validators.displayName?.validate(utf8: bytes) ?? ValidationResult(violations: [Violation(code: "setup", rule: "setup", message: "no validator")])
    }

    @Test("the JSONL reader gives exactly one record per hostile value")
    func jsonlReader() throws {
        let values = HostileValue.load()
        let input = values.map { #"{"value": "# + jsonEscaped($0.value) + "\"}\n" }.joined()
        let output = try runBatch(Array(input.utf8), format: .jsonl, checker: Self.displayNameChecker)
        #expect(output.count == values.count)
        expectNoneValid(output, labels: values.map(\.name))
    }

    @Test("the plain-lines reader gives exactly one record per line")
    func linesReader() throws {
        let values = HostileValue.load().filter { !$0.value.contains(where: \.isNewline) && !$0.value.isEmpty }
        let input = values.map { $0.value + "\n" }.joined()
        let output = try runBatch(Array(input.utf8), format: .lines, checker: Self.displayNameChecker)
        #expect(output.count == values.count)
        expectNoneValid(output, labels: values.map(\.name))
    }

    @Test("surrogate-range escapes in JSONL records: one record each, none valid")
    func surrogateEscapes() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: repoPath("corpus/hostile/surrogates.jsonl"))))
        let records = bytes.split(separator: UInt8(ascii: "\n")).count
        let output = try runBatch(bytes, format: .jsonl, checker: Self.displayNameChecker)
        #expect(records >= 10)
        #expect(output.count == records)
        expectNoneValid(output, labels: (1...records).map { "surrogates.jsonl record \($0)" })
    }

    @Test("invalid UTF-8 lines: one record each, every one reported as damaged")
    func invalidUTF8() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: repoPath("corpus/hostile/invalid-utf8.lines"))))
        let records = bytes.split(separator: UInt8(ascii: "\n")).count
        let output = try runBatch(bytes, format: .lines, checker: ValidatorChecker { _ in ValidationResult() })
        #expect(records >= 10)
        #expect(output.count == records)
        for (index, line) in output.enumerated() {
            #expect(line.contains("input.invalid-utf8"), "invalid-utf8.lines line \(index + 1): \(line)")
        }
    }

    @Test("megabyte records: one record each, never valid")
    func megabyteRecords() throws {
        let input = HostileValue.megabyte.map { $0.value + "\n" }.joined()
        let output = try runBatch(Array(input.utf8), format: .lines, checker: Self.displayNameChecker)
        #expect(output.count == HostileValue.megabyte.count)
        expectNoneValid(output, labels: HostileValue.megabyte.map(\.name))
    }

    func expectNoneValid(_ output: [String], labels: [String]) {
        for (index, line) in output.enumerated() where line.contains(#""valid": true"#) {
            Issue.record("\(index < labels.count ? labels[index] : "record \(index + 1)") came out valid: \(line)")
        }
    }

    func jsonEscaped(_ value: String) -> String {
        String(jsonStringLiteral(value).dropFirst().dropLast())
    }
}

/// A JSON string literal (same escaping as the generators' JSONL).
func jsonStringLiteral(_ value: String) -> String {
    var out = "\""
    for scalar in value.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}
