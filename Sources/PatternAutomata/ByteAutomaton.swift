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
    /// Per emitting state, the bits of the matches it emits, at its premultiplied number less
    /// ``firstEmitting`` (so that a run finds them with no division).
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
        let emittingTable = (stateCount - quiet.count) * classCount
        emissions = .allocate(capacity: max(1, emittingTable))
        emissions.initialize(repeating: 0, count: max(1, emittingTable))
        for (new, old) in order.enumerated() {
            for byteClass in 0..<classCount {
                table[new * classCount + byteClass] = UInt32(number[Int(dfa.transitions[old * classCount + byteClass])] * classCount)
            }
            outcomes[new] = global(dfa.matchesAtEnd[old])
            if new >= quiet.count { emissions[(new - quiet.count) * classCount] = global(dfa.emitted[old]) }
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
    public func run(_ bytes: UnsafeRawBufferPointer) -> UInt64 { tables.run(bytes) }

    /// The state after `byte` (states are premultiplied; begin with ``start``).
    @inlinable @inline(__always)
    public func step(_ state: UInt32, _ byte: UInt8) -> UInt32 {
        table[Int(state &+ classes[Int(byte)])]
    }

    /// The bits of the matches `state` emits (premultiplied; 0 for most states): a run ORs
    /// them in after every step.
    @inlinable @inline(__always)
    public func emitted(_ state: UInt32) -> UInt64 {
        state >= firstEmitting ? emissions[Int(state &- firstEmitting)] : 0
    }

    /// The outcome bits at the end of a subject that ends in `state`, with what the run has
    /// collected from ``emitted(_:)`` still to be added.
    @inlinable @inline(__always)
    public func outcome(_ state: UInt32) -> UInt64 {
        outcomes[Int(state) / classCount]
    }

    /// The automaton's tables, to run it with no reference to count: valid while the automaton
    /// lives, so its holder must keep the automaton.
    @inlinable
    public var tables: Tables {
        Tables(classes: classes, table: table, outcomes: outcomes, emissions: emissions, classCount: UInt32(classCount),
               firstEmitting: firstEmitting, emitsMatches: emitsMatches, start: start)
    }

    /// A ``ByteAutomaton``'s tables, borrowed (see ``ByteAutomaton/tables``).
    public struct Tables: @unchecked Sendable {
        // INVARIANT: the pointers are the automaton's, which outlives every copy.
        @usableFromInline let classes: UnsafePointer<UInt32>
        @usableFromInline let table: UnsafePointer<UInt32>
        @usableFromInline let outcomes: UnsafePointer<UInt64>
        @usableFromInline let emissions: UnsafePointer<UInt64>
        @usableFromInline let classCount: UInt32
        @usableFromInline let firstEmitting: UInt32
        @usableFromInline let emitsMatches: Bool
        @usableFromInline let start: UInt32

        @usableFromInline
        init(classes: UnsafeMutablePointer<UInt32>, table: UnsafeMutablePointer<UInt32>, outcomes: UnsafeMutablePointer<UInt64>,
             emissions: UnsafeMutablePointer<UInt64>, classCount: UInt32, firstEmitting: UInt32, emitsMatches: Bool, start: UInt32) {
            self.classes = UnsafePointer(classes)
            self.table = UnsafePointer(table)
            self.outcomes = UnsafePointer(outcomes)
            self.emissions = UnsafePointer(emissions)
            self.classCount = classCount
            self.firstEmitting = firstEmitting
            self.emitsMatches = emitsMatches
            self.start = start
        }

        /// The outcome bits for `bytes`, as ``ByteAutomaton/run(_:)`` gives them.
        @inlinable
        public func run(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
            var state = start
            guard emitsMatches else {
                for byte in bytes { state = table[Int(state &+ classes[Int(byte)])] }
                return outcomes[Int(state / classCount)]
            }
            var matched: UInt64 = 0
            for byte in bytes {
                state = table[Int(state &+ classes[Int(byte)])]
                if state >= firstEmitting { matched |= emissions[Int(state &- firstEmitting)] }
            }
            return matched | outcomes[Int(state / classCount)]
        }
    }
}
