import Foundation
@testable import PasswordStrength
import RulesTestSupport

/// The shipped dictionaries, read from `rules/lists/` (the files FieldValidation embeds), in
/// zxcvbn's order.
let listDictionaries: [StrengthDictionary] = [
    ("passwords", StrengthDictionary.Category.commonPasswords, "strength-passwords.txt"),
    ("english", .words, "strength-english.txt"),
    ("female-names", .names, "strength-female-names.txt"),
    ("surnames", .names, "strength-surnames.txt"),
    ("tv-and-film", .other, "strength-tv-and-film.txt"),
    ("male-names", .names, "strength-male-names.txt"),
].map { name, category, file in
    let url = packageRoot.appendingPathComponent("rules/lists").appendingPathComponent(file)
    return StrengthDictionary(name: name, category: category, listText: (try? String(contentsOf: url, encoding: .utf8)) ?? "")
}

/// One estimator for the whole test run (building it indexes 94,000 words).
let estimator = StrengthEstimator(dictionaries: listDictionaries)

/// SplitMix64 from a raw state, so generated inputs are the same on every run.
typealias SeededGenerator = SplitMix

/// How a result is compared with zxcvbn's: pattern names as zxcvbn spells them.
extension StrengthMatch {
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
