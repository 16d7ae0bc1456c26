@testable import FieldValidation
import PropertyBased
import Testing

/// The email fast path (proofs from one scan, the domain memo) must always agree with evaluating
/// every rule one by one: violations, normalized form and ASCII form.
@Suite struct EmailFastPathTests {
    static let validators = Result { () throws(RulePackError) in
        [try EmailValidator(), try EmailValidator(asciiOnly: true)]
    }

    /// Pieces that exercise every rule: atext and the characters rules look for, IDNA material
    /// (`xn--`, `--`, Unicode domains, a combining mark), special-use names in both cases, runs
    /// that push the parts over their limits, and unsafe characters.
    static let pieces: [String] = [
        "a", "Z", "0", "9", ".", ".", "..", "@", "@", "-", "--", "_", "+", "!", "~", "`", "'", "=",
        "com", "COM", "example", "xn--", "XN--", "xn--bcher-kva", "ab--", "bücher", "ß", "é", "\u{301}",
        "test", "TEST", "localhost", "local", "onion", "arpa", "invalid", "x",
        String(repeating: "a", count: 16), String(repeating: "b", count: 31), String(repeating: "c", count: 63),
        "<", ">", "\"", "(", ")", "[", "]", ",", ";", ":", "\\", " ", "\t", "\u{0}", "\u{7F}", "\u{200B}",
        "\u{A0}", "\u{3002}", "😀", "ｊ", "\u{212A}",
    ]

    static func expectAgreement(_ validator: EmailValidator, _ address: String) {
        let reference = validator.validateRuleByRule(address)
        #expect(validator.validate(address) == reference, "\(address.debugDescription)")
        var copy = address
        let viaBytes = copy.withUTF8 { validator.validate(utf8: UnsafeRawBufferPointer($0)) }
        #expect(viaBytes == reference, "\(address.debugDescription) via bytes")
    }

    @Test func fastPathExistsForTheShippedRulesOnly() throws {
        #expect(try EmailValidator().fastPath != nil)
        let pack = try RulePackSet.parse("""
        pack: mine
        field: email
        rules:
          - id: email.domain-label-length
            override: true
            pattern: '[^.]{30}'
        """, name: "mine.yaml")
        #expect(try EmailValidator(packs: RulePackSet.shipped.adding(pack)).fastPath == nil)
        let limits = try RulePackSet.parse("""
        pack: mine
        field: email
        rules:
          - id: email.local-part-length
            override: true
            max: 10
        """, name: "mine.yaml")
        let shorter = try EmailValidator(packs: RulePackSet.shipped.adding(limits))
        #expect(shorter.fastPath != nil)
        #expect(shorter.validate("abcdefghijk@example.com").codes == ["EM111"])
        #expect(shorter.validate("abcdefghij@example.com").isValid)
    }

    @Test func fastPathAgreesWithRuleByRuleOnGeneratedAddresses() async throws {
        let validators = try Self.validators.get()
        let gen = Gen.int(in: 0...(Self.pieces.count - 1)).array(of: 0...24)
        await propertyCheck(count: 4000, input: gen) { indices in
            let address = indices.map { Self.pieces[$0] }.joined()
            for validator in validators { Self.expectAgreement(validator, address) }
        }
    }

    /// Mostly well-formed addresses (`local@label.label`), so that valid ones and near misses
    /// are common.
    @Test func fastPathAgreesOnGeneratedWellFormedAddresses() async throws {
        let validators = try Self.validators.get()
        let part = Gen.int(in: 0...(Self.pieces.count - 1)).array(of: 1...4)
        await propertyCheck(count: 3000, input: part, part, part) { local, label, top in
            let join = { (indices: [Int]) in indices.map { Self.pieces[$0] }.joined() }
            for address in [join(local) + "@" + join(label) + "." + join(top), "user@" + join(label) + ".com",
                            join(local) + "@example." + join(top)] {
                for validator in validators { Self.expectAgreement(validator, address) }
            }
        }
    }

    /// Every length limit at min-1 … max+1, in ASCII and with Unicode domains (memo path).
    @Test func fastPathAgreesAtEveryLengthBoundary() throws {
        let validators = try Self.validators.get()
        let run = { (count: Int) in String(repeating: "a", count: count) }
        var addresses: [String] = []
        for length in 0...66 {
            for domain in ["example.com", "bücher.example", "xn--bcher-kva.example", "EXAMPLE.TEST"] {
                addresses.append(run(length) + "@" + domain)
            }
        }
        for length in 61...65 {
            for domain in [run(length) + ".com", "x." + run(length), "bücher." + run(length) + ".de", run(length)] {
                addresses.append("a@" + domain)
            }
        }
        let label = run(63)
        for extra in 50...60 {
            for local in ["a", "é", "Ab.C"] {
                for tail in ["com", "bücher", "xn--bcher-kva", "test"] {
                    addresses.append(local + "@" + [label, label, label, run(extra), tail].joined(separator: "."))
                }
            }
        }
        for validator in validators {
            for address in addresses { Self.expectAgreement(validator, address) }
        }
    }

    /// The memo returns the same outcome the second time, and for every local part.
    @Test func memoizedDomainsAgreeWhenRepeated() throws {
        let validators = try Self.validators.get()
        for validator in validators {
            for _ in 0..<3 {
                for address in ["a@bücher.example", "John.Doe@Bücher.Example", "x@xn--bcher-kva.example", "x@xn--zz.com",
                                "ab@bad--hyphen.com", "a@bücher.test", "a@\u{2665}\u{FE0F}.com", "a@例子.广告"] {
                    Self.expectAgreement(validator, address)
                }
            }
        }
    }
}
