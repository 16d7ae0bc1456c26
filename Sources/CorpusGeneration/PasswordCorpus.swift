import FieldValidation

/// Labelled passwords for the shipped `password` pack, checked with the fixed ``context``.
///
/// A valid base is 2–5 made-up syllable words joined by `-` with a digit, 12–60 code points;
/// its syllables have no `r`, so it cannot contain any context value (all hold an `r`), and the
/// common list has no entry of that shape. Each record applies one mutation from ``mutations`` (or
/// none) and expects exactly its code. Synthetic data: these are not anybody's passwords.
public struct PasswordCorpus: FieldCorpus {
    /// Every mutation and the code it must produce (`valid`: none).
    public static let mutations: [(name: String, codes: [String])] = [
        ("valid", []), ("valid-multibyte-at-maximum", []), ("control-character", ["PW101"]),
        ("too-short", ["PW102"]), ("too-short-after-nfkc", ["PW102"]), ("too-long", ["PW103"]),
        ("too-long-multibyte", ["PW103"]), ("common", ["PW104"]), ("common-full-width", ["PW104"]),
        ("contains-username", ["PW105"]), ("contains-email", ["PW106"]), ("contains-app-name", ["PW107"]),
    ]

    /// The context every record is checked with (`validate password --username … --email … --app-name …`).
    public static let context = PasswordContext(username: "corpus_user", email: "corpus.mail+signup@example.com", appName: "RulesKit")
    /// The context values a mutation inserts, by mutation name.
    static let tokens = ["contains-username": "corpus_user", "contains-email": "corpus.mail", "contains-app-name": "RulesKit"]

    static let consonants = Array("bcdfghjklmnpstvwxyzBCDFGHJKLMNPSTVWXYZ")
    static let vowels = Array("aeiouAEIOUäöüéå")
    static let controls: [Unicode.Scalar] = ["\0", "\t", "\n", "\r", "\u{1B}", "\u{7F}", "\u{80}", "\u{85}", "\u{9F}"]
    /// Code points whose NFKC form is longer (`ﬃ` → `ffi`), for lengths counted after NFKC.
    static let expanding: [Unicode.Scalar] = ["\u{FB03}", "\u{FB00}", "\u{2474}", "\u{33A1}"]

    private var random: SeededRandom
    private let common: [String]

    /// Creates the generator.
    ///
    /// - Parameters:
    ///   - seed: the same seed always yields the same records.
    ///   - lists: where common passwords come from (the shipped list by default).
    public init(seed: UInt64, lists: CorpusLists = .shipped) {
        random = SeededRandom(seed: seed)
        let tokens = Self.tokens.values.map { $0.lowercased() } + ["corpus.mail+signup"]
        // ASCII entries only, so the full-width form maps back exactly under NFKC.
        common = lists.commonPasswords.filter { entry in
            entry.unicodeScalars.count >= 8 && entry.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F }
                && !tokens.contains { entry.lowercased().contains($0) }
        }
    }

    mutating func word() -> String {
        String((0..<random.int(in: 1...3)).flatMap { _ in [random.pick(Self.consonants), random.pick(Self.vowels)] })
    }

    /// A valid password of about `length` code points (12...60).
    mutating func base(_ length: Int = 0) -> String {
        let target = length > 0 ? length : random.int(in: 12...60)
        var words = [word(), String(random.pick(Alphabet.digits)) + word()]
        while words.joined(separator: "-").unicodeScalars.count < target { words.append(word()) }
        return String(words.joined(separator: "-").unicodeScalars.prefix(max(target, 12)).map(Character.init))
    }

    /// The next labelled password.
    public mutating func next() -> CorpusRecord {
        let mutation = Self.mutations[random.index(Self.mutations.count)]
        func record(_ value: String, _ detail: String = "") -> CorpusRecord {
            CorpusRecord(value: value, mutation: mutation.name, detail: detail, expect: mutation.codes)
        }
        switch mutation.name {
        case "valid": return record(base())
        case "valid-multibyte-at-maximum":
            return record(String(repeating: random.pick(["é", "ж", "中", "😀"]), count: 1024), "1024 code points")
        case "control-character":
            let password = base()
            let scalar = random.pick(Self.controls)
            let position = random.int(in: 0...password.unicodeScalars.count)
            return record(password.inserting(String(scalar), atScalar: position), "\(scalarName(scalar)) at \(position)")
        case "too-short":
            let length = random.int(in: 0...7)
            return record(random.string(length, from: Self.consonants + Self.vowels + Alphabet.digits), "\(length) code points")
        case "too-short-after-nfkc":
            // Fewer than 8 code points as typed and after NFKC.
            return record(String(String.UnicodeScalarView((0..<2).map { _ in random.pick(Self.expanding) })), "2 code points")
        case "too-long":
            let length = random.int(in: 1025...1200)
            return record(base(length), "\(length) code points")
        case "too-long-multibyte":
            return record(String(repeating: random.pick(["é", "ж", "中", "😀"]), count: 1025), "1025 code points")
        case "common", "common-full-width":
            guard !common.isEmpty else { return record(base()).relabelled("valid", []) }
            let entry = random.pick(common)
            let cased = String(entry.map { random.chance(30) ? Character($0.uppercased()) : $0 })
            guard mutation.name == "common-full-width" else { return record(cased) }
            // U+FF01...U+FF5E are the full-width forms of U+0021...U+007E; NFKC maps them back.
            let wide = cased.unicodeScalars.map { Unicode.Scalar($0.value + 0xFEE0) ?? $0 }
            return record(String(String.UnicodeScalarView(wide)))
        default:
            let password = base()
            let token = Self.tokens[mutation.name] ?? ""
            let cased = String(token.map { random.chance(30) ? Character($0.uppercased()) : $0 })
            let position = random.int(in: 0...password.unicodeScalars.count)
            return record(password.inserting(cased, atScalar: position), "at \(position)")
        }
    }
}
