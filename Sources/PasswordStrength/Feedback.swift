/// What to tell the person choosing a password: at most one warning and some suggestions.
public struct StrengthFeedback: Sendable, Hashable {
    /// Why the password is weak, or nil.
    public let warning: StrengthFeedbackItem?
    /// What to do instead, in order.
    public let suggestions: [StrengthFeedbackItem]
}

/// One feedback line: a stable code apps can localize, and our English message.
public struct StrengthFeedbackItem: Sendable, Hashable {
    /// The stable code (`PW201`); see ``StrengthFeedbackCode``.
    public let code: String
    /// The English message.
    public let message: String

    /// The item for a catalogue entry.
    public init(_ code: StrengthFeedbackCode) {
        self.code = code.rawValue
        self.message = code.message
    }
}

/// The catalogue of strength feedback codes: `PW201`-`PW214` warnings, `PW250`-`PW263`
/// suggestions. A code never changes meaning and a retired one is never reused; the wording may
/// change. Documented in docs/RULE-PACKS.md ("Strength feedback codes").
public enum StrengthFeedbackCode: String, Sendable, Hashable, CaseIterable {
    // MARK: Warnings
    case topTenPassword = "PW201"
    case topHundredPassword = "PW202"
    case veryCommonPassword = "PW203"
    case similarToCommonPassword = "PW204"
    case singleWord = "PW205"
    case nameByItself = "PW206"
    case commonNames = "PW207"
    case straightRow = "PW208"
    case shortKeyboardPattern = "PW209"
    case repeatedCharacter = "PW210"
    case repeatedGroup = "PW211"
    case sequence = "PW212"
    case recentYear = "PW213"
    case date = "PW214"

    // MARK: Suggestions
    case useSeveralWords = "PW250"
    case noNeedForSymbols = "PW251"
    case addWords = "PW252"
    case longerKeyboardPattern = "PW253"
    case avoidRepeats = "PW254"
    case avoidSequences = "PW255"
    case avoidRecentYears = "PW256"
    case avoidPersonalYears = "PW257"
    case avoidPersonalDates = "PW258"
    case capitalizationHelpsLittle = "PW259"
    case allCapitalsHelpLittle = "PW260"
    case reversedHelpsLittle = "PW261"
    case substitutionsHelpLittle = "PW262"
    case onlyBeginningScored = "PW263"

    /// True for warnings, false for suggestions.
    public var isWarning: Bool { rawValue < "PW250" }

    /// The English message (our wording).
    public var message: String {
        switch self {
        case .topTenPassword: "This is one of the 10 most common passwords."
        case .topHundredPassword: "This is one of the 100 most common passwords."
        case .veryCommonPassword: "This is a very common password."
        case .similarToCommonPassword: "This is close to a commonly used password."
        case .singleWord: "A single word is easy to guess."
        case .nameByItself: "A name or surname on its own is easy to guess."
        case .commonNames: "Common names and surnames are easy to guess."
        case .straightRow: "A straight row of keys is easy to guess."
        case .shortKeyboardPattern: "A short pattern of keys is easy to guess."
        case .repeatedCharacter: "A character typed several times, such as \"aaa\", is easy to guess."
        case .repeatedGroup: "A group typed several times, such as \"abcabcabc\", is hardly harder to guess than the group once."
        case .sequence: "A run such as \"abc\" or \"6543\" is easy to guess."
        case .recentYear: "A recent year is easy to guess."
        case .date: "A date is often easy to guess."
        case .useSeveralWords: "Use several words, and avoid common phrases."
        case .noNeedForSymbols: "Symbols, digits and capital letters are not needed."
        case .addWords: "Add a word or two; uncommon words are better."
        case .longerKeyboardPattern: "Use a longer pattern of keys with more turns."
        case .avoidRepeats: "Avoid repeated words and characters."
        case .avoidSequences: "Avoid runs of letters or digits."
        case .avoidRecentYears: "Avoid recent years."
        case .avoidPersonalYears: "Avoid years that are linked to you."
        case .avoidPersonalDates: "Avoid dates and years that are linked to you."
        case .capitalizationHelpsLittle: "A capital first letter does not help much."
        case .allCapitalsHelpLittle: "All capitals are almost as easy to guess as all lowercase."
        case .reversedHelpsLittle: "A word spelled backwards is not much harder to guess."
        case .substitutionsHelpLittle: "Predictable substitutions, such as '@' for 'a', do not help much."
        case .onlyBeginningScored: "Only the first \(StrengthEstimator.maxScoredLength) characters were checked for strength."
        }
    }
}

// MARK: - Choosing the feedback

extension StrengthFeedback {
    /// zxcvbn's choice of feedback: none above score 2; otherwise from the longest match.
    static func make(score: Int, sequence: [Match], password: Text, estimator: StrengthEstimator,
                     truncated: Bool) -> StrengthFeedback {
        let notice = truncated ? [StrengthFeedbackItem(.onlyBeginningScored)] : []
        guard !sequence.isEmpty else {
            return StrengthFeedback(warning: nil, suggestions: [.init(.useSeveralWords), .init(.noNeedForSymbols)] + notice)
        }
        guard score <= 2 else { return StrengthFeedback(warning: nil, suggestions: notice) }
        // The first of the longest matches.
        var longest = sequence[0]
        for match in sequence.dropFirst() where match.j - match.i > longest.j - longest.i { longest = match }
        var (warning, suggestions) = matchFeedback(longest, isSoleMatch: sequence.count == 1, password: password,
                                                   estimator: estimator)
        suggestions.insert(.addWords, at: 0)
        return StrengthFeedback(warning: warning.map(StrengthFeedbackItem.init),
                                suggestions: suggestions.map(StrengthFeedbackItem.init) + notice)
    }

    private static func matchFeedback(_ match: Match, isSoleMatch: Bool, password: Text, estimator: StrengthEstimator)
        -> (StrengthFeedbackCode?, [StrengthFeedbackCode]) {
        switch match.detail {
        case let .dictionary(dictionary, rank, reversed, substitutions):
            return dictionaryFeedback(match, dictionary: dictionary, rank: rank, reversed: reversed,
                                      l33t: !substitutions.isEmpty, isSoleMatch: isSoleMatch, password: password,
                                      estimator: estimator)
        case let .spatial(_, turns, _):
            return (turns == 1 ? .straightRow : .shortKeyboardPattern, [.longerKeyboardPattern])
        case let .repeated(_, baseLength, _):
            return (baseLength == 1 ? .repeatedCharacter : .repeatedGroup, [.avoidRepeats])
        case .sequence:
            return (.sequence, [.avoidSequences])
        case .recentYear:
            return (.recentYear, [.avoidRecentYears, .avoidPersonalYears])
        case .date:
            return (.date, [.avoidPersonalDates])
        case .bruteForce:
            return (nil, [])
        }
    }

    private static func dictionaryFeedback(_ match: Match, dictionary: Int, rank: Int, reversed: Bool, l33t: Bool,
                                           isSoleMatch: Bool, password: Text, estimator: StrengthEstimator)
        -> (StrengthFeedbackCode?, [StrengthFeedbackCode]) {
        var warning: StrengthFeedbackCode?
        switch estimator.category(of: dictionary) {
        case .commonPasswords:
            if isSoleMatch && !l33t && !reversed {
                warning = rank <= 10 ? .topTenPassword : rank <= 100 ? .topHundredPassword : .veryCommonPassword
            } else if decimalLog(match.guesses) <= 4 {
                warning = .similarToCommonPassword
            }
        case .words:
            if isSoleMatch { warning = .singleWord }
        case .names:
            warning = isSoleMatch ? .nameByItself : .commonNames
        case .other:
            break
        }
        var suggestions: [StrengthFeedbackCode] = []
        let token = password[match.i...match.j]
        if Casing.startsUpper(token) {
            suggestions.append(.capitalizationHelpsLittle)
        } else if Casing.hasNoASCIILowercase(token) && !Casing.isUnchangedByLowercasing(token) {
            suggestions.append(.allCapitalsHelpLittle)
        }
        if reversed && token.count >= 4 { suggestions.append(.reversedHelpsLittle) }
        if l33t { suggestions.append(.substitutionsHelpLittle) }
        return (warning, suggestions)
    }
}
