import Foundation
import RulesTestSupport
import Testing

/// `validate breached import`, `validate password --breached`, `validate email
/// --reject-disposable/--allow-domains` end to end.
@Suite("validate breached, --breached, --reject-disposable")
struct SignUpCommandTests {
    /// Passwords and their SHA-1 (as `sha1sum` prints them), for a store of our own.
    static let breached: [(password: String, sha1: String)] = [
        ("hunter2", "F3BBBD66A63D4BF1747940578EC3D0103530E21D"),
        ("correct horse battery staple", "ABF7AAD6438836DBE526AA231ABDE2D0EEF74D42"),
        ("Tr0ub4dor&3", "874572E7A5AE6A49466A6AC578B98ADBA78C6AA6"),
    ]
    static let clean = ["a-password-nobody-has-used-9174", "another unbreached pass 55"]

    func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("signup-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A store holding the breached passwords' hashes (lowercase, CRLF) and some others.
    func makeStore(in directory: URL) throws -> (store: String, input: String) {
        var lines = Self.breached.map { "\($0.sha1.lowercased()):\(12)" }
        lines += (0..<200).map { index in String(format: "%040X", index * 7_919) + ":\(index + 1)" }
        let input = directory.appendingPathComponent("pwned.txt")
        try Data(lines.joined(separator: "\r\n").utf8).write(to: input)
        let store = directory.appendingPathComponent("pwned.store").path
        let run = try runValidate(["breached", "import", input.path, "--output", store])
        try #require(run.status == 0, "import: \(String(decoding: run.stderr, as: UTF8.self))")
        return (store, input.path)
    }

    @Test("import: exit 0, a one-line summary on stdout, no progress bar off a TTY, the same bytes every time")
    func importSucceeds() throws {
        let dir = try directory()
        let (store, input) = try makeStore(in: dir)
        let run = try runValidate(["breached", "import", input, "--output", dir.appendingPathComponent("again").path])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        let summary = String(decoding: run.stdout, as: UTF8.self)
        #expect(summary.hasPrefix("imported 203 lines (203 hashes) from 1 file into "))
        #expect(summary.hasSuffix(", exact\n"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == Data(contentsOf: dir.appendingPathComponent("again")))
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)).prefix(8) == Data("RKBREACH".utf8))
        let small = try runValidate(["breached", "import", input, "--output", dir.appendingPathComponent("small").path, "--bits", "64"])
        #expect(small.status == 0)
        #expect(String(decoding: small.stdout, as: UTF8.self).hasSuffix(", 64 bits per hash\n"))
    }

    @Test("import on a terminal draws a progress bar on stderr and erases it")
    func progressOnTerminal() throws {
        let dir = try directory()
        let input = dir.appendingPathComponent("pwned.txt")
        try Data((Self.breached.map { "\($0.sha1):1" }.joined(separator: "\n") + "\n").utf8).write(to: input)
        let output = dir.appendingPathComponent("store").path
        // script(1) gives the command a pseudo-terminal; its transcript is the terminal's output.
        let command = "\(validateBinary.path) breached import \(input.path) --output \(output)"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", command, "/dev/null"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let transcript = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(transcript.contains("\r\u{1B}[2Kimport [==============================] 100%"))
        #expect(transcript.contains("imported 3 lines"))
        let quiet = try runValidate(["breached", "import", input.path, "--output", output, "--quiet"])
        #expect(quiet.status == 0 && quiet.stderr.isEmpty)
    }

    @Test("import: a malformed line is exit 2 naming file:line, quoting nothing, leaving nothing at --output")
    func importMalformed() throws {
        let dir = try directory()
        let input = dir.appendingPathComponent("bad.txt")
        try Data("\(Self.breached[0].sha1):1\r\n\(Self.breached[1].sha1)X:2\r\n".utf8).write(to: input)
        let output = dir.appendingPathComponent("store").path
        let run = try runValidate(["breached", "import", input.path, "--output", output])
        #expect(run.status == 2)
        let stderr = String(decoding: run.stderr, as: UTF8.self)
        #expect(stderr.hasPrefix("validate: error: \(input.path):2: not a Pwned Passwords line (HEX40:COUNT): column 41"))
        for (index, (_, sha1)) in Self.breached.enumerated() {
            let quoted = stderr.uppercased().contains(sha1.prefix(12))
            #expect(!quoted, "hash #\(index) quoted")
        }
        #expect(run.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["bad.txt"])
        let missing = try runValidate(["breached", "import", dir.appendingPathComponent("nope.txt").path, "--output", output])
        #expect(missing.status == 2)
        #expect(String(decoding: missing.stderr, as: UTF8.self).contains("cannot read"))
    }

    @Test("import: usage errors are exit 64", arguments: [
        ["breached", "import", "--output", "x"],
        ["breached", "import", "a.txt"],
        ["breached", "import", "a.txt", "--output", "x", "--bits", "32"],
        ["breached", "import", "a.txt", "--output", "x", "--bits", "sixty"],
        ["breached", "export", "a.txt"],
    ])
    func importUsage(_ arguments: [String]) throws {
        let run = try runValidate(arguments)
        #expect(run.status == 64)
        #expect(!run.stderr.isEmpty)
    }

    @Test("password --breached: breached passwords get PW109, the others do not; no password or hash in any output format")
    func passwordBreached() throws {
        let dir = try directory()
        let (store, _) = try makeStore(in: dir)
        let passwords = Self.breached.map(\.password) + Self.clean
        let input = dir.appendingPathComponent("pw.txt")
        try Data((passwords.joined(separator: "\n") + "\n").utf8).write(to: input)
        let jsonl = try runValidate(["password", input.path, "--format", "jsonl", "--breached", store])
        #expect(jsonl.status == 1)
        let rows = String(decoding: jsonl.stdout, as: UTF8.self).split(separator: "\n")
        try #require(rows.count == passwords.count)
        for (index, row) in rows.enumerated() {
            #expect(row.contains("\"PW109\"") == (index < Self.breached.count), "record \(index + 1)")
        }
        #expect(rows[0].contains(#"{"code": "PW109", "rule": "password.breached", "message": "This password has appeared in a data breach"#))
        // Without the flag the rule is off.
        let off = try runValidate(["password", input.path, "--format", "jsonl"])
        #expect(!String(decoding: off.stdout, as: UTF8.self).contains("PW109"))
        var runs = 0
        for format in ["text", "jsonl", "csv", "summary", "summary-json"] {
            for extra in [[], ["--explain-plan"], ["--only", "invalid"]] {
                let run = try runValidate(["password", input.path, "--format", format, "--breached", store] + extra)
                runs += 1
                let output = String(decoding: run.stdout + run.stderr, as: UTF8.self)
                // Booleans first: a failure message must not show the output (it would hold the leak).
                for (index, (password, sha1)) in Self.breached.enumerated() {
                    let passwordLeaked = output.contains(password), hashLeaked = output.uppercased().contains(sha1.dropFirst(5))
                    #expect(!passwordLeaked, "password #\(index) leaked with --format \(format) \(extra)")
                    #expect(!hashLeaked, "hash #\(index) (its last 35 digits) leaked with --format \(format) \(extra)")
                }
                let reported = output.contains("PW109")
                if extra.isEmpty { #expect(reported, "--format \(format) reports PW109") }
            }
        }
        #expect(runs == 15)
    }

    @Test("password --breached with a file that is not a store, or a missing one: exit 2 with the reason")
    func passwordBadStore() throws {
        let dir = try directory()
        let (_, input) = try makeStore(in: dir)
        let run = try runValidate(["password", "--breached", input, "-"], stdin: Data("hunter2\n".utf8))
        #expect(run.status == 2)
        let stderr = String(decoding: run.stderr, as: UTF8.self)
        #expect(stderr.contains("not a breached-password store"))
        let quoted = stderr.uppercased().contains(Self.breached[0].sha1.prefix(12))
        #expect(!quoted, "the error quotes the file")
        let missing = try runValidate(["password", "--breached", dir.appendingPathComponent("none").path, "-"], stdin: Data("hunter2\n".utf8))
        #expect(missing.status == 2)
        #expect(String(decoding: missing.stderr, as: UTF8.self).contains("cannot read breached-password store"))
    }

    @Test("serve --breached: a file that is not a store, or a --bits 64 store, is exit 2 before anything listens")
    func serveBadStore() throws {
        let dir = try directory()
        let (_, input) = try makeStore(in: dir)
        let small = dir.appendingPathComponent("small.store").path
        #expect(try runValidate(["breached", "import", input, "--output", small, "--bits", "64"]).status == 0)
        let sqlite = "sqlite:" + dir.appendingPathComponent("names.sqlite").path
        for (store, words) in [(input, "not a breached-password store"), (small, "ranges need an exact store")] {
            let run = try runValidate(["serve", "--port", "0", "--store", sqlite, "--breached", store], killAfter: .seconds(60))
            #expect(run.status == 2)
            #expect(run.stdout.isEmpty, "it never listened")
            #expect(String(decoding: run.stderr, as: UTF8.self).contains(words))
        }
    }

    @Test("email --reject-disposable: EM132 for a listed domain and its subdomains; --allow-domains wins; off by default")
    func emailDisposable() throws {
        let dir = try directory()
        let input = dir.appendingPathComponent("emails.txt")
        let addresses = ["jane@mailinator.com", "jane@sub.MAILINATOR.com", "jane@example.com", "jane@gmail.com", "jane@mailinator.example"]
        try Data((addresses.joined(separator: "\n") + "\n").utf8).write(to: input)
        func codes(_ extra: [String]) throws -> [Bool] {
            let run = try runValidate(["email", input.path, "--format", "jsonl"] + extra)
            #expect(run.status == 0 || run.status == 1)
            return String(decoding: run.stdout, as: UTF8.self).split(separator: "\n").map { $0.contains("\"EM132\"") }
        }
        #expect(try codes([]) == [false, false, false, false, false])
        #expect(try codes(["--reject-disposable"]) == [true, true, false, false, false])
        let allow = dir.appendingPathComponent("allow.txt")
        try Data("# ours\nmailinator.com\r\n".utf8).write(to: allow)
        #expect(try codes(["--reject-disposable", "--allow-domains", allow.path]) == [false, false, false, false, false])
        let missing = try runValidate(["email", input.path, "--reject-disposable", "--allow-domains", dir.appendingPathComponent("none").path])
        #expect(missing.status == 2)
        #expect(String(decoding: missing.stderr, as: UTF8.self).contains("--allow-domains"))
    }
}
