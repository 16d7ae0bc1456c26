import PatternAutomata
import Patterns

/// The pattern rules of a rule set, compiled per subject into automata: one pass over a
/// subject's bytes decides every pattern rule on it. Built from the rules' own data when the
/// pack is compiled; PCRE2 stays the reference (docs/RULE-PACKS.md, "How a pack runs").
struct PatternPlan: Sendable {
    /// One subject's automata and the pattern rules they decide.
    struct Subject: Sendable {
        /// The subject's name (`value`, `domain`, …).
        let name: String
        let patterns: PatternSet
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

    /// Compiles the pattern rules of `rules`, at most 64 per subject (the rest run in PCRE2).
    init(_ rules: [CompiledRule]) {
        var subjectNames: [String] = []
        var members: [[(rule: Int, pattern: String, use: PatternUse)]] = []
        for (index, rule) in rules.enumerated() {
            let pattern: (Pattern, PatternUse)
            switch rule.check {
            case .mustMatch(let compiled): pattern = (compiled, .wholeSubject)
            case .mustNotMatch(let compiled): pattern = (compiled, .search)
            default: continue
            }
            let subject: Int
            if let known = subjectNames.firstIndex(of: rule.target) {
                subject = known
            } else {
                subject = subjectNames.count
                subjectNames.append(rule.target)
                members.append([])
            }
            members[subject].append((index, pattern.0.source, pattern.1))
        }
        var slots = [Slot?](repeating: nil, count: rules.count)
        var subjects: [Subject] = []
        // The automata assume PCRE2's default newline (LF); any other build runs every rule in PCRE2.
        guard PCRE2Runtime.newlineIsLF else {
            self.subjects = []
            self.slots = slots
            return
        }
        for (name, group) in zip(subjectNames, members) {
            let compiled = Array(group.prefix(64))
            let set = PatternSet(compiled.map { (pattern: $0.pattern, use: $0.use) })
            for (position, member) in compiled.enumerated() {
                slots[member.rule] = Slot(subject: subjects.count, bit: 1 << UInt64(position), strategy: set.strategies[position])
            }
            subjects.append(Subject(name: name, patterns: set))
        }
        self.subjects = subjects
        self.slots = slots
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
