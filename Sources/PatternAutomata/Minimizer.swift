// Minimization (Moore's partition refinement) and merging of byte classes no state tells apart.

extension SubsetDFA {
    /// The smallest DFA with the same outcome at the end of every subject: states are merged
    /// while no byte sequence leads them to different outcomes; then byte classes whose
    /// transitions agree in every state are merged.
    func minimized() -> SubsetDFA {
        // Start from the outcomes, then split blocks until every state's successors agree.
        var block = [Int](repeating: 0, count: stateCount)
        var blockCount = 0
        do {
            var byOutcome: [UInt64: Int] = [:]
            for state in 0..<stateCount {
                if let known = byOutcome[matchesAtEnd[state]] {
                    block[state] = known
                } else {
                    byOutcome[matchesAtEnd[state]] = blockCount
                    block[state] = blockCount
                    blockCount += 1
                }
            }
        }
        while true {
            var bySignature: [[Int]: Int] = [:]
            var refined = [Int](repeating: 0, count: stateCount)
            for state in 0..<stateCount {
                var signature = [block[state]]
                signature.reserveCapacity(classCount + 1)
                for byteClass in 0..<classCount {
                    signature.append(block[Int(transitions[state * classCount + byteClass])])
                }
                if let known = bySignature[signature] {
                    refined[state] = known
                } else {
                    bySignature[signature] = bySignature.count
                    refined[state] = bySignature.count - 1
                }
            }
            let stable = bySignature.count == blockCount
            block = refined
            blockCount = bySignature.count
            if stable { break }
        }
        // One state per block, numbered from the start's block in first-visit order.
        var representative = [Int](repeating: -1, count: blockCount)
        for state in 0..<stateCount where representative[block[state]] < 0 { representative[block[state]] = state }
        var order: [Int] = []
        var number = [Int](repeating: -1, count: blockCount)
        var queue = [block[start]]
        number[block[start]] = 0
        while !queue.isEmpty {
            let current = queue.removeFirst()
            order.append(current)
            let state = representative[current]
            for byteClass in 0..<classCount {
                let target = block[Int(transitions[state * classCount + byteClass])]
                if number[target] < 0 {
                    number[target] = order.count + queue.count
                    queue.append(target)
                }
            }
        }
        var minimalTransitions: [Int32] = []
        minimalTransitions.reserveCapacity(order.count * classCount)
        var minimalOutcomes: [UInt64] = []
        for current in order {
            let state = representative[current]
            minimalOutcomes.append(matchesAtEnd[state])
            for byteClass in 0..<classCount {
                minimalTransitions.append(Int32(number[block[Int(transitions[state * classCount + byteClass])]]))
            }
        }
        let minimal = SubsetDFA(transitions: minimalTransitions, classCount: classCount, classOf: classOf,
                                matchesAtEnd: minimalOutcomes, start: 0)
        return minimal.mergingEquivalentClasses()
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
                         matchesAtEnd: matchesAtEnd, start: start)
    }
}
