@testable import BatchValidation
import Testing

/// `"mailboxKey"` in JSONL rows: written after `normalized` when the outcome carries one, never
/// in CSV or text, never for a secret field; the outcome stays as small as before.
@Suite("Mailbox keys in records")
struct MailboxKeyRowTests {
    /// The toy checker (with no username), plus a mailbox key for valid values.
    static let keyed = ClosureChecker { value, _ in
        let valid = value.unicodeScalars.allSatisfy { ("a"..."z").contains($0) }
        return FieldOutcome(violations: valid ? [] : [FieldViolation(code: "TOY1", rule: "toy.lowercase", message: "Only lowercase letters.")],
                            normalized: value, key: String(value.utf8.count), mailboxKey: valid ? value + "@key" : nil)
    }

    @Test("JSONL rows and single answers carry the key after `normalized`; invalid and damaged rows have none")
    func jsonlRows() throws {
        let run = try runBatch("abc\nBad\n\n", BatchConfiguration(writer: WriterOptions(format: .jsonl)), checker: Self.keyed)
        let rows = lines(run.output)
        #expect(rows.count == 3)
        #expect(rows.first == #"{"record": 1, "valid": true, "errors": [], "normalized": "abc", "mailboxKey": "abc@key"}"#)
        #expect(rows.dropFirst().allSatisfy { !$0.contains("mailboxKey") }, "\(rows)")
        let check = ValueCheck(checker: Self.keyed, writer: WriterOptions(format: .jsonl, includesKey: true))
        #expect(String(decoding: check.check("abc").json, as: UTF8.self)
            == #"{"valid": true, "errors": [], "normalized": "abc", "key": "3", "mailboxKey": "abc@key"}"#)
    }

    @Test("CSV, text and summaries are unchanged, and a secret field shows no key", arguments: OutputFormat.allCases)
    func otherFormats(format: OutputFormat) throws {
        // Summaries name their (temporary) input file: compared up to it.
        func shown(_ output: String) -> Substring { output.prefix { $0 != "/" } }
        let plain = try runBatch("abc\nBad\n", BatchConfiguration(writer: WriterOptions(format: format)))
        let keyed = try runBatch("abc\nBad\n", BatchConfiguration(writer: WriterOptions(format: format)), checker: Self.keyed)
        if format != .jsonl { #expect(shown(keyed.output) == shown(plain.output) && !keyed.output.contains("abc@key")) }
        let secret = try runBatch("abc\nBad\n", BatchConfiguration(writer: WriterOptions(format: format, isSecret: true)), checker: Self.keyed)
        #expect(!secret.output.contains("mailboxKey") && !secret.output.contains("abc@key"))
    }

    @Test("the key shares the strength's box: an outcome is no larger than before, and setting one keeps the other")
    func outcomeSize() {
        // Violations (8), normalized (16), key (16), one reference for the rarer parts (8).
        #expect(MemoryLayout<FieldOutcome>.size == 48)
        let report = StrengthReport(score: 2, guessesLog10: 5, warning: nil, suggestions: [])
        var outcome = FieldOutcome(strength: report)
        outcome.mailboxKey = "a@b.c"
        #expect(outcome.strength == report && outcome.mailboxKey == "a@b.c")
        outcome.strength = nil
        #expect(outcome.mailboxKey == "a@b.c")
        #expect(outcome != FieldOutcome() && FieldOutcome(mailboxKey: "a@b.c") == outcome)
        outcome.mailboxKey = nil
        #expect(outcome == FieldOutcome())
    }
}
