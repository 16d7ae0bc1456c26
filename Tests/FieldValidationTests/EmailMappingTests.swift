@testable import FieldValidation
@testable import IDNA
import Testing

/// UTS #46 mapping (the `IDNA` module over libidn2) and what the email validator makes of
/// mapped domains. The exact codes and messages per case live in
/// `corpus/conformance/email.json` (section `uts46-mapping`); these tests pin the pieces.
@Suite struct EmailMappingTests {
    // MARK: - IDNA

    @Test func mappingFollowsLibidn2() throws {
        #expect(try IDNA.map("Example\u{3002}COM") == "example.com")
        #expect(try IDNA.map("a\u{FF0E}b\u{FF61}c") == "a.b.c")
        #expect(try IDNA.map("a\u{37E}b") == "a;b")
        #expect(try IDNA.map("\u{FF21}\u{FF22}") == "ab")
        #expect(try IDNA.map("Stra\u{DF}e") == "stra\u{DF}e")           // deviation: kept (non-transitional)
        #expect(try IDNA.map("a\u{AD}b") == "ab")                      // ignored
        #expect(try IDNA.map("\u{2474}") == "(1)")
        #expect(try IDNA.map("e\u{301}") == "\u{E9}")                  // NFC after mapping
        #expect(throws: IDNA.Failure.self) { try IDNA.map("\u{2488}") }
    }

    /// Labels libidn2 rejects still get their mapped form, code point by code point.
    @Test func rejectedLabelsKeepTheirMappedForm() throws {
        // libidn2 refuses `ab--cd` (hyphens in positions 3-4) and `-x` (leading hyphen).
        #expect(try IDNA.map("ab\u{FF0D}\u{FF0D}cd.com") == "ab--cd.com")
        #expect(try IDNA.map("\u{FF0D}x.com") == "-x.com")
        // Rejected by libidn2's A-label round trip, yet mapped: U+037E is `;`.
        let question = try IDNA.process("b\u{FC}cher\u{37E}.com")
        #expect(question.mapped == "b\u{FC}cher;.com")
        #expect(question.problem != nil)
        #expect(question.ascii == nil)
        // IDNA 2008 disallows U+2665 (UTS 46 alone would keep it): no mapped form, and the
        // code point is named.
        #expect(throws: IDNA.Failure(code: -304, message: "U+2665 BLACK HEART SUIT is not allowed in a domain name")) {
            try IDNA.process("x\u{2665}.com")
        }
    }

    @Test func processKeepsEmptyLabelsAndLongALabels() throws {
        let doubled = try IDNA.process("b\u{FC}cher\u{3002}\u{3002}com")
        #expect(doubled.mapped == "b\u{FC}cher..com")
        #expect(doubled.ascii == "xn--bcher-kva..com")
        #expect(doubled.problem == nil)
        // 57 U+00FC: the A-label has 63 octets, libidn2 returns it.
        let fits = try IDNA.process(String(repeating: "\u{FC}", count: 57) + ".com")
        #expect(fits.ascii?.split(separator: ".").first?.utf8.count == 63)
        // 58: libidn2 refuses to return a 64-octet A-label; it stands as its shortest length.
        let long = try IDNA.process(String(repeating: "\u{FC}", count: 58) + ".com")
        #expect(long.ascii?.split(separator: ".").first?.utf8.count == 64)
        #expect(long.problem == nil, "length is the caller's to report")
        let longer = try IDNA.process("ab" + String(repeating: "\u{FC}", count: 80) + ".com")
        #expect(longer.ascii?.split(separator: ".").first?.utf8.count == 4 + 3 + 80)
        // Full-width ASCII maps into ASCII and is measured exactly.
        let wide = try IDNA.process(String(repeating: "\u{FF41}", count: 70) + ".com")
        #expect(wide.ascii == String(repeating: "a", count: 70) + ".com")
        // Too long in all but not per label: each A-label is exact.
        let domain = Array(repeating: String(repeating: "\u{FC}", count: 57), count: 4).joined(separator: ".") + ".com"
        #expect(try IDNA.process(domain).ascii?.utf8.count == 4 * 64 + 3)
    }

    /// The two IDNA 2008 rules libidn2 2.3 does not apply (it accepts both domains below).
    @Test func checksLibidn2Misses() throws {
        #expect(try IDNA.process("a\u{226E}b.com").problem?.code == -304, "IDN2_DISALLOWED")
        #expect(try IDNA.process("a<\u{338}b.com").problem != nil)
        #expect(try IDNA.process("123.\u{645}\u{62B}\u{627}\u{644}").problem?.code == -310, "IDN2_BIDI")
        #expect(try IDNA.process("a123.\u{645}\u{62B}\u{627}\u{644}").problem == nil)
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

    /// The rule-by-rule path and the engine (with its domain memo) agree on mapped domains.
    @Test func engineAgreesOnMappedDomains() throws {
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
