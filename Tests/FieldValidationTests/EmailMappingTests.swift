@testable import FieldValidation
@testable import IDNA
import Testing

/// UTS #46 mapping (the `IDNA` module's table and Punycode) and what the email validator makes
/// of mapped domains. The exact codes and messages per case live in
/// `corpus/conformance/email.json` (section `uts46-mapping`); these tests pin the pieces.
@Suite struct EmailMappingTests {
    // MARK: - IDNA

    /// RFC 3492 section 7.1 samples (labels in their decoded form, lowercased).
    @Test(arguments: [
        ("\u{644}\u{64A}\u{647}\u{645}\u{627}\u{628}\u{62A}\u{643}\u{644}\u{645}\u{648}\u{634}\u{639}\u{631}\u{628}\u{64A}\u{61F}",
         "egbpdaj6bu4bxfgehfvwxn"),
        ("\u{4ED6}\u{4EEC}\u{4E3A}\u{4EC0}\u{4E48}\u{4E0D}\u{8BF4}\u{4E2D}\u{6587}", "ihqwcrb4cv8a8dqg056pqjye"),
        ("b\u{FC}cher", "bcher-kva"),
        ("3\u{5E74}b\u{7D44}\u{91D1}\u{516B}\u{5148}\u{751F}", "3b-ww4c5e180e575a65lsy2b"),
        ("\u{FC}", "tda"),
    ])
    func punycodeMatchesRFC3492(_ label: String, _ expected: String) {
        #expect(IDNA.punycode(Array(label.unicodeScalars)) == expected)
    }

    @Test func mappingFollowsTheTable() throws {
        #expect(try IDNA.map("Example\u{3002}COM") == "example.com")
        #expect(try IDNA.map("a\u{FF0E}b\u{FF61}c") == "a.b.c")
        #expect(try IDNA.map("a\u{37E}b") == "a;b")
        #expect(try IDNA.map("\u{FF21}\u{FF22}") == "ab")
        #expect(try IDNA.map("Stra\u{DF}e") == "stra\u{DF}e")           // deviation: kept (non-transitional)
        #expect(try IDNA.map("a\u{AD}b") == "ab")                      // ignored
        #expect(try IDNA.map("\u{2474}") == "(1)")
        #expect(try IDNA.map("e\u{301}") == "\u{E9}")                  // NFC after mapping
        #expect(UTS46.parsed.starts.count > 8_000)
        #expect(throws: IDNA.Failure.self) { try IDNA.map("\u{2488}") }
    }

    @Test func processKeepsEmptyLabelsAndLongALabels() throws {
        let doubled = try IDNA.process("b\u{FC}cher\u{3002}\u{3002}com")
        #expect(doubled.mapped == "b\u{FC}cher..com")
        #expect(doubled.ascii == "xn--bcher-kva..com")
        #expect(doubled.problem == nil)
        let long = try IDNA.process(String(repeating: "\u{FC}", count: 58) + ".com")
        #expect(long.ascii?.split(separator: ".").first?.utf8.count == 64)
        #expect(long.problem == nil, "length is the caller's to report")
        let disallowed = try IDNA.process("\u{2665}.com")
        #expect(disallowed.problem != nil)
    }

    @Test func toASCIINeverDropsACharacter() throws {
        // libidn2 2.3 with STD3 rules alone turns `a;b.com` into `ab.com`.
        #expect(throws: IDNA.Failure.self) { try IDNA.toASCII("a\u{37E}b.com") }
        #expect(throws: IDNA.Failure.self) { try IDNA.toASCII("b\u{FC}cher\u{37E}.com") }
        #expect(throws: IDNA.Failure.self) { try IDNA.toASCII(String(repeating: "\u{FC}", count: 58) + ".com") }
        #expect(try IDNA.toASCII("B\u{FC}cher\u{FF0E}Example") == "xn--bcher-kva.example")
        #expect(try IDNA.toASCII("Stra\u{DF}e.de") == "xn--strae-oqa.de")
    }

    // MARK: - Email

    @Test func mappedDomainsNormalizeToTheirMappedForm() throws {
        let validator = try EmailValidator()
        let fullWidth = validator.validate("user@\u{FF21}\u{FF22}.com")
        #expect(fullWidth.codes == [])
        #expect(fullWidth.normalized == "user@ab.com")
        #expect(fullWidth.asciiForm == "user@ab.com")
        let stop = validator.validate("user@B\u{FC}cher\u{3002}com")
        #expect(stop.normalized == "user@b\u{FC}cher.com")
        #expect(stop.asciiForm == "user@xn--bcher-kva.com")
        let composed = validator.validate("a=\u{338}b@example.com")
        #expect(composed.normalized == "a\u{2260}b@example.com")
    }

    /// The rule-by-rule path and the fast path (with its domain memo) agree on mapped domains.
    @Test func fastPathAgreesOnMappedDomains() throws {
        let validator = try EmailValidator()
        let inputs = ["user@example\u{3002}\u{3002}com", "user@a\u{37E}b.com", "a<\u{338}b@example.com",
                      "user@" + String(repeating: "\u{FC}", count: 58) + ".com", "user@\u{FF21}\u{FF22}.com",
                      "user@example.com<\u{338}", "user@\u{3002}example.com", "x@b\u{FC}cher\u{FF0E}com"]
        for input in inputs {
            let reference = validator.validateRuleByRule(input)
            let decided = validator.validate(input)
            #expect(decided.codes == reference.codes, "\(input.debugDescription)")
            #expect(decided.normalized == reference.normalized, "\(input.debugDescription)")
            #expect(decided.violations.map(\.message) == reference.violations.map(\.message), "\(input.debugDescription)")
        }
    }
}
