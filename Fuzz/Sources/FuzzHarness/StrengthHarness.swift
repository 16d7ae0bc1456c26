import FieldValidation
import Foundation
@_spi(Testing) import PasswordStrength

/// The strength matcher and estimate (`StrengthEstimator`, shipped dictionaries) on arbitrary
/// bytes.
///
/// Input layout: the first byte's bits 0-3 pick user inputs (`alice`, `bob+x@example.com`,
/// `RulesKit`, `p4ss`), bit 7 repeats the rest up to 4,000 times (a long password); the rest
/// is the password (ill-formed UTF-8 read as U+FFFD).
///
/// Checks: score 0-4 and the thresholds of the guesses; `guessesLog10` is `log10(guesses)`; the
/// sequence covers exactly the scored code points (at most 72, the rest ignored and
/// `isTruncated` set, with `PW263` among the suggestions); feedback codes are from the catalogue,
/// with no warning above score 2; deterministic; the String and UTF-8 entry points agree;
/// the work stays under a fixed bound. **Differential** on passwords of at most 24 ASCII code
/// points: the plain, reversed and l33t dictionary candidates equal a reference written as zxcvbn
/// 4.5.0 does it (every substring, reversed substring and, for each of zxcvbn's substitution
/// tables, every substring of the translated password, looked up whole).
///
/// Findings never include the password itself.
public enum StrengthHarness {
    static let estimator = StrengthDictionaries.shippedEstimator
    static let userWords = ["alice", "bob+x@example.com", "RulesKit", "p4ss"]
    /// Far above the heaviest password measured (about 26,000 with 100 long user inputs).
    static let workBound = 500_000
    static let catalogue = Set(StrengthFeedbackCode.allCases.map(\.rawValue))

    @Sendable public static func run(_ input: UnsafeRawBufferPointer) -> [FuzzFinding] {
        guard let flags = input.first else { return [] }
        var body = Array(input.dropFirst())
        if flags & 0x80 != 0, !body.isEmpty { body = Array([[UInt8]](repeating: body, count: 4_000 / body.count + 1).joined()) }
        let userInputs = userWords.indices.filter { flags & 1 << $0 != 0 }.map { userWords[$0] }
        let password = String(decoding: body, as: UTF8.self)
        var findings: [FuzzFinding] = []

        let result = estimator.estimate(password, userInputs: userInputs)
        let length = password.unicodeScalars.count
        if !(0...4).contains(result.score) { findings.append(FuzzFinding("score \(result.score) out of 0-4")) }
        if !(result.guesses >= 1) || abs(result.guessesLog10 - log10(result.guesses)) > 1e-9 {
            findings.append(FuzzFinding("guesses \(result.guesses), guessesLog10 \(result.guessesLog10)"))
        }
        let thresholds = [1e3 + 5, 1e6 + 5, 1e8 + 5, 1e10 + 5]
        if result.score != thresholds.count(where: { result.guesses >= $0 }) {
            findings.append(FuzzFinding("score \(result.score) does not follow guesses \(result.guesses)"))
        }
        if result.scoredLength != min(length, StrengthEstimator.maxScoredLength) || result.isTruncated != (length > StrengthEstimator.maxScoredLength) {
            findings.append(FuzzFinding("scored \(result.scoredLength) of \(length) code points, truncated \(result.isTruncated)"))
        }
        var next = 0
        for match in result.sequence {
            if match.range.lowerBound != next || match.range.isEmpty || !(match.guesses >= 1) {
                findings.append(FuzzFinding("the sequence has a gap, an overlap or a match under 1 guess at \(match.range)"))
            }
            next = match.range.upperBound
        }
        if next != result.scoredLength { findings.append(FuzzFinding("the sequence covers \(next) of \(result.scoredLength)")) }
        let codes = ([result.feedback.warning].compactMap { $0 } + result.feedback.suggestions).map(\.code)
        if let unknown = codes.first(where: { !catalogue.contains($0) }) { findings.append(FuzzFinding("feedback code \(unknown) is not in the catalogue")) }
        if result.score > 2 && result.feedback.warning != nil { findings.append(FuzzFinding("a warning above score 2")) }
        if codes.contains("PW263") != result.isTruncated { findings.append(FuzzFinding("PW263 without truncation, or the reverse")) }
        if result.work.total > workBound { findings.append(FuzzFinding("work \(result.work.total) over \(workBound)")) }

        let again = estimator.estimate(password, userInputs: userInputs)
        if again != result { findings.append(FuzzFinding("two estimates differ")) }
        let fromBytes = body.withUnsafeBytes { estimator.estimate(utf8: $0, userInputs: userInputs) }
        if fromBytes.guesses != result.guesses || fromBytes.sequence != result.sequence || fromBytes.isTruncated != result.isTruncated {
            findings.append(FuzzFinding("estimate(utf8:) and estimate(String) differ"))
        }

        let scalars = Array(password.unicodeScalars)
        if scalars.count <= 24, scalars.allSatisfy(\.isASCII) {
            findings += dictionaryDifferential(scalars, userInputs: userInputs)
        }
        return findings
    }

    /// A dictionary candidate as the reference and the estimator both describe it.
    struct Found: Hashable, CustomStringConvertible {
        var start: Int, end: Int, dictionary: String, rank: Int, reversed: Bool, l33t: Bool
        var description: String { "\(dictionary)#\(rank) at \(start)...\(end)\(reversed ? " reversed" : "")\(l33t ? " l33t" : "")" }
    }

    /// zxcvbn's dictionary, reversed-dictionary and l33t matchers written out plainly for an
    /// ASCII password, against the estimator's candidates.
    static func dictionaryDifferential(_ password: [Unicode.Scalar], userInputs: [String]) -> [FuzzFinding] {
        let tables = StrengthEstimator.substitutionTables(for: String(String.UnicodeScalarView(password)))
        guard tables.count <= 64 else { return [] }
        var ranks: [String: Int] = [:]
        for (index, input) in userInputs.enumerated() { ranks[input.lowercased()] = index + 1 }
        func lookUp(_ word: [Unicode.Scalar]) -> [(dictionary: String, rank: Int)] {
            let text = String(String.UnicodeScalarView(word))
            return estimator.lookUp(text) + (ranks[text].map { [(StrengthDictionary.userInputsName, $0)] } ?? [])
        }
        func lowered(_ scalars: ArraySlice<Unicode.Scalar>) -> [Unicode.Scalar] {
            scalars.map { $0.value >= 0x41 && $0.value <= 0x5A ? Unicode.Scalar($0.value | 0x20) ?? $0 : $0 }
        }
        var expected = Set<Found>()
        let n = password.count
        for i in 0..<n {
            for j in i..<n {
                let word = lowered(password[i...j])
                for hit in lookUp(word) { expected.insert(Found(start: i, end: j, dictionary: hit.dictionary, rank: hit.rank, reversed: false, l33t: false)) }
                for hit in lookUp(word.reversed()) { expected.insert(Found(start: i, end: j, dictionary: hit.dictionary, rank: hit.rank, reversed: true, l33t: false)) }
            }
        }
        for table in tables {
            let translated = password.map { table[$0] ?? $0 }
            for i in 0..<n {
                for j in (i + 1)..<max(i + 1, n) {
                    let word = lowered(translated[i...j])
                    guard word != lowered(password[i...j]) else { continue }
                    for hit in lookUp(word) { expected.insert(Found(start: i, end: j, dictionary: hit.dictionary, rank: hit.rank, reversed: false, l33t: true)) }
                }
            }
        }
        var actual = Set<Found>()
        for match in estimator.candidates(String(String.UnicodeScalarView(password)), userInputs: userInputs) {
            guard case let .dictionary(dictionary) = match.pattern else { continue }
            actual.insert(Found(start: match.range.lowerBound, end: match.range.upperBound - 1, dictionary: dictionary.dictionary,
                                rank: dictionary.rank, reversed: dictionary.isReversed, l33t: !dictionary.substitutions.isEmpty))
        }
        guard actual != expected else { return [] }
        let missing = expected.subtracting(actual).sorted { $0.description < $1.description }.prefix(3)
        let extra = actual.subtracting(expected).sorted { $0.description < $1.description }.prefix(3)
        return [FuzzFinding("dictionary candidates differ from zxcvbn's: missing \(Array(missing)), extra \(Array(extra))")]
    }
}
