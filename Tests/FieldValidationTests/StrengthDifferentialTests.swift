@testable import FieldValidation
import Foundation
import CorpusGeneration
import PasswordStrength
import RulesTestSupport
import Testing

/// Differential test against python zxcvbn 4.5.0, the reference the issue names, on 10,000
/// seeded generated passwords (`StrengthCorpus`: dictionary words plain, capitalized, l33t and
/// reversed, keyboard walks, repeats, runs, dates, years, digits, random characters, user
/// inputs, non-ASCII pieces), all sent to one python process.
///
/// The estimator is the shipped one (the embedded `rules/lists/strength-*.txt`). The oracle is
/// the virtual environment `scripts/bootstrap --with-oracles` creates in `.venv-oracles/` (or a
/// `python3` with zxcvbn 4.5.0). Without it the test is skipped, except with `CI=true`, where it
/// fails. Agreement targets (issue 28): the same score on at least 95 % and `guessesLog10`
/// within 0.5 on at least 90 %; known differences are listed in docs/CORPORA.md. Failures name
/// the sample's number and recipe, never the password.
@Suite struct StrengthDifferentialTests {
    static let sampleCount = 10_000

    static let oracleScript = """
    import json, sys
    from zxcvbn import zxcvbn
    for line in sys.stdin:
        sample = json.loads(line)
        try:
            r = zxcvbn(sample["password"], user_inputs=sample["userInputs"])
            print(json.dumps({"score": r["score"], "guessesLog10": float(r["guesses_log10"]),
                              "patterns": [m["pattern"] for m in r["sequence"]]}))
        except Exception as e:  # an oracle crash is a non-answer, not a verdict
            print(json.dumps({"score": None, "error": type(e).__name__}))
    """

    /// The python that has zxcvbn 4.5.0, or nil.
    static let oracle: URL? = {
        let venv = packageRoot.appendingPathComponent(".venv-oracles/bin/python3")
        let check = ["-c", "import importlib.metadata, sys; import zxcvbn; sys.exit(0 if importlib.metadata.version('zxcvbn') == '4.5.0' else 1)"]
        for candidate in [venv, URL(fileURLWithPath: "/usr/bin/python3")]
        where FileManager.default.isExecutableFile(atPath: candidate.path) {
            if (try? EmailDifferentialTests.runPython(candidate, check, input: Data()))?.status == 0 { return candidate }
        }
        return nil
    }()

    struct Answer: Decodable {
        var score: Int?
        var guessesLog10: Double?
        var patterns: [String]?
        var error: String?
    }

    struct Payload: Encodable {
        var password: String
        var userInputs: [String]
    }

    @Test(.enabled(if: oracle != nil || EmailDifferentialTests.isCI,
                   "zxcvbn 4.5.0 is not installed: run scripts/bootstrap --with-oracles (with CI=true this test fails instead)"))
    func agreesWithZxcvbnOnGeneratedPasswords() throws {
        let python = try #require(Self.oracle, "zxcvbn 4.5.0 is missing: run scripts/bootstrap --with-oracles, which creates .venv-oracles/")
        var corpus = StrengthCorpus(seed: 28)
        let samples = (0..<Self.sampleCount).map { _ in corpus.next() }
        let estimator = StrengthDictionaries.shippedEstimator
        var input = Data()
        let encoder = JSONEncoder()
        for sample in samples {
            input += try encoder.encode(Payload(password: sample.password, userInputs: sample.userInputs)) + Data("\n".utf8)
        }
        let output = try EmailDifferentialTests.runPython(python, ["-c", Self.oracleScript], input: input)
        try #require(output.status == 0, "the oracle exited with status \(output.status)")
        let lines = output.stdout.split(separator: UInt8(ascii: "\n"))
        try #require(lines.count == samples.count, "the oracle answered \(lines.count) of \(samples.count) passwords")

        var sameScore = 0, closeGuesses = 0, exactGuesses = 0, samePatterns = 0
        var kinds: [MatchKind: Int] = [:]
        var scores = [Int](repeating: 0, count: 5)
        for (index, (sample, line)) in zip(samples, lines).enumerated() {
            let answer = try JSONDecoder().decode(Answer.self, from: Data(line))
            guard let theirScore = answer.score, let theirLog = answer.guessesLog10 else {
                Issue.record("sample \(index) (\(sample.recipe)): zxcvbn failed with \(answer.error ?? "?")")
                continue
            }
            let ours = estimator.estimate(sample.password, userInputs: sample.userInputs)
            scores[ours.score] += 1
            for kind in Set(ours.sequence.map(\.kind)) { kinds[kind, default: 0] += 1 }
            if ours.score == theirScore { sameScore += 1 }
            let gap = abs(ours.guessesLog10 - theirLog)
            if gap <= 0.5 { closeGuesses += 1 }
            if gap < 1e-9 { exactGuesses += 1 }
            if ours.sequence.map(\.zxcvbnPattern) == answer.patterns { samePatterns += 1 }
            if gap >= 1e-9 {
                Issue.record("sample \(index) (\(sample.recipe)): guessesLog10 \(ours.guessesLog10), zxcvbn \(theirLog)")
            }
        }
        let count = Double(samples.count)
        print("strength differential: \(samples.count) compared; same score \(sameScore) (\(Double(sameScore) / count)), "
              + "guessesLog10 within 0.5 \(closeGuesses), exact \(exactGuesses), same match patterns \(samePatterns); "
              + "scores \(scores); passwords per match kind \(kinds.sorted { $0.key.rawValue < $1.key.rawValue })")
        // The issue's targets, then what this implementation achieves (every listed difference is
        // outside the generated set: docs/CORPORA.md).
        #expect(Double(sameScore) >= 0.95 * count && Double(closeGuesses) >= 0.90 * count)
        #expect(exactGuesses == samples.count && sameScore == samples.count)
        #expect(Double(samePatterns) >= 0.999 * count, "\(samePatterns) same match patterns")
        // The set reaches every kind of match and every score.
        for kind in MatchKind.allCases {
            #expect(kinds[kind, default: 0] >= 50, "only \(kinds[kind, default: 0]) passwords reached \(kind.rawValue)")
        }
        #expect(scores.allSatisfy { $0 >= 200 }, "scores \(scores)")
    }
}

extension StrengthMatch {
    /// zxcvbn's name for the pattern.
    var zxcvbnPattern: String {
        switch pattern {
        case .dictionary: "dictionary"
        case .spatial: "spatial"
        case .repeated: "repeat"
        case .sequence: "sequence"
        case .recentYear: "regex"
        case .date: "date"
        case .bruteForce: "bruteforce"
        }
    }
}
