// Entry points for differential tests and fuzz harnesses (`@_spi(Testing) import PasswordStrength`):
// the parts of the estimate a reference implementation can be compared with.

extension StrengthEstimator {
    /// Every candidate match of the scored part of `password`, from every matcher, before the
    /// search for the cheapest sequence (zxcvbn's `omnimatch`).
    @_spi(Testing)
    public func candidates(_ password: String, userInputs: [String] = []) -> [StrengthMatch] {
        let scalars = password.unicodeScalars.prefix(Self.maxScoredLength).map(\.value)
        var analyzer = Analyzer(estimator: self, userWords: UserWords(userInputs))
        return scalars.withUnsafeBufferPointer { analyzer.candidates($0) }.map(publicMatch)
    }

    /// The dictionaries (not the user inputs) holding `word` exactly, each with the word's rank.
    @_spi(Testing)
    public func lookUp(_ word: String) -> [(dictionary: String, rank: Int)] {
        var node = Lexicon.root
        for scalar in word.unicodeScalars {
            node = lexicon.child(node, scalar.value)
            if node < 0 { return [] }
        }
        guard !word.isEmpty else { return [] }
        return lexicon.terms(node).map { (names[Int($0.dictionary)], Int($0.rank)) }
    }

    /// zxcvbn's substitution tables for `password` (its `enumerate_l33t_subs` of the typed
    /// characters it holds), each mapping typed characters to letters; empty when it holds none.
    @_spi(Testing)
    public static func substitutionTables(for password: String) -> [[Unicode.Scalar: Unicode.Scalar]] {
        var present: UInt32 = 0
        for scalar in password.unicodeScalars.prefix(maxScoredLength) {
            let index = L33t.index(of: scalar.value)
            if index >= 0 { present |= 1 << index }
        }
        guard present != 0 else { return [] }
        return L33t.substitutionTables(present: present).map { table in
            var map: [Unicode.Scalar: Unicode.Scalar] = [:]
            for substitution in table.substitutions { map[substitution.typed] = substitution.letter }
            return map
        }
    }
}
