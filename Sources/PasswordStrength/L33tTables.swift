/// zxcvbn's l33t table and the state of one walk.
enum L33t {
    /// Letter → the characters typed for it, in zxcvbn's order.
    static let table: [(letter: UInt32, typed: [UInt32])] = ([
        ("a", "4@"), ("b", "8"), ("c", "({[<"), ("e", "3"), ("g", "69"), ("i", "1!|"),
        ("l", "1|7"), ("o", "0"), ("s", "$5"), ("t", "+7"), ("x", "%"), ("z", "2"),
    ] as [(String, String)]).map { letter, typed in
        (letter.unicodeScalars.first?.value ?? 0, typed.unicodeScalars.map(\.value))
    }

    /// Every typed character once, in order of first appearance.
    static let characters: [UInt32] = {
        var seen: [UInt32] = []
        for entry in table { for character in entry.typed where !seen.contains(character) { seen.append(character) } }
        return seen
    }()

    /// ASCII code point → index in ``characters``, or -1.
    private static let indexTable: [Int] = {
        var table = [Int](repeating: -1, count: 128)
        for (index, character) in characters.enumerated() { table[Int(character)] = index }
        return table
    }()

    @inline(__always)
    static func index(of character: UInt32) -> Int { character < 128 ? indexTable[Int(character)] : -1 }

    /// For each typed character, the letters (indices into ``table``) it can stand for.
    static let lettersOf: [[Int]] = characters.map { character in table.indices.filter { table[$0].typed.contains(character) } }

    /// For each letter, its typed characters as a bit set over ``characters``.
    static let charactersOf: [UInt32] = typedIndices.map { $0.reduce(0) { $0 | 1 << $1 } }

    /// For each typed character, the letters it can stand for as a bit set over ``table``.
    static let lettersMask: [UInt16] = lettersOf.map { $0.reduce(0) { $0 | 1 << $1 } }

    /// Each letter of ``table``.
    static let letterCharacters: [UInt32] = table.map(\.letter)

    /// Groups of letters that share a typed character, transitively (`i`, `l` and `t` through `1`,
    /// `|` and `7`): their letters and their characters, as bit sets. Every other letter is alone.
    static let sharingGroups: [(letters: UInt16, characters: UInt32)] = {
        var groups: [(letters: UInt16, characters: UInt32)] = table.indices.map { (1 << $0, charactersOf[$0]) }
        var index = 0
        while index < groups.count {
            if let other = groups.indices.first(where: { $0 > index && groups[$0].characters & groups[index].characters != 0 }) {
                groups[index].letters |= groups[other].letters
                groups[index].characters |= groups[other].characters
                groups.remove(at: other)
            } else {
                index += 1
            }
        }
        return groups.filter { $0.letters.nonzeroBitCount > 1 }
    }()

    /// The letters in no ``sharingGroups`` entry.
    static let aloneLetters: UInt16 = sharingGroups.reduce(UInt16(1 << table.count) - 1) { $0 & ~$1.letters }

    /// Whether one of ``substitutionTables(present:)`` agrees with every decided choice of
    /// `state`, without building the tables.
    ///
    /// The tables are exactly the maps from present typed characters to letters in which each
    /// letter has at most one character and every letter with a present character has one of its
    /// characters mapped (to it or to another letter): a letter whose characters are all free when
    /// its turn comes must take one, a character once taken stays taken, and any other such map
    /// can be reached (checked against the enumeration by the tests). So the choices are some
    /// table's when the characters not decided can be mapped, each to a distinct letter not taken
    /// by the choices, so that every such letter is covered.
    static func isTableChoice(_ state: L33tState, present: UInt32) -> Bool {
        let undecided = present & ~state.decided
        var mapped: UInt32 = 0
        var rest = state.decided
        while rest != 0 {
            let index = rest.trailingZeroBitCount
            rest &= rest - 1
            if state.choice[index] != L33tState.literal { mapped |= 1 << index }
        }
        var alone = aloneLetters
        while alone != 0 {
            let letter = alone.trailingZeroBitCount
            alone &= alone - 1
            let characters = charactersOf[letter] & present
            // A letter alone can only be covered by its own characters.
            if characters != 0 && characters & mapped == 0 && characters & undecided == 0 { return false }
        }
        for group in sharingGroups
        where !canCover(group.letters, group.characters & undecided, present: present, mapped: mapped, taken: state.taken) {
            return false
        }
        return true
    }

    /// Whether the characters `free` of a group of letters sharing characters can be mapped, each
    /// to a distinct letter of the group not in `taken`, so that every letter of the group with a
    /// present character has a mapped character. At most 3⁵ assignments (`1 ! | 7 +`).
    private static func canCover(_ letters: UInt16, _ free: UInt32, present: UInt32, mapped: UInt32, taken: UInt16) -> Bool {
        func covered(_ assigned: UInt32) -> Bool {
            var rest = letters
            while rest != 0 {
                let letter = rest.trailingZeroBitCount
                rest &= rest - 1
                let characters = charactersOf[letter] & present
                if characters != 0 && characters & (mapped | assigned) == 0 { return false }
            }
            return true
        }
        func search(_ candidates: UInt32, _ assigned: UInt32, _ used: UInt16) -> Bool {
            if covered(assigned) { return true }
            guard candidates != 0 else { return false }
            let character = candidates.trailingZeroBitCount
            let others = candidates & (candidates - 1)
            var options = lettersMask[character] & ~(taken | used)
            while options != 0 {
                let letter = options.trailingZeroBitCount
                options &= options - 1
                if search(others, assigned | 1 << character, used | 1 << letter) { return true }
            }
            return search(others, assigned, used)
        }
        return search(free, 0, 0)
    }

    /// zxcvbn's substitution tables for a password holding the typed characters `present`: each
    /// maps some typed characters to a letter (`table[c]`, or ``L33tState/literal`` for none).
    ///
    /// Built letter by letter in table order: each table takes one of the letter's present
    /// characters; a character another letter already took is either left there (the table is
    /// kept as it is) or moved to this letter. Equal tables are kept once. At most 736 (every
    /// typed character present).
    static func substitutionTables(present: UInt32) -> [SubstitutionTable] {
        var tables = [SubstitutionTable()]
        var next: [SubstitutionTable] = []
        var seen = Set<SubstitutionTable>()
        func keep(_ table: SubstitutionTable) {
            // Few tables as a rule: a linear search beats hashing, up to a point.
            if next.count < 16 {
                if !next.contains(table) { next.append(table) }
                return
            }
            if seen.isEmpty { seen.formUnion(next) }
            if seen.insert(table).inserted { next.append(table) }
        }
        for (letter, typed) in typedIndices.enumerated() {
            guard typed.contains(where: { present & 1 << $0 != 0 }) else { continue }
            next.removeAll(keepingCapacity: true)
            seen.removeAll(keepingCapacity: true)
            for character in typed where present & 1 << character != 0 {
                for table in tables {
                    if table[character] != SubstitutionTable.none { keep(table) }
                    var extended = table
                    extended[character] = UInt8(letter)
                    keep(extended)
                }
            }
            swap(&tables, &next)
        }
        return tables
    }

    /// For each letter of ``table``, its typed characters as indices into ``characters``.
    static let typedIndices: [[Int]] = table.map { $0.typed.map { index(of: $0) } }
}

/// For each of the 20 typed characters of ``L33t/characters``, the letter (an index into
/// ``L33t/table``) it stands for, or ``none``: 4 bits each, in two words.
struct SubstitutionTable: Hashable {
    static let none: UInt8 = 0xF
    var low: UInt64 = .max
    var high: UInt64 = .max

    /// Every character stands for none.
    init() {}

    init(low: UInt64, high: UInt64) {
        self.low = low
        self.high = high
    }

    /// Every nibble `value`.
    init(repeating value: UInt8) {
        let word = UInt64(value & 0xF) &* 0x1111_1111_1111_1111
        low = word
        high = word
    }

    @inline(__always)
    subscript(index: Int) -> UInt8 {
        get { UInt8(truncatingIfNeeded: (index < 16 ? low >> (4 * index) : high >> (4 * (index - 16))) & 0xF) }
        set {
            let value = UInt64(newValue & 0xF)
            if index < 16 {
                low = low & ~(0xF << (4 * index)) | value << (4 * index)
            } else {
                high = high & ~(0xF << (4 * (index - 16))) | value << (4 * (index - 16))
            }
        }
    }

    /// True when no character stands for a letter.
    var isEmpty: Bool { low == .max && high == .max }

    /// The substitutions, in the order of ``L33t/characters``.
    var substitutions: [DictionaryMatch.Substitution] {
        L33t.characters.indices.compactMap { index in
            let letter = self[index]
            guard letter != Self.none, let typed = Unicode.Scalar(L33t.characters[index]),
                  let plain = Unicode.Scalar(L33t.table[Int(letter)].letter) else { return nil }
            return DictionaryMatch.Substitution(typed: typed, letter: plain)
        }
    }
}

/// The choices of one l33t walk: for each typed character, undecided, itself (``literal``), or a
/// letter; which letters are taken; which characters are decided.
struct L33tState {
    static let undecided: UInt8 = 0xE
    static let literal: UInt8 = SubstitutionTable.none

    var choice = SubstitutionTable(repeating: undecided)
    /// Bit `l`: letter `l` has a character standing for it.
    var taken: UInt16 = 0
    /// Bit `c`: typed character `c` is decided.
    var decided: UInt32 = 0
    /// How many decided characters stand for a letter.
    var mapped = 0

    /// The decided choices as a table (undecided and literal characters stand for none).
    var substitutions: SubstitutionTable {
        var table = SubstitutionTable()
        var rest = decided
        while rest != 0 {
            let index = rest.trailingZeroBitCount
            rest &= rest - 1
            if choice[index] != Self.literal { table[index] = choice[index] }
        }
        return table
    }

    /// The bits of ``SubstitutionTable`` that the decided characters occupy.
    var decidedMask: SubstitutionTable {
        var mask = SubstitutionTable(repeating: 0)
        var rest = decided
        while rest != 0 {
            let index = rest.trailingZeroBitCount
            rest &= rest - 1
            mask[index] = 0xF
        }
        return mask
    }

    mutating func reset() {
        self = L33tState()
    }
}
