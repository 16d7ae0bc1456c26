/// A ranked word list the estimator looks words up in.
public struct StrengthDictionary: Sendable {
    /// How the feedback speaks of a dictionary's words.
    public enum Category: Sendable, Hashable {
        /// Passwords people use ("This is a very common password.").
        case commonPasswords
        /// Words of a language ("A single word is easy to guess.").
        case words
        /// First names and surnames.
        case names
        /// Anything else (no warning of its own).
        case other
    }

    /// The name matches report (``DictionaryMatch/dictionary``).
    public let name: String
    /// How the feedback speaks of its words.
    public let category: Category
    /// The words as code points, most common first (rank 1).
    let words: [[UInt32]]

    /// The name of the dictionary made of a password's user inputs (its context).
    public static let userInputsName = "user-inputs"

    /// A dictionary of `words`, most common first. Words are matched as written, against the
    /// lowercased password, so they should be lowercase.
    public init(name: String, category: Category, words: [String]) {
        self.name = name
        self.category = category
        self.words = words.map { $0.unicodeScalars.map(\.value) }
    }

    /// A dictionary read from a list file's text: one word per line, most common first; blank
    /// lines and lines starting with `#` are skipped, a trailing carriage return is dropped.
    public init(name: String, category: Category, listText: String) {
        self.name = name
        self.category = category
        var words: [[UInt32]] = []
        var word: [UInt32] = []
        func finish() {
            if word.last == 0x0D { word.removeLast() }
            if !word.isEmpty && word[0] != 0x23 { words.append(word) }
            word.removeAll(keepingCapacity: true)
        }
        for scalar in listText.unicodeScalars {
            if scalar == "\n" { finish() } else { word.append(scalar.value) }
        }
        finish()
        self.words = words
    }

    /// How many words it holds.
    public var count: Int { words.count }

    /// The words, most common first.
    public var entries: [String] {
        words.map { String(String.UnicodeScalarView($0.compactMap(Unicode.Scalar.init))) }
    }
}

/// Estimates password strength as zxcvbn 4.5.0 does (Dropbox's algorithm: dictionaries with
/// l33t and reversed spellings, keyboard patterns, repeats, sequences, years and dates; the
/// sequence of matches that needs the fewest guesses), with our own feedback codes.
///
/// Build one per set of dictionaries and share it: it is immutable and `Sendable`. Building
/// indexes every word (about 0.1 s for zxcvbn's 94,000); each estimate then takes microseconds.
public final class StrengthEstimator: Sendable {
    /// Only this many characters (Unicode code points) of a password are scored, as zxcvbn 4.5.0's
    /// `max_length`; the rest is ignored and the result says so (``PasswordStrength/isTruncated``).
    /// It bounds the work per password whatever its length.
    public static let maxScoredLength = 72
    /// Only this many user inputs are used; an input longer than ``maxScoredLength`` code points
    /// (which no scored part of a password can contain) or empty is skipped.
    public static let maxUserInputs = 100

    let lexicon: Lexicon
    let names: [String]
    let categories: [StrengthDictionary.Category]

    /// Indexes `dictionaries`, in order: when two dictionaries explain a part equally well, the
    /// earlier one is reported.
    public init(dictionaries: [StrengthDictionary]) {
        lexicon = Lexicon(dictionaries: dictionaries.map(\.words))
        names = dictionaries.map(\.name) + [StrengthDictionary.userInputsName]
        categories = dictionaries.map(\.category) + [.other]
    }

    /// The dictionary index of user inputs (after the real dictionaries).
    var userInputsDictionary: Int { names.count - 1 }

    func category(of dictionary: Int) -> StrengthDictionary.Category { categories[dictionary] }

    /// Estimates how hard `password` is to guess.
    ///
    /// - Parameters:
    ///   - password: the password as typed; only its first ``maxScoredLength`` code points are
    ///     read. It is never stored in the result.
    ///   - userInputs: words the password should not be built from (username, email, app name…);
    ///     they form one more dictionary, ranked in the order given.
    /// - Returns: the score, guesses, the matches that explain them and feedback.
    public func estimate(_ password: String, userInputs: [String] = []) -> PasswordStrength {
        var scalars: [UInt32] = []
        scalars.reserveCapacity(Self.maxScoredLength)
        var truncated = false
        for scalar in password.unicodeScalars {
            if scalars.count == Self.maxScoredLength { truncated = true; break }
            scalars.append(scalar.value)
        }
        return estimate(scalars: scalars, truncated: truncated, userInputs: userInputs)
    }

    /// ``estimate(_:userInputs:)`` for a password given as UTF-8 bytes (ill-formed sequences
    /// read as U+FFFD); only the bytes of the first ``maxScoredLength`` code points are read.
    public func estimate(utf8 bytes: UnsafeRawBufferPointer, userInputs: [String] = []) -> PasswordStrength {
        var scalars: [UInt32] = []
        scalars.reserveCapacity(Self.maxScoredLength)
        var truncated = false
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        decoding: while true {
            switch decoder.decode(&iterator) {
            case let .scalarValue(scalar):
                if scalars.count == Self.maxScoredLength { truncated = true; break decoding }
                scalars.append(scalar.value)
            case .error:
                if scalars.count == Self.maxScoredLength { truncated = true; break decoding }
                scalars.append(0xFFFD)
            case .emptyInput:
                break decoding
            }
        }
        return estimate(scalars: scalars, truncated: truncated, userInputs: userInputs)
    }

    func estimate(scalars: [UInt32], truncated: Bool, userInputs: [String]) -> PasswordStrength {
        var analyzer = Analyzer(estimator: self, userWords: UserWords(userInputs))
        analyzer.work.codePointsRead = scalars.count + (truncated ? 1 : 0)
        return scalars.withUnsafeBufferPointer { password in
            let (guesses, sequence) = analyzer.analyze(password)
            let score = Self.score(guesses)
            let feedback = StrengthFeedback.make(score: score, sequence: sequence, password: password, estimator: self,
                                                 truncated: truncated)
            return PasswordStrength(score: score, guesses: guesses, guessesLog10: decimalLog(guesses),
                                    sequence: sequence.map(publicMatch), feedback: feedback,
                                    scoredLength: scalars.count, isTruncated: truncated, work: analyzer.work)
        }
    }

    /// zxcvbn's score: 0 under 10³ guesses (plus a margin of 5), 1 under 10⁶, 2 under 10⁸, 3 under
    /// 10¹⁰, else 4.
    static func score(_ guesses: Double) -> Int {
        let delta = 5.0
        if guesses < 1e3 + delta { return 0 }
        if guesses < 1e6 + delta { return 1 }
        if guesses < 1e8 + delta { return 2 }
        if guesses < 1e10 + delta { return 3 }
        return 4
    }

    func publicMatch(_ match: Match) -> StrengthMatch {
        let pattern: StrengthMatch.Pattern
        switch match.detail {
        case let .dictionary(dictionary, rank, reversed, substitutions):
            pattern = .dictionary(DictionaryMatch(dictionary: names[dictionary], rank: rank, isReversed: reversed,
                                                  substitutions: substitutions.substitutions))
        case let .spatial(graph, turns, shifted):
            pattern = .spatial(graph: KeyboardGraph.all[graph].name, turns: turns, shiftedCount: shifted)
        case let .repeated(count, baseLength, baseGuesses):
            pattern = .repeated(baseLength: baseLength, count: count, baseGuesses: baseGuesses)
        case let .sequence(kind, ascending):
            pattern = .sequence(kind, ascending: ascending)
        case let .recentYear(year):
            pattern = .recentYear(year)
        case let .date(year, month, day, separator):
            pattern = .date(year: year, month: month, day: day, hasSeparator: separator)
        case .bruteForce:
            pattern = .bruteForce
        }
        return StrengthMatch(range: match.i..<match.j + 1, guesses: match.guesses, pattern: pattern)
    }
}

/// The user inputs as a dictionary: lowercased (Python's `str.lower`), ranked by position from 1,
/// a repeated input keeping its last rank; empty and over-long inputs skipped.
struct UserWords {
    var words: [(scalars: [UInt32], rank: Int)] = []

    init(_ inputs: [String]) {
        guard !inputs.isEmpty else { return }
        var positions: [[UInt32]: Int] = [:]
        for (index, input) in inputs.prefix(StrengthEstimator.maxUserInputs).enumerated() {
            // Count before lowercasing the whole input, which never shortens it: a megabyte input
            // costs 73 code points.
            var count = 0
            for _ in input.unicodeScalars {
                count += 1
                if count > StrengthEstimator.maxScoredLength { break }
            }
            guard count > 0, count <= StrengthEstimator.maxScoredLength else { continue }
            let lowered = input.lowercased().unicodeScalars.map(\.value)
            guard lowered.count <= StrengthEstimator.maxScoredLength else { continue }
            // A few inputs as a rule: a linear search beats hashing, up to a point.
            if words.count <= 8 {
                if let existing = words.firstIndex(where: { $0.scalars == lowered }) {
                    words[existing].rank = index + 1
                    continue
                }
            } else {
                if positions.isEmpty { for (position, word) in words.enumerated() { positions[word.scalars] = position } }
                if let existing = positions[lowered] {
                    words[existing].rank = index + 1
                    continue
                }
                positions[lowered] = words.count
            }
            words.append((lowered, index + 1))
        }
    }
}
