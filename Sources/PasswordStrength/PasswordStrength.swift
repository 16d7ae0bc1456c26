// PasswordStrength: estimates how many guesses a password takes, zxcvbn's way, and explains the
// estimate with stable feedback codes (PW2xx).
//
// Pipeline: password → first 72 code points → matchers (dictionaries with l33t and reversed,
// keyboard patterns, repeats, sequences, years, dates) → the sequence of matches needing the
// fewest guesses → score 0-4 → feedback. Owns the algorithm and its tables; does not own the
// dictionaries' files (FieldValidation finds them, like other list files) or any I/O.

/// How hard a password is to guess, and why.
///
/// Built by ``StrengthEstimator/estimate(_:userInputs:)``. Holds no part of the password: matches
/// give offsets, dictionary ranks and kinds, never text.
public struct PasswordStrength: Sendable, Hashable {
    /// 0 (too guessable: under 10³ guesses) to 4 (very unguessable: 10¹⁰ guesses or more).
    public let score: Int
    /// The estimated number of guesses an attacker needs.
    public let guesses: Double
    /// `log10(guesses)`.
    public let guessesLog10: Double
    /// The matches that explain the estimate, covering the scored characters in order.
    public let sequence: [StrengthMatch]
    /// A warning and suggestions for the person choosing the password.
    public let feedback: StrengthFeedback
    /// How many characters (Unicode code points) were scored: at most ``StrengthEstimator/maxScoredLength``.
    public let scoredLength: Int
    /// True when the password is longer than ``StrengthEstimator/maxScoredLength`` code points and
    /// only its beginning was scored (the feedback then holds ``StrengthFeedbackCode/onlyBeginningScored``).
    public let isTruncated: Bool
    /// How much work the estimate took (bounded, whatever the password's length).
    public let work: StrengthWork
}

/// One part of the password and how it would be guessed.
public struct StrengthMatch: Sendable, Hashable {
    /// The matched code points: offsets into the scored part of the password.
    public let range: Range<Int>
    /// Guesses for this part alone.
    public let guesses: Double
    /// What the part is.
    public let pattern: Pattern

    /// The kinds of pattern the estimator knows.
    public enum Pattern: Sendable, Hashable {
        /// A dictionary word (possibly reversed or with l33t substitutions; user inputs are a
        /// dictionary too).
        case dictionary(DictionaryMatch)
        /// A path on a keyboard or keypad.
        case spatial(graph: KeyboardGraphName, turns: Int, shiftedCount: Int)
        /// A group typed several times (`abcabc`): `baseLength` code points, `count` times.
        case repeated(baseLength: Int, count: Int, baseGuesses: Double)
        /// Characters with a constant step in code point (`abc`, `9753`).
        case sequence(SequenceKind, ascending: Bool)
        /// A recent year (1900-2019).
        case recentYear(Int)
        /// A date of 4 to 10 characters (`13.4.1987`, `870413`).
        case date(year: Int, month: Int, day: Int, hasSeparator: Bool)
        /// Anything else: guessed character by character.
        case bruteForce
    }

    /// The category this match counts under (``MatchKind``).
    public var kind: MatchKind {
        switch pattern {
        case let .dictionary(match):
            if match.dictionary == StrengthDictionary.userInputsName { return .userInput }
            if !match.substitutions.isEmpty { return .l33t }
            return match.isReversed ? .reversed : .dictionary
        case .spatial: return .spatial
        case .repeated: return .repeated
        case .sequence: return .sequence
        case .recentYear: return .recentYear
        case .date: return .date
        case .bruteForce: return .bruteForce
        }
    }
}

/// What kind of match explains a part of a password (for counting and reports).
public enum MatchKind: String, Sendable, Hashable, CaseIterable {
    case dictionary, reversed, l33t, userInput = "user-input", spatial, repeated = "repeat", sequence
    case recentYear = "recent-year", date, bruteForce = "brute-force"
}

/// A dictionary word found in the password.
public struct DictionaryMatch: Sendable, Hashable {
    /// The dictionary's name (``StrengthDictionary/name``; `user-inputs` for the context).
    public let dictionary: String
    /// The word's rank in its dictionary, from 1 (most common).
    public let rank: Int
    /// True when the word appears backwards.
    public let isReversed: Bool
    /// The l33t substitutions used (`@` for `a`), empty when none.
    public let substitutions: [Substitution]

    /// One l33t substitution: `typed` stands for `letter`.
    public struct Substitution: Sendable, Hashable {
        /// The character in the password (`@`).
        public let typed: Unicode.Scalar
        /// The letter it stands for (`a`).
        public let letter: Unicode.Scalar
    }
}

/// The keyboards the spatial matcher walks.
public enum KeyboardGraphName: String, Sendable, Hashable, CaseIterable {
    case qwerty, dvorak, keypad, macKeypad = "mac-keypad"
}

/// The alphabet of a sequence.
public enum SequenceKind: String, Sendable, Hashable {
    case lowercase, uppercase, digits, unicode
}

/// Counters of the estimator's work: each is bounded by the 72-code-point cap, not by the
/// password's length, so tests can assert on work instead of time.
public struct StrengthWork: Sendable, Hashable {
    /// Steps through the dictionaries' tree (plain, reversed and l33t walks).
    public var lexiconSteps = 0
    /// Characters compared against user inputs.
    public var userInputComparisons = 0
    /// l33t substitution tables enumerated.
    public var substitutionTables = 0
    /// Comparisons of a l33t candidate with the substitution tables.
    public var substitutionChecks = 0
    /// Candidate sequences weighed by the search for the fewest guesses.
    public var searchUpdates = 0
    /// Analyses run (1 plus one per repeated group).
    public var analyses = 0
    /// Matches found by all matchers.
    public var matches = 0
    /// Code points read from the password (at most 73: the cap and one more to know it was hit).
    public var codePointsRead = 0

    /// No work yet.
    public init() {}

    /// The sum of every counter.
    public var total: Int {
        lexiconSteps + userInputComparisons + substitutionTables + substitutionChecks + searchUpdates + analyses + matches
            + codePointsRead
    }
}
