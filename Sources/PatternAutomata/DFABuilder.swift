// Subset construction over the product of several patterns, each applied as a whole-subject
// match (`must-match`) or a search (`must-not-match`), with PCRE2's assertions.

/// How a pattern applies to a subject.
public enum PatternUse: Hashable, Sendable {
    /// The pattern must match the whole subject (`PCRE2_ANCHORED | PCRE2_ENDANCHORED`).
    case wholeSubject
    /// The pattern may match anywhere in the subject.
    case search
}

/// A DFA before minimization: transitions per byte class; per state, the searched patterns
/// that matched just before the byte that entered it (a run collects these as it goes), and the
/// patterns that match if the subject ends there.
struct SubsetDFA {
    /// `transitions[state * classCount + class]`.
    var transitions: [Int32]
    var classCount: Int
    var classOf: [UInt8]
    /// Per state, bit `p` set when pattern `p`'s outcome at the end of the subject is "matches".
    var matchesAtEnd: [UInt64]
    /// Per state, bit `p` set when searched pattern `p` matched at the position before the byte
    /// that entered the state: no state remembers a match, so k patterns do not multiply the
    /// states by the 2^k sets of those matched so far. All zero in a latching DFA
    /// (``DFABuilder/Matches/latched``), whose states remember their matches instead.
    var emitted: [UInt64]
    var start: Int

    var stateCount: Int { matchesAtEnd.count }
}

/// Builds a ``SubsetDFA`` for an NFA's patterns.
///
/// A thread is an NFA state plus what the rest of the subject must be for it to succeed: free,
/// "empty or one newline" (after `$`), or "empty" (after `\z`). A DFA state is the set of
/// threads that have just consumed a byte, whether the position is the start of the subject,
/// whether the last byte was a word character (only when some pattern asserts `\b`), and which
/// searched patterns matched: ``Matches``.
/// Assertions are decided while following ε-moves, when the next byte is known.
struct DFABuilder {
    /// How a searched pattern's match reaches the outcome.
    enum Matches {
        /// A state remembers the patterns matched so far (their threads are dropped): a run
        /// reads only its last state, but k patterns may multiply the states by up to 2^k.
        case latched
        /// A state holds the patterns that matched just before the byte that entered it, and
        /// emits them (their threads were dropped; new attempts start as for any pattern): a run
        /// ORs in what each state emits, and no state remembers a match.
        case emitted
    }

    private let nfa: NFA
    private let matches: Matches
    private let uses: [PatternUse]
    /// Where each searched pattern starts match attempts.
    private let searchStarts: [SearchStart]
    /// Whether some pattern starts attempts after newlines: states then track the last byte.
    private let tracksNewlines: Bool
    private let maxStates: Int
    private let classOf: [UInt8]
    private let classCount: Int
    /// A byte of each class.
    private let representatives: [UInt8]
    /// Each NFA state's pattern.
    private let patternOfState: [Int]
    /// Each NFA state's byte move, for stepping without decoding ``NFA/State``.
    private let moves: [Move]
    /// Each byte class's lookahead kind (``Lookahead/kind``), the kinds some class has (bits),
    /// and the class of `\n`.
    private let classKinds: [Int]
    private let kindsPresent: Int
    private let newlineClass: Int

    /// A state's move on a byte: to `next` on `low...high`; when `low > high`, none, and `next`
    /// is 1 for the accept state of a searched pattern (it survives bytes), else 0.
    private struct Move {
        var low: UInt8
        var high: UInt8
        var next: UInt32
    }

    private enum Constraint: UInt32 {
        case free = 0
        /// The rest of the subject is empty or one newline (`$` was crossed).
        case endOrFinalNewline = 1
        /// The rest of the subject is empty (`\z` was crossed, or a newline after `$`).
        case end = 2

        func joined(_ other: Constraint) -> Constraint { rawValue >= other.rawValue ? self : other }
    }

    /// A thread as one number: NFA state << 2 | constraint.
    private typealias Thread = UInt32

    /// Where a DFA state is, besides its threads: its key is these as three words, then the
    /// threads sorted without repeats (see ``WordSequenceTable``).
    private struct Position {
        var atStart: Bool
        var previousIsWord: Bool
        var previousIsNewline: Bool
        /// The searched patterns matched so far (latched), or just before the byte that led
        /// here (emitted).
        var emitted: UInt64

        static let headerCount = 3

        init(atStart: Bool, previousIsWord: Bool, previousIsNewline: Bool, emitted: UInt64) {
            (self.atStart, self.previousIsWord, self.previousIsNewline, self.emitted) = (atStart, previousIsWord, previousIsNewline, emitted)
        }

        init(key: borrowing WordBuffer) {
            atStart = key[0] & 1 != 0
            previousIsWord = key[0] & 2 != 0
            previousIsNewline = key[0] & 4 != 0
            emitted = UInt64(key[1]) | UInt64(key[2]) << 32
        }

        /// Replaces `key`'s contents with this position's header words.
        func writeHeader(into key: inout WordBuffer) {
            key.removeAll()
            key.append((atStart ? 1 : 0) | (previousIsWord ? 2 : 0) | (previousIsNewline ? 4 : 0))
            key.append(UInt32(truncatingIfNeeded: emitted))
            key.append(UInt32(truncatingIfNeeded: emitted >> 32))
        }
    }

    /// Reused by every ε-closure: which threads this closure has visited (`marks[thread] ==
    /// generation`), and its work stack.
    private struct Scratch: ~Copyable {
        // INVARIANT: `marks` holds `threadCount` initialized words, freed in `deinit`.
        private let marks: UnsafeMutablePointer<UInt32>
        private let threadCount: Int
        private var generation: UInt32 = 0
        var stack: [Thread] = []

        init(threadCount: Int) {
            self.threadCount = threadCount
            marks = .allocate(capacity: threadCount)
            marks.initialize(repeating: 0, count: threadCount)
        }

        deinit { marks.deallocate() }

        /// Starts a closure: no thread visited.
        mutating func reset() {
            generation &+= 1
            if generation == 0 {
                marks.update(repeating: 0, count: threadCount)
                generation = 1
            }
            stack.removeAll(keepingCapacity: true)
        }

        /// Marks `thread` visited; false when it already was.
        @inline(__always)
        mutating func visit(_ thread: Thread) -> Bool {
            guard marks[Int(thread)] != generation else { return false }
            marks[Int(thread)] = generation
            return true
        }
    }

    /// Per byte class, the threads a step leads to: `stride` slots per class in one buffer.
    private struct Successors: ~Copyable {
        // INVARIANT: `storage` holds `classCount * stride` slots and `counts` `classCount`
        // initialized counts; both are freed in `deinit`.
        private var storage: UnsafeMutablePointer<Thread>
        private var stride = 16
        private let counts: UnsafeMutablePointer<Int>
        private let classCount: Int

        init(classCount: Int) {
            self.classCount = classCount
            storage = .allocate(capacity: classCount * stride)
            counts = .allocate(capacity: classCount)
            counts.initialize(repeating: 0, count: classCount)
        }

        deinit {
            storage.deallocate()
            counts.deallocate()
        }

        /// Makes room for `threadCount` threads per class; every class must be empty.
        mutating func reserve(_ threadCount: Int) {
            guard threadCount > stride else { return }
            while stride < threadCount { stride *= 2 }
            storage.deallocate()
            storage = .allocate(capacity: classCount * stride)
        }

        @inline(__always)
        mutating func append(_ thread: Thread, to byteClass: Int) {
            storage[byteClass * stride + counts[byteClass]] = thread
            counts[byteClass] += 1
        }

        /// Appends class `byteClass`'s threads to `key`, sorted without repeats, and empties it.
        mutating func drain(_ byteClass: Int, into key: inout WordBuffer) {
            let threads = UnsafeMutableBufferPointer(start: storage + byteClass * stride, count: counts[byteClass])
            // Closures are sorted and steps mostly keep the order: an insertion sort is nearly linear.
            for index in threads.indices.dropFirst() {
                let item = threads[index]
                var hole = index
                while hole > 0, threads[hole - 1] > item {
                    threads[hole] = threads[hole - 1]
                    hole -= 1
                }
                threads[hole] = item
            }
            for (index, thread) in threads.enumerated() where index == 0 || thread != threads[index - 1] { key.append(thread) }
            counts[byteClass] = 0
        }
    }

    /// The threads of an ε-closure, sorted, and the searched patterns matched by then.
    private typealias Closure = (threads: [Thread], matched: UInt64)

    /// What a closure of the patterns' starts depends on.
    private struct StartKey: Hashable {
        var atStart: Bool
        var previousIsWord: Bool
        var previousIsNewline: Bool
        /// The patterns matched so far, when latched (no new attempt starts for them).
        var latched: UInt64
        var next: Lookahead

        init(position: Position, latched: UInt64, next: Lookahead) {
            (atStart, previousIsWord, previousIsNewline) = (position.atStart, position.previousIsWord, position.previousIsNewline)
            (self.latched, self.next) = (latched, next)
        }
    }

    /// What the ε-closure needs to know of the next byte.
    private struct Lookahead: Hashable {
        var isWord: Bool
        /// A UTF-8 continuation byte: no match attempt starts before it (inside a character).
        var isContinuation: Bool
        var isEndOfSubject: Bool

        /// The lookaheads of a next byte (not the end), numbered.
        static let kindCount = 4
        var kind: Int { (isWord ? 1 : 0) | (isContinuation ? 2 : 0) }

        init(isWord: Bool, isContinuation: Bool, isEndOfSubject: Bool) {
            (self.isWord, self.isContinuation, self.isEndOfSubject) = (isWord, isContinuation, isEndOfSubject)
        }

        init(kind: Int) {
            self.init(isWord: kind & 1 != 0, isContinuation: kind & 2 != 0, isEndOfSubject: false)
        }
    }

    /// Thrown when the DFA would pass `maxStates`.
    struct TooLarge: Error {}

    init(nfa: NFA, uses: [PatternUse], searchStarts: [SearchStart], matches: Matches, maxStates: Int) {
        self.nfa = nfa
        self.matches = matches
        self.uses = uses
        self.searchStarts = searchStarts
        self.tracksNewlines = zip(uses, searchStarts).contains { $0 == .search && $1 == .lineStarts }
        self.maxStates = maxStates
        self.patternOfState = nfa.states.indices.map(nfa.pattern(of:))
        // Byte classes: bytes no range boundary separates behave alike. A newline is its own
        // class (the `$` constraint), and so are word characters when `\b` is used.
        var boundary = [Bool](repeating: false, count: 257)
        for state in nfa.states {
            if case let .bytes(range, _) = state {
                boundary[Int(range.lowerBound)] = true
                boundary[Int(range.upperBound) + 1] = true
            }
        }
        // Newlines (the `$` constraint, line starts) and continuation bytes are classes of their own.
        for byte in [0x0A, 0x0B, 0x80, 0xC0] { boundary[byte] = true }
        if nfa.usesWordBoundaries {
            for range in [0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A] {
                boundary[range.lowerBound] = true
                boundary[range.upperBound + 1] = true
            }
        }
        var classOf = [UInt8](repeating: 0, count: 256)
        var representatives: [UInt8] = [0]
        var current = 0
        for byte in 1..<256 {
            if boundary[byte] {
                current += 1
                representatives.append(UInt8(byte))
            }
            classOf[byte] = UInt8(current)
        }
        self.classOf = classOf
        self.classCount = current + 1
        self.representatives = representatives
        self.moves = nfa.states.map { state in
            switch state {
            case let .bytes(range, next): Move(low: range.lowerBound, high: range.upperBound, next: UInt32(next))
            case .accept(let pattern): Move(low: 1, high: 0, next: uses[pattern] == .search ? 1 : 0)
            case .split, .assertion: Move(low: 1, high: 0, next: 0)
            }
        }
        let usesWordBoundaries = nfa.usesWordBoundaries
        self.classKinds = representatives.map { byte in
            Lookahead(isWord: usesWordBoundaries && Self.isWord(byte), isContinuation: byte & 0xC0 == 0x80, isEndOfSubject: false).kind
        }
        self.kindsPresent = classKinds.reduce(0) { $0 | 1 << $1 }
        self.newlineClass = Int(classOf[0x0A])
    }

    static func isWord(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || byte == 0x5F || (0x61...0x7A).contains(byte)
    }

    func build() throws(TooLarge) -> SubsetDFA {
        var states = WordSequenceTable()
        var transitions: [Int32] = []
        var matchesAtEnd: [UInt64] = []
        var emitted: [UInt64] = [0]
        var scratch = Scratch(threadCount: nfa.states.count << 2)
        var successors = Successors(classCount: classCount)
        var key = WordBuffer()
        var threads: [Thread] = []
        var startClosures: [StartKey: Closure] = [:]
        Position(atStart: true, previousIsWord: false, previousIsNewline: false, emitted: 0).writeHeader(into: &key)
        _ = states.intern(key)
        var next = 0
        while next < states.count {
            states.copy(next, into: &key)
            next += 1
            let position = Position(key: key)
            let latched = matches == .latched ? position.emitted : 0
            threads.removeAll(keepingCapacity: true)
            threads.append(contentsOf: key.words[Position.headerCount...])
            // A closure is the closure of the state's threads, which depends on the next byte
            // only through `\b`, joined with that of the patterns' starts, which depends on the
            // position and where attempts start, and is shared by many states.
            var ownClosures: [Closure?] = [nil, nil]
            func closure(_ next: Lookahead) -> Closure {
                let nextIsWord = next.isWord && !next.isEndOfSubject ? 1 : 0
                let own = ownClosures[nextIsWord] ?? self.closure(of: threads, position, next, latched: latched, &scratch)
                ownClosures[nextIsWord] = own
                let startKey = StartKey(position: position, latched: latched, next: next)
                let starts: Closure
                if let known = startClosures[startKey] {
                    starts = known
                } else {
                    starts = self.closure(of: startThreads(position, next, latched: latched), position, next, latched: latched, &scratch)
                    startClosures[startKey] = starts
                }
                return (Self.union(own.threads, starts.threads), own.matched | starts.matched)
            }
            matchesAtEnd.append(outcomeAtEnd(closure(Lookahead(isWord: false, isContinuation: false, isEndOfSubject: true))))
            // One closure per kind of next byte, stepped over every class of that kind at once.
            var closures = [Closure](repeating: ([], 0), count: Lookahead.kindCount)
            for kind in 0..<Lookahead.kindCount where kindsPresent & (1 << kind) != 0 {
                closures[kind] = closure(Lookahead(kind: kind))
            }
            // (A closure rather than a key path: projecting `\.threads.count` through the tuple
            // cost about 2,000 instructions a call, a fifth of the whole construction.)
            successors.reserve(closures.reduce(0) { max($0, $1.threads.count) })
            for kind in 0..<Lookahead.kindCount where kindsPresent & (1 << kind) != 0 {
                step(closures[kind].threads, matched: closures[kind].matched, kind: kind, into: &successors)
            }
            for byteClass in 0..<classCount {
                let byte = representatives[byteClass]
                Position(atStart: false, previousIsWord: nfa.usesWordBoundaries && Self.isWord(byte),
                         previousIsNewline: tracksNewlines && byte == 0x0A, emitted: closures[classKinds[byteClass]].matched).writeHeader(into: &key)
                successors.drain(byteClass, into: &key)
                let (index, added) = states.intern(key)
                if added {
                    if states.count > maxStates { throw TooLarge() }
                    emitted.append(matches == .emitted ? closures[classKinds[byteClass]].matched : 0)
                }
                transitions.append(Int32(index))
            }
        }
        return SubsetDFA(transitions: transitions, classCount: classCount, classOf: classOf, matchesAtEnd: matchesAtEnd,
                         emitted: emitted, start: 0)
    }

    /// The threads a closure starts from for the patterns' starts: each pattern not `latched`
    /// that attempts a match at this position.
    private func startThreads(_ position: Position, _ next: Lookahead, latched: UInt64) -> [Thread] {
        var threads: [Thread] = []
        for (pattern, start) in nfa.starts.enumerated() where latched & (1 << UInt64(pattern)) == 0 {
            let attempts: Bool
            switch (uses[pattern], searchStarts[pattern]) {
            case (.wholeSubject, _), (.search, .subjectStart): attempts = position.atStart
            case (.search, .lineStarts): attempts = position.atStart || position.previousIsNewline
            case (.search, .anywhere): attempts = position.atStart || next.isEndOfSubject || !next.isContinuation
            }
            if attempts { threads.append(UInt32(start) << 2) }
        }
        return threads
    }

    /// The threads reachable from `seeds` by ε-moves whose assertions hold, sorted, and the
    /// searched patterns that match at this position (with those `latched`).
    private func closure(of seeds: some Sequence<Thread>, _ position: Position, _ next: Lookahead, latched: UInt64,
                         _ scratch: inout Scratch) -> Closure {
        var matched = latched
        var result: [Thread] = []
        scratch.reset()
        scratch.stack.append(contentsOf: seeds)
        let nextIsWord = next.isWord && !next.isEndOfSubject
        while let thread = scratch.stack.popLast() {
            guard scratch.visit(thread) else { continue }
            let stateIndex = Int(thread >> 2)
            let constraint = Constraint(rawValue: thread & 3) ?? .free
            switch nfa.states[stateIndex] {
            case .bytes:
                result.append(thread)
            case .split(let nexts):
                for next in nexts { scratch.stack.append(UInt32(next) << 2 | constraint.rawValue) }
            case let .assertion(assertion, next):
                let holds: Constraint?
                switch assertion {
                case .startOfSubject, .circumflex: holds = position.atStart ? constraint : nil
                case .endOrFinalNewline: holds = constraint.joined(.endOrFinalNewline)
                case .endOfSubject: holds = .end
                case .wordBoundary: holds = position.previousIsWord != nextIsWord ? constraint : nil
                case .notWordBoundary: holds = position.previousIsWord == nextIsWord ? constraint : nil
                }
                if let holds { scratch.stack.append(UInt32(next) << 2 | holds.rawValue) }
            case .accept(let pattern):
                if uses[pattern] == .search, constraint == .free {
                    // A match that needs nothing of the rest: the outcome is fixed.
                    matched |= 1 << UInt64(pattern)
                } else {
                    result.append(thread)
                }
            }
        }
        result.sort()
        return (result, matched)
    }

    /// Two sorted thread lists as one, sorted without repeats.
    private static func union(_ first: [Thread], _ second: [Thread]) -> [Thread] {
        guard !second.isEmpty else { return first }
        guard !first.isEmpty else { return second }
        var result: [Thread] = []
        result.reserveCapacity(first.count + second.count)
        var (i, j) = (0, 0)
        while i < first.count, j < second.count {
            if first[i] < second[j] {
                result.append(first[i])
                i += 1
            } else if first[i] > second[j] {
                result.append(second[j])
                j += 1
            } else {
                result.append(first[i])
                i += 1
                j += 1
            }
        }
        result += first[i...]
        result += second[j...]
        return result
    }

    /// Adds to `successors[c]`, for each byte class `c` of lookahead `kind`, the threads a
    /// closure's threads become on a byte of that class.
    private func step(_ threads: [Thread], matched: UInt64, kind: Int, into successors: inout Successors) {
        for thread in threads {
            let stateIndex = Int(thread >> 2)
            // Threads of patterns that have matched are dropped: the match is latched or
            // emitted (when emitted, later attempts start afresh).
            guard matched & (1 << UInt64(patternOfState[stateIndex])) == 0 else { continue }
            let constraint = Constraint(rawValue: thread & 3) ?? .free
            let move = moves[stateIndex]
            let successor: Thread, classes: ClosedRange<Int>
            if move.low <= move.high {
                successor = move.next << 2
                classes = Int(classOf[Int(move.low)])...Int(classOf[Int(move.high)])
            } else if move.next != 0 {
                // An accept state: a searched match waiting on the rest of the subject (after
                // `$`) survives a final newline; a whole-subject match must end at the end.
                successor = UInt32(stateIndex) << 2
                classes = 0...(classCount - 1)
            } else {
                continue
            }
            switch constraint {
            case .free:
                for byteClass in classes where classKinds[byteClass] == kind { successors.append(successor, to: byteClass) }
            case .endOrFinalNewline:
                if classes.contains(newlineClass), classKinds[newlineClass] == kind {
                    successors.append(successor | Constraint.end.rawValue, to: newlineClass)
                }
            case .end:
                continue
            }
        }
    }

    /// Which patterns match a subject that ends in a state whose end-of-subject closure this is.
    private func outcomeAtEnd(_ closure: Closure) -> UInt64 {
        let (threads, matched) = closure
        var matches = matched
        for thread in threads {
            if case .accept(let pattern) = nfa.states[Int(thread >> 2)] {
                // At the end, every constraint on the rest of the subject holds.
                matches |= 1 << UInt64(pattern)
            }
        }
        return matches
    }
}

