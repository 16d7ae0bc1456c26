import Foundation
import Testing

/// Passwords never appear in any output: every format, input format and filter is run over a
/// password file and all of stdout and stderr is scanned for every input password.
@Suite("Passwords never appear in output")
struct PasswordLeakTests {
    static let passwords = [
        "Tr0ub4dor&3xyz", "correct horse battery staple", "short7", "qwertyuiop123456", "alice-secret-99",
        "pässwörd-ünïcödé", "tab\there-pw", "quote\"inside-pw", "comma,inside-pw", "bob2024bob", "ＦＵＬＬＷＩＤＴＨpw",
        String(repeating: "long-pw-", count: 200),
    ]

    static func writeInputs(to directory: URL) throws -> [(format: String, file: URL, field: [String])] {
        let lines = directory.appendingPathComponent("pw.txt")
        try Data((passwords.joined(separator: "\n") + "\n").utf8).write(to: lines)
        let csv = directory.appendingPathComponent("pw.csv")
        let rows = passwords.map { "\"\($0.replacingOccurrences(of: "\"", with: "\"\""))\",alice,alice@example.com" }
        try Data((["password,user,email"] + rows).joined(separator: "\r\n").utf8).write(to: csv)
        let jsonl = directory.appendingPathComponent("pw.jsonl")
        let objects = passwords.map { pw -> String in
            let escaped = pw.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\t", with: "\\t")
            return "{\"secret\": {\"pw\": \"\(escaped)\"}, \"user\": \"bob\"}"
        }
        try Data(objects.joined(separator: "\n").utf8).write(to: jsonl)
        return [("lines", lines, []), ("csv", csv, ["--field", "password", "--username-field", "user", "--email-field", "email"]),
                ("jsonl", jsonl, ["--field", "secret.pw", "--username-field", "user"])]
    }

    @Test("no password in stdout or stderr, whatever the flags")
    func noLeak() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pwleak-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var runs = 0
        for input in try Self.writeInputs(to: directory) {
            for format in ["text", "jsonl", "csv", "summary", "summary-json"] {
                for extra in [[], ["--only", "valid"], ["--only", "invalid"], ["--fail-fast"], ["--max-line-bytes", "20"]] {
                    let args = ["password", input.file.path, "--input", input.format, "--format", format, "--app-name", "MyApp"] + input.field + extra
                    let run = try runValidate(args)
                    runs += 1
                    let output = run.stdout + run.stderr
                    for (index, password) in Self.passwords.enumerated() {
                        // Name the case, never the password, in the failure message.
                        #expect(output.range(of: Data(password.utf8)) == nil,
                                "password #\(index) leaked with --input \(input.format) --format \(format) \(extra.joined(separator: " "))")
                    }
                    #expect(run.status == 1, "status with --input \(input.format) --format \(format)")
                }
            }
        }
        #expect(runs == 75)
    }

    @Test("with --confirm-field, neither the password nor its confirmation appears in any output")
    func noLeakWithConfirmation() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pwleak-confirm-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Every other record's confirmation differs from its password by a suffix, so both values
        // are distinct secrets to look for.
        let pairs = Self.passwords.enumerated().map { ($1, $0 % 2 == 0 ? $1 : $1 + "-typo") }
        let csv = directory.appendingPathComponent("confirm.csv")
        let quote = { (text: String) in "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        let rows = pairs.map { quote($0.0) + "," + quote($0.1) }
        try Data((["password,confirm"] + rows).joined(separator: "\r\n").utf8).write(to: csv)
        let jsonl = directory.appendingPathComponent("confirm.jsonl")
        let escape = { (text: String) in
            text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\t", with: "\\t")
        }
        let objects = pairs.map { "{\"pw\": \"\(escape($0.0))\", \"again\": \"\(escape($0.1))\"}" }
        try Data(objects.joined(separator: "\n").utf8).write(to: jsonl)
        var runs = 0
        for (format, file, confirm) in [("csv", csv, ["--field", "password", "--confirm-field", "confirm"]),
                                        ("jsonl", jsonl, ["--field", "pw", "--confirm-field", "again"])] {
            for output in ["text", "jsonl", "csv", "summary-json"] {
                let run = try runValidate(["password", file.path, "--input", format, "--format", output] + confirm)
                runs += 1
                let printed = run.stdout + run.stderr
                for (index, pair) in pairs.enumerated() {
                    #expect(printed.range(of: Data(pair.0.utf8)) == nil && printed.range(of: Data(pair.1.utf8)) == nil,
                            "record #\(index) leaked with --input \(format) --format \(output)")
                }
                let mismatches = String(decoding: run.stdout, as: UTF8.self).components(separatedBy: "PW108").count - 1
                #expect(mismatches >= 1, "PW108 reported with --input \(format) --format \(output)")
                #expect(run.status == 1, "status with --input \(format) --format \(output)")
            }
        }
        #expect(runs == 8)
    }

    @Test("with --strength and --user-inputs-field, no password appears in any output, and every JSONL record has its estimate")
    func noLeakWithStrength() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pwleak-strength-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let escape = { (text: String) in
            text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\t", with: "\\t")
        }
        // User inputs hold the password itself and pieces of it; the last record's are not an
        // array (a damaged record, whose message must not quote the field either).
        var objects = Self.passwords.map { pw in
            "{\"pw\": \"\(escape(pw))\", \"words\": [\"\(escape(pw))\", \"\(escape(String(pw.prefix(5))))\", \"bob\"]}"
        }
        objects.append("{\"pw\": \"\(escape(Self.passwords[0]))\", \"words\": \"\(escape(Self.passwords[1]))\"}")
        let jsonl = directory.appendingPathComponent("strength.jsonl")
        try Data(objects.joined(separator: "\n").utf8).write(to: jsonl)
        var runs = 0
        for format in ["text", "jsonl", "csv", "summary", "summary-json"] {
            for extra in [[], ["--only", "invalid"], ["--max-line-bytes", "40"], ["--confirm-field", "words"]] {
                let run = try runValidate(["password", jsonl.path, "--input", "jsonl", "--field", "pw", "--strength",
                                           "--user-inputs-field", "words", "--format", format] + extra)
                runs += 1
                let printed = run.stdout + run.stderr
                for (index, password) in Self.passwords.enumerated() {
                    #expect(printed.range(of: Data(password.utf8)) == nil,
                            "password #\(index) leaked with --strength --format \(format) \(extra.joined(separator: " "))")
                }
                #expect(run.status == 1, "status with --strength --format \(format)")
                let text = String(decoding: run.stdout, as: UTF8.self)
                if format == "jsonl" && extra.isEmpty {
                    let rows = text.split(separator: "\n")
                    #expect(rows.count == objects.count)
                    #expect(rows.dropLast().allSatisfy { $0.contains(#""strength": {"score": "#) }, "every checked record has its estimate")
                    #expect(rows.last?.contains(#""code": "input.not-a-string-array""#) == true && rows.last?.hasSuffix(#""strength": null}"#) == true)
                }
                if format.hasPrefix("summary") && extra.isEmpty {
                    #expect(text.contains(format == "summary" ? "strength scores:" : #""strengthScores": {"0": "#))
                }
            }
        }
        #expect(runs == 20)
    }
}
