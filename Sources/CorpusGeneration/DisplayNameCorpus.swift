/// Labelled display names for the shipped `display-name` pack (3–30 code points of
/// `[A-Za-z0-9._]`, period placement, reserved names and their look-alikes).
///
/// A valid base is one or more runs of `[A-Za-z0-9_]` joined by single periods and always holds a
/// digit 2–9, which no reserved name's look-alike key contains, so it can never be reserved. Each
/// record applies one mutation from ``mutations`` (or none) and expects exactly its code.
public struct DisplayNameCorpus: FieldCorpus {
    /// Every mutation and the code it must produce (`valid`: none).
    public static let mutations: [(name: String, codes: [String])] = [
        ("valid", []), ("too-short", ["DN101"]), ("too-long", ["DN102"]),
        ("forbidden-character", ["DN103"]), ("control-character", ["DN103"]), ("format-character", ["DN103"]),
        ("bidi-character", ["DN103"]), ("look-alike-letter", ["DN103"]), ("combining-mark", ["DN103"]),
        ("leading-period", ["DN104"]), ("trailing-period", ["DN105"]), ("double-period", ["DN106"]),
        ("reserved", ["DN107"]), ("reserved-look-alike", ["DN108"]),
    ]

    /// Printable ASCII and non-ASCII letters outside the allowed set (no `|`: it is a look-alike of `l`).
    static let forbidden: [Unicode.Scalar] = [" ", "-", "@", "+", "!", "#", "$", "%", "&", "'", "(", ")", "*", ",",
                                              "/", ":", ";", "<", "=", ">", "?", "[", "\\", "]", "^", "`", "{", "}", "~",
                                              "\"", "é", "ß", "ø", "ñ", "я", "中", "😀"]
    static let controls: [Unicode.Scalar] = ["\0", "\t", "\n", "\r", "\u{1B}", "\u{7F}", "\u{85}", "\u{9F}"]
    static let formats: [Unicode.Scalar] = ["\u{AD}", "\u{200B}", "\u{200C}", "\u{200D}", "\u{2060}", "\u{FEFF}"]
    static let bidi: [Unicode.Scalar] = ["\u{200E}", "\u{200F}", "\u{202A}", "\u{202B}", "\u{202C}", "\u{202D}",
                                         "\u{202E}", "\u{2066}", "\u{2067}", "\u{2068}", "\u{2069}"]
    /// Letters that render like allowed ones: KELVIN SIGN, full-width, Cyrillic, Greek, dotless i.
    static let lookalikes: [Unicode.Scalar] = ["\u{212A}", "\u{FF41}", "\u{FF21}", "\u{FF10}", "\u{0430}", "\u{043E}",
                                               "\u{0435}", "\u{03BF}", "\u{0131}", "\u{FF3F}", "\u{FF0E}"]
    static let marks: [Unicode.Scalar] = ["\u{0301}", "\u{0308}", "\u{0327}", "\u{20DD}", "\u{FE0F}"]

    private var random: SeededRandom
    private let reserved: [String]
    private let reservedSet: Set<String>

    /// Creates the generator.
    ///
    /// - Parameters:
    ///   - seed: the same seed always yields the same records.
    ///   - lists: where reserved names come from (the shipped list by default).
    public init(seed: UInt64, lists: CorpusLists = .shipped) {
        random = SeededRandom(seed: seed)
        reserved = lists.reservedNames.filter { (3...30).contains($0.count) && $0.allSatisfy { Alphabet.word.contains($0) } }
        reservedSet = Set(reserved)
    }

    /// A valid name of `length` code points (3...30).
    mutating func base(length: Int) -> String {
        var chars: [Character] = []
        while chars.count < length {
            let canPeriod = !chars.isEmpty && chars.last != "." && chars.count < length - 1
            chars.append(canPeriod && random.chance(12) ? "." : random.pick(Alphabet.word))
        }
        // INVARIANT: a digit 2–9 keeps the name off the reserved list and its look-alikes.
        let slots = chars.indices.filter { chars[$0] != "." }
        chars[random.pick(slots)] = random.pick(Alphabet.safeDigits)
        return String(chars)
    }

    /// The next labelled display name.
    public mutating func next() -> CorpusRecord {
        let mutation = Self.mutations[random.index(Self.mutations.count)]
        func record(_ value: String, _ detail: String = "") -> CorpusRecord {
            CorpusRecord(value: value, mutation: mutation.name, detail: detail, expect: mutation.codes)
        }
        switch mutation.name {
        case "valid":
            return record(base(length: random.int(in: 3...30)))
        case "too-short":
            let length = random.int(in: 0...2)
            return record(random.string(length, from: Alphabet.word), "\(length) code points")
        case "too-long":
            let length = random.int(in: 31...80)
            return record(base(length: length), "\(length) code points")
        case "forbidden-character", "control-character", "format-character", "bidi-character",
             "look-alike-letter", "combining-mark":
            let pool = switch mutation.name {
            case "forbidden-character": Self.forbidden
            case "control-character": Self.controls
            case "format-character": Self.formats
            case "bidi-character": Self.bidi
            case "look-alike-letter": Self.lookalikes
            default: Self.marks
            }
            let name = base(length: random.int(in: 3...30))
            let scalar = random.pick(pool)
            let position = random.index(name.unicodeScalars.count)
            // Replacing one code point keeps the length; the replaced one may be the only safe
            // digit, but a forbidden code point is in no reserved key either.
            return record(name.replacing(scalarAt: position, with: scalar), "\(scalarName(scalar)) at \(position)")
        case "leading-period":
            return record("." + base(length: random.int(in: 3...29)))
        case "trailing-period":
            return record(base(length: random.int(in: 3...29)) + ".")
        case "double-period":
            return doublePeriod(mutation)
        case "reserved":
            guard !reserved.isEmpty else { return record(base(length: 10)).relabelled("valid", []) }
            let name = random.pick(reserved)
            return record(String(name.map { random.chance(30) ? Character($0.uppercased()) : $0 }), name)
        default:
            return lookalike(mutation)
        }
    }

    private mutating func doublePeriod(_ mutation: (name: String, codes: [String])) -> CorpusRecord {
        while true {
            let name = Array(base(length: random.int(in: 3...28)))
            let gaps = (1..<name.count).filter { name[$0 - 1] != "." && name[$0] != "." }
            guard !gaps.isEmpty else { continue }
            let gap = random.pick(gaps)
            return CorpusRecord(value: String(name[..<gap]) + ".." + String(name[gap...]), mutation: mutation.name,
                                detail: "at \(gap)", expect: mutation.codes)
        }
    }

    /// A reserved name with at least one letter swapped for a look-alike (`l`→`1`/`i`/`I`,
    /// `o`→`0`, `m`→`rn`) whose canonical key is not itself reserved.
    private mutating func lookalike(_ mutation: (name: String, codes: [String])) -> CorpusRecord {
        let candidates = reserved.filter { $0.contains { "lom".contains($0) } }
        for _ in 0..<16 where !candidates.isEmpty {
            let name = random.pick(candidates)
            var out = ""
            var changed = false
            for char in name {
                let swap = random.chance(50) || (!changed && char == name.last(where: { "lom".contains($0) }))
                switch (char, swap) {
                case ("l", true): out += random.pick(["1", "i", "I"]); changed = true
                case ("o", true): out.append("0"); changed = true
                case ("m", true) where name.count < 30: out += "rn"; changed = true
                default: out.append(char)
                }
            }
            if changed, !reservedSet.contains(out.lowercased()), out.count <= 30 {
                return CorpusRecord(value: out, mutation: mutation.name, detail: name, expect: mutation.codes)
            }
        }
        return CorpusRecord(value: base(length: 12), mutation: "valid", expect: [])
    }
}

extension CorpusRecord {
    func relabelled(_ mutation: String, _ expect: [String]) -> CorpusRecord {
        CorpusRecord(value: value, mutation: mutation, detail: "", expect: expect)
    }
}
