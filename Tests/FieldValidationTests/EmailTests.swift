@testable import FieldValidation
import Testing

@Suite struct EmailTests {
    let validator: EmailValidator

    init() throws {
        validator = try EmailValidator()
    }

    @Test func normalizedFormHasNFCLocalPartAndLowercasedDomain() {
        let result = validator.validate("Jose\u{301}@EXAMPLE.com")
        #expect(result.isValid)
        #expect(result.normalized == "Jos\u{E9}@example.com")
        #expect(result.asciiForm == nil)
        let ascii = validator.validate("John.Doe@Example.COM")
        #expect(ascii.normalized == "John.Doe@example.com")
        #expect(ascii.asciiForm == "John.Doe@example.com")
    }

    @Test func internationalizedDomainsHaveBothForms() {
        let result = validator.validate("user@Bücher.example")
        #expect(result.isValid)
        #expect(result.normalized == "user@bücher.example")
        #expect(result.asciiForm == "user@xn--bcher-kva.example")
        let punycode = validator.validate("user@XN--BCHER-KVA.example")
        #expect(punycode.normalized == "user@bücher.example")
    }

    @Test func asciiOnlyRejectsInternationalLocalParts() throws {
        let strict = try EmailValidator(asciiOnly: true)
        let result = strict.validate("jösé@example.com")
        #expect(result.codes == ["EM116"])
        #expect(result.violations.first?.message == "Internationalized characters before the @-sign are not supported: 'ö', 'é'.")
        #expect(strict.validate("user@bücher.example").isValid)
    }

    @Test func messagesNameInvisibleCharacters() {
        let result = validator.validate("us\u{200B}er @example.com")
        #expect(result.codes == ["EM101"])
        #expect(result.violations.first?.message == "The email address contains unsafe characters: ZERO WIDTH SPACE, SPACE.")
    }

    @Test func lengthsCountOctetsWithCounts() {
        let local = String(repeating: "é", count: 33)   // 66 octets
        let result = validator.validate(local + "@example.com")
        #expect(result.codes == ["EM111"])
        #expect(result.violations.first?.message == "The email address is too long before the @-sign (2 bytes too many).")
        let label = String(repeating: "a", count: 63)
        let long = "a@" + [label, label, label, String(repeating: "b", count: 57), "com"].joined(separator: ".")
        #expect(long.utf8.count == 255)
        #expect(validator.validate(long).codes == ["EM107"])
        let atLimit = "a@" + [label, label, label, String(repeating: "b", count: 56), "com"].joined(separator: ".")
        #expect(atLimit.utf8.count == 254)
        #expect(validator.validate(atLimit).isValid)
    }

    @Test func strictFormsAreRejectedWithOneClearCode() {
        #expect(validator.validate("\"john doe\"@example.com").codes == ["EM101", "EM103"])
        #expect(validator.validate("Jane <jane@example.com>").codes == ["EM101", "EM102"])
        #expect(validator.validate("jane@[192.0.2.1]").codes == ["EM105"])
        #expect(validator.validate("jane(x)@example.com").codes == ["EM104"])
    }
}
