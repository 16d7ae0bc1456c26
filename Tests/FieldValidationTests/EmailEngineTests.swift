import CorpusGeneration
@testable import FieldValidation
import Foundation
import PropertyBased
import Testing

/// The email engine, on custom packs, must always agree with evaluating every rule one by one:
/// violations with their parameters, normalized and ASCII forms, through every entry point
/// (``EmailAgreementTests/expectAgreement(_:_:)``; that suite covers the shipped packs).
@Suite struct EmailEngineTests {
    /// Custom packs on every subject and of every kind the engine runs: each pack is the shipped
    /// one plus or overriding some rules.
    static let packs: [String] = [
        // Benchmarks/custom-packs.sh's two email packs.
        "  - {id: extra.blocked-domain, code: X1, kind: list, on: ascii-domain, file: extra.txt, key: canonical, message: m}\n",
        "  - {id: extra.no-plus, code: X1, kind: must-not-match, on: address, pattern: '[+]', message: 'no {match} {characters}'}\n",
        // Every per-address subject, a prefilter (lookahead) and a rule PCRE2 runs alone, `unless`
        // across the two halves, and lengths in both units.
        """
          - {id: extra.ascii-address, code: X2, kind: must-match, on: ascii-address, pattern: '[a-z0-9.+_-]+@[a-z0-9.-]+', message: m}
          - {id: extra.local-list, code: X3, kind: list, on: local-part, file: extra.txt, key: canonical, message: m}
          - {id: extra.local-short, code: X4, kind: length, on: local-part, unit: code-points, min: 2, message: 'short {length} {count}'}
          - {id: extra.address-octets, code: X5, kind: length, on: address, unit: utf8-octets, max: 30, message: 'long {length}'}
          - {id: extra.no-admin, code: X6, kind: must-not-match, on: local-part, pattern: '\\Aadmin(?!istrator)', message: 'admin {match}'}
          - {id: extra.repeat, code: X7, kind: must-not-match, on: address, pattern: '(.)\\1\\1', message: 'repeat {match}', unless: [email.idna]}
          - {id: extra.recursion, code: X8, kind: must-not-match, on: local-part, pattern: '\\((?R)?\\)', message: m}
          - {id: extra.domain-digit, code: X9, kind: must-not-match, on: domain, pattern: '[0-9]', message: 'digit {match}', unless: [extra.no-admin]}

        """,
        // More rules than one 64-bit mask holds: the engine decides them one by one.
        (0..<44).map { index in
            let letter = Character(Unicode.Scalar(UInt8(ascii: "a") + UInt8(index % 26)))
            return "  - {id: extra.twice-\(index), code: Y\(index), kind: must-not-match, on: \(index % 2 == 0 ? "address" : "local-part"), pattern: '\(letter)\(letter)', message: 'twice {match}'}\n"
        }.joined(),
        // The shipped rules with every parameter in their messages, and one rule more.
        EmailAgreementTests.showingParameters.replacingOccurrences(of: "pack: parameters\nfield: email\nrules:\n", with: "")
            + "  - {id: extra.no-plus, code: X1, kind: must-not-match, on: address, pattern: '[+]', message: m}\n",
    ]

    static let validators = Result { () throws -> [EmailValidator] in
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("email-engine-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "blocked\nexample.net\nadmin\nbücher.example\nab\n".write(to: directory.appendingPathComponent("extra.txt"), atomically: true, encoding: .utf8)
        return try packs.flatMap { rules in
            let packs = RulePackSet.shipped.adding(try RulePackSet.parse("pack: extra\nfield: email\nrules:\n" + rules, name: "extra.yaml",
                                                                         baseDirectory: directory.path))
            return [try EmailValidator(packs: packs), try EmailValidator(packs: packs, asciiOnly: true)]
        }
    }

    @Test func everyCustomPackRunsOnTheEngine() throws {
        let validators = try Self.validators.get()
        for validator in validators {
            #expect(validator.engine != nil)
        }
        // Both ways of deciding the rules are exercised: by masks, and one by one past 64 rules.
        #expect(validators.filter { $0.engine?.ruleMasks == true }.count == validators.count - 2)
        #expect(validators.filter { $0.engine?.ruleMasks == false }.count == 2)
    }

    @Test func aSwiftRuleThatReadsMoreThanItsSubjectLeavesThePackRuleByRule() throws {
        let pack = try RulePackSet.parse("pack: extra\nfield: email\nrules:\n  - {id: extra.swift, code: X1, kind: swift, message: m}\n",
                                         name: "extra.yaml")
        let opaque = ClosureFieldRule(name: "extra.swift") { input in input.raw.count > 20 ? [:] : nil }
        let validator = try EmailValidator(packs: RulePackSet.shipped.adding(pack), rules: [opaque])
        #expect(validator.engine == nil)
        #expect(validator.validate("a.rather.long.name@example.com").codes == ["X1"])
        // A built-in rule moved to a subject it does not read is left to the rules too.
        let moved = try RulePackSet.parse("pack: extra\nfield: email\nrules:\n  - id: email.one-at-sign\n    override: true\n    on: local-part\n",
                                          name: "extra.yaml")
        #expect(try EmailValidator(packs: RulePackSet.shipped.adding(moved)).engine == nil)
    }

    @Test func domainRulesAreDecidedOncePerDomainAndTheRestOnAutomata() throws {
        let validator = try #require(try Self.validators.get().first)
        let plan = validator.plan
        #expect(Set(plan.automata.map(\.subject)) == ["address", "local-part"], "\(plan)")
        let domainPatterns = plan.rules.filter { ["domain", "ascii-domain"].contains($0.subject) && $0.strategy == .pcre2 }
        #expect(domainPatterns.count >= 9 && domainPatterns.allSatisfy { $0.reason == EmailEngine.perDomain }, "\(plan)")
        #expect(plan.rules.filter { ["address", "local-part"].contains($0.subject) }.allSatisfy { $0.strategy != .pcre2 }, "\(plan)")
    }

    @Test func engineAgreesOnGeneratedCorpusRecords() throws {
        let validators = try Self.validators.get()
        var corpus = EmailCorpus(seed: 20_261_128)
        var valid = 0, invalid = 0, unicodeLocal = 0
        for record in corpus.records(2500) {
            for validator in validators { EmailAgreementTests.expectAgreement(validator, record.value) }
            let result = validators[0].validateRuleByRule(record.value)
            if result.isValid { valid += 1 } else { invalid += 1 }
            if record.value.split(separator: "@").first?.utf8.contains(where: { $0 >= 0x80 }) == true { unicodeLocal += 1 }
        }
        #expect(valid >= 50 && invalid >= 1000 && unicodeLocal >= 200, "\(valid) valid, \(invalid) invalid, \(unicodeLocal) Unicode local parts")
    }

    @Test func engineAgreesOnGeneratedAddresses() async throws {
        let validators = try Self.validators.get()
        let gen = Gen.int(in: 0...(EmailAgreementTests.pieces.count - 1)).array(of: 0...24)
        let oneAt = Counter()
        await propertyCheck(count: 2500, input: gen) { indices in
            let address = indices.map { EmailAgreementTests.pieces[$0] }.joined()
            if address.utf8.count(where: { $0 == UInt8(ascii: "@") }) == 1 { oneAt.add() }
            for validator in validators { EmailAgreementTests.expectAgreement(validator, address) }
        }
        #expect(oneAt.value >= 500, "\(oneAt.value) addresses with one @")
    }

    /// Mostly well-formed addresses (`local@label.label`), so that valid ones and near misses are common.
    @Test func engineAgreesOnGeneratedWellFormedAddresses() async throws {
        let validators = try Self.validators.get()
        let part = Gen.int(in: 0...(EmailAgreementTests.pieces.count - 1)).array(of: 1...4)
        let valid = Counter()
        await propertyCheck(count: 1500, input: part, part, part) { local, label, top in
            let join = { (indices: [Int]) in indices.map { EmailAgreementTests.pieces[$0] }.joined() }
            for address in [join(local) + "@" + join(label) + "." + join(top), "user@" + join(label) + ".com",
                            join(local) + "@example." + join(top)] {
                if validators[0].validate(address).isValid { valid.add() }
                for validator in validators { EmailAgreementTests.expectAgreement(validator, address) }
            }
        }
        #expect(valid.value >= 200, "\(valid.value) valid addresses")
    }

    /// The `address` automaton's run past the `@` is kept with the domain for the state it
    /// started in: addresses of one domain that reach their `@` in different states (a pattern
    /// spanning the `@`) must each get their own outcome, in any order.
    @Test func addressRunPastTheAtSignFollowsTheStateItStartsIn() throws {
        let pack = try RulePackSet.parse("pack: extra\nfield: email\nrules:\n"
            + "  - {id: extra.dot-at, code: X1, kind: must-not-match, on: address, pattern: '\\.@ex', message: m}\n", name: "extra.yaml")
        let validator = try EmailValidator(packs: RulePackSet.shipped.adding(pack))
        #expect(validator.engine != nil)
        let locals = ["a.", "a", "b.", "b", "c..", "<c", "d", "d.", "e>", "e."]
        var fired = 0
        for _ in 0..<3 {
            for local in locals {
                let address = local + "@example.com"
                EmailAgreementTests.expectAgreement(validator, address)
                var bytes = address
                if bytes.withUTF8({ validator.violations(utf8: UnsafeRawBufferPointer($0)) }).contains(where: { $0.code == "X1" }) {
                    fired += 1
                }
            }
        }
        #expect(fired == 3 * locals.count { $0.hasSuffix(".") })
    }

    /// More distinct domains than the memo holds, looked up from several tasks at once.
    @Test func engineAgreesWhenTheMemoIsFullOnSeveralThreads() async throws {
        let validator = try #require(try Self.validators.get().first)
        await EmailAgreementTests.expectAgreementPastTheMemo(validator, capacity: BytesMemo<EmailEngine.DomainOutcome>.capacity)
    }
}

/// A count shared by a property's iterations.
final class Counter: @unchecked Sendable {
    // INVARIANT: `count` is read and written with `lock` held.
    private let lock = NSLock()
    private var count = 0

    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
