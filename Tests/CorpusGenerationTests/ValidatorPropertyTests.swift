import CorpusGeneration
import FieldValidation
import Patterns
import PropertyBased
import Testing

/// Properties of the field validators (issue 6). A failure prints the input and the seed:
/// add `.fixedSeed("…")` to the `@Test` to replay it (docs/CORPORA.md).
@Suite("Validator properties")
struct ValidatorPropertyTests {
    /// Code points from every plane (surrogates become U+FFFD), weighted toward ASCII.
    static let scalars = Gen.int(in: 0...0x10FFFF).array(of: 0...40).map { values in
        String(String.UnicodeScalarView(values.enumerated().map { index, value in
            let folded = index % 2 == 0 ? value % 0x80 : value
            return Unicode.Scalar(UInt32(folded)) ?? "\u{FFFD}"
        }))
    }

    /// What every result must satisfy, whatever the input: valid exactly when it has no
    /// violations; a valid display name or email has a normalized form, a password never has
    /// one; every violation carries its validator's code prefix, a rule id and a message, and a
    /// password message never repeats the password; validating again gives the same codes.
    func checkResults(_ text: String, _ validators: (DisplayNameValidator, EmailValidator, PasswordValidator)) -> Int {
        let (displayName, email, password) = validators
        let results: [(prefix: String, result: ValidationResult, again: ValidationResult)] = [
            ("DN", displayName.validate(text), displayName.validate(text)),
            ("EM", email.validate(text), email.validate(text)),
            ("PW", password.validate(text, context: PasswordCorpus.context), password.validate(text, context: PasswordCorpus.context)),
        ]
        var valid = 0
        for (prefix, result, again) in results {
            #expect(result.codes == again.codes, "\(prefix): \(text.debugDescription)")
            #expect(result.isValid == result.violations.isEmpty)
            if prefix == "PW" {
                #expect(result.normalized == nil)
            } else {
                #expect(result.isValid == (result.normalized != nil), "\(prefix): \(text.debugDescription)")
            }
            if result.isValid { valid += 1 }
            for violation in result.violations {
                #expect(violation.code.hasPrefix(prefix) && violation.code.count == 5, "\(violation.code) for \(text.debugDescription)")
                #expect(!violation.rule.isEmpty && !violation.message.isEmpty, "\(violation.code)")
                if prefix == "PW", text.count >= 4 {
                    #expect(!Self.containsBytes(Array(violation.message.utf8), Array(text.utf8)), "\(violation.code) repeats the password")
                }
            }
        }
        return valid
    }

    /// Byte-exact substring search (Foundation's `contains` stops at a NUL in the needle).
    static func containsBytes(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= haystack.count else { return needle.isEmpty }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    @Test func validatorsHoldTheirInvariantsOnArbitraryUnicode() async throws {
        let validators = try validators()
        var checked = 0, valid = 0
        await propertyCheck(count: 1000, input: Self.scalars) { text in
            valid += checkResults(text, validators)
            checked += 1
        }
        #expect(checked == 1000)
        #expect(valid >= 10, "only \(valid) valid results: the valid branch was barely checked")
    }

    @Test func validatorsHoldTheirInvariantsOnArbitraryBytes() async throws {
        let validators = try validators()
        let (displayName, email, password) = validators
        var checked = 0, viaBytes = 0, multiByte = 0
        await propertyCheck(count: 1000, input: Gen.uint8().array(of: 0...64)) { bytes in
            // The bytes as drawn (rarely valid UTF-8), and as repaired (U+FFFD for each invalid
            // sequence) without NUL: valid, so that the byte entry points see every case.
            let repaired = Array(String(decoding: bytes, as: UTF8.self).utf8).filter { $0 != 0 }
            for candidate in [bytes, repaired] {
                let text = String(decoding: candidate, as: UTF8.self)
                _ = checkResults(text, validators)
                checked += 1
                // The byte entry points take valid UTF-8 without NUL, as the batch reader guarantees.
                guard candidate.withUnsafeBytes({ isValidUTF8($0) }), !candidate.contains(0) else { continue }
                viaBytes += 1
                if candidate.contains(where: { $0 >= 0x80 }) { multiByte += 1 }
                candidate.withUnsafeBytes { raw in
                    #expect(displayName.validate(utf8: raw).codes == displayName.validate(text).codes)
                    #expect(email.validate(utf8: raw).codes == email.validate(text).codes)
                    #expect(password.validate(utf8: raw).codes == password.validate(text).codes)
                }
            }
        }
        #expect(checked == 2000)
        #expect(viaBytes >= 1000, "only \(viaBytes) inputs were valid UTF-8 without NUL")
        #expect(multiByte >= 500, "only \(multiByte) valid inputs had a multi-byte character")
    }

    @Test func normalizationIsIdempotent() async throws {
        let (displayName, email, _) = try validators()
        var names = DisplayNameCorpus(seed: 3)
        var emails = EmailCorpus(seed: 3)
        let values = names.records(3000).map(\.value) + emails.records(3000).map(\.value)
            + ["Üser@Bücher.Example", "a@XN--BCHER-KVA.example", "e\u{0301}@example.com", "a@Straße.de", "a@ｅｘａｍｐｌｅ.com"]
        var checked = 0
        for value in values {
            let validators: [(String) -> ValidationResult] = [{ displayName.validate($0) }, { email.validate($0) }]
            for validate in validators {
                guard let normalized = validate(value).normalized else { continue }
                checked += 1
                let again = validate(normalized)
                #expect(again.isValid && again.normalized == normalized, "\(value.debugDescription) → \(normalized.debugDescription)")
            }
        }
        #expect(checked >= 250)  // the `valid` records of both generators, plus the extras
        // Passwords expose no normalized form at all.
        #expect(try PasswordValidator().validate("a-valid-long-passphrase").normalized == nil)
    }

    /// Biased toward the allowed alphabet and periods, so every period rule is hit often.
    static let alphabet: [Character] = Array("abcXYZ019_....") + ["-", " ", "é", "\n", "\u{212A}", "\u{200B}", "ｊ"]

    @Test func displayNamePatternsAgreeWithAReferenceScanner() async throws {
        let (displayName, _, _) = try validators()
        let gen = Gen.int(in: 0...(Self.alphabet.count - 1)).array(of: 0...34)
        await propertyCheck(count: 3000, input: gen) { indices in
            let name = String(indices.map { Self.alphabet[$0] })
            let patternCodes: Set<String> = ["DN101", "DN102", "DN103", "DN104", "DN105", "DN106"]
            let codes = displayName.validate(name).codes.filter(patternCodes.contains)
            #expect(codes == referenceCodes(name), "\(name.debugDescription)")
        }
    }

    /// The display-name pack's length, character and period rules, written out by hand.
    func referenceCodes(_ name: String) -> [String] {
        let scalars = Array(name.unicodeScalars)
        var codes: [String] = []
        if scalars.count < 3 { codes.append("DN101") }
        if scalars.count > 30 { codes.append("DN102") }
        let allowed = scalars.allSatisfy { scalar in
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "."
        }
        if !allowed { codes.append("DN103") }
        if scalars.first == "." { codes.append("DN104") }
        if scalars.last == "." { codes.append("DN105") }
        if zip(scalars, scalars.dropFirst()).contains(where: { $0 == "." && $1 == "." }) { codes.append("DN106") }
        return codes
    }

    @Test func lengthRulesCountTheUnitTheyDeclare() async throws {
        let (displayName, email, password) = try validators()
        let units: [String] = ["a", "é", "中", "😀"]
        await propertyCheck(count: 400, input: Gen.int(in: 0...1100).array(of: 2...2)) { pair in
            let count = pair[0]
            let unit = units[pair[1] % units.count]
            let text = String(repeating: unit, count: count)
            // Display names: code points of the raw input (3...30).
            let name = displayName.validate(text).codes
            #expect(name.contains("DN101") == (count < 3) && name.contains("DN102") == (count > 30), "\(count) × \(unit)")
            // Email local part: UTF-8 octets of the NFC form (at most 64).
            let local = email.validate(text + "@example.com").codes
            #expect(local.contains("EM111") == (count * unit.utf8.count > 64), "local part of \(count) × \(unit)")
            // Passwords: code points of the NFKC form (8...1024).
            let secret = password.validate(text).codes
            #expect(secret.contains("PW102") == (count < 8) && secret.contains("PW103") == (count > 1024), "password of \(count) × \(unit)")
        }
    }

    func validators() throws -> (DisplayNameValidator, EmailValidator, PasswordValidator) {
        (try #require(Validators.displayName), try #require(Validators.email), try #require(Validators.password))
    }
}
