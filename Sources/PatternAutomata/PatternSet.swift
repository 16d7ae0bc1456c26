// PatternAutomata: compiles a set of PCRE2 patterns (UTF mode, no UCP, newline LF) into
// deterministic automata over bytes, so one table step per byte decides all of them at once.
// Owns: the pattern syntax it understands, UTF-8 range compilation, the Thompson NFA, subset
// construction, minimization and the table layout. Does not own: PCRE2 (Patterns), which stays
// the reference; what a match means for a rule (FieldValidation).

/// How one pattern of a ``PatternSet`` is decided.
public enum PatternStrategy: Hashable, Sendable {
    /// Exactly, by an automaton: its bit is whether the pattern matches.
    case automaton
    /// By an automaton for an over-approximation (the construct named is dropped or
    /// widened): its bit clear means "does not match"; set, PCRE2 must decide.
    case prefilter(construct: String)
    /// Not by an automaton; `reason` says why.
    case alone(reason: String)
}

/// Patterns compiled together into as few automata as their size allows.
///
/// ```swift
/// let set = PatternSet([("[A-Za-z0-9._]*", .wholeSubject), (#"\.\."#, .search)])
/// set.run(bytes)   // bit 0: the whole name is in the class; bit 1: it holds `..`
/// ```
public struct PatternSet: Sendable {
    /// Per pattern, how it is decided.
    public let strategies: [PatternStrategy]
    /// The automata; each pattern decided by one is in exactly one.
    public let automata: [ByteAutomaton]
    /// Per automaton, the indices of the patterns it decides.
    public let members: [[Int]]
    /// Per pattern, the one text every match of it is, when there is one (`\\.\\.` is always
    /// `..`): a violation naming the match is then the same for every subject.
    public let fixedMatches: [String?]

    /// The most states one automaton may have before minimization; past it, the patterns are
    /// split into several automata, and a pattern too big alone is left to PCRE2.
    public static let defaultMaxStates = 10_000

    /// The most states an automaton that remembers which searched patterns matched may take;
    /// past it, the automaton emits matches instead (a run then ORs in what each state emits).
    /// Remembering saves a test per byte; emitting keeps k searched patterns from multiplying
    /// the states by the 2^k sets of those matched. Remembering is not tried when the emitting
    /// automaton alone has more than a quarter of these states: it would almost always pass them.
    public static let defaultLatchingStates = 1_024

    /// Compiles `patterns` (at most 64).
    ///
    /// - Parameters:
    ///   - patterns: each pattern's text and use.
    ///   - bits: the outcome bit of each pattern (distinct, below 64); by default its index.
    ///   - maxStates: see ``defaultMaxStates``.
    ///   - latchingStates: see ``defaultLatchingStates``.
    public init(_ patterns: [(pattern: String, use: PatternUse)], bits: [Int]? = nil, maxStates: Int = PatternSet.defaultMaxStates,
                latchingStates: Int = PatternSet.defaultLatchingStates) {
        precondition(patterns.count <= 64, "PatternSet: at most 64 patterns")
        let bits = bits ?? Array(patterns.indices)
        precondition(bits.count == patterns.count && Set(bits).count == bits.count && bits.allSatisfy { (0..<64).contains($0) },
                     "PatternSet: one distinct bit below 64 per pattern")
        var strategies: [PatternStrategy] = []
        var fixedMatches: [String?] = []
        var parsed: [(index: Int, regex: Regex, use: PatternUse)] = []
        for (index, pattern) in patterns.enumerated() {
            do {
                let regex = try RegexParser.parse(pattern.pattern)
                parsed.append((index, regex, pattern.use))
                fixedMatches.append(regex.fixedText)
                strategies.append(regex.approximatedConstruct.map { .prefilter(construct: $0) } ?? .automaton)
            } catch {
                strategies.append(.alone(reason: "\(error.construct) (offset \(error.offset))"))
                fixedMatches.append(nil)
            }
        }
        var automata: [ByteAutomaton] = []
        var members: [[Int]] = []
        var pending = [parsed]
        while let group = pending.popLast() {
            guard !group.isEmpty else { continue }
            switch Self.automaton(for: group, bits: group.map { bits[$0.index] }, latchingStates: latchingStates, maxStates: maxStates) {
            case .success(let automaton):
                automata.append(automaton)
                members.append(group.map(\.index))
            case .failure where group.count > 1:
                let half = group.count / 2
                pending.append(Array(group[half...]))
                pending.append(Array(group[..<half]))
            case .failure(let failure):
                strategies[group[0].index] = .alone(reason: failure.reason)
            }
        }
        self.strategies = strategies
        self.automata = automata
        self.members = members
        self.fixedMatches = fixedMatches
    }

    private struct Failure: Error {
        let reason: String
    }

    private static func automaton(for group: [(index: Int, regex: Regex, use: PatternUse)], bits: [Int], latchingStates: Int,
                                  maxStates: Int) -> Result<ByteAutomaton, Failure> {
        var nfa = NFA()
        do throws(Unsupported) {
            for member in group { try nfa.add(member.regex) }
        } catch {
            return .failure(Failure(reason: error.construct))
        }
        func build(_ matches: DFABuilder.Matches, maxStates: Int) throws(DFABuilder.TooLarge) -> SubsetDFA {
            try DFABuilder(nfa: nfa, uses: group.map(\.use), searchStarts: group.map(\.regex.searchStart),
                           matches: matches, maxStates: maxStates).build().minimized()
        }
        // Emitted matches first: the fewest states. With no match to emit (no searched pattern,
        // or none that can match), it is the remembering automaton too.
        let emitting: SubsetDFA
        do throws(DFABuilder.TooLarge) {
            emitting = try build(.emitted, maxStates: maxStates)
        } catch {
            return .failure(Failure(reason: "an automaton over \(maxStates) states"))
        }
        guard emitting.emitted.contains(where: { $0 != 0 }), emitting.stateCount * 4 <= latchingStates else {
            return .success(ByteAutomaton(emitting, positions: bits))
        }
        // Remembered matches when they stay under `latchingStates`: a run then reads only its last state.
        do throws(DFABuilder.TooLarge) {
            return .success(ByteAutomaton(try build(.latched, maxStates: min(maxStates, latchingStates)), positions: bits))
        } catch {
            return .success(ByteAutomaton(emitting, positions: bits))
        }
    }

    /// The outcome bits for `bytes`: for each pattern decided by an automaton, its bit is set when
    /// it (or its approximation) matches; 0 for the others.
    @inline(__always)
    public func run(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var bits: UInt64 = 0
        for automaton in automata { bits |= automaton.run(bytes) }
        return bits
    }

    /// Each automaton's state count (the plan reports them).
    public var stateCounts: [Int] { automata.map(\.stateCount) }
}

extension Regex {
    /// The one string this regex matches, when it matches exactly one (ignoring assertions).
    var fixedText: String? {
        switch self {
        case .empty, .assertion: return ""
        case .characters(let set):
            guard set.ranges.count == 1, set.ranges[0].count == 1, let scalar = Unicode.Scalar(set.ranges[0].lowerBound) else { return nil }
            return String(Character(scalar))
        case .concatenation(let items):
            var text = ""
            for item in items {
                guard let part = item.fixedText else { return nil }
                text += part
            }
            return text
        case .repetition(let body, let min, let max) where max == min:
            return body.fixedText.map { String(repeating: $0, count: min) }
        default:
            return nil
        }
    }

    /// The first construct an approximation stands for, or nil when the regex is exact.
    var approximatedConstruct: String? {
        switch self {
        case .empty, .characters, .anyCharacter, .assertion: nil
        case .concatenation(let items), .alternation(let items): items.lazy.compactMap(\.approximatedConstruct).first
        case .repetition(let body, _, _): body.approximatedConstruct
        case .approximated(_, let construct): construct
        }
    }
}

/// Where a search may start a match attempt. PCRE2 (10.42) skips attempts it knows cannot
/// succeed: an answer changes only when an invalid UTF-8 sequence is a barrier `.*` cannot
/// cross, but the automaton gives PCRE2's answer there too.
enum SearchStart: Hashable, Sendable {
    /// At every position that does not fall inside a character: not before a UTF-8
    /// continuation byte, except at the start and the end.
    case anywhere
    /// At the start and after each newline: every top-level branch starts with `^` or a
    /// non-dot-all `.*` (PCRE2's "startline").
    case lineStarts
    /// At the start only: every top-level branch starts with `\A`, `\G`, `^` or a dot-all
    /// `.*` (PCRE2's "anchored").
    case subjectStart
}

extension Regex {
    /// Where PCRE2 starts match attempts for this pattern as a search. An approximated
    /// pattern keeps every start (a prefilter may only widen).
    var searchStart: SearchStart {
        guard approximatedConstruct == nil else { return .anywhere }
        if leads(where: { item in
            switch item {
            case .assertion(.startOfSubject), .assertion(.circumflex): true
            case .repetition(.anyCharacter(dotAll: true), 0, nil): true
            default: false
            }
        }) {
            return .subjectStart
        }
        if leads(where: { item in
            switch item {
            case .assertion(.circumflex): true
            case .repetition(.anyCharacter(dotAll: false), 0, nil): true
            default: false
            }
        }) {
            return .lineStarts
        }
        return .anywhere
    }

    /// Whether this is a single character item (`.`, a class), not a group.
    private var isCharacterItem: Bool {
        switch self {
        case .characters, .anyCharacter: true
        default: false
        }
    }

    /// Whether every branch's first item, looking into groups, is one `qualifies` accepts.
    private func leads(where qualifies: (Regex) -> Bool) -> Bool {
        switch self {
        case .alternation(let branches): branches.allSatisfy { $0.leads(where: qualifies) }
        case .concatenation(let items): items.first?.leads(where: qualifies) ?? false
        // A group repeated at least once starts with its first iteration.
        case .repetition(let body, let min, _) where min >= 1 && !body.isCharacterItem: body.leads(where: qualifies)
        default: qualifies(self)
        }
    }
}
