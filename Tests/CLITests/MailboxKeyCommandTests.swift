import Foundation
import Testing

/// `validate email --format jsonl` rows carry `"mailboxKey"` (one key per mailbox) for valid
/// addresses; nothing else changes: not `normalized`, not CSV, not the summaries, not passwords.
@Suite("validate email: mailboxKey in JSONL rows")
struct MailboxKeyCommandTests {
    static let addresses = ["Jane.Doe+promo@gmail.com", "janedoe@googlemail.com", "jane..doe@gmail.com", "Jane@Example.COM"]

    func input(_ lines: [String], _ name: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mailbox-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: url)
        return url
    }

    func rows(_ run: Transcript) throws -> [[String: Any]] {
        try String(decoding: run.stdout, as: UTF8.self).split(separator: "\n").map { line in
            try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test("aliases of one Gmail mailbox share a key and keep their own `normalized`; an invalid address has none", arguments: ["lines", "jsonl"])
    func jsonlRows(layout: String) throws {
        let file = layout == "lines"
            ? try input(Self.addresses, "emails.txt")
            : try input(Self.addresses.map { #"{"user": {"email": "\#($0)"}}"# }, "users.jsonl")
        let fields = layout == "lines" ? [] : ["--input", "jsonl", "--field", "user.email"]
        let run = try runValidate(["email", file.path, "--format", "jsonl"] + fields)
        #expect(run.status == 1 && run.stderr.isEmpty)
        let rows = try rows(run)
        try #require(rows.count == 4)
        #expect(rows[0]["normalized"] as? String == "Jane.Doe+promo@gmail.com")
        #expect(rows[1]["normalized"] as? String == "janedoe@googlemail.com")
        #expect(rows[0]["mailboxKey"] as? String == "janedoe@gmail.com")
        #expect(rows[1]["mailboxKey"] as? String == "janedoe@gmail.com")
        #expect(rows[2]["valid"] as? Bool == false && rows[2]["mailboxKey"] == nil && rows[2]["normalized"] == nil)
        #expect(rows[3]["normalized"] as? String == "Jane@example.com")
        #expect(rows[3]["mailboxKey"] as? String == "Jane@example.com", "no provider: the normalized address itself")
        // The member sits after `normalized`, as docs/CLI.md shows it.
        #expect(String(decoding: run.stdout, as: UTF8.self).hasPrefix(
            #"{"record": 1, "valid": true, "errors": [], "normalized": "Jane.Doe+promo@gmail.com", "mailboxKey": "janedoe@gmail.com"}"#))
    }

    @Test("CSV, text and the summaries carry no mailbox key")
    func otherFormats() throws {
        let file = try input(Self.addresses, "emails.txt")
        let csv = try runValidate(["email", file.path, "--format", "csv"])
        #expect(String(decoding: csv.stdout, as: UTF8.self).split(separator: "\n").first == "record,valid,codes,messages,normalized")
        let summary = try runValidate(["email", file.path, "--format", "summary"])
        #expect(String(decoding: summary.stdout, as: UTF8.self) == """
            4 records: 3 valid, 1 invalid
            errors by code:
              EM115  1

            """)
        let summaryJSON = try runValidate(["email", file.path, "--format", "summary-json"])
        #expect(String(decoding: summaryJSON.stdout, as: UTF8.self) == """
            {"records": 4, "valid": 3, "invalid": 1, "errors": {"EM115": 1}, "files": [{"file": "\(file.path)", "records": 4, "valid": 3, "invalid": 1}]}

            """)
        for format in ["csv", "text", "summary", "summary-json"] {
            let run = try runValidate(["email", file.path, "--format", format])
            let output = String(decoding: run.stdout, as: UTF8.self)
            #expect(!output.contains("mailboxKey") && !output.contains("janedoe@gmail.com"), "--format \(format)")
        }
    }

    @Test("a password row never has a mailbox key, even when the password is an address")
    func passwordRows() throws {
        let file = try input(["Jane.Doe+promo@gmail.com", "a-long-unguessable-pass-9174"], "pw.txt")
        for extra in [[], ["--strength"]] {
            let run = try runValidate(["password", file.path, "--format", "jsonl"] + extra)
            let output = String(decoding: run.stdout, as: UTF8.self)
            #expect(!output.contains("mailboxKey") && !output.contains("gmail"), "\(extra)")
            #expect(try rows(run).count == 2)
        }
    }
}
