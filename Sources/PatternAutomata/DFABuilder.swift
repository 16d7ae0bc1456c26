// Subset construction over the product of several patterns, each applied as a whole-subject
// match (`must-match`) or a search (`must-not-match`), with PCRE2's assertions.

/// How a pattern applies to a subject.
public enum PatternUse: Hashable, Sendable {
    /// The pattern must match the whole subject (`PCRE2_ANCHORED | PCRE2_ENDANCHORED`).
    case wholeSubject
    /// The pattern may match anywhere in the subject.
    case search
}

/// A DFA before minimization: transitions per byte class, and per state the patterns that
/// are *decided* (violated) if the subject ends there.
struct SubsetDFA {
    /// `transitions[state * classCount + class]`.
    var transitions: [Int32]
    var classCount: Int
    var classOf: [UInt8]
    /// Per state, bit `p` set when pattern `p`'s outcome at the end of the subject is "matches".
    var matchesAtEnd: [UInt64]
    var start: Int

    var stateCount: Int { matchesAtEnd.count }
}

/// Builds a ``SubsetDFA`` for an NFA's patterns.
///
/// A thread is an NFA state plus what the rest of the subject must be for it to succeed: free,
/// "empty or one newline" (after `$`), or "empty" (after `\z`). A DFA state is the set of
/// threads that have just consumed a byte, whether the position is the start of the subject,
/// whether the last byte was a word character (only when some pattern asserts `\b`), and which
/// searched patterns have already matched (their threads are dropped: the outcome is fixed).
/// Assertions are decided while following ε-moves, when the next byte is known.
struct DFABuilder {
    private let nfa: NFA
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

    private enum Constraint: UInt32 {
        case free = 0
        /// The rest of the subject is empty or one newline (`$` was crossed).
        case endOrFinalNewline = 1
        /// The rest of the subject is empty (`\z` was crossed, or a newline after `$`).
        case end = 2

        func joined(_ other: Constraint) -> Constraint { rawValue >= other.rawValue ? self : other }

        /// After consuming `byte`, or nil when the thread dies.
        func after(_ byte: UInt8) -> Constraint? {
            switch self {
            case .free: .free
            case .endOrFinalNewline: byte == 0x0A ? .end : nil
            case .end: nil
            }
        }
    }

    /// A thread as one number: NFA state << 2 | constraint.
    private typealias Thread = UInt32

    private struct Key: Hashable {
        var threads: [Thread]
        var atStart: Bool
        var previousIsWord: Bool
        var previousIsNewline: Bool
        var matched: UInt64
    }

    /// What the ε-closure needs to know of the next byte.
    private struct Lookahead: Hashable {
        var isWord: Bool
        /// A UTF-8 continuation byte: no match attempt starts before it (inside a character).
        var isContinuation: Bool
        var isEndOfSubject: Bool
    }

    /// Thrown when the DFA would pass `maxStates`.
    struct TooLarge: Error {}

    init(nfa: NFA, uses: [PatternUse], searchStarts: [SearchStart], maxStates: Int) {
        self.nfa = nfa
        self.uses = uses
        self.searchStarts = searchStarts
        self.tracksNewlines = zip(uses, searchStarts).contains { $0 == .search && $1 == .lineStarts }
        self.maxStates = maxStates
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
    }

    static func isWord(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || byte == 0x5F || (0x61...0x7A).contains(byte)
    }

    func build() throws(TooLarge) -> SubsetDFA {
        var index: [Key: Int] = [:]
        var keys: [Key] = []
        var transitions: [Int32] = []
        var matchesAtEnd: [UInt64] = []
        func state(for key: Key) throws(TooLarge) -> Int {
            if let existing = index[key] { return existing }
            guard keys.count < maxStates else { throw TooLarge() }
            index[key] = keys.count
            keys.append(key)
            return keys.count - 1
        }
        let start = try state(for: Key(threads: [], atStart: true, previousIsWord: false, previousIsNewline: false, matched: 0))
        var next = 0
        while next < keys.count {
            let key = keys[next]
            next += 1
            matchesAtEnd.append(outcomeAtEnd(key))
            // The ε-closure depends on the next byte only through `\b` and where attempts start.
            var closures: [Lookahead: (threads: [Thread], matched: UInt64)] = [:]
            for representative in representatives {
                let lookahead = Lookahead(isWord: nfa.usesWordBoundaries && Self.isWord(representative),
                                          isContinuation: representative & 0xC0 == 0x80, isEndOfSubject: false)
                let closure: (threads: [Thread], matched: UInt64)
                if let known = closures[lookahead] {
                    closure = known
                } else {
                    closure = self.closure(key, lookahead)
                    closures[lookahead] = closure
                }
                let successor = step(closure.threads, matched: closure.matched, on: representative)
                transitions.append(Int32(try state(for: successor)))
            }
        }
        return SubsetDFA(transitions: transitions, classCount: classCount, classOf: classOf, matchesAtEnd: matchesAtEnd, start: start)
    }

    /// The threads reachable from `key`'s threads and the patterns' starts by ε-moves whose
    /// assertions hold, and the searched patterns that have matched by then.
    private func closure(_ key: Key, _ next: Lookahead) -> (threads: [Thread], matched: UInt64) {
        var matched = key.matched
        var seen = Set<Thread>()
        var result: [Thread] = []
        var stack: [Thread] = key.threads
        for (pattern, start) in nfa.starts.enumerated() where matched & (1 << UInt64(pattern)) == 0 {
            let attempts: Bool
            switch (uses[pattern], searchStarts[pattern]) {
            case (.wholeSubject, _), (.search, .subjectStart): attempts = key.atStart
            case (.search, .lineStarts): attempts = key.atStart || key.previousIsNewline
            case (.search, .anywhere): attempts = key.atStart || next.isEndOfSubject || !next.isContinuation
            }
            if attempts { stack.append(UInt32(start) << 2) }
        }
        let nextIsWord = next.isWord && !next.isEndOfSubject
        while let thread = stack.popLast() {
            guard seen.insert(thread).inserted else { continue }
            let stateIndex = Int(thread >> 2)
            let constraint = Constraint(rawValue: thread & 3) ?? .free
            switch nfa.states[stateIndex] {
            case .bytes:
                result.append(thread)
            case .split(let nexts):
                for next in nexts { stack.append(UInt32(next) << 2 | constraint.rawValue) }
            case let .assertion(assertion, next):
                let holds: Constraint?
                switch assertion {
                case .startOfSubject, .circumflex: holds = key.atStart ? constraint : nil
                case .endOrFinalNewline: holds = constraint.joined(.endOrFinalNewline)
                case .endOfSubject: holds = .end
                case .wordBoundary: holds = key.previousIsWord != nextIsWord ? constraint : nil
                case .notWordBoundary: holds = key.previousIsWord == nextIsWord ? constraint : nil
                }
                if let holds { stack.append(UInt32(next) << 2 | holds.rawValue) }
            case .accept(let pattern):
                if uses[pattern] == .search, constraint == .free {
                    // A match that needs nothing of the rest: the outcome is fixed.
                    matched |= 1 << UInt64(pattern)
                } else {
                    result.append(thread)
                }
            }
        }
        return (result, matched)
    }

    /// The state after consuming `byte` from a closure.
    private func step(_ threads: [Thread], matched: UInt64, on byte: UInt8) -> Key {
        var next: [Thread] = []
        next.reserveCapacity(threads.count)
        for thread in threads {
            let stateIndex = Int(thread >> 2)
            guard let constraint = Constraint(rawValue: thread & 3) else { continue }
            let successor: Thread
            switch nfa.states[stateIndex] {
            case let .bytes(range, target):
                guard range.contains(byte), let after = constraint.after(byte) else { continue }
                successor = UInt32(target) << 2 | after.rawValue
            case .accept(let pattern):
                // A searched match waiting on the rest of the subject (after `$`) survives a
                // final newline; a whole-subject match must end at the end.
                guard uses[pattern] == .search, let after = constraint.after(byte) else { continue }
                successor = UInt32(stateIndex) << 2 | after.rawValue
            default:
                continue
            }
            // Threads of patterns whose outcome is fixed are dropped: fewer states.
            if matched & (1 << UInt64(nfa.pattern(of: Int(successor >> 2)))) == 0 { next.append(successor) }
        }
        // Sorted without repeats: the key of a set of threads (an array sort, no hashing).
        next.sort()
        var unique = 0
        for index in next.indices where index == 0 || next[index] != next[unique - 1] {
            next[unique] = next[index]
            unique += 1
        }
        next.removeLast(next.count - unique)
        return Key(threads: next, atStart: false, previousIsWord: nfa.usesWordBoundaries && Self.isWord(byte),
                   previousIsNewline: tracksNewlines && byte == 0x0A, matched: matched)
    }

    /// Which patterns match a subject that ends in this state.
    private func outcomeAtEnd(_ key: Key) -> UInt64 {
        let (threads, matched) = closure(key, Lookahead(isWord: false, isContinuation: false, isEndOfSubject: true))
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
