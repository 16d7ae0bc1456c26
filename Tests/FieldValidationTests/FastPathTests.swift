@testable import FieldValidation
import PropertyBased
import Testing

/// The fused fast path (one scan) must always agree with evaluating every rule one by one.
@Suite struct FastPathTests {
    static let validator = Result { () throws(RulePackError) in try DisplayNameValidator(appName: "RulesKit") }

    /// Characters that exercise every rule: allowed ones (often), periods (to make `..` likely),
    /// look-alikes, and a few invalid or non-ASCII characters.
    static let alphabet: [Character] = Array("aAdmnirRNI|1l0oO_..._xyzZ9tsu") + ["-", " ", "\t", "é", "\n", "ｊ", "\u{212A}", "😀"]

    @Test func fusedPathAgreesWithRuleByRuleOnGeneratedNames() async throws {
        let validator = try Self.validator.get()
        let gen = Gen.int(in: 0...(Self.alphabet.count - 1)).array(of: 0...34)
        await propertyCheck(count: 3000, input: gen) { indices in
            let name = String(indices.map { Self.alphabet[$0] })
            let fast = validator.validate(name)
            let reference = validator.validateRuleByRule(name)
            #expect(fast == reference, "\(name.debugDescription)")
            var copy = name
            let bytes = copy.withUTF8 { validator.validate(utf8: UnsafeRawBufferPointer($0)) }
            #expect(bytes.violations == reference.violations, "\(name.debugDescription) via bytes")
        }
    }

    @Test func fusedPathAgreesOnReservedNamesAndTheirLookalikes() throws {
        let validator = try Self.validator.get()
        let reserved = try #require(EmbeddedRulePacks.files["lists/reserved-names.txt"])
        for line in reserved.split(separator: "\n") where !line.hasPrefix("#") {
            let name = String(line)
            let rn = name.replacingOccurrences(of: "m", with: "rn")
            let variants = [name, name.uppercased(), name.replacingOccurrences(of: "i", with: "1"),
                            name.replacingOccurrences(of: "o", with: "0"), rn, rn.uppercased(), "x" + rn, rn + "x",
                            name.replacingOccurrences(of: "l", with: "I"), name + "_", String(name.dropLast())]
            for variant in variants {
                #expect(validator.validate(variant) == validator.validateRuleByRule(variant), "\(variant)")
            }
        }
    }
}
