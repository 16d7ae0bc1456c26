/// A minimized DFA over bytes, laid out for one table load per byte: state numbers are
/// premultiplied by the number of byte classes, so a step is `table[state + class[byte]]`.
/// In an automaton that emits matches (``emitsMatches``), a searched pattern's match is emitted
/// by the state entered after it (numbered last, from ``firstEmitting``): a run ORs in
/// ``emitted(_:)`` as it goes, then ``outcome(_:)`` at the end. Otherwise its states remember
/// their matches and a run reads only its last state.
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
    /// Per state (not premultiplied), the bits of the matches it emits; 0 below ``firstEmitting``.
    @usableFromInline let emissions: UnsafeMutablePointer<UInt64>
    /// The first state (premultiplied) that emits matches: every state from it on does.
    public let firstEmitting: UInt32
    /// Whether some state emits matches; when none does, a run reads only its last state.
    public let emitsMatches: Bool
    /// The start state, premultiplied.
    public let start: UInt32

    /// Lays out `dfa`, whose outcome bit `i` is reported as bit `positions[i]`.
    init(_ dfa: SubsetDFA, positions: [Int]) {
        stateCount = dfa.stateCount
        classCount = dfa.classCount
        classes = .allocate(capacity: 256)
        for byte in 0..<256 { classes[byte] = UInt32(dfa.classOf[byte]) }
        // The states that emit nothing first, then those that emit.
        let quiet = (0..<stateCount).filter { dfa.emitted[$0] == 0 }
        let order = quiet + (0..<stateCount).filter { dfa.emitted[$0] != 0 }
        var number = [Int](repeating: 0, count: stateCount)
        for (new, old) in order.enumerated() { number[old] = new }
        func global(_ local: UInt64) -> UInt64 {
            var bits: UInt64 = 0
            for (index, position) in positions.enumerated() where local & (1 << UInt64(index)) != 0 { bits |= 1 << UInt64(position) }
            return bits
        }
        table = .allocate(capacity: max(1, dfa.transitions.count))
        outcomes = .allocate(capacity: max(1, stateCount))
        emissions = .allocate(capacity: max(1, stateCount))
        for (new, old) in order.enumerated() {
            for byteClass in 0..<classCount {
                table[new * classCount + byteClass] = UInt32(number[Int(dfa.transitions[old * classCount + byteClass])] * classCount)
            }
            outcomes[new] = global(dfa.matchesAtEnd[old])
            emissions[new] = global(dfa.emitted[old])
        }
        firstEmitting = UInt32(quiet.count * classCount)
        emitsMatches = quiet.count < stateCount
        start = UInt32(number[dfa.start] * classCount)
    }

    deinit {
        classes.deallocate()
        table.deallocate()
        outcomes.deallocate()
        emissions.deallocate()
    }

    /// The outcome bits for `bytes`: bit set for each pattern that matches (whole subject or
    /// anywhere, as compiled).
    @inlinable
    public func run(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var state = start
        guard emitsMatches else {
            for byte in bytes { state = step(state, byte) }
            return outcome(state)
        }
        var matched: UInt64 = 0
        for byte in bytes {
            state = step(state, byte)
            matched |= emitted(state)
        }
        return matched | outcome(state)
    }

    /// The state after `byte` (states are premultiplied; begin with ``start``).
    @inlinable @inline(__always)
    public func step(_ state: UInt32, _ byte: UInt8) -> UInt32 {
        table[Int(state &+ classes[Int(byte)])]
    }

    /// The bits of the matches `state` emits (premultiplied; 0 for most states): a run ORs
    /// them in after every step.
    @inlinable @inline(__always)
    public func emitted(_ state: UInt32) -> UInt64 {
        state >= firstEmitting ? emissions[Int(state) / classCount] : 0
    }

    /// The outcome bits at the end of a subject that ends in `state`, with what the run has
    /// collected from ``emitted(_:)`` still to be added.
    @inlinable @inline(__always)
    public func outcome(_ state: UInt32) -> UInt64 {
        outcomes[Int(state) / classCount]
    }
}
