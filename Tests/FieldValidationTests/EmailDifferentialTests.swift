@testable import FieldValidation
import Foundation
import CorpusGeneration
import Diagnostics
import Testing

/// Differential test against python email-validator 2.x (`check_deliverability=False,
/// strict=True`), the reference the issue names, on a generated corpus. Skipped (with the
/// reason shown) when python3 or email-validator is missing.
@Suite struct EmailDifferentialTests {
    static let oracle = """
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

    static let available: Bool = {
        (try? runPython(["-c", "import email_validator, sys; sys.exit(0 if email_validator.__version__.startswith('2.') else 1)"], input: Data()))?.status == 0
    }()

    struct Verdict: Decodable {
        var valid: Bool?
        var normalized: String?
        var error: String?
    }

    @Test(.enabled(if: available, "python3 with email-validator 2.x is not installed (pip install email-validator)"))
    func agreesWithEmailValidatorOnGeneratedAddresses() throws {
        let addresses = Self.generate(count: 3000)
        var input = Data()
        for address in addresses {
            input += Data(jsonString(address).utf8) + Data("\n".utf8)
        }
        let output = try Self.runPython(["-c", Self.oracle], input: input)
        try #require(output.status == 0, "oracle failed")
        let lines = output.stdout.split(separator: UInt8(ascii: "\n"))
        try #require(lines.count == addresses.count)
        let validator = try EmailValidator()
        var compared = 0, knownDifferences = 0, bothValid = 0
        for (address, line) in zip(addresses, lines) {
            let verdict = try JSONDecoder().decode(Verdict.self, from: Data(line))
            guard let theirs = verdict.valid else { continue }
            let ours = validator.validate(address)
            compared += 1
            if ours.isValid == theirs {
                if theirs {
                    bothValid += 1
                    #expect(ours.normalized == verdict.normalized, "\(address.debugDescription): normalized")
                }
                continue
            }
            if let reason = Self.knownDifference(address, ours) {
                knownDifferences += 1
                _ = reason
                continue
            }
            Issue.record("\(address.debugDescription): RulesKit \(ours.isValid ? "accepts" : "rejects \(ours.codes)"), email-validator \(theirs ? "accepts" : "rejects: \(verdict.error ?? "")")")
        }
        #expect(compared > addresses.count * 9 / 10)
        #expect(knownDifferences < compared / 10)
        #expect(bothValid > compared / 10 && bothValid < compared * 9 / 10, "the corpus mixes valid and invalid addresses")
        print("email differential: \(compared) compared, \(bothValid) valid in both, \(knownDifferences) known differences")
    }

    /// Documented policy differences, each with its reason.
    static func knownDifference(_ address: String, _ ours: ValidationResult) -> String? {
        let parts = EmailParts(address)
        if ours.codes == ["EM111"], let local = parts.localPart, local.count <= 64 {
            return "local-part limit: RulesKit counts UTF-8 octets (RFC 5321/6531), email-validator characters"
        }
        return nil
    }

    // MARK: - Generated addresses

    /// Deterministic addresses built from pieces that hit every rule, valid ones included.
    static func generate(count: Int) -> [String] {
        var random = SeededRandom(seed: 0x5EED_E7A1)
        let localPieces = ["john", "Jane", "a", "x1", ".", "..", "+tag", "-", "_", "!", "#", "~", "é", "ü", "用户",
                           "\"", " ", "\u{200B}", "(", ")", ",", ";", "<", ">", "[", "\\", "\u{301}", "ｕ", "😀",
                           "\u{0}", "\n", "\u{202E}", "\u{A0}", String(repeating: "a", count: 40), String(repeating: "é", count: 20),
                           String(repeating: "é", count: 33)]
        let labels = ["example", "com", "org", "co", "xn--bcher-kva", "bücher", "ab--cd", "-x", "x-", "123", "test",
                      "localhost", "local", "onion", "invalid", "arpa", "", "exa_mple", "ｅｘａｍｐｌｅ", "例子", "广告",
                      "xn--zz", "😀", "Straße", "c0m1", "a", "mail", String(repeating: "b", count: 63),
                      String(repeating: "c", count: 64), "ü--x", "xn--p1ai", "EXAMPLE"]
        var out: [String] = []
        for _ in 0..<count {
            var local = ""
            for _ in 0..<random.int(in: 1...3) { local += localPieces[random.int(in: 0...(localPieces.count - 1))] }
            if random.int(in: 0...2) > 0 { local = ["user", "first.last", "a+b", "ñandú"][random.int(in: 0...3)] }
            var domainLabels: [String] = []
            for _ in 0..<random.int(in: 1...4) { domainLabels.append(labels[random.int(in: 0...(labels.count - 1))]) }
            if random.int(in: 0...2) > 0 { domainLabels = [labels[random.int(in: 0...3)], ["com", "org", "example", "de"][random.int(in: 0...3)]] }
            let separator = ["@", "@", "@", "@", "", "@@"][random.int(in: 0...5)]
            out.append(local + separator + domainLabels.joined(separator: "."))
        }
        return out
    }

    // MARK: - Running python

    static func runPython(_ arguments: [String], input: Data) throws -> (status: Int32, stdout: Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
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
