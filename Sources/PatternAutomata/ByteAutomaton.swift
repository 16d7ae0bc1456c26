/// A minimized DFA over bytes, laid out for one table load per byte: state numbers are
/// premultiplied by the number of byte classes, so a step is `table[state + class[byte]]`.
///
/// Immutable after `init`: safe to share across threads.
public final class ByteAutomaton: @unchecked Sendable {
    // INVARIANT: the buffers are written only in `init` and freed only in `deinit`.
    /// The number of states.
    public let stateCount: Int
    /// The number of byte classes (the table's width).
    public let classCount: Int
    @usableFromInline let classes: UnsafeMutablePointer<UInt32>
    @usableFromInline let table: UnsafeMutablePointer<UInt32>
    /// Per state (not premultiplied), the outcome bits at the end of the subject.
    @usableFromInline let outcomes: UnsafeMutablePointer<UInt64>
    /// The start state, premultiplied.
    public let start: UInt32

    /// Lays out `dfa`, whose outcome bit `i` is reported as bit `positions[i]`.
    init(_ dfa: SubsetDFA, positions: [Int]) {
        stateCount = dfa.stateCount
        classCount = dfa.classCount
        classes = .allocate(capacity: 256)
        for byte in 0..<256 { classes[byte] = UInt32(dfa.classOf[byte]) }
        table = .allocate(capacity: max(1, dfa.transitions.count))
        for (index, target) in dfa.transitions.enumerated() { table[index] = UInt32(target) * UInt32(dfa.classCount) }
        outcomes = .allocate(capacity: max(1, dfa.stateCount))
        for state in 0..<dfa.stateCount {
            var bits: UInt64 = 0
            for (local, global) in positions.enumerated() where dfa.matchesAtEnd[state] & (1 << UInt64(local)) != 0 {
                bits |= 1 << UInt64(global)
            }
            outcomes[state] = bits
        }
        start = UInt32(dfa.start * dfa.classCount)
    }

    deinit {
        classes.deallocate()
        table.deallocate()
        outcomes.deallocate()
    }

    /// The outcome bits for `bytes`: bit set for each pattern that matches (whole subject or
    /// anywhere, as compiled).
    @inlinable
    public func run(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var state = start
        for byte in bytes { state = step(state, byte) }
        return outcome(state)
    }

    /// The state after `byte` (states are premultiplied; begin with ``start``).
    @inlinable @inline(__always)
    public func step(_ state: UInt32, _ byte: UInt8) -> UInt32 {
        table[Int(state &+ classes[Int(byte)])]
    }

    /// The outcome bits of a subject that ends in `state`.
    @inlinable @inline(__always)
    public func outcome(_ state: UInt32) -> UInt64 {
        outcomes[Int(state) / classCount]
    }
}
