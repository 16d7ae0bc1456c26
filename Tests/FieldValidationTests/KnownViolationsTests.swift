import CorpusGeneration
@testable import FieldValidation
import Foundation
import Testing

/// A thread's violations known by their variant (``KnownViolations``): each list is exactly the
/// one built violation by violation, a repeated list is shared rather than rebuilt, and past
/// each limit (lists kept, variants per rule, lengths) the answer stays the same.
@Suite struct KnownViolationsTests {
    /// The shipped rules plus a searched pattern, on the email engine.
    static let validator = Result {
        try EmailValidator(packs: RulePackSet.shipped.adding(try RulePackSet.parse(
            "pack: extra\nfield: email\nrules:\n  - {id: extra.no-plus, code: X1, kind: must-not-match, on: address, pattern: '[+]', message: m}\n",
            name: "extra.yaml", baseDirectory: "/")))
    }

    /// The addresses' violation lists, through the batch entry, on this thread.
    static func violations(_ validator: EmailValidator, _ addresses: [String]) -> [[Violation]] {
        addresses.map { address in
            var address = address
            return address.withUTF8 { validator.violations(utf8: UnsafeRawBufferPointer($0)) }
        }
    }

    @Test func repeatedListsAreSharedAndExact() throws {
        let validator = try Self.validator.get()
        let engine = try #require(validator.engine)
        var corpus = EmailCorpus(seed: 20_261_128)
        let addresses = corpus.records(3000).map(\.value)
        let first = Self.violations(validator, addresses), second = Self.violations(validator, addresses)
        var shared = 0, several = 0
        for (index, address) in addresses.enumerated() {
            let reference = validator.validateRuleByRule(address).violations
            #expect(first[index] == reference && second[index] == reference, "\(address.debugDescription)")
            guard first[index].count > 1 else { continue }
            several += 1
            let same = first[index].withUnsafeBufferPointer { a in second[index].withUnsafeBufferPointer { $0.baseAddress == a.baseAddress } }
            if same { shared += 1 }
        }
        let lists = ThreadCopies.local(for: engine) { EmailEngine.ThreadState(rules: [], fixedViolations: []) }.known.listCount
        // Lists of two or more violations repeat in the corpus; the second pass reuses those known
        // by their variants (330 of several, 154 shared, 101 kept with this seed).
        #expect(several >= 100 && shared >= 100 && lists >= 20, "\(several) lists of several, \(shared) shared, \(lists) kept")
    }

    @Test func pastEachLimitTheListsStayExact() throws {
        let validator = try Self.validator.get()
        let rules = try #require(validator.engine).rules.rules
        let length = try #require(rules.firstIndex { $0.id == "email.local-part-length" })
        let swift = try #require(rules.firstIndex { $0.id == "email.one-at-sign" })
        let known = KnownViolations(rules: rules, fixed: rules.map { _ in nil })
        // Lengths: a variant per length below 255, none beyond.
        let long = try #require(rules[length].lengthViolation(300, min: nil, max: 64))
        #expect(known.lengthVariant(length, 300, long) == nil)
        let seventy = try #require(rules[length].lengthViolation(70, min: nil, max: 64))
        #expect(known.lengthVariant(length, 70, seventy) == 71 && known.violation(length, 71) == seventy)
        // Swift rules: 254 variants, then none; each variant keeps its own words.
        var variants: [Int] = []
        for count in 0..<300 {
            let found = ["count": String(count)]
            guard let variant = known.swiftVariant(swift, found, word: { rules[swift].swiftViolation(found) }) else { break }
            variants.append(variant)
        }
        #expect(variants == Array(1...254))
        #expect(known.swiftVariant(swift, ["count": "3"], word: { Violation(code: "", rule: "", message: "") }) == 4)
        #expect(known.violation(swift, 4) == rules[swift].swiftViolation(["count": "3"]))
        // Lists: more distinct keys than are kept, each answered in rule order.
        var lengthVariants: [Int] = []
        for octets in 65..<105 {
            let violation = try #require(rules[length].lengthViolation(octets, min: nil, max: 64))
            lengthVariants.append(try #require(known.lengthVariant(length, octets, violation)))
        }
        var keys: [KnownViolations.Key] = []
        for lengthVariant in lengthVariants {
            for swiftVariant in variants.prefix(20) {
                keys.append(KnownViolations.Key(rules: 1 << UInt64(min(length, swift)) | 1 << UInt64(max(length, swift)),
                                                variants: UInt64(length < swift ? lengthVariant : swiftVariant)
                                                    | UInt64(length < swift ? swiftVariant : lengthVariant) << 8))
            }
        }
        for key in keys + keys {
            let variant = { (rule: Int) in Int((rule == min(length, swift) ? key.variants : key.variants >> 8) & 0xFF) }
            #expect(known.violations(of: key) == [min(length, swift), max(length, swift)].map { known.violation($0, variant($0)) })
        }
        #expect(keys.count > KnownViolations.capacity && known.listCount == KnownViolations.capacity)
    }
}
