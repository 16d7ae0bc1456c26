import Foundation
@testable import PasswordStrength
import RulesTestSupport
import Testing

@Suite struct EstimatorTests {
    // MARK: - The 72-code-point cap

    @Test func aMebibytePasswordDoesTheWorkOfItsFirst72CodePoints() {
        // The worst kind of beginning: every l33t character, so every substitution is tried.
        let beginning = String(repeating: "4@8({[<3691!|70$5+%2", count: 4).prefix(72)
        let huge = String(beginning) + String(repeating: "x", count: 1 << 20)
        let short = estimator.estimate(String(beginning))
        let long = estimator.estimate(huge)
        #expect(short.isTruncated == false && long.isTruncated == true)
        #expect(long.scoredLength == 72)
        // Reading stops at the 73rd code point: the rest of the megabyte is never looked at.
        #expect(long.work.codePointsRead == 73 && short.work.codePointsRead == 72)
        var sameWork = long.work
        sameWork.codePointsRead = short.work.codePointsRead
        #expect(sameWork == short.work)
        #expect(long.guesses == short.guesses && long.score == short.score)
        #expect(long.feedback.suggestions.last?.code == "PW263")
        #expect(!short.feedback.suggestions.contains { $0.code == "PW263" })

        let bytes = Array(huge.utf8)
        let fromBytes = bytes.withUnsafeBytes { estimator.estimate(utf8: $0) }
        #expect(fromBytes.work == long.work && fromBytes.guesses == long.guesses && fromBytes.isTruncated)
    }

    @Test func workStaysUnderOneBoundForHostilePasswords() {
        let hostile = [
            String(repeating: "4@8({[<3691!|70$5+%2", count: 4), String(repeating: "a", count: 72), String(repeating: "1", count: 72),
            String(repeating: "1!|7+", count: 15), String(repeating: "19911991", count: 9), String(repeating: "1/1/1991", count: 9),
            String(repeating: "l1l1", count: 18), String(repeating: "qwertyuiop", count: 8), String(repeating: "ab", count: 36),
            String(repeating: "\u{1F642}", count: 72), String(repeating: "abcdefghijklmnopqrstuvwxyz", count: 3),
        ]
        var heaviest = 0
        for password in hostile {
            let result = estimator.estimate(password, userInputs: Array(repeating: String(repeating: "a", count: 72), count: 100))
            #expect(result.scoredLength == 72 && result.isTruncated == (password.unicodeScalars.count > 72))
            heaviest = max(heaviest, result.work.total)
        }
        // Measured at most about 26,000 (72 `a`s with 100 user inputs of 72 `a`s); a regression
        // that makes work grow with more than the capped length fails here.
        #expect(heaviest > 1_000 && heaviest < 200_000, "heaviest work \(heaviest)")
    }

    @Test func userInputsBeyondTheCapAreNotRead() {
        let inputs = [String(repeating: "b", count: 1 << 20)] + (0..<500).map { "word\($0)" }
        let words = UserWords(inputs)
        // The megabyte input is skipped after 73 code points; only the first 100 inputs count.
        #expect(words.words.count == StrengthEstimator.maxUserInputs - 1)
        #expect(words.words.first?.rank == 2 && words.words.last?.rank == 100)
    }

    // MARK: - Properties

    @Test func arbitraryPasswordsGetAConsistentAnswer() {
        var random = SeededGenerator(state: 28)
        let alphabet = Array("aeiostlnr0123456789!@$|+%(<[{ AEIOU-._/\\qwertyzxcvbnm".unicodeScalars) + ["é", "ж", "中", "\u{1F642}", "\u{0301}", "\u{212A}", "٣"]
        var multiPart = 0, l33t = 0, truncated = 0
        for _ in 0..<3_000 {
            let length = Int.random(in: 0...90, using: &random)
            var scalars = String.UnicodeScalarView()
            for _ in 0..<length { scalars.append(alphabet.randomElement(using: &random) ?? "a") }
            let result = estimator.estimate(String(scalars))
            #expect((0...4).contains(result.score))
            #expect(result.guesses >= 1 && abs(result.guessesLog10 - log10(result.guesses)) < 1e-9)
            #expect(result.score == StrengthEstimator.score(result.guesses))
            // The sequence covers the scored code points in order, without gaps or overlaps.
            var next = 0
            for match in result.sequence {
                #expect(match.range.lowerBound == next && !match.range.isEmpty)
                next = match.range.upperBound
            }
            #expect(next == result.scoredLength)
            if result.sequence.count > 1 { multiPart += 1 }
            if result.sequence.contains(where: { $0.kind == .l33t }) { l33t += 1 }
            if result.isTruncated { truncated += 1 }
        }
        #expect(multiPart > 400 && l33t > 100 && truncated > 300, "\(multiPart) multi-part, \(l33t) l33t, \(truncated) truncated")
    }

    @Test func feedbackIsEmptyAboveScoreTwo() {
        let strong = estimator.estimate("violet-kettle-marathon-ostrich")
        #expect(strong.score >= 3 && strong.feedback.warning == nil && strong.feedback.suggestions.isEmpty)
    }

    @Test func resultsHoldNoPartOfThePassword() {
        let result = estimator.estimate("Tr0ub4dor&3", userInputs: ["troubadour"])
        let text = String(describing: result)
        // A Bool first, so a failure cannot print the password.
        let leaked = text.contains("Tr0ub") || text.contains("troub") || text.contains("4dor")
        #expect(!leaked, "the result's description holds part of the password or its user input")
    }

    // MARK: - Keyboards

    @Test func keyboardGraphsMatchZxcvbnsFigures() {
        // zxcvbn 4.5.0: scoring.KEYBOARD_STARTING_POSITIONS = 94, KEYBOARD_AVERAGE_DEGREE =
        // 4.595744680851064, KEYPAD_STARTING_POSITIONS = 15, KEYPAD_AVERAGE_DEGREE = 5.066666666666666.
        #expect(KeyboardGraph.qwerty.startingPositions == 94)
        #expect(abs(KeyboardGraph.qwerty.averageDegree - 4.595744680851064) < 1e-12)
        #expect(KeyboardGraph.keypad.startingPositions == 15)
        #expect(abs(KeyboardGraph.keypad.averageDegree - 5.066666666666666) < 1e-12)
        #expect(KeyboardGraph.dvorak.startingPositions == 94 && KeyboardGraph.macKeypad.startingPositions == 16)
        // zxcvbn's graph: "g" is next to f, t, y, h, b, v (left, upper left, upper right, right,
        // lower right, lower left), "G" is the shifted g.
        #expect(KeyboardGraph.qwerty.step(from: 0x67, to: 0x66)?.direction == 0)
        #expect(KeyboardGraph.qwerty.step(from: 0x67, to: 0x74)?.direction == 1)
        #expect(KeyboardGraph.qwerty.step(from: 0x67, to: 0x79)?.direction == 2)
        #expect(KeyboardGraph.qwerty.step(from: 0x67, to: 0x68)?.direction == 3)
        #expect(KeyboardGraph.qwerty.step(from: 0x67, to: 0x62)?.direction == 4)
        #expect(KeyboardGraph.qwerty.step(from: 0x67, to: 0x76)?.direction == 5)
        #expect(KeyboardGraph.qwerty.step(from: 0x66, to: 0x47)?.shifted == true)
        #expect(KeyboardGraph.qwerty.step(from: 0x67, to: 0x6A) == nil)
        // Keypad: 5 has eight neighbours; 0 (under 1 and 2) touches 1, 2, 3 and `.`, not 5.
        #expect((0..<128).count { KeyboardGraph.keypad.step(from: 0x35, to: UInt32($0)) != nil } == 8)
        #expect((0..<128).count { KeyboardGraph.keypad.step(from: 0x30, to: UInt32($0)) != nil } == 4)
        #expect(KeyboardGraph.keypad.step(from: 0x30, to: 0x33) != nil && KeyboardGraph.keypad.step(from: 0x30, to: 0x35) == nil)
    }

    // MARK: - l33t

    /// The rule ``L33t/isTableChoice(_:present:)`` against zxcvbn's enumeration of substitution
    /// tables (``L33t/substitutionTables(present:)``, the same process as zxcvbn's
    /// `enumerate_l33t_subs`), on every set of the characters `1 ! | 7 +` (the letters i, l and t
    /// share them) with seeded samples of the others, and every choice of up to three characters.
    @Test func theTableRuleAgreesWithTheEnumeration() {
        var random = SeededGenerator(state: 1337)
        let shared = ["1", "!", "|", "7", "+"].map { L33t.index(of: Unicode.Scalar($0)?.value ?? 0) }
        var checked = 0, accepted = 0
        for subset in 0..<(1 << shared.count) {
            for _ in 0..<12 {
                var present: UInt32 = 0
                for (bit, index) in shared.enumerated() where subset & 1 << bit != 0 { present |= 1 << index }
                for _ in 0..<Int.random(in: 0...4, using: &random) { present |= 1 << Int.random(in: 0..<L33t.characters.count, using: &random) }
                guard present != 0 else { continue }
                let tables = Set(L33t.substitutionTables(present: present))
                let members = L33t.characters.indices.filter { present & 1 << $0 != 0 }
                // Every way to decide up to three present characters.
                for _ in 0..<20 {
                    var state = L33tState()
                    for index in members.shuffled(using: &random).prefix(Int.random(in: 1...3, using: &random)) {
                        let options = [L33tState.literal] + L33t.lettersOf[index].map(UInt8.init)
                        let choice = options.randomElement(using: &random) ?? L33tState.literal
                        if choice != L33tState.literal {
                            guard state.taken & 1 << choice == 0 else { continue }
                            state.taken |= 1 << choice
                        }
                        state.choice[index] = choice
                        state.decided |= 1 << index
                    }
                    let expected = tables.contains { table in
                        members.allSatisfy { state.decided & 1 << $0 == 0 || table[$0] == state.choice[$0] }
                    }
                    #expect(L33t.isTableChoice(state, present: present) == expected)
                    checked += 1
                    if expected { accepted += 1 }
                }
            }
        }
        #expect(checked > 7_000 && accepted > 1_000 && checked - accepted > 1_000, "\(checked) checked, \(accepted) accepted")
    }

    @Test func everyTypedCharacterGivesZxcvbnsLargestEnumeration() {
        // zxcvbn 4.5.0: len(enumerate_l33t_subs(relevant_l33t_subtable(all 20 characters))) == 736.
        #expect(L33t.substitutionTables(present: (1 << L33t.characters.count) - 1).count == 736)
        #expect(L33t.characters.count == 20)
    }

    // MARK: - Feedback catalogue

    @Test func feedbackCodesAreUniqueAndDocumented() throws {
        let codes = StrengthFeedbackCode.allCases.map(\.rawValue)
        #expect(Set(codes).count == codes.count)
        #expect(Set(StrengthFeedbackCode.allCases.map(\.message)).count == codes.count)
        #expect(StrengthFeedbackCode.allCases.filter(\.isWarning).map(\.rawValue) == (201...214).map { "PW\($0)" })
        #expect(StrengthFeedbackCode.allCases.filter { !$0.isWarning }.map(\.rawValue) == (250...263).map { "PW\($0)" })
        let catalogue = try String(contentsOf: packageRoot.appendingPathComponent("docs/RULE-PACKS.md"), encoding: .utf8)
        for code in StrengthFeedbackCode.allCases {
            #expect(catalogue.contains("| \(code.rawValue) | \(code.message) |"), "docs/RULE-PACKS.md lacks \(code.rawValue)")
        }
    }
}
