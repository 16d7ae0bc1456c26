@testable import FieldValidation
import Foundation
import PropertyBased
import RulesTestSupport
import Testing

/// The fused fast path (one scan) must always agree with evaluating every rule one by one.
@Suite struct FastPathTests {
    static let validator = Result { () throws(RulePackError) in try DisplayNameValidator(appName: "RulesKit") }

    /// Characters that exercise every rule: allowed ones (often), periods (to make `..` likely),
    /// look-alikes, and a few invalid or non-ASCII characters.
    static let alphabet: [Character] = Array("aAdmnirRNI|1l0oO_..._xyzZ9tsu") + ["-", " ", "\t", "\"", "\\", "é", "\n", "ｊ", "\u{212A}", "😀"]

    /// Characters a valid name is made of (letters, digits, `_` and a rarer `.`).
    static let allowed: [Character] = Array("abcdefghijklmnopqrstuvwxyzABZ0129___.")

    /// Names from the whole alphabet and names from allowed characters only, so valid and
    /// invalid names both come up often (the whole alphabet alone makes ~3% valid names).
    @Test func fusedPathAgreesWithRuleByRuleOnGeneratedNames() throws {
        let validator = try Self.validator.get()
        var random = SplitMix(seed: 26)
        var valid = 0, invalid = 0
        for index in 0..<3_000 {
            let alphabet = index % 2 == 0 ? Self.alphabet : Self.allowed
            let name = String((0..<random.below(35)).map { _ in alphabet[random.below(alphabet.count)] })
            let fast = validator.validate(name)
            let reference = validator.validateRuleByRule(name)
            #expect(fast == reference, "\(name.debugDescription)")
            var copy = name
            let bytes = copy.withUTF8 { validator.validate(utf8: UnsafeRawBufferPointer($0)) }
            #expect(bytes.violations == reference.violations, "\(name.debugDescription) via bytes")
            if reference.isValid { valid += 1 } else { invalid += 1 }
        }
        #expect(valid >= 600 && invalid >= 600, "valid \(valid), invalid \(invalid)")
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

    @Test func scanLinesFramesLikeSplittingAndDecidesLikeIsValidAsIsAndViolatedRules() async throws {
        let validator = try Self.validator.get()
        let gen = Gen.int(in: 0...(Self.alphabet.count - 1)).array(of: 0...400)
        await propertyCheck(count: 300, input: gen) { indices in
            // The alphabet holds "\n", so the buffer's lines are whatever splitting it gives.
            var text = String(indices.map { Self.alphabet[$0] })
            if indices.count % 3 == 0 { text = text.replacingOccurrences(of: "\n", with: "\r\n") }
            let buffer = Array(text.utf8)
            var expected = buffer.split(separator: 0x0A, omittingEmptySubsequences: false).map { $0.startIndex..<$0.endIndex }
            if buffer.last == 0x0A || buffer.isEmpty { expected.removeLast() }
            buffer.withUnsafeBytes { bytes in
                var seen: [(Int, Range<Int>, LineVerdict)] = []
                let skippedNone = validator.scanLines(bytes, skippingValid: false) { seen.append(($0, $1, $2)); return true }
                #expect(skippedNone == 0)
                #expect(seen.map(\.1) == expected)
                #expect(seen.map(\.0) == Array(expected.indices))
                let accepted = expected.map { validator.isValidAsIs(utf8: UnsafeRawBufferPointer(rebasing: bytes[$0])) }
                #expect(seen.map { $0.2 == .validAsIs } == accepted)
                // What the JSONL writer copies without an escape check must need none.
                #expect(validator.validAsIsArePlainASCII)
                for (range, isAccepted) in zip(expected, accepted) where isAccepted {
                    #expect(bytes[range].allSatisfy { (0x20...0x7E).contains($0) && $0 != 0x22 && $0 != 0x5C }, "\(Array(bytes[range]))")
                }
                for (_, range, verdict) in seen {
                    let line = UnsafeRawBufferPointer(rebasing: bytes[range])
                    guard case let .violated(rules) = verdict else { continue }
                    #expect(!line.isEmpty && line.last != UInt8(ascii: "\r"))
                    #expect(rules == validator.violatedRules(utf8: line), "\(Array(line))")
                    // A decided line is invalid, or valid but not valid as is: its list-key
                    // fingerprint matched a listed one's, and the lists themselves cleared it.
                    #expect(rules != 0 || validator.validate(utf8: line).isValid, "\(Array(line))")
                }
                // The shipped packs decide every line that is neither empty nor ends in CR.
                #expect(seen.allSatisfy { $0.2 != .undecided || $0.1.isEmpty || bytes[$0.1.upperBound - 1] == UInt8(ascii: "\r") })
                var visited: [Int] = []
                let skipped = validator.scanLines(bytes, skippingValid: true) { index, _, _ in visited.append(index); return true }
                #expect(skipped == accepted.filter { $0 }.count)
                #expect(visited == accepted.indices.filter { !accepted[$0] })
            }
        }
    }

    @Test func nonASCIINamesAreProbedWhenAListCouldHoldThem() throws {
        // U+212A KELVIN SIGN is canonically equivalent to `K`: a list holding `Kelvin` (exact
        // key) lists "\u{212A}elvin", so such a list must not be skipped for non-ASCII names.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fastpath-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "Kelvin\nplain\n".write(to: directory.appendingPathComponent("exact.txt"), atomically: true, encoding: .utf8)
        let pack = try RulePackSet.parse("""
        pack: mine
        field: display-name
        rules:
          - id: display-name.exact-list
            code: DN190
            kind: list
            file: exact.txt
            key: exact
            message: "Taken."
            description: Exact matches.
            source: test
        """, name: "mine.yaml", baseDirectory: directory.path)
        let validator = try DisplayNameValidator(packs: RulePackSet.shipped.adding(pack))
        #expect(validator.engine != nil)
        for name in ["\u{212A}elvin", "Kelvin", "kelvin", "pl\u{00E4}in", "plain", "\u{212A}"] {
            let reference = validator.validateRuleByRule(name)
            #expect(validator.validate(name) == reference, "\(name.debugDescription)")
            var copy = name
            #expect(copy.withUTF8 { validator.validate(utf8: UnsafeRawBufferPointer($0)) }.violations == reference.violations)
        }
        #expect(validator.validate("\u{212A}elvin").codes.contains("DN190"))
    }

    @Test func ruleBitsNameExactlyTheViolationsValidateReports() async throws {
        let validator = try Self.validator.get()
        let rules = validator.indexedRules
        let gen = Gen.int(in: 0...(Self.alphabet.count - 1)).array(of: 0...34)
        await propertyCheck(count: 3000, input: gen) { indices in
            var name = String(indices.map { Self.alphabet[$0] })
            let (bits, violations) = name.withUTF8 { bytes in
                (validator.violatedRules(utf8: UnsafeRawBufferPointer(bytes)), validator.validate(utf8: UnsafeRawBufferPointer(bytes)).violations)
            }
            // The shipped packs hold no Swift rules and ASCII-only lists: the bits decide every
            // name but the empty one (which the batch engine reports as damage, never checks).
            guard let bits else {
                #expect(name.isEmpty, "no rule bits for \(name.debugDescription)")
                return
            }
            let indices = (0..<64).filter { bits & (1 << UInt64($0)) != 0 }
            #expect(indices.map { rules[$0].code } == violations.map(\.code), "\(name.debugDescription)")
            for (index, violation) in zip(indices, violations) {
                guard let fixed = rules[index].fixedViolation else { continue }
                #expect([fixed.code, fixed.rule, fixed.message] == [violation.code, violation.rule, violation.message])
            }
        }
        #expect(rules.allSatisfy { $0.fixedViolation != nil }, "no shipped message names the length")
    }

    @Test func aLengthRuleWhoseMessageNamesTheLengthHasNoFixedViolation() throws {
        let pack = try RulePackSet.parse("""
        pack: mine
        field: display-name
        rules:
          - id: display-name.short-by
            code: DN191
            kind: length
            unit: code-points
            min: 4
            message: "Add {count:character:characters}."
            description: Counted.
            source: test
          - id: display-name.at-most
            code: DN192
            kind: length
            unit: utf8-octets
            max: 20
            message: "At most {max} bytes."
            description: Fixed.
            source: test
        """, name: "mine.yaml")
        let validator = try DisplayNameValidator(packs: RulePackSet.shipped.adding(pack))
        let byCode = Dictionary(validator.indexedRules.map { ($0.code, $0.fixedViolation) }, uniquingKeysWith: { first, _ in first })
        #expect(byCode["DN191"] == .some(nil))
        #expect(byCode["DN192"]??.message == "At most 20 bytes.")
        #expect(validator.validate("ab").violations.first { $0.code == "DN191" }?.message == "Add 2 characters.")
    }

    @Test func everySpellingOfAListedKeyHitsItsFingerprintAndOthersMiss() {
        let names = ["admin", "moderator", "rnoon", "mmm", "help", "x"]
        let signature = ListSignature(kind: .lookalike, keys: names.map(Keys.lookalike))
        func fingerprint(_ name: String) -> UInt64 { name.utf8.reduce(ListSignature.seed) { signature.step($0, $1) } }
        for name in names {
            let spellings = [name, name.uppercased(), name.replacingOccurrences(of: "m", with: "rn"),
                             name.replacingOccurrences(of: "rn", with: "m"), name.replacingOccurrences(of: "m", with: "RN"),
                             name.replacingOccurrences(of: "i", with: "1"), name.replacingOccurrences(of: "l", with: "|"),
                             name.replacingOccurrences(of: "o", with: "0")]
            for spelling in spellings {
                #expect(Keys.lookalike(spelling) == Keys.lookalike(name))
                #expect(signature.mayContain(fingerprint(spelling)), "\(spelling) is listed as \(name)")
            }
        }
        let unlisted = (0..<2000).map { "user.\($0)" } + ["adrnin_", "moderato", "helpx", "xx", ""]
        #expect(unlisted.filter { signature.mayContain(fingerprint($0)) }.isEmpty)
    }

    @Test func eachThreadHandsOutItsOwnCopyOfTheSharedViolations() throws {
        let validator = try Self.validator.get()
        @Sendable func batchViolations(_ name: String) -> [Violation] {
            var copy = name
            return copy.withUTF8 { validator.violations(utf8: UnsafeRawBufferPointer($0)) }
        }
        let here = batchViolations("ab")
        #expect(here.map(\.code) == ["DN101"])
        #expect(batchViolations("xy").first?.identity == here.first?.identity, "one copy per thread")
        #expect(validator.validate("ab").violations == here)
        final class Box: @unchecked Sendable { var violations: [Violation] = [] }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            box.violations = batchViolations("ab")
            done.signal()
        }
        thread.start()
        done.wait()
        #expect(box.violations == here)
        #expect(box.violations.first?.identity != here.first?.identity, "another thread's copy")
    }
}
