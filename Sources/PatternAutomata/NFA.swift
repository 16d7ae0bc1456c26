// A Thompson NFA over bytes for several patterns at once, each ending in its own accept state.

/// One NFA for a group of patterns. States of pattern `r` are numbered from `firstState[r]` to
/// `firstState[r + 1] - 1`, so a state's pattern is found by its number.
struct NFA {
    enum State: Hashable {
        /// Consumes one byte in the range.
        case bytes(ClosedRange<UInt8>, next: Int)
        /// Continues in each state, consuming nothing.
        case split([Int])
        /// Continues in `next` when the assertion holds.
        case assertion(Assertion, next: Int)
        /// The end of pattern `pattern`.
        case accept(pattern: Int)
    }

    private(set) var states: [State] = []
    /// Each pattern's start state.
    private(set) var starts: [Int] = []
    /// Each pattern's first state, and one past the last pattern's states.
    private(set) var firstState: [Int] = [0]
    /// Whether some pattern asserts a word boundary (`\b`, `\B`).
    private(set) var usesWordBoundaries = false

    /// The most states one NFA may have (a `{1000}` of a wide class could otherwise take
    /// megabytes); a bigger pattern runs in PCRE2.
    static let maxStates = 50_000

    /// Adds `regex` as the next pattern.
    ///
    /// - Throws: ``Unsupported`` when the NFA would grow past ``maxStates``.
    mutating func add(_ regex: Regex) throws(Unsupported) {
        let pattern = starts.count
        var builder = Builder(base: states.count, limit: Self.maxStates - states.count)
        let accept = builder.append(.accept(pattern: pattern))
        let start = try builder.compile(regex, next: accept)
        states += builder.states
        starts.append(start)
        firstState.append(states.count)
        usesWordBoundaries = usesWordBoundaries || builder.usesWordBoundaries
    }

    /// The pattern a state belongs to.
    func pattern(of state: Int) -> Int {
        // Few patterns per NFA: a linear scan.
        var pattern = 0
        while firstState[pattern + 1] <= state { pattern += 1 }
        return pattern
    }

    /// Builds one pattern's states, numbered from `base`.
    private struct Builder {
        let base: Int
        let limit: Int
        var states: [State] = []
        var usesWordBoundaries = false
        /// Byte-range states already made, by range and next state: classes share suffixes.
        private var made: [State: Int] = [:]

        init(base: Int, limit: Int) {
            self.base = base
            self.limit = limit
        }

        mutating func append(_ state: State) -> Int {
            states.append(state)
            return base + states.count - 1
        }

        private mutating func reserve() throws(Unsupported) -> Int {
            guard states.count < limit else {
                throw Unsupported(construct: "a pattern too large for an automaton (over \(NFA.maxStates) states)", offset: 0)
            }
            return append(.split([]))
        }

        private mutating func set(_ state: Int, _ value: State) { states[state - base] = value }

        /// The start of `regex` continuing to `next`.
        mutating func compile(_ regex: Regex, next: Int) throws(Unsupported) -> Int {
            switch regex {
            case .empty:
                return next
            case .characters(let set):
                return try characters(set, next: next)
            case .anyCharacter(let dotAll):
                return try characters(dotAll ? .all : ScalarSet(0x0A...0x0A).inverted, next: next)
            case .concatenation(let items):
                var current = next
                for item in items.reversed() { current = try compile(item, next: current) }
                return current
            case .alternation(let branches):
                let split = try reserve()
                var starts: [Int] = []
                for branch in branches { starts.append(try compile(branch, next: next)) }
                set(split, .split(starts))
                return split
            case let .repetition(body, min, max):
                var current = next
                if let max {
                    // The optional copies, innermost last: x{0,2} is (x(x)?)?.
                    for _ in 0..<(max - min) {
                        let split = try reserve()
                        let bodyStart = try compile(body, next: current)
                        set(split, .split([bodyStart, next]))
                        current = split
                    }
                } else {
                    let loop = try reserve()
                    let bodyStart = try compile(body, next: loop)
                    set(loop, .split([bodyStart, next]))
                    current = loop
                }
                for _ in 0..<min { current = try compile(body, next: current) }
                return current
            case .assertion(let assertion):
                if assertion == .wordBoundary || assertion == .notWordBoundary { usesWordBoundaries = true }
                let state = try reserve()
                set(state, .assertion(assertion, next: next))
                return state
            case .approximated(let approximation, _):
                return try compile(approximation, next: next)
            }
        }

        /// A character from `set`: one path per UTF-8 byte-range sequence, sharing suffixes.
        private mutating func characters(_ scalars: ScalarSet, next: Int) throws(Unsupported) -> Int {
            var starts: [Int] = []
            for range in scalars.ranges {
                for sequence in UTF8Sequences.of(range) {
                    var current = next
                    for bytes in sequence.reversed() {
                        let state = State.bytes(bytes, next: current)
                        if let existing = made[state] {
                            current = existing
                        } else {
                            let index = try reserve()
                            self.set(index, state)
                            made[state] = index
                            current = index
                        }
                    }
                    starts.append(current)
                }
            }
            if starts.count == 1 { return starts[0] }
            let split = try reserve()
            set(split, .split(starts))
            return split
        }
    }
}
