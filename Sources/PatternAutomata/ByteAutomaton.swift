/// A minimized DFA over bytes, laid out for one table load per byte: a state is the offset of
/// its row in one flat table, so a step is `table[state + class[byte]]`. A row holds a column per
/// byte class, then the state's outcome (an index into ``outcomes``), so that a run's end costs no
/// division.
///
/// In an automaton that emits matches (``emitsMatches``), a searched pattern's match is emitted
/// by the state entered after it. The states that emit nothing come first; those that emit
/// start at ``firstEmitting``, a power of two, and end below twice it. So the bitwise OR of every
/// state a run visits has that bit set exactly when the run entered an emitting state: a run tests
/// it once every four steps, and looks up ``emitted(_:)`` only in the turns that entered one.
/// Otherwise its states remember their matches and a run reads only its last state.
///
/// Immutable after `init`: safe to share across threads.
public final class ByteAutomaton: @unchecked Sendable {
    // INVARIANT: the buffers are written only in `init` and freed only in `deinit`.
    /// The number of states.
    public let stateCount: Int
    /// The number of byte classes (a row's width, less its outcome column).
    public let classCount: Int
    @usableFromInline let classes: UnsafeMutablePointer<UInt32>
    @usableFromInline let table: UnsafeMutablePointer<UInt32>
    /// Per state, by the index in its row's outcome column: the outcome bits at the end of the subject.
    @usableFromInline let outcomes: UnsafeMutablePointer<UInt64>
    /// Per emitting state, the bits of the matches it emits, at its offset less
    /// ``firstEmitting`` (so that a run finds them with no division).
    @usableFromInline let emissions: UnsafeMutablePointer<UInt64>
    /// The first emitting state's offset, a power of two: every state from it on emits, and
    /// every state's offset is below twice it. Past the table when no state emits.
    public let firstEmitting: UInt32
    /// ``firstEmitting`` when some state emits, else 0: the bit a run's ORed states have set
    /// exactly when it entered an emitting state.
    @usableFromInline let emittingBit: UInt32
    /// Whether some state emits matches; when none does, a run reads only its last state.
    public let emitsMatches: Bool
    /// The start state's offset.
    public let start: UInt32

    /// Lays out `dfa`, whose outcome bit `i` is reported as bit `positions[i]`.
    init(_ dfa: SubsetDFA, positions: [Int]) {
        stateCount = dfa.stateCount
        classCount = dfa.classCount
        classes = .allocate(capacity: 256)
        for byte in 0..<256 { classes[byte] = UInt32(dfa.classOf[byte]) }
        // The states that emit nothing first, then those that emit, from a power of two on.
        let quiet = (0..<stateCount).filter { dfa.emitted[$0] == 0 }
        let order = quiet + (0..<stateCount).filter { dfa.emitted[$0] != 0 }
        let width = classCount + 1
        let quietSpan = quiet.count * width, emittingSpan = (stateCount - quiet.count) * width
        emitsMatches = emittingSpan > 0
        let emittingStart = emitsMatches ? Self.powerOfTwo(atLeast: max(quietSpan, emittingSpan)) : quietSpan
        var offset = [Int](repeating: 0, count: stateCount)
        for (row, old) in order.enumerated() {
            offset[old] = row < quiet.count ? row * width : emittingStart + (row - quiet.count) * width
        }
        func global(_ local: UInt64) -> UInt64 {
            var bits: UInt64 = 0
            for (index, position) in positions.enumerated() where local & (1 << UInt64(index)) != 0 { bits |= 1 << UInt64(position) }
            return bits
        }
        let tableCount = max(1, emittingStart + emittingSpan)
        table = .allocate(capacity: tableCount)
        table.initialize(repeating: 0, count: tableCount)
        outcomes = .allocate(capacity: max(1, stateCount))
        emissions = .allocate(capacity: max(1, emittingSpan))
        emissions.initialize(repeating: 0, count: max(1, emittingSpan))
        for (row, old) in order.enumerated() {
            let base = offset[old]
            for byteClass in 0..<classCount {
                table[base + byteClass] = UInt32(offset[Int(dfa.transitions[old * classCount + byteClass])])
            }
            table[base + classCount] = UInt32(row)
            outcomes[row] = global(dfa.matchesAtEnd[old])
            if row >= quiet.count { emissions[base - emittingStart] = global(dfa.emitted[old]) }
        }
        firstEmitting = UInt32(emittingStart)
        emittingBit = emitsMatches ? UInt32(emittingStart) : 0
        start = UInt32(offset[dfa.start])
    }

    /// The least power of two at or above `count` (and at least 1).
    private static func powerOfTwo(atLeast count: Int) -> Int {
        count <= 1 ? 1 : 1 << (Int.bitWidth - (count - 1).leadingZeroBitCount)
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

    /// The state after `byte` (begin with ``start``).
    @inlinable @inline(__always)
    public func step(_ state: UInt32, _ byte: UInt8) -> UInt32 {
        table[Int(state &+ classes[Int(byte)])]
    }

    /// The bits of the matches `state` emits (0 for most states): a run ORs them in after
    /// every step.
    @inlinable @inline(__always)
    public func emitted(_ state: UInt32) -> UInt64 {
        state >= firstEmitting ? emissions[Int(state &- firstEmitting)] : 0
    }

    /// The outcome bits at the end of a subject that ends in `state`, with what the run has
    /// collected from ``emitted(_:)`` still to be added.
    @inlinable @inline(__always)
    public func outcome(_ state: UInt32) -> UInt64 {
        outcomes[Int(table[Int(state) &+ classCount])]
    }

    /// The automaton's tables, to run it with no reference to count: valid while the automaton
    /// lives, so its holder must keep the automaton.
    @inlinable
    public var tables: Tables {
        Tables(classes: classes, table: table, outcomes: outcomes, emissions: emissions, outcomeColumn: UInt32(classCount),
               firstEmitting: firstEmitting, emittingBit: emittingBit, start: start)
    }

    /// A ``ByteAutomaton``'s tables, borrowed (see ``ByteAutomaton/tables``).
    public struct Tables: @unchecked Sendable {
        // INVARIANT: the pointers are the automaton's, which outlives every copy.
        @usableFromInline let classes: UnsafePointer<UInt32>
        @usableFromInline let table: UnsafePointer<UInt32>
        @usableFromInline let outcomes: UnsafePointer<UInt64>
        @usableFromInline let emissions: UnsafePointer<UInt64>
        @usableFromInline let outcomeColumn: UInt32
        @usableFromInline let firstEmitting: UInt32
        @usableFromInline let emittingBit: UInt32
        /// The start state.
        public let start: UInt32

        @usableFromInline
        init(classes: UnsafeMutablePointer<UInt32>, table: UnsafeMutablePointer<UInt32>, outcomes: UnsafeMutablePointer<UInt64>,
             emissions: UnsafeMutablePointer<UInt64>, outcomeColumn: UInt32, firstEmitting: UInt32, emittingBit: UInt32, start: UInt32) {
            self.classes = UnsafePointer(classes)
            self.table = UnsafePointer(table)
            self.outcomes = UnsafePointer(outcomes)
            self.emissions = UnsafePointer(emissions)
            self.outcomeColumn = outcomeColumn
            self.firstEmitting = firstEmitting
            self.emittingBit = emittingBit
            self.start = start
        }

        /// The outcome bits for `bytes`, as ``ByteAutomaton/run(_:)`` gives them.
        @inlinable
        public func run(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
            let (state, emitted) = advance(from: start, over: bytes)
            return emitted | outcome(state)
        }

        /// The state reached from `state` over `bytes`, and what the states entered on the way
        /// emit. The outcome bits of a subject that is `bytes` after a prefix that led to
        /// `state` are what the prefix emitted, `emitted`, and ``outcome(_:)`` of the state reached.
        @inlinable
        public func advance(from state: UInt32, over bytes: UnsafeRawBufferPointer) -> (state: UInt32, emitted: UInt64) {
            guard var byte = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return (state, 0) }
            let end = byte + bytes.count
            var state = state
            // Four steps a turn (the compiler does not unroll a loop over a pointer).
            guard emittingBit != 0 else {
                while end - byte >= 4 {
                    state = step(step(step(step(state, byte[0]), byte[1]), byte[2]), byte[3])
                    byte += 4
                }
                while byte < end {
                    state = step(state, byte.pointee)
                    byte += 1
                }
                return (state, 0)
            }
            // An emitting state has `emittingBit` set and no other state has: four steps cost
            // one test, and only a turn that entered one looks its emissions up.
            var matched: UInt64 = 0
            while end - byte >= 4 {
                let first = step(state, byte[0]), second = step(first, byte[1]), third = step(second, byte[2])
                state = step(third, byte[3])
                if (first | second | third | state) & emittingBit != 0 {
                    matched |= emitted(first) | emitted(second) | emitted(third) | emitted(state)
                }
                byte += 4
            }
            while byte < end {
                state = step(state, byte.pointee)
                matched |= emitted(state)
                byte += 1
            }
            return (state, matched)
        }

        /// ``advance(from:over:)`` of this automaton and `other` over the same bytes, in one
        /// pass: each step waits on the load before it, and the two automata's steps do not
        /// depend on each other, so the processor runs them side by side.
        @inlinable
        public func advance(from state: UInt32, _ other: Tables, from otherState: UInt32, over bytes: UnsafeRawBufferPointer)
            -> (state: UInt32, emitted: UInt64, otherState: UInt32, otherEmitted: UInt64) {
            guard var byte = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return (state, 0, otherState, 0) }
            let end = byte + bytes.count
            var first = state, second = otherState
            var visited: UInt32 = 0, otherVisited: UInt32 = 0
            while byte < end {
                let value = byte.pointee
                first = step(first, value)
                second = other.step(second, value)
                visited |= first
                otherVisited |= second
                byte += 1
            }
            // Either entered an emitting state: it runs again alone, collecting (rare).
            let emitted = visited & emittingBit != 0 ? advance(from: state, over: bytes).emitted : 0
            let otherEmitted = otherVisited & other.emittingBit != 0 ? other.advance(from: otherState, over: bytes).emitted : 0
            return (first, emitted, second, otherEmitted)
        }

        @inlinable @inline(__always)
        func emitted(_ state: UInt32) -> UInt64 { state >= firstEmitting ? emissions[Int(state &- firstEmitting)] : 0 }

        @inlinable @inline(__always)
        func step(_ state: UInt32, _ byte: UInt8) -> UInt32 { table[Int(state &+ classes[Int(byte)])] }

        /// The outcome bits at the end of a subject that ends in `state`, with what the run
        /// emitted still to be added.
        @inlinable @inline(__always)
        public func outcome(_ state: UInt32) -> UInt64 { outcomes[Int(table[Int(state &+ outcomeColumn)])] }
    }
}
