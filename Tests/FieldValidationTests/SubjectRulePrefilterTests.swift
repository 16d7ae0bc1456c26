@testable import FieldValidation
import Foundation
import Patterns
import PropertyBased
import Testing

/// A Swift rule's prefilter (``SubjectRule/prefilter``) must match every subject the rule
/// rejects: the email engine runs the rule only where it matches.
@Suite struct SubjectRulePrefilterTests {
    /// The built-in rules with a prefilter, each with its compiled prefilter (PCRE2, the reference).
    static let prefiltered: [(rule: any SubjectRule, prefilter: Pattern)] = EmailRules.all.compactMap { rule in
        guard let rule = rule as? any SubjectRule, let source = rule.prefilter else { return nil }
        return (rule, try! Pattern(source, anchoring: .search))
    }

    @Test func theBuiltInRulesThatRunPerAddressHavePrefilters() {
        #expect(Set(Self.prefiltered.map(\.rule.name)) == ["email.unsafe-characters", "email.one-at-sign", "email.ascii-only"])
    }

    /// No character the unsafe-characters prefilter lets through is unsafe, even first.
    @Test func theUnsafeCharactersPrefilterPassesNoUnsafeCharacter() throws {
        let prefilter = try #require(Self.prefiltered.first { $0.rule.name == "email.unsafe-characters" }?.prefilter)
        var passed = 0
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value), try !prefilter.matches(String(scalar)) else { continue }
            passed += 1
            #expect(!EmailRules.isUnsafe(scalar, atStart: true), "U+\(String(value, radix: 16)) passes the prefilter but is unsafe")
        }
        // Printable ASCII, and U+00A1–U+017F but the soft hyphen.
        #expect(passed == 94 + 222, "\(passed) characters pass the prefilter")
    }

    /// Generated subjects: wherever a rule fires, its prefilter matches.
    @Test func everySubjectARuleRejectsMatchesItsPrefilter() async throws {
        let pieces = ["a", "Z", "7", ".", "@", "@", " ", "\u{0}", "\u{7F}", "é", "ß", "\u{AD}", "\u{200B}", "\u{301}", "\u{FEFF}",
                      "ü", "中", "\u{E000}", "\u{2028}", "+", "<", "\"", "\u{1F600}", "\u{A0}"]
        let fired = Counter(), filtered = Counter()
        await propertyCheck(count: 3000, input: Gen.int(in: 0...(pieces.count - 1)).array(of: 0...12), Gen.bool) { indices, asciiOnly in
            var subject = indices.map { pieces[$0] }.joined()
            for (rule, prefilter) in Self.prefiltered {
                let matched = try! prefilter.matches(subject)
                if !matched { filtered.add() }
                guard subject.withUTF8({ rule.check(subject: $0, asciiOnly: asciiOnly) }) != nil else { continue }
                fired.add()
                #expect(matched, "\(rule.name) rejects \(subject.unicodeScalars.map { "U+\(String($0.value, radix: 16))" }) but its prefilter does not match")
            }
        }
        #expect(fired.value >= 2000 && filtered.value >= 1000, "\(fired.value) rejections, \(filtered.value) subjects filtered out")
    }
}
