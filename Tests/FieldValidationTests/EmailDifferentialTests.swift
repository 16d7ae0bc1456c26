@testable import FieldValidation
import Foundation
import CorpusGeneration
import Diagnostics
import RulesTestSupport
import Testing

/// Differential test against python email-validator 2.4 (`check_deliverability=False,
/// strict=True`), the reference the issue names, on 20,000 seeded generated addresses (UTS 46
/// mapping cases and non-ASCII domains among them), all sent to one python process.
///
/// The oracle is the virtual environment `scripts/bootstrap --with-oracles` creates in
/// `.venv-oracles/` (or a `python3` on the PATH with email-validator 2.4). Without it the test is
/// skipped, except with `CI=true`, where it fails. Every disagreement must be listed, with its
/// reason, in `corpus/differential/email-validator.json`, and every entry there must still
/// occur.
@Suite struct EmailDifferentialTests {
    static let addressCount = 20_000

    static let oracleScript = """
    import json, sys
    from email_validator import validate_email, EmailNotValidError
    for line in sys.stdin:
        address = json.loads(line)
        try:
            r = validate_email(address, check_deliverability=False, strict=True)
            print(json.dumps({"valid": True, "normalized": r.normalized}))
        except EmailNotValidError as e:
            print(json.dumps({"valid": False, "error": str(e)}))
        except Exception as e:  # an oracle crash is a non-answer, not a verdict
            print(json.dumps({"valid": None, "error": repr(e)}))
    """

    /// The python that has email-validator 2.4, or nil.
    static let oracle: URL? = {
        let venv = packageRoot.appendingPathComponent(".venv-oracles/bin/python3")
        let check = ["-c", "import email_validator, sys; sys.exit(0 if email_validator.__version__.startswith('2.4.') else 1)"]
        for candidate in [venv, URL(fileURLWithPath: "/usr/bin/python3")]
        where FileManager.default.isExecutableFile(atPath: candidate.path) {
            if (try? runPython(candidate, check, input: Data()))?.status == 0 { return candidate }
        }
        return nil
    }()

    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

    struct Verdict: Decodable {
        var valid: Bool?
        var normalized: String?
        var error: String?
    }

    @Test(.enabled(if: oracle != nil || isCI,
                   "email-validator 2.4 is not installed: run scripts/bootstrap --with-oracles (with CI=true this test fails instead)"))
    func agreesWithEmailValidatorOnGeneratedAddresses() throws {
        let python = try #require(Self.oracle, "email-validator 2.4 is missing: run scripts/bootstrap --with-oracles, which creates .venv-oracles/")
        let known = try KnownDifferences.load()
        let addresses = Self.generate(count: Self.addressCount)
        #expect(addresses.count == Self.addressCount)
        var input = Data()
        for address in addresses {
            input += Data(jsonString(address).utf8) + Data("\n".utf8)
        }
        let output = try Self.runPython(python, ["-c", Self.oracleScript], input: input)
        try #require(output.status == 0, "the oracle exited with status \(output.status)")
        let lines = output.stdout.split(separator: UInt8(ascii: "\n"))
        try #require(lines.count == addresses.count, "the oracle answered \(lines.count) of \(addresses.count) addresses")
        let validator = try EmailValidator()
        var compared = 0, bothValid = 0, bothInvalid = 0
        var listed: [String: Int] = [:]
        for (address, line) in zip(addresses, lines) {
            let verdict = try JSONDecoder().decode(Verdict.self, from: Data(line))
            let ours = validator.validate(address)
            compared += 1
            guard let theirs = verdict.valid else {
                Issue.record("\(address.debugDescription): email-validator crashed: \(verdict.error ?? "")")
                continue
            }
            if ours.isValid == theirs && (!theirs || ours.normalized == verdict.normalized) {
                if theirs { bothValid += 1 } else { bothInvalid += 1 }
                continue
            }
            if let entry = known.match(address, ours: ours, theirs: verdict) {
                listed[entry.id, default: 0] += 1
                continue
            }
            let rulesKit = ours.isValid ? "accepts as \(ours.normalized.map(\.debugDescription) ?? "?")" : "rejects \(ours.codes)"
            let emailValidator = theirs ? "accepts as \(verdict.normalized.map(\.debugDescription) ?? "?")" : "rejects: \(verdict.error ?? "")"
            Issue.record("\(address.debugDescription): RulesKit \(rulesKit), email-validator \(emailValidator)")
        }
        #expect(compared == Self.addressCount)
        let differences = listed.values.reduce(0, +)
        #expect(differences < compared / 20, "\(differences) listed differences: the list hides too much")
        #expect(bothValid > compared / 10 && bothInvalid > compared / 10, "the corpus mixes valid and invalid addresses")
        for entry in known.differences where listed[entry.id] == nil {
            Issue.record("known difference \(entry.id) no longer occurs: remove it from corpus/differential/email-validator.json")
        }
        print("email differential: \(compared) compared, \(bothValid) valid in both, \(bothInvalid) invalid in both, "
              + "\(differences) listed differences \(listed.sorted { $0.key < $1.key })")
    }

    // MARK: - Known differences (data)

    /// `corpus/differential/email-validator.json`: disagreements that are policy, each with why.
    struct KnownDifferences: Decodable {
        struct Entry: Decodable {
            /// Stable name of the difference.
            var id: String
            /// RulesKit's verdict: `"valid"`, or the exact violation codes.
            var rulesKit: Verdict
            /// email-validator's verdict: `"valid"`, or a prefix of its error message.
            var emailValidator: String
            /// Both accept, with different normalized forms.
            var normalized: Bool?
            /// A regular expression the address must match (it narrows the entry to its cause).
            var addressMatches: String?
            var reason: String

            enum Verdict: Decodable, Equatable {
                case valid
                case codes([String])

                init(from decoder: any Decoder) throws {
                    let container = try decoder.singleValueContainer()
                    if let codes = try? container.decode([String].self) {
                        self = .codes(codes)
                    } else if try container.decode(String.self) == "valid" {
                        self = .valid
                    } else {
                        throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected \"valid\" or a list of codes")
                    }
                }
            }
        }

        var differences: [Entry]

        static func load() throws -> KnownDifferences {
            let url = packageRoot.appendingPathComponent("corpus/differential/email-validator.json")
            let list = try JSONDecoder().decode(KnownDifferences.self, from: Data(contentsOf: url))
            for entry in list.differences {
                #expect(!entry.reason.isEmpty, "known difference \(entry.id) has no reason")
            }
            return list
        }

        func match(_ address: String, ours: ValidationResult, theirs: EmailDifferentialTests.Verdict) -> Entry? {
            differences.first { entry in
                if let pattern = entry.addressMatches,
                   address.range(of: pattern, options: .regularExpression) == nil { return false }
                let oursMatches = entry.rulesKit == (ours.isValid ? .valid : .codes(ours.codes))
                let theirsMatches = entry.emailValidator == "valid"
                    ? theirs.valid == true : theirs.valid == false && (theirs.error ?? "").hasPrefix(entry.emailValidator)
                let normalizedMatches = (entry.normalized ?? false) == (ours.isValid && theirs.valid == true)
                return oursMatches && theirsMatches && normalizedMatches
            }
        }
    }

    // MARK: - Generated addresses

    /// Deterministic addresses built from pieces that hit every rule, valid ones included, with
    /// UTS 46 mapping cases (mapped full stops, characters mapped into ASCII, long A-labels, NFC
    /// compositions) and non-ASCII domains.
    static func generate(count: Int) -> [String] {
        var random = SeededRandom(seed: 0x5EED_E7A1)
        func pick(_ pieces: [String]) -> String { pieces[random.index(pieces.count)] }
        let localPieces = ["john", "Jane", "a", "x1", ".", "..", "+tag", "-", "_", "!", "#", "~", "é", "ü", "用户",
                           "\"", " ", "\u{200B}", "(", ")", ",", ";", "<", ">", "[", "\\", "\u{301}", "ｕ", "😀",
                           "\u{0}", "\n", "\u{202E}", "\u{A0}", String(repeating: "a", count: 40), String(repeating: "é", count: 20),
                           String(repeating: "é", count: 33), "<\u{338}", ">\u{338}", "=\u{338}", "\u{226E}", "e\u{301}",
                           "\u{212A}", "\u{37E}", "\u{FF0E}", "\u{3002}", "Ⅻ"]
        let labels = ["example", "com", "org", "co", "xn--bcher-kva", "bücher", "ab--cd", "-x", "x-", "123", "test",
                      "localhost", "local", "onion", "invalid", "arpa", "", "exa_mple", "ｅｘａｍｐｌｅ", "例子", "广告",
                      "xn--zz", "😀", "Straße", "c0m1", "a", "mail", String(repeating: "b", count: 63),
                      String(repeating: "c", count: 64), "ü--x", "xn--p1ai", "EXAMPLE",
                      // UTS 46 mapping: into ASCII, full-width, ignored, disallowed, compositions.
                      "a\u{37E}b", "\u{2474}", "\u{2488}", "exa\u{FF01}mple", "ＡＢ", "ab\u{FF0D}\u{FF0D}cd", "\u{FF0D}x",
                      "x\u{FF0D}", "a\u{34F}b", "x\u{226E}y", "x<\u{338}y", "e\u{301}xample", "ς", "παράδειγμα", "مثال",
                      "Ⅻ", "㎒", "ﬀ", "\u{2665}\u{FE0F}", "exa\u{FF3F}mple", "ΣΊΣΥΦΟΣ",
                      String(repeating: "ü", count: 57), String(repeating: "ü", count: 58), String(repeating: "例", count: 20)]
        let separators = [".", ".", ".", ".", "\u{3002}", "\u{FF0E}", "\u{FF61}", "..", "\u{3002}\u{3002}", ".\u{FF61}"]
        let tlds = ["com", "org", "example", "de", "广告", "δοκιμή", "xn--p1ai", "ｃｏｍ"]
        var out: [String] = []
        out.reserveCapacity(count)
        for _ in 0..<count {
            var local = ""
            for _ in 0..<random.int(in: 1...3) { local += pick(localPieces) }
            if random.int(in: 0...2) > 0 { local = pick(["user", "first.last", "a+b", "ñandú", "用户"]) }
            var domain = ""
            switch random.int(in: 0...5) {
            case 0, 1:
                // Free-form: any labels, any separators, sometimes one at an edge.
                if random.int(in: 0...9) == 0 { domain += pick(separators) }
                for index in 0..<random.int(in: 1...4) {
                    if index > 0 { domain += pick(separators) }
                    domain += pick(labels)
                }
                if random.int(in: 0...9) == 0 { domain += pick(separators) }
            case 2:
                // A likely-valid non-ASCII domain.
                domain = pick(["bücher", "例子", "παράδειγμα", "ｅｘａｍｐｌｅ", "ＡＢ", "Straße", "e\u{301}xample", "a\u{34F}b"])
                    + pick([".", "\u{3002}", "\u{FF0E}", "\u{FF61}"]) + pick(tlds)
            case 3:
                // Long labels, measured on the A-label form.
                let label = String(repeating: pick(["ü", "b", "例"]), count: random.int(in: 18...64))
                domain = Array(repeating: label, count: random.int(in: 1...5)).joined(separator: pick([".", "\u{3002}"])) + ".com"
            default:
                domain = pick(Array(labels.prefix(4))) + "." + pick(["com", "org", "example", "de"])
            }
            let separator = ["@", "@", "@", "@", "@", "@", "", "@@"][random.int(in: 0...7)]
            out.append(local + separator + domain)
        }
        return out
    }

    // MARK: - Running python

    static func runPython(_ python: URL, _ arguments: [String], input: Data) throws -> (status: Int32, stdout: Data) {
        let process = Process()
        process.executableURL = python
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Feed stdin from another thread so a full stdout pipe cannot deadlock us.
        let writer = Thread {
            stdin.fileHandleForWriting.write(input)
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, data)
    }
}
