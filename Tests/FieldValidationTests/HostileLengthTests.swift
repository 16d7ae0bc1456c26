@testable import FieldValidation
import Foundation
import PropertyBased
import Testing

/// Field validators stay linear on hostile input: the context search counts its comparisons,
/// and values past the normalization limit are not normalized. Passwords are never printed.
@Suite struct HostileLengthTests {
    /// Characters that make borders, near-misses and combining sequences likely, all in NFC (as
    /// the rule's inputs are: `q` + U+0301 has no composed form).
    static let alphabet: [Character] = ["a", "a", "a", "b", "é", "q\u{301}", "A"]

    @Test func contextSearchAgreesWithContainsAndStaysLinear() async {
        let gen = Gen.int(in: 0...(Self.alphabet.count - 1)).array(of: 0...40)
        let counts = CountsBox()
        await propertyCheck(count: 3000, input: gen, gen) { text, pattern in
            let text = text.map { Self.alphabet[$0] }
            let pattern = Array(pattern.prefix(1 + text.count % 4).map { Self.alphabet[$0] })
            let (found, comparisons) = CharacterSearch(pattern).occurs(in: text)
            #expect(found == String(text).contains(String(pattern)) || pattern.isEmpty)
            #expect(comparisons <= 2 * text.count)
            if found && !pattern.isEmpty { counts.found += 1 }
            if !found { counts.missed += 1 }
        }
        // Both outcomes are reached often enough for the agreement to mean something.
        #expect(counts.found >= 300 && counts.missed >= 300, "found \(counts.found), missed \(counts.missed)")
    }

    @Test func aLongPasswordAgainstANearlyMatchingUsernameTakesLinearWork() throws {
        let password = Array(String(repeating: "a", count: 43_000))
        let username = Array(String(repeating: "a", count: 21_500) + "b")
        let (found, comparisons) = CharacterSearch(username).occurs(in: password)
        #expect(!found)
        #expect(comparisons <= 2 * password.count, "\(comparisons) comparisons")
        let codes = try PasswordValidator().validate(String(password), context: PasswordContext(username: String(username))).codes
        #expect(codes == ["PW103"], "over the maximum, and the username is not inside")
    }

    @Test func theContextRuleStillFindsTheUsername() throws {
        let codes = try PasswordValidator().validate("xx-Jane.Doe-xx-long", context: PasswordContext(username: "jane.doe")).codes
        #expect(codes == ["PW105"])
    }

    @Test func valuesPastTheNormalizationLimitAreLeftAsGiven() throws {
        let long = String(repeating: "a\u{301}", count: Keys.maxNormalizedBytes / 3 + 1)
        #expect(long.utf8.count > Keys.maxNormalizedBytes)
        #expect(Keys.nfkc(long).utf8.count == long.utf8.count, "not normalized")
        #expect(Keys.nfc(long).utf8.count == long.utf8.count, "not normalized")
        let short = String(repeating: "a\u{301}", count: 1000)
        #expect(Keys.nfkc(short).unicodeScalars.count == 1000, "composed")
        // The over-long value is still over every shipped maximum, measured as given.
        #expect(try PasswordValidator().validate(long).codes == ["PW103"])
        #expect(try EmailValidator().validate(long + "@example.com").codes.contains("EM107"))
    }

    /// Counts updated from the property's closure.
    final class CountsBox: @unchecked Sendable {
        var found = 0
        var missed = 0
    }
}

/// The bound behind skipping list lookups of long values (`KeyList.maxEquivalentExpansion`).
@Suite struct CanonicalExpansionTests {
    @Test func canonicalDecompositionsHaveAtMostFourScalars() {
        var longest = 0
        var checked = 0
        for value in 0...0x10FFFF {
            guard let scalar = Unicode.Scalar(value), scalar.properties.generalCategory != .unassigned else { continue }
            longest = max(longest, String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars.count)
            checked += 1
        }
        #expect(checked > 250_000)
        #expect(longest == 4, "the longest canonical decomposition has \(longest) scalars")
    }

    @Test func aListLookupOfAValueFarLongerThanEveryKeyIsSkipped() throws {
        let list = KeyList(kind: .exact, entries: ["abc", "e\u{301}"])
        #expect(list.contains("\u{e9}"), "canonically equivalent")
        let marks = "a" + String(repeating: "\u{316}\u{301}", count: 4_000)
        #expect(!list.contains(marks))
    }
}
