/// Every word of every dictionary in one prefix tree, so that all words starting at one position
/// of the password are found in one walk (and all words ending there, walking backwards).
///
/// One buffer of 32-bit words, built once and never written again (hence `@unchecked Sendable`),
/// nodes in depth-first order so that a walk down the tree reads nearby memory. A node is its
/// offset in the buffer: `[childCount | termCount << 16, termStart, child characters…, child
/// offsets…]`, children sorted by character; its words end in `terms[termStart ..< termStart +
/// termCount]` (one per dictionary holding the word, in dictionary order).
final class Lexicon: @unchecked Sendable {
    struct Term: Sendable {
        var dictionary: Int32
        var rank: Int32
    }

    private let words: UnsafeMutableBufferPointer<UInt32>
    private let terms: UnsafeMutableBufferPointer<Term>
    /// The root's children by ASCII code point (the root is searched from every position).
    private let firstLevel: UnsafeMutableBufferPointer<Int32>
    /// The node after two ASCII code points (`a * 128 + b`), or -1: most walks end within a few
    /// steps, and the first two are the widest.
    private let secondLevel: UnsafeMutableBufferPointer<Int32>
    /// Nodes in the tree.
    let nodeCount: Int

    static let root: Int32 = 0

    /// Builds the tree; `dictionaries[d]` lists dictionary `d`'s words in rank order (rank 1
    /// first). A word listed twice in one dictionary keeps its last rank (zxcvbn's ranked
    /// dictionaries are Python dictionaries built in list order).
    private struct Node {
        var childStart: Int32 = 0
        var childCount: Int32 = 0
        var termStart: Int32 = 0
        var termCount: Int32 = 0
    }

    init(dictionaries: [[[UInt32]]]) {
        var entries: [(word: [UInt32], term: Term)] = []
        entries.reserveCapacity(dictionaries.reduce(0) { $0 + $1.count })
        for (dictionary, words) in dictionaries.enumerated() {
            for (index, word) in words.enumerated() where !word.isEmpty {
                entries.append((word, Term(dictionary: Int32(dictionary), rank: Int32(clamping: index + 1))))
            }
        }
        // A prefix sorts before its extensions, so each node's own words start its range.
        entries.sort { a, b in
            a.word == b.word ? (a.term.dictionary, a.term.rank) < (b.term.dictionary, b.term.rank)
                : a.word.lexicographicallyPrecedes(b.word)
        }
        var nodes: [Node] = [Node()]
        var edgeCharacter: [UInt32] = [], edgeTarget: [Int32] = [], terms: [Term] = []
        // Breadth first, so that each node's edges are appended together.
        var queue: [(range: Range<Int>, depth: Int)] = [(0..<entries.count, 0)]
        var head = 0
        while head < queue.count {
            let (range, depth) = queue[head]
            let node = head
            head += 1
            var index = range.lowerBound
            nodes[node].termStart = Int32(terms.count)
            while index < range.upperBound && entries[index].word.count == depth {
                // One term per dictionary: a repeated word keeps its last rank, as zxcvbn's
                // ranked dictionaries do.
                if terms.count > Int(nodes[node].termStart) && terms[terms.count - 1].dictionary == entries[index].term.dictionary {
                    terms[terms.count - 1] = entries[index].term
                } else {
                    terms.append(entries[index].term)
                }
                index += 1
            }
            nodes[node].termCount = Int32(terms.count) - nodes[node].termStart
            nodes[node].childStart = Int32(edgeCharacter.count)
            while index < range.upperBound {
                let character = entries[index].word[depth]
                var end = index + 1
                while end < range.upperBound && entries[end].word[depth] == character { end += 1 }
                edgeCharacter.append(character)
                edgeTarget.append(Int32(queue.count))
                queue.append((index..<end, depth + 1))
                nodes.append(Node())
                index = end
            }
            nodes[node].childCount = Int32(edgeCharacter.count) - nodes[node].childStart
        }
        // Depth first, children in order: each node's offset in the buffer.
        var offsets = [Int32](repeating: 0, count: nodes.count)
        var size = 0
        var stack = [0]
        while let node = stack.popLast() {
            offsets[node] = Int32(size)
            size += 2 + 2 * Int(nodes[node].childCount)
            let first = Int(nodes[node].childStart)
            for edge in stride(from: first + Int(nodes[node].childCount) - 1, through: first, by: -1) {
                stack.append(Int(edgeTarget[edge]))
            }
        }
        let words = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: max(size, 2))
        words.initialize(repeating: 0)
        for (node, info) in nodes.enumerated() {
            let at = Int(offsets[node]), count = Int(info.childCount)
            words[at] = UInt32(count) | UInt32(info.termCount) << 16
            words[at + 1] = UInt32(info.termStart)
            for edge in 0..<count {
                words[at + 2 + edge] = edgeCharacter[Int(info.childStart) + edge]
                words[at + 2 + count + edge] = UInt32(offsets[Int(edgeTarget[Int(info.childStart) + edge])])
            }
        }
        self.words = words
        self.nodeCount = nodes.count
        let termBuffer = UnsafeMutableBufferPointer<Term>.allocate(capacity: max(terms.count, 1))
        _ = termBuffer.initialize(from: terms)
        self.terms = termBuffer
        func slowChild(_ node: Int32, _ character: UInt32) -> Int32 {
            let count = Int(words[Int(node)] & 0xFFFF)
            for edge in 0..<count where words[Int(node) + 2 + edge] == character {
                return Int32(words[Int(node) + 2 + count + edge])
            }
            return -1
        }
        let firstLevel = UnsafeMutableBufferPointer<Int32>.allocate(capacity: 128)
        for first in 0..<128 { firstLevel[first] = slowChild(Self.root, UInt32(first)) }
        self.firstLevel = firstLevel
        let secondLevel = UnsafeMutableBufferPointer<Int32>.allocate(capacity: 128 * 128)
        secondLevel.initialize(repeating: -1)
        for first in 0..<128 where firstLevel[first] >= 0 {
            for second in 0..<128 { secondLevel[first * 128 + second] = slowChild(firstLevel[first], UInt32(second)) }
        }
        self.secondLevel = secondLevel
    }

    deinit {
        words.deallocate()
        terms.deallocate()
        firstLevel.deallocate()
        secondLevel.deallocate()
    }

    /// The child of `node` along `character`, or -1.
    @inline(__always)
    func child(_ node: Int32, _ character: UInt32) -> Int32 {
        if node == Self.root && character < 128 { return firstLevel[Int(character)] }
        let at = Int(node)
        let count = Int(words[at] & 0xFFFF)
        var edge = at + 2
        let end = edge + count
        while edge < end {
            let found = words[edge]
            if found == character { return Int32(bitPattern: words[edge + count]) }
            if found > character { return -1 }
            edge += 1
        }
        return -1
    }

    /// The node after the ASCII code points `first` and `second` (each below 128), or -1.
    @inline(__always)
    func node(_ first: UInt32, _ second: UInt32) -> Int32 {
        secondLevel[Int(first &<< 7 | second)]
    }

    /// The words ending at `node`: one term per dictionary holding the word, in dictionary order.
    @inline(__always)
    func terms(_ node: Int32) -> UnsafeMutableBufferPointer<Term> {
        let count = Int(words[Int(node)] >> 16), start = Int(words[Int(node) + 1])
        return UnsafeMutableBufferPointer(rebasing: terms[start..<start + count])
    }

    /// Whether a word ends at `node`.
    @inline(__always)
    func isTerminal(_ node: Int32) -> Bool { words[Int(node)] >> 16 != 0 }
}
