#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One candidate explanation of `password[i...j]` (inclusive, code point offsets), with its
/// guesses already estimated.
struct Match {
    var i: Int
    var j: Int
    var guesses: Double
    var detail: Detail

    enum Detail {
        case dictionary(dictionary: Int, rank: Int, reversed: Bool, substitutions: SubstitutionTable)
        case spatial(graph: Int, turns: Int, shifted: Int)
        case repeated(count: Int, baseLength: Int, baseGuesses: Double)
        case sequence(SequenceKind, ascending: Bool)
        case recentYear(Int)
        case date(year: Int, month: Int, day: Int, separator: Bool)
        case bruteForce
    }
}

/// zxcvbn's guess estimates, one function per kind of match (its `scoring.py`).
enum Guesses {
    static let bruteForceCardinality = 10.0
    static let minimumSubmatchGuessesSingleCharacter = 10.0
    static let minimumSubmatchGuessesMultiCharacter = 50.0
    static let minimumYearSpace = 20
    static let referenceYear = 2017

    /// 10ⁿ, correctly rounded, for every length a password part can have.
    static let powersOfTen: [Double] = (0...StrengthEstimator.maxScoredLength + 1).map { Double("1e\($0)") ?? 0 }

    /// The least a part of `length` code points of a `total`-long password can take: a part
    /// shorter than the whole takes at least 10 (one code point) or 50 guesses.
    @inline(__always)
    static func least(length: Int, total: Int) -> Double {
        guard length < total else { return 1 }
        return length == 1 ? minimumSubmatchGuessesSingleCharacter : minimumSubmatchGuessesMultiCharacter
    }

    static func bruteForce(length: Int) -> Double {
        let guesses = powersOfTen[min(length, powersOfTen.count - 1)]
        let least = length == 1 ? minimumSubmatchGuessesSingleCharacter + 1 : minimumSubmatchGuessesMultiCharacter + 1
        return max(guesses, least)
    }

    /// rank × capitalization variations × l33t variations × 2 when reversed.
    static func dictionary(rank: Int, token: Token, lowercased: Token, reversed: Bool,
                           substitutions: SubstitutionTable) -> Double {
        Double(rank) * uppercaseVariations(token) * l33tVariations(substitutions, lowercased) * (reversed ? 2 : 1)
    }

    /// How many capitalizations an attacker tries before this one.
    static func uppercaseVariations(_ token: Token) -> Double {
        if Casing.hasNoASCIIUppercase(token) || Casing.isUnchangedByLowercasing(token) { return 1 }
        if Casing.startsUpper(token) || Casing.endsUpper(token) || Casing.hasNoASCIILowercase(token) { return 2 }
        var upper = 0, lower = 0
        for character in token {
            if Characters.isUpper(character) { upper += 1 }
            if Characters.isLower(character) { lower += 1 }
        }
        var variations = 0.0
        if min(upper, lower) >= 1 {
            for count in 1...min(upper, lower) { variations += binomial(upper + lower, count) }
        }
        return variations
    }

    /// How many mixes of substituted and plain letters an attacker tries.
    static func l33tVariations(_ substitutions: SubstitutionTable, _ lowercased: Token) -> Double {
        guard !substitutions.isEmpty else { return 1 }
        var variations = 1.0
        for index in L33t.characters.indices where substitutions[index] != SubstitutionTable.none {
            let typed = L33t.characters[index], letter = L33t.table[Int(substitutions[index])].letter
            var substituted = 0, plain = 0
            for character in lowercased {
                if character == typed { substituted += 1 }
                if character == letter { plain += 1 }
            }
            if substituted == 0 || plain == 0 {
                variations *= 2
            } else {
                var possibilities = 0.0
                for count in 1...min(plain, substituted) { possibilities += binomial(plain + substituted, count) }
                variations *= possibilities
            }
        }
        return variations
    }

    static func spatial(graph: KeyboardGraph, length: Int, turns: Int, shifted: Int) -> Double {
        // zxcvbn counts both keyboards with the QWERTY figures and both keypads with the keypad's.
        let reference = graph.countsShiftedStart ? KeyboardGraph.qwerty : KeyboardGraph.keypad
        let starts = reference.startingPositions, degree = reference.averageDegree
        var guesses = 0.0
        if length >= 2 {
            for i in 2...length {
                let possibleTurns = min(turns, i - 1)
                guard possibleTurns >= 1 else { continue }
                for j in 1...possibleTurns {
                    guesses += binomial(i - 1, j - 1) * starts * pow(degree, Double(j))
                }
            }
        }
        if shifted > 0 {
            let unshifted = length - shifted
            if unshifted == 0 {
                guesses *= 2
            } else {
                var variations = 0.0
                for count in 1...min(shifted, unshifted) { variations += binomial(shifted + unshifted, count) }
                guesses *= variations
            }
        }
        return guesses
    }

    static func sequence(first: UInt32, length: Int, ascending: Bool) -> Double {
        var base: Double
        switch first {
        case 0x61, 0x41, 0x7A, 0x5A, 0x30, 0x31, 0x39: base = 4  // a A z Z 0 1 9: obvious starts
        default: base = Characters.isDigit(first) ? 10 : 26
        }
        if !ascending { base *= 2 }
        return base * Double(length)
    }

    static func recentYear(_ year: Int) -> Double {
        Double(max(abs(year - referenceYear), minimumYearSpace))
    }

    static func date(year: Int, separator: Bool) -> Double {
        var guesses = Double(max(abs(year - referenceYear), minimumYearSpace)) * 365
        if separator { guesses *= 4 }
        return guesses
    }
}
