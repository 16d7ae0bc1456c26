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

    /// Sequence `index`'s words, copied into `buffer` (replacing its contents).
    func copy(_ index: Int, into buffer: inout WordBuffer) {
        buffer.removeAll()
        for word in words[(index == 0 ? 0 : ends[index - 1])..<ends[index]] { buffer.append(word) }
    }

    /// The number of `buffer`'s words, and whether they were added (not seen before).
    mutating func intern(_ buffer: borrowing WordBuffer) -> (index: Int, added: Bool) {
        let sequence = buffer.words
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
    private func equals(_ index: Int, _ sequence: UnsafeBufferPointer<UInt32>) -> Bool {
        let start = index == 0 ? 0 : ends[index - 1]
        guard ends[index] - start == sequence.count else { return false }
        return words.withUnsafeBufferPointer { words in
            for offset in sequence.indices where words[start + offset] != sequence[offset] { return false }
            return true
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
    private static func hash(_ sequence: UnsafeBufferPointer<UInt32>) -> UInt64 {
        var hash = UInt64(truncatingIfNeeded: sequence.count)
        for word in sequence {
            hash = ((hash << 5) | (hash >> 59)) ^ UInt64(word)
            hash = hash &* 0x517C_C1B7_2722_0A95
        }
        return hash ^ (hash >> 29)
    }
}

/// A growable run of words over raw memory, reused for every key of a construction: appending
/// and emptying it costs no uniqueness check, copy-on-write or generic range replacement.
struct WordBuffer: ~Copyable {
    // INVARIANT: `base` holds `capacity` words, the first `count` initialized; freed in `deinit`.
    private var base: UnsafeMutablePointer<UInt32>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int = 64) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit { base.deallocate() }

    /// The words, valid until the buffer next changes.
    var words: UnsafeBufferPointer<UInt32> { UnsafeBufferPointer(start: base, count: count) }

    subscript(index: Int) -> UInt32 { base[index] }

    mutating func removeAll() { count = 0 }

    @inline(__always)
    mutating func append(_ word: UInt32) {
        if count == capacity { grow() }
        base[count] = word
        count += 1
    }

    private mutating func grow() {
        let larger = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity * 2)
        larger.update(from: base, count: count)
        base.deallocate()
        base = larger
        capacity *= 2
    }
}
