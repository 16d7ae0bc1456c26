/// One analysis: every matcher over a password (or, for a repeat, over its repeated group),
/// then the search for the cheapest sequence. Counts its work in ``work``.
///
/// The matchers are in DictionaryMatching.swift (with L33tTables.swift), PatternMatching.swift
/// and DateMatching.swift; the search is in Search.swift.
struct Analyzer {
    let estimator: StrengthEstimator
    let userWords: UserWords
    var work = StrengthWork()

    init(estimator: StrengthEstimator, userWords: UserWords) {
        self.estimator = estimator
        self.userWords = userWords
    }

    /// The fewest guesses for `password` and the sequence of matches that needs them.
    mutating func analyze(_ password: Text) -> (guesses: Double, sequence: [Match]) {
        work.analyses += 1
        guard !password.isEmpty else { return (1, []) }
        return search(password.count, candidates(password))
    }

    /// Every match of every matcher in `password`, in zxcvbn's order (before the search).
    mutating func candidates(_ password: Text) -> [Match] {
        let n = password.count
        guard n > 0 else { return [] }
        return withUnsafeTemporaryAllocation(of: UInt32.self, capacity: n) { lowered in
            for k in 0..<n { lowered[k] = Characters.lowercased(password[k]) }
            let lower = Text(lowered)
            return withUnsafeTemporaryAllocation(of: Int.self, capacity: n) { reach in
              withUnsafeTemporaryAllocation(of: Int32.self, capacity: n * (n + 1)) { path in
                reach.initialize(repeating: 0)
                let walks = Walks(reach: reach, path: path, width: n + 1)
                // zxcvbn's order, which decides between equally good matches of one part.
                var matches: [Match] = []
                matches.reserveCapacity(4 * n)
                matchDictionaries(password, lower, walks: walks, into: &matches)
                matchReversedDictionaries(password, lower, into: &matches)
                matchL33t(password, lower, walks: walks, into: &matches)
                matchSpatial(password, into: &matches)
                matchRepeats(password, into: &matches)
                matchSequences(password, into: &matches)
                matchRecentYears(password, into: &matches)
                matchDates(password, into: &matches)
                work.matches += matches.count
                return matches
              }
            }
        }
    }
}
