/// A keyboard as the spatial matcher sees it: for each key, its neighbours in a fixed order of
/// directions. Built from a drawing of the layout, as zxcvbn builds its adjacency graphs.
final class KeyboardGraph: Sendable {
    /// A key: its characters, unshifted first (`"2@"`; keypad keys have one).
    struct Key: Sendable {
        var characters: [UInt32]
        /// For each direction, the neighbouring key's index, or -1 at an edge.
        var neighbours: [Int]
    }

    let name: KeyboardGraphName
    let keys: [Key]
    /// ASCII code point → the index of its key, or -1 (every layout character is ASCII).
    let keyOfCharacter: [Int]
    /// Whether a pattern's first character counts as shifted (the two keyboards, not the keypads).
    let countsShiftedStart: Bool
    /// zxcvbn's starting positions: the number of characters in the graph.
    let startingPositions: Double
    /// zxcvbn's average degree: neighbours per character, on average.
    let averageDegree: Double
    /// `previous * 128 + next` (ASCII) → 0 when `next` is on no key next to `previous`'s, else
    /// the direction + 1, plus 0x80 when `next` is the shifted character of its key.
    private let adjacency: [UInt8]

    /// Builds a graph from rows of space-separated key tokens (all the same length).
    ///
    /// Slanted keyboards indent each row by one more column than the row above; a key's
    /// neighbours there are left, upper left, upper right, right, lower right, lower left (in
    /// that order). Aligned keypads have eight neighbours, clockwise from the left.
    init(name: KeyboardGraphName, rows: [String], slanted: Bool) {
        let tokenLength = rows.lazy.flatMap { $0.split(separator: " ") }.first?.count ?? 1
        var position: [Pair: Int] = [:]
        var keys: [Key] = []
        var coordinates: [Pair] = []
        for (row, line) in rows.enumerated() {
            let characters = Array(line.unicodeScalars)
            var column = 0
            while column < characters.count {
                guard characters[column] != " " else { column += 1; continue }
                let token = characters[column..<min(column + tokenLength, characters.count)].map(\.value)
                // INVARIANT: the drawing puts every token on the grid (checked by the tests).
                let x = (column - (slanted ? row : 0)) / (tokenLength + 1)
                let at = Pair(x, row)
                position[at] = keys.count
                coordinates.append(at)
                keys.append(Key(characters: token, neighbours: []))
                column += tokenLength
            }
        }
        let directions: [Pair] = slanted
            ? [Pair(-1, 0), Pair(0, -1), Pair(1, -1), Pair(1, 0), Pair(0, 1), Pair(-1, 1)]
            : [Pair(-1, 0), Pair(-1, -1), Pair(0, -1), Pair(1, -1), Pair(1, 0), Pair(1, 1), Pair(0, 1), Pair(-1, 1)]
        var keyOfCharacter = [Int](repeating: -1, count: 128)
        var neighbourCount = 0, characterCount = 0
        for index in keys.indices {
            let at = coordinates[index]
            keys[index].neighbours = directions.map { position[Pair(at.x + $0.x, at.y + $0.y)] ?? -1 }
            for character in keys[index].characters where character < 128 {
                keyOfCharacter[Int(character)] = index
                characterCount += 1
                neighbourCount += keys[index].neighbours.count { $0 >= 0 }
            }
        }
        var adjacency = [UInt8](repeating: 0, count: 128 * 128)
        for previous in 0..<128 where keyOfCharacter[previous] >= 0 {
            for (direction, neighbour) in keys[keyOfCharacter[previous]].neighbours.enumerated() where neighbour >= 0 {
                for (position, next) in keys[neighbour].characters.enumerated() where next < 128 && adjacency[previous * 128 + Int(next)] == 0 {
                    adjacency[previous * 128 + Int(next)] = UInt8(direction + 1) | (position == 1 ? 0x80 : 0)
                }
            }
        }
        self.adjacency = adjacency
        self.name = name
        self.keys = keys
        self.keyOfCharacter = keyOfCharacter
        self.countsShiftedStart = slanted
        self.startingPositions = Double(characterCount)
        self.averageDegree = Double(neighbourCount) / Double(max(characterCount, 1))
    }

    private struct Pair: Hashable {
        var x: Int, y: Int
        init(_ x: Int, _ y: Int) { self.x = x; self.y = y }
    }

    /// How `next` lies from `previous`: nil when not on a neighbouring key, else the direction
    /// (an index into the neighbour order) and whether `next` is shifted.
    @inline(__always)
    func step(from previous: UInt32, to next: UInt32) -> (direction: Int, shifted: Bool)? {
        guard previous < 128 && next < 128 else { return nil }
        let entry = adjacency[Int(previous &<< 7 | next)]
        guard entry != 0 else { return nil }
        return (Int(entry & 0x7F) - 1, entry & 0x80 != 0)
    }

    // MARK: - The layouts

    static let qwerty = KeyboardGraph(name: .qwerty, rows: [
        "`~ 1! 2@ 3# 4$ 5% 6^ 7& 8* 9( 0) -_ =+",
        "    qQ wW eE rR tT yY uU iI oO pP [{ ]} \\|",
        "     aA sS dD fF gG hH jJ kK lL ;: '\"",
        "      zZ xX cC vV bB nN mM ,< .> /?",
    ], slanted: true)

    static let dvorak = KeyboardGraph(name: .dvorak, rows: [
        "`~ 1! 2@ 3# 4$ 5% 6^ 7& 8* 9( 0) [{ ]}",
        "    '\" ,< .> pP yY fF gG cC rR lL /? =+ \\|",
        "     aA oO eE uU iI dD hH tT nN sS -_",
        "      ;: qQ jJ kK xX bB mM wW vV zZ",
    ], slanted: true)

    static let keypad = KeyboardGraph(name: .keypad, rows: [
        "  / * -",
        "7 8 9 +",
        "4 5 6",
        "1 2 3",
        "  0 .",
    ], slanted: false)

    static let macKeypad = KeyboardGraph(name: .macKeypad, rows: [
        "  = / *",
        "7 8 9 -",
        "4 5 6 +",
        "1 2 3",
        "  0 .",
    ], slanted: false)

    /// In zxcvbn's order (it decides between equally good matches).
    static let all = [qwerty, dvorak, keypad, macKeypad]

    /// ``step(from:to:)`` of every graph in one table: `previous * 128 + next` (ASCII) → one byte
    /// per graph of ``all`` (graph `g` in bits `8g ..< 8g + 8`): 0, or the direction + 1 plus 0x80
    /// when shifted.
    static let steps: [UInt32] = {
        var table = [UInt32](repeating: 0, count: 128 * 128)
        for (index, graph) in all.enumerated() {
            for previous in 0..<128 {
                for next in 0..<128 {
                    guard let (direction, shifted) = graph.step(from: UInt32(previous), to: UInt32(next)) else { continue }
                    let byte = UInt32(direction + 1) | (shifted ? 0x80 : 0)
                    table[previous * 128 + next] |= byte << (8 * index)
                }
            }
        }
        return table
    }()

    /// Characters typed with shift on the two keyboards (zxcvbn's `SHIFTED_RX`).
    static let isShifted: [Bool] = {
        var table = [Bool](repeating: false, count: 128)
        for character in "~!@#$%^&*()_+QWERTYUIOP{}|ASDFGHJKL:\"ZXCVBNM<>?".unicodeScalars {
            table[Int(character.value)] = true
        }
        return table
    }()
}
