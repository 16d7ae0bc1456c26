// Minimization (Hopcroft's partition refinement, in Valmari and Lehtinen's formulation) and
// merging of byte classes no state tells apart.

extension SubsetDFA {
    /// The smallest DFA with the same outcome for every subject: states are merged while no
    /// byte sequence leads them to different emissions or outcomes at the end; then byte classes
    /// whose transitions agree in every state are merged.
    func minimized() -> SubsetDFA {
        let (block, blockCount) = equivalentStates()
        // One state per block, numbered from the start's block in first-visit order.
        var representative = [Int](repeating: -1, count: blockCount)
        for state in 0..<stateCount where representative[block[state]] < 0 { representative[block[state]] = state }
        // Blocks in breadth-first order from the start's: a block's number is its place here.
        var order = [block[start]]
        var number = [Int](repeating: -1, count: blockCount)
        number[block[start]] = 0
        var head = 0
        while head < order.count {
            let state = representative[order[head]]
            head += 1
            for byteClass in 0..<classCount {
                let target = block[Int(transitions[state * classCount + byteClass])]
                if number[target] < 0 {
                    number[target] = order.count
                    order.append(target)
                }
            }
        }
        var minimalTransitions: [Int32] = []
        minimalTransitions.reserveCapacity(order.count * classCount)
        var minimalOutcomes: [UInt64] = []
        var minimalEmitted: [UInt64] = []
        for current in order {
            let state = representative[current]
            minimalOutcomes.append(matchesAtEnd[state])
            minimalEmitted.append(emitted[state])
            for byteClass in 0..<classCount {
                minimalTransitions.append(Int32(number[block[Int(transitions[state * classCount + byteClass])]]))
            }
        }
        let minimal = SubsetDFA(transitions: minimalTransitions, classCount: classCount, classOf: classOf,
                                matchesAtEnd: minimalOutcomes, emitted: minimalEmitted, start: 0)
        return minimal.mergingEquivalentClasses()
    }

    /// Each state's block of equivalent states, and the number of blocks, in O(m log n) for m
    /// transitions: blocks start as the states with one outcome, and a block is split while
    /// some byte class leads part of it into a block (a splitter) and part elsewhere; only the
    /// smaller half of a split block becomes a new splitter.
    private func equivalentStates() -> (block: [Int], count: Int) {
        struct Outcome: Hashable {
            var atEnd: UInt64
            var emitted: UInt64
        }
        var outcomeGroup: [Outcome: Int] = [:]
        let groups = zip(matchesAtEnd, emitted).map { atEnd, emitted in
            let outcome = Outcome(atEnd: atEnd, emitted: emitted)
            if let group = outcomeGroup[outcome] { return group }
            outcomeGroup[outcome] = outcomeGroup.count
            return outcomeGroup.count - 1
        }
        var blocks = Partition(groups: groups, groupCount: outcomeGroup.count)
        // Transitions `t = state * classCount + class`, grouped by class into cords.
        let transitionCount = transitions.count
        var cords = Partition(groups: (0..<transitionCount).map { $0 % classCount }, groupCount: classCount)
        // The transitions into each state: `incoming[incomingStart[q]..<incomingStart[q + 1]]`.
        var incomingStart = [Int](repeating: 0, count: stateCount + 1)
        for target in transitions { incomingStart[Int(target) + 1] += 1 }
        for state in 0..<stateCount { incomingStart[state + 1] += incomingStart[state] }
        var incoming = [Int](repeating: 0, count: transitionCount)
        var filled = incomingStart
        for (transition, target) in transitions.enumerated() {
            incoming[filled[Int(target)]] = transition
            filled[Int(target)] += 1
        }
        // Every initial block but one must be a splitter; block 0 is left out.
        var nextBlock = 1, nextCord = 0
        while nextCord < cords.count {
            // States with a transition in this cord, split from the rest of their blocks.
            for transition in cords.members(nextCord) { blocks.mark(transition / classCount) }
            blocks.split()
            nextCord += 1
            while nextBlock < blocks.count {
                // Transitions into this block, split from the rest of their cords.
                for state in blocks.members(nextBlock) {
                    for index in incomingStart[state]..<incomingStart[state + 1] { cords.mark(incoming[index]) }
                }
                cords.split()
                nextBlock += 1
            }
        }
        return (blocks.blocks, blocks.count)
    }

    /// The same DFA with byte classes merged when every state sends them to the same state.
    private func mergingEquivalentClasses() -> SubsetDFA {
        var columnIndex: [[Int32]: Int] = [:]
        var merged = [Int](repeating: 0, count: classCount)
        var kept: [Int] = []
        for byteClass in 0..<classCount {
            let column = (0..<stateCount).map { transitions[$0 * classCount + byteClass] }
            if let known = columnIndex[column] {
                merged[byteClass] = known
            } else {
                columnIndex[column] = kept.count
                merged[byteClass] = kept.count
                kept.append(byteClass)
            }
        }
        guard kept.count < classCount else { return self }
        var table: [Int32] = []
        table.reserveCapacity(stateCount * kept.count)
        for state in 0..<stateCount {
            for byteClass in kept { table.append(transitions[state * classCount + byteClass]) }
        }
        return SubsetDFA(transitions: table, classCount: kept.count, classOf: classOf.map { UInt8(merged[Int($0)]) },
                         matchesAtEnd: matchesAtEnd, emitted: emitted, start: start)
    }
}

/// A partition of `0..<n` into blocks, refined by marking elements and then splitting each
/// block with marks into its marked and unmarked parts; the smaller part becomes a new block.
private struct Partition: ~Copyable {
    // INVARIANT: every buffer holds n + 1 initialized integers, allocated in `init` and freed in
    // `deinit`; the partition never escapes ``SubsetDFA/equivalentStates()``.
    /// The elements, each block's contiguous (marked ones first while marking).
    private let elements: UnsafeMutablePointer<Int>
    /// Each element's index in ``elements``.
    private let location: UnsafeMutablePointer<Int>
    /// Each element's block.
    private let blockOf: UnsafeMutablePointer<Int>
    /// Per block, its range in ``elements``, and how many of its elements are marked.
    private let first: UnsafeMutablePointer<Int>
    private let past: UnsafeMutablePointer<Int>
    private let marked: UnsafeMutablePointer<Int>
    /// The blocks with marked elements.
    private var touched: [Int] = []
    private let size: Int
    private(set) var count: Int

    /// Elements in the blocks `groups[e]` (numbered densely from 0 to `groupCount - 1`).
    init(groups: [Int], groupCount: Int) {
        size = groups.count + 1
        (elements, location, blockOf, first, past, marked) = (.allocate(capacity: size), .allocate(capacity: size), .allocate(capacity: size),
                                                              .allocate(capacity: size), .allocate(capacity: size), .allocate(capacity: size))
        for buffer in [elements, location, blockOf, first, past, marked] { buffer.initialize(repeating: 0, count: size) }
        for group in groups { first[group + 1] += 1 }
        for group in 0..<groupCount { first[group + 1] += first[group] }
        past.update(from: first, count: size)
        for (element, group) in groups.enumerated() {
            elements[past[group]] = element
            location[element] = past[group]
            blockOf[element] = group
            past[group] += 1
        }
        count = groupCount
    }

    deinit {
        for buffer in [elements, location, blockOf, first, past, marked] { buffer.deallocate() }
    }

    /// Each element's block.
    var blocks: [Int] { Array(UnsafeBufferPointer(start: blockOf, count: size - 1)) }

    /// Block `block`'s elements.
    func members(_ block: Int) -> UnsafeBufferPointer<Int> {
        UnsafeBufferPointer(start: elements + first[block], count: past[block] - first[block])
    }

    /// Marks `element` (at most once between splits).
    mutating func mark(_ element: Int) {
        let block = blockOf[element]
        let index = location[element], boundary = first[block] + marked[block]
        guard index >= boundary else { return }
        elements[index] = elements[boundary]
        location[elements[index]] = index
        elements[boundary] = element
        location[element] = boundary
        if marked[block] == 0 { touched.append(block) }
        marked[block] += 1
    }

    /// Splits every block with marks whose elements are not all marked.
    mutating func split() {
        while let block = touched.popLast() {
            let boundary = first[block] + marked[block]
            marked[block] = 0
            guard boundary < past[block] else { continue }
            let new = count
            count += 1
            if boundary - first[block] <= past[block] - boundary {
                (first[new], past[new]) = (first[block], boundary)
                first[block] = boundary
            } else {
                (first[new], past[new]) = (boundary, past[block])
                past[block] = boundary
            }
            for index in first[new]..<past[new] { blockOf[elements[index]] = new }
        }
    }
}
