import FieldValidation
import PasswordStrength

/// Seeded passwords for the strength estimate's differential test and benchmark: each is 1 to 4
/// pieces, each piece made the way people build passwords (a dictionary word, capitalized,
/// l33t-spelled or reversed; a keyboard walk; a repeat; a run; a date or year; digits; random
/// characters; a user input), cut at 72 code points. A sample's recipe names its pieces, so a
/// failure can be described without showing the password. Synthetic: nobody's passwords.
public struct StrengthCorpus {
    /// One generated password, its user inputs and how it was made.
    public struct Sample: Sendable {
        /// The password (at most 72 code points).
        public var password: String
        /// Words for the user dictionary (sometimes part of the password).
        public var userInputs: [String]
        /// The pieces, in order (`capitalized-word+date`).
        public var recipe: String
    }

    /// The kinds of piece, each with its weight in percent.
    public static let pieces: [(name: String, weight: Int)] = [
        ("word", 22), ("capitalized-word", 8), ("l33t-word", 10), ("reversed-word", 4), ("uppercase-word", 3),
        ("keyboard-walk", 9), ("repeat", 7), ("sequence", 5), ("date", 6), ("year", 4), ("digits", 9),
        ("random", 7), ("user-input", 4), ("non-ascii", 2),
    ]

    static let l33t: [Character: [Character]] = [
        "a": ["4", "@"], "b": ["8"], "c": ["(", "{", "[", "<"], "e": ["3"], "g": ["6", "9"], "i": ["1", "!", "|"],
        "l": ["1", "|", "7"], "o": ["0"], "s": ["$", "5"], "t": ["+", "7"], "x": ["%"], "z": ["2"],
    ]
    /// Rows, columns and diagonals of the keyboards and keypads, to walk along.
    static let walks = [
        "`1234567890-=", "qwertyuiop[]\\", "asdfghjkl;'", "zxcvbnm,./", "~!@#$%^&*()_+", "QWERTYUIOP{}|",
        "1qaz2wsx3edc4rfv5tgb6yhn", "zaq1xsw2cde3vfr4", "qazwsxedcrfvtgb", "poiuytrewq", "mnbvcxz",
        "',.pyfgcrl/=", "aoeuidhtns-", ";qjkxbmwvz", "7894561230", "/*-+", "147258369", "159357", "0123456789",
    ]
    static let nonASCII = ["é", "ü", "ñ", "ж", "中文", "Ωμέγα", "\u{1F642}", "straße", "١٩٩١", "ＡＢＣ", "пароль", "çà"]
    static let randomCharacters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!@#$%^&*-_=+?.,")
    static let userWords = ["jane", "JaneDoe", "jane.doe@example.com", "chirp", "corpus_user", "smithers", "Kettle42"]

    private var random: SeededRandom
    private let dictionaries: [[String]]

    /// Creates the generator over the shipped strength dictionaries.
    ///
    /// - Parameter seed: the same seed always yields the same samples.
    public init(seed: UInt64) {
        random = SeededRandom(seed: seed)
        dictionaries = StrengthDictionaries.shipped().map { dictionary in
            Array(dictionary.entries.prefix(20_000))
        }
    }

    /// The next sample.
    public mutating func next() -> Sample {
        var userInputs: [String] = []
        if random.chance(35) {
            userInputs = (0..<random.int(in: 1...3)).map { _ in random.pick(Self.userWords) }
        }
        var names: [String] = []
        var password = ""
        for _ in 0..<random.pick([1, 1, 2, 2, 2, 3, 3, 4]) {
            let (name, text) = piece(userInputs: userInputs)
            names.append(name)
            password += text
        }
        let scalars = password.unicodeScalars.prefix(72)
        if scalars.isEmpty { return Sample(password: "a", userInputs: userInputs, recipe: "word") }
        return Sample(password: String(String.UnicodeScalarView(scalars)), userInputs: userInputs, recipe: names.joined(separator: "+"))
    }

    private mutating func pieceName() -> String {
        var roll = random.int(in: 0...99)
        for piece in Self.pieces {
            if roll < piece.weight { return piece.name }
            roll -= piece.weight
        }
        return "word"
    }

    /// A common word: ranks drawn towards the top of a dictionary.
    private mutating func word() -> String {
        let list = random.pick(dictionaries)
        guard !list.isEmpty else { return "password" }
        let rank = min(list.count - 1, random.int(in: 0...99) * random.int(in: 0...99) * list.count / 10_000)
        return list[rank]
    }

    private mutating func piece(userInputs: [String]) -> (String, String) {
        let name = pieceName()
        switch name {
        case "capitalized-word":
            let base = word()
            return (name, base.prefix(1).uppercased() + base.dropFirst())
        case "uppercase-word":
            return (name, word().uppercased())
        case "l33t-word":
            var out = ""
            for character in word() {
                if let options = Self.l33t[character], random.chance(65) { out.append(random.pick(options)) } else { out.append(character) }
            }
            return (name, out)
        case "reversed-word":
            return (name, String(word().reversed()))
        case "keyboard-walk":
            let walk = Array(random.pick(Self.walks))
            let start = random.int(in: 0...max(0, walk.count - 3))
            let length = random.int(in: 3...max(3, walk.count - start))
            return (name, String(walk[start..<min(walk.count, start + length)]))
        case "repeat":
            if random.chance(50) {
                return (name, String(repeating: random.pick(Array("aAzx01!#")), count: random.int(in: 2...6)))
            }
            return (name, String(repeating: word(), count: random.int(in: 2...3)))
        case "sequence":
            let start = random.pick([0x61, 0x41, 0x30, 0x6D, 0x39, 0x7A, 0x3B1])
            let step = random.pick([1, 1, -1, 2, 3, -2])
            let length = random.int(in: 3...8)
            let scalars = (0..<length).compactMap { Unicode.Scalar(UInt32(max(0x21, start + step * $0))) }
            return (name, String(String.UnicodeScalarView(scalars)))
        case "date":
            let year = random.int(in: 1930...2030), month = random.int(in: 1...12), day = random.int(in: 1...28)
            let separator = random.pick(["", "", "/", "-", ".", "_", " "])
            func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
            switch random.int(in: 0...3) {
            case 0: return (name, "\(day)\(separator)\(month)\(separator)\(year)")
            case 1: return (name, "\(two(day))\(separator)\(two(month))\(separator)\(two(year % 100))")
            case 2: return (name, "\(year)\(separator)\(two(month))\(separator)\(two(day))")
            default: return (name, "\(month)\(separator)\(day)\(separator)\(two(year % 100))")
            }
        case "year":
            return (name, String(random.int(in: 1900...2030)))
        case "digits":
            return (name, String(random.int(in: 0...Int(pow10(random.int(in: 1...7))))))
        case "random":
            return (name, random.string(random.int(in: 1...10), from: Self.randomCharacters))
        case "user-input":
            guard let input = userInputs.first else { return ("word", word()) }
            let lowered = input.lowercased()
            if random.chance(30) {
                return (name, String(lowered.map { character in
                    Self.l33t[character].flatMap { random.chance(50) ? random.pick($0) : nil } ?? character
                }))
            }
            return (name, lowered)
        case "non-ascii":
            return (name, random.pick(Self.nonASCII))
        default:
            return ("word", word())
        }
    }

    private func pow10(_ exponent: Int) -> Int { (0..<exponent).reduce(1) { product, _ in product * 10 } }
}
