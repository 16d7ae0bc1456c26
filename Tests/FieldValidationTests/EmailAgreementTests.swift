import CorpusGeneration
@testable import FieldValidation
import PropertyBased
import Testing

/// The shipped email packs on the email engine (automata, the domain memo) must always agree
/// with evaluating every rule one by one: violations with their parameters, normalized form and
/// ASCII form, through every entry point.
@Suite struct EmailAgreementTests {
    static let validators = Result { () throws(RulePackError) in
        [try EmailValidator(), try EmailValidator(asciiOnly: true),
         try EmailValidator(packs: RulePackSet.shipped.adding(RulePackSet.parse(showingParameters, name: "parameters.yaml")))]
    }

    /// Every shipped email rule with a message that shows every parameter a rule can report,
    /// and other length limits: a violation the engine returns with a wrong parameter or limit
    /// shows in the message.
    static let showingParameters = "pack: parameters\nfield: email\nrules:\n" + [
        "unsafe-characters", "display-name", "quoted-local-part", "comment", "domain-literal", "one-at-sign", "max-length",
        "local-part-empty", "local-part-length", "local-part-characters", "local-part-leading-period",
        "local-part-trailing-period", "local-part-consecutive-periods", "ascii-only", "domain-empty", "domain-characters",
        "domain-leading-period", "domain-trailing-period", "domain-consecutive-periods", "domain-hyphen",
        "domain-reserved-hyphens", "idna", "domain-needs-period", "domain-label-length", "domain-top-level",
        "special-use-domain",
    ].map { id in
        "  - id: email.\(id)\n    override: true\n    message: \"\(id) {match} {characters} {count} {length} {reason} {min} {max}\"\n"
    }.joined() + "  - id: email.local-part-length\n    override: true\n    max: 20\n"
        + "  - id: email.max-length\n    override: true\n    max: 40\n"

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
        let direct = validator.validate(address)
        #expect(direct == reference, "\(address.debugDescription): \(describe(direct)) vs \(describe(reference))")
        var copy = address
        let viaBytes = copy.withUTF8 { validator.validate(utf8: UnsafeRawBufferPointer($0)) }
        #expect(viaBytes == reference, "\(address.debugDescription) via bytes: \(describe(viaBytes))")
        let violations = copy.withUTF8 { validator.violations(utf8: UnsafeRawBufferPointer($0)) }
        #expect(violations == reference.violations, "\(address.debugDescription) violations only")
    }

    /// A result for a failure message: codes, parameters and forms.
    static func describe(_ result: ValidationResult) -> String {
        let violations = result.violations.map { "\($0.code) \($0.parameters.sorted { $0.key < $1.key })" }
        return "\(violations) \(result.normalized ?? "-") \(result.asciiForm ?? "-")"
    }

    @Test func everyValidatorRunsOnTheEngineByRuleMasks() throws {
        for validator in try Self.validators.get() { #expect(validator.engine?.ruleMasks == true) }
    }

    /// Addresses as they come in real exports, valid and failing every rule, decided by the
    /// engine itself.
    @Test func engineDecidesTheCommonCases() throws {
        let long = String(repeating: "x", count: 70)
        let addresses = [
            "john.doe@example.com", "John.Doe@Example.COM", "üser@example.com", "\u{212A}elvin@example.com",
            "john.doeexample.com", "a@b@example.com", "a@@example.com", "@@@", "bücher.example",
            "@example.com", "\(long)@example.com", "\(long)@bücher.example", "é\(long)@example.com",
            ".john@example.com", "john.@example.com", "jo..hn@example.com", ".jo..hn.@example.com",
            "john@", "john@.example.com", "john@example.com.", "john@example..com", "john@.example..com.",
            "john@host.test", "john@HOST.LocalHost", "john@a.b.onion", "john@x.arpa", "john@x.invalid", "john@x.local",
            "john@example.c0m", "john@192.0.2.1", "..@.test",
            "john@stone", "john@bücher.example", "john@xn--bcher-kva.example", "john@ab--cd.com", "john@-x.com",
            "john@exa_mple.com", "john@bücher.test", "\(long)@stone", "a..b@stone",
            "\(long)@" + String(repeating: "abcdefgh.", count: 22) + "com",
        ]
        for validator in try Self.validators.get() {
            let engine = try #require(validator.engine)
            for address in addresses {
                var copy = address
                let decided = copy.withUTF8 { engine.validate($0, normalize: true) }
                let reference = validator.validateRuleByRule(address, mailboxKey: false)
                #expect(decided == reference, "\(address.debugDescription) decided")
                Self.expectAgreement(validator, address)
            }
        }
    }

    /// Labelled addresses of every mutation the corpus generator makes (the failures of real
    /// exports, valid addresses, Unicode local parts and domains).
    @Test func engineAgreesOnGeneratedCorpusRecords() throws {
        let validators = try Self.validators.get()
        var corpus = EmailCorpus(seed: 20_261_122)
        for record in corpus.records(3000) {
            for validator in validators { Self.expectAgreement(validator, record.value) }
        }
    }

    /// Overridden limits and patterns are the pack's: the engine reads them, as it reads any pack.
    @Test func overriddenLimitsAndPatternsAreRead() throws {
        /// The shipped packs with `rule` overridden by `setting` (one line of YAML).
        func overriding(_ rule: String, _ setting: String) throws -> EmailValidator {
            let pack = try RulePackSet.parse("pack: mine\nfield: email\nrules:\n  - id: \(rule)\n    override: true\n    \(setting)\n",
                                             name: "mine.yaml")
            return try EmailValidator(packs: RulePackSet.shipped.adding(pack))
        }
        let shorterLabels = try overriding("email.domain-label-length", "pattern: '[^.]{30}'")
        #expect(shorterLabels.validate("a@" + String(repeating: "b", count: 30) + ".com").codes == ["EM128"])
        #expect(shorterLabels.validate("a@" + String(repeating: "b", count: 29) + ".com").isValid)
        let shorter = try overriding("email.local-part-length", "max: 10")
        #expect(shorter.engine != nil)
        #expect(shorter.validate("abcdefghijk@example.com").codes == ["EM111"])
        #expect(shorter.validate("abcdefghij@example.com").isValid)
    }

    @Test func engineAgreesWithRuleByRuleOnGeneratedAddresses() async throws {
        let validators = try Self.validators.get()
        let gen = Gen.int(in: 0...(Self.pieces.count - 1)).array(of: 0...24)
        await propertyCheck(count: 4000, input: gen) { indices in
            let address = indices.map { Self.pieces[$0] }.joined()
            for validator in validators { Self.expectAgreement(validator, address) }
        }
    }

    /// Mostly well-formed addresses (`local@label.label`), so that valid ones and near misses
    /// are common.
    @Test func engineAgreesOnGeneratedWellFormedAddresses() async throws {
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
    @Test func engineAgreesAtEveryLengthBoundary() throws {
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

    /// The engine's memos, past their capacity and on several threads (``expectAgreementPastTheMemo(_:capacity:)``).
    @Test func memoAgreesWhenFullAndOnSeveralThreads() async throws {
        await Self.expectAgreementPastTheMemo(try EmailValidator(), capacity: BytesMemo<EmailEngine.DomainOutcome>.capacity)
    }

    /// More distinct domains than a memo of `capacity` holds (it empties and refills), looked up
    /// from several tasks at once, and domains too long to be kept: always the rules' answer.
    static func expectAgreementPastTheMemo(_ validator: EmailValidator, capacity: Int) async {
        let addresses = (0..<(capacity + 500)).map { index in
            ["john@host\(index)", "jo.hn@bücher\(index % 700).example", "a..b@x\(index)--y.com", "x@ex_\(index).com",
             "a+b@x\(index)--y.com"][index % 5]
        } + ["a@" + String(repeating: "bücher.", count: 40) + "de", "a@" + String(repeating: "x_", count: 200) + ".com"]
        let expected = addresses.map { validator.validateRuleByRule($0) }
        let results = await withTaskGroup(of: (Int, ValidationResult).self) { group in
            for (index, address) in addresses.enumerated() {
                group.addTask { (index, validator.validate(address)) }
            }
            var results = [ValidationResult?](repeating: nil, count: addresses.count)
            for await (index, result) in group { results[index] = result }
            return results
        }
        for (index, address) in addresses.enumerated() {
            #expect(results[index] == expected[index], "\(address.debugDescription)")
        }
    }

    /// An `xn--` label that round-trips is still checked in the domain's Unicode form, as if typed:
    /// here the Bidi rule, which looks across labels (a FuzzEmail finding: the normalized form of
    /// the accepted address was rejected).
    @Test func punycodeLabelsAreCheckedInTheDomainsUnicodeForm() throws {
        for validator in try Self.validators.get() + EmailEngineTests.validators.get() {
            let result = validator.validate("a@xn--b-xn-bchier.dH.dch.0e")
            #expect(result.codes.contains("EM126"), "\(Self.describe(result))")
            Self.expectAgreement(validator, "a@xn--b-xn-bchier.dH.dch.0e")
            #expect(validator.validate("abc@xn--bcher-kva.example").normalized == "abc@bücher.example")
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
