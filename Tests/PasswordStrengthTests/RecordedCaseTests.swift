import Foundation
@testable import PasswordStrength
import RulesTestSupport
import Testing

/// The named passwords of `corpus/strength/cases.json` against python zxcvbn 4.5.0's recorded
/// answers (`corpus/strength/zxcvbn-4.5.0.jsonl`, written by `scripts/record-strength-cases`):
/// score, guesses, every match of the sequence and the feedback codes. Failures name the case,
/// never the password.
@Suite struct RecordedCaseTests {
    struct Case: Decodable {
        var name: String
        var password: String
        var userInputs: [String]?
    }

    struct Answer: Decodable {
        struct Part: Decodable {
            var pattern: String
            var i: Int
            var j: Int
            var dictionary: String?
            var rank: Int?
            var reversed: Bool?
            var l33t: Bool?
            var graph: String?
            var turns: Int?
            var shifted: Int?
            var baseLength: Int?
            var count: Int?
            var ascending: Bool?
            var year: Int?
            var month: Int?
            var day: Int?
        }

        var name: String
        var score: Int
        var guessesLog10: Double
        var sequence: [Part]
        var warning: String?
        var suggestions: [String]
    }

    static func load() throws -> [(Case, Answer)] {
        struct File: Decodable { var cases: [Case] }
        let cases = try JSONDecoder().decode(File.self, from: Data(contentsOf: packageRoot.appendingPathComponent("corpus/strength/cases.json"))).cases
        let lines = try String(contentsOf: packageRoot.appendingPathComponent("corpus/strength/zxcvbn-4.5.0.jsonl"), encoding: .utf8)
            .split(separator: "\n")
        let answers = try lines.map { try JSONDecoder().decode(Answer.self, from: Data($0.utf8)) }
        #expect(cases.map(\.name) == answers.map(\.name), "run scripts/record-strength-cases")
        return Array(zip(cases, answers))
    }

    @Test func everyRecordedCaseAgreesExactly() throws {
        let recorded = try Self.load()
        #expect(recorded.count == 60)
        var patterns: [String: Int] = [:]
        for (testCase, answer) in recorded {
            let result = estimator.estimate(testCase.password, userInputs: testCase.userInputs ?? [])
            #expect(result.score == answer.score, "\(testCase.name): score")
            #expect(abs(result.guessesLog10 - answer.guessesLog10) < 1e-9, "\(testCase.name): guessesLog10 \(result.guessesLog10) vs \(answer.guessesLog10)")
            #expect(result.feedback.warning?.code == answer.warning, "\(testCase.name): warning")
            #expect(result.feedback.suggestions.map(\.code) == answer.suggestions, "\(testCase.name): suggestions")
            #expect(result.sequence.count == answer.sequence.count, "\(testCase.name): sequence length")
            for (ours, theirs) in zip(result.sequence, answer.sequence) {
                patterns[theirs.pattern, default: 0] += 1
                #expect(ours.zxcvbnPattern == theirs.pattern && ours.range == theirs.i..<theirs.j + 1,
                        "\(testCase.name): match \(ours.zxcvbnPattern) \(ours.range) vs \(theirs.pattern) \(theirs.i)...\(theirs.j)")
                switch ours.pattern {
                case let .dictionary(match):
                    #expect(match.dictionary == theirs.dictionary && match.rank == theirs.rank && match.isReversed == theirs.reversed
                            && !match.substitutions.isEmpty == theirs.l33t, "\(testCase.name): dictionary match")
                case let .spatial(graph, turns, shifted):
                    #expect(graph.rawValue == theirs.graph && turns == theirs.turns && shifted == theirs.shifted, "\(testCase.name): spatial")
                case let .repeated(baseLength, count, _):
                    #expect(baseLength == theirs.baseLength && count == theirs.count, "\(testCase.name): repeat")
                case let .sequence(_, ascending):
                    #expect(ascending == theirs.ascending, "\(testCase.name): sequence")
                case let .recentYear(year):
                    #expect(year == theirs.year, "\(testCase.name): year")
                case let .date(year, month, day, _):
                    #expect(year == theirs.year && month == theirs.month && day == theirs.day, "\(testCase.name): date")
                case .bruteForce:
                    break
                }
            }
        }
        // The cases reach every matcher and both directions of the feedback.
        for pattern in ["dictionary", "spatial", "repeat", "sequence", "regex", "date", "bruteforce"] {
            #expect(patterns[pattern, default: 0] >= 2, "no recorded case reaches \(pattern)")
        }
    }

    @Test func theEmptyPasswordTakesOneGuess() {
        // zxcvbn 4.5.0 raises IndexError here (docs/CORPORA.md, known differences).
        let result = estimator.estimate("")
        #expect(result.score == 0 && result.guesses == 1 && result.guessesLog10 == 0 && result.sequence.isEmpty)
        #expect(result.feedback.warning == nil)
        #expect(result.feedback.suggestions.map(\.code) == ["PW250", "PW251"])
    }
}
