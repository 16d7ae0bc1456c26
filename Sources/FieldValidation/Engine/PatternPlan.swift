import PatternAutomata
import Patterns

/// The pattern rules of a rule set, compiled per subject into automata: one pass over a
/// subject's bytes decides every pattern rule on it. Built from the rules' own data when the
/// pack is compiled; PCRE2 stays the reference (docs/RULE-PACKS.md, "How a pack runs").
struct PatternPlan: Sendable {
    /// A pattern a validator adds to a subject's automata for its own use, not a rule's: it
    /// shares their pass (the display-name fast path's plain-ASCII check). Its outcome bit is
    /// `bit`, above every rule's.
    struct ExtraPattern: Sendable {
        let subject: String
        let pattern: String
        let use: PatternUse
        let bit: Int
        /// The Swift rule it prefilters (``SubjectRule/prefilter``), if any: the plan shows it.
        var prefilters: Int? = nil
    }

    /// One subject's automata and the pattern rules they decide.
    struct Subject: Sendable {
        /// The subject's name (`value`, `domain`, …).
        let name: String
        let patterns: PatternSet
        /// Per pattern of ``patterns``, the index of the rule it decides; nil for an extra pattern.
        let rules: [Int?]
        /// Per pattern of ``patterns``, the Swift rule it prefilters, if it is such an extra.
        let prefilters: [Int?]
    }

    /// Where a pattern rule's outcome comes from.
    struct Slot: Sendable {
        /// Index into ``subjects``.
        let subject: Int
        /// The rule's bit in that subject's outcome.
        let bit: UInt64
        let strategy: PatternStrategy
    }

    let subjects: [Subject]
    /// Per rule, its slot; nil for rules that are not patterns.
    let slots: [Slot?]
    /// Per extra pattern given to ``init(_:extras:leftOut:)``, its slot; nil when left out.
    let extraSlots: [Slot?]
    /// False for a plan left uncompiled (``init(uncompiled:)``): every pattern rule runs in PCRE2.
    let isCompiled: Bool
    /// Subjects left out of the automata on purpose, with why their pattern rules run in PCRE2
    /// (an engine that decides them once per distinct value, e.g. per email domain).
    let leftOut: [String: String]

    /// No automata: every pattern rule of `ruleCount` rules runs in PCRE2 (for a validator whose
    /// hand-written fast path decides most values, so the automata would rarely run).
    init(uncompiled ruleCount: Int) {
        subjects = []
        slots = [Slot?](repeating: nil, count: ruleCount)
        extraSlots = []
        isCompiled = false
        leftOut = [:]
    }

    /// Compiles the pattern rules of `rules`, at most 64 per subject (the rest run in PCRE2),
    /// with `extras`. A rule's outcome bit is its index when there are at most 64 rules and no
    /// extra's bit is a pattern rule's index, else its place among its subject's patterns (and
    /// the extras are left out). Pattern rules and extras on a subject in `leftOut` get no
    /// automaton: the rules run in PCRE2, for the reason given.
    init(_ rules: [CompiledRule], extras: [ExtraPattern] = [], leftOut: [String: String] = [:]) {
        self.leftOut = leftOut
        var subjectNames: [String] = []
        /// Per subject, its patterns: the rule each decides or the extra it is, and its outcome
        /// bit when bits are rule indices.
        var members: [[(rule: Int?, extra: Int?, bit: Int, pattern: String, use: PatternUse)]] = []
        func add(_ rule: Int?, extra: Int? = nil, bit: Int, _ pattern: String, _ use: PatternUse, on target: String) {
            if let known = subjectNames.firstIndex(of: target) {
                members[known].append((rule, extra, bit, pattern, use))
            } else {
                subjectNames.append(target)
                members.append([(rule, extra, bit, pattern, use)])
            }
        }
        var patternRules = Set<Int>()
        for (index, rule) in rules.enumerated() where leftOut[rule.target] == nil {
            switch rule.check {
            case .mustMatch(let compiled): add(index, bit: index, compiled.source, .wholeSubject, on: rule.target)
            case .mustNotMatch(let compiled): add(index, bit: index, compiled.source, .search, on: rule.target)
            default: continue
            }
            patternRules.insert(index)
        }
        let bitsAreRuleIndices = rules.count <= 64 && extras.allSatisfy { $0.bit < 64 && !patternRules.contains($0.bit) }
        if bitsAreRuleIndices {
            for (index, extra) in extras.enumerated() where leftOut[extra.subject] == nil {
                add(nil, extra: index, bit: extra.bit, extra.pattern, extra.use, on: extra.subject)
            }
        }
        var slots = [Slot?](repeating: nil, count: rules.count)
        var extraSlots = [Slot?](repeating: nil, count: extras.count)
        var subjects: [Subject] = []
        // The automata assume PCRE2's default newline (LF); any other build runs every rule in PCRE2.
        isCompiled = true
        guard PCRE2Runtime.newlineIsLF else {
            self.subjects = []
            self.slots = slots
            self.extraSlots = extraSlots
            return
        }
        for (name, group) in zip(subjectNames, members) {
            let compiled = Array(group.prefix(64))
            let bits = compiled.enumerated().map { position, member in bitsAreRuleIndices ? member.bit : position }
            let set = PatternSet(compiled.map { (pattern: $0.pattern, use: $0.use) }, bits: bits)
            for (position, member) in compiled.enumerated() {
                let slot = Slot(subject: subjects.count, bit: 1 << UInt64(bits[position]), strategy: set.strategies[position])
                if let rule = member.rule { slots[rule] = slot }
                if let extra = member.extra { extraSlots[extra] = slot }
            }
            subjects.append(Subject(name: name, patterns: set, rules: compiled.map(\.rule),
                                    prefilters: compiled.map { $0.extra.flatMap { extras[$0].prefilters } }))
        }
        self.subjects = subjects
        self.slots = slots
        self.extraSlots = extraSlots
    }
    /// The outcome bits of every subject of `input` (0 for an absent subject).
    func outcomes(_ input: FieldInput) -> [UInt64] {
        subjects.map { subject in
            guard let text = input.subject(subject.name) else { return 0 }
            if let bits = text.utf8.withContiguousStorageIfAvailable({ subject.patterns.run(UnsafeRawBufferPointer($0)) }) {
                return bits
            }
            var copy = text
            return copy.withUTF8 { subject.patterns.run(UnsafeRawBufferPointer($0)) }
        }
    }
}
