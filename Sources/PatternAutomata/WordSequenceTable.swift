// Interning of short sequences of 32-bit words, the keys of subset construction (a DFA state's
// threads) and of minimization (a state's block and its successors' blocks). A flat store and an
// open-addressing index: no per-key allocation, and a multiply-rotate hash instead of SipHash.

/// Numbers distinct word sequences from 0, in the order they are first seen.
struct WordSequenceTable {
    /// Every sequence's words, one after another.
    private var words: [UInt32] = []
    /// Where each sequence ends in ``words`` (it starts where the previous one ends).
    private var ends: [Int] = []
    private var hashes: [UInt64] = []
    /// Sequence number + 1 per slot, 0 for an empty slot; the count is a power of two.
    private var slots: [Int32]

    init(capacity: Int = 64) {
        var size = 16
        while size < capacity * 2 { size *= 2 }
        slots = [Int32](repeating: 0, count: size)
        ends.reserveCapacity(capacity)
        hashes.reserveCapacity(capacity)
    }

    /// How many distinct sequences there are.
    var count: Int { ends.count }

    /// Sequence `index`'s words.
    func sequence(_ index: Int) -> ArraySlice<UInt32> {
        words[(index == 0 ? 0 : ends[index - 1])..<ends[index]]
    }

    /// Sequence `index`'s words, copied into `buffer` (replacing its contents).
    func copy(_ index: Int, into buffer: inout [UInt32]) {
        buffer.removeAll(keepingCapacity: true)
        buffer.append(contentsOf: sequence(index))
    }

    /// The number of `sequence`, and whether it was added (not seen before).
    mutating func intern(_ sequence: [UInt32]) -> (index: Int, added: Bool) {
        let hash = Self.hash(sequence)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 {
            let index = Int(slots[slot]) - 1
            if hashes[index] == hash, equals(index, sequence) { return (index, false) }
            slot = (slot + 1) & mask
        }
        slots[slot] = Int32(ends.count + 1)
        words.append(contentsOf: sequence)
        ends.append(words.count)
        hashes.append(hash)
        if ends.count * 2 > slots.count { grow() }
        return (ends.count - 1, true)
    }

    /// Whether sequence `index` is `sequence`.
    private func equals(_ index: Int, _ sequence: [UInt32]) -> Bool {
        let start = index == 0 ? 0 : ends[index - 1]
        guard ends[index] - start == sequence.count else { return false }
        return words.withUnsafeBufferPointer { words in
            sequence.withUnsafeBufferPointer { sequence in
                for offset in sequence.indices where words[start + offset] != sequence[offset] { return false }
                return true
            }
        }
    }

    private mutating func grow() {
        slots = [Int32](repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for (index, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(index + 1)
        }
    }

    /// A multiply-rotate hash (as rustc's FxHash), folded so the low bits index slots well.
    private static func hash(_ sequence: [UInt32]) -> UInt64 {
        var hash = UInt64(truncatingIfNeeded: sequence.count)
        for word in sequence {
            hash = ((hash << 5) | (hash >> 59)) ^ UInt64(word)
            hash = hash &* 0x517C_C1B7_2722_0A95
        }
        return hash ^ (hash >> 29)
    }
}
