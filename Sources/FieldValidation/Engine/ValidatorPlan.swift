import PatternAutomata

/// How a validator decides each rule of its packs: what `validate FIELD --explain-plan` prints.
///
/// The plan is derived from the rules' own data when the packs are compiled; tests assert on it
/// rather than on timing.
public struct ValidatorPlan: Sendable, Hashable, CustomStringConvertible {
    /// How one rule is decided.
    public enum Strategy: String, Sendable, Hashable {
        /// Exactly, by its subject's automaton (one table step per byte for all its rules).
        case automaton
        /// By an automaton for a wider pattern; PCRE2 decides only the subjects where it fires.
        case prefilterPCRE2 = "prefilter+pcre2"
        /// By PCRE2 alone.
        case pcre2
        /// By the subject's length.
        case length
        /// By a lookup in its list (a `list` rule, or a `breached` rule's store).
        case list
        /// By its Swift rule.
        case swift
    }

    /// One rule's entry.
    public struct Rule: Sendable, Hashable {
        /// The rule's id.
        public let id: String
        /// The rule's code.
        public let code: String
        /// The subject it checks (`value`, `domain`, …).
        public let subject: String
        public let strategy: Strategy
        /// The index in ``ValidatorPlan/automata`` of the automaton deciding it or its prefilter.
        public let automaton: Int?
        /// Why a pattern is a prefilter or runs in PCRE2 alone.
        public let reason: String?
    }

    /// One automaton.
    public struct Automaton: Sendable, Hashable {
        /// The subject it runs over.
        public let subject: String
        /// Its states after minimization.
        public let states: Int
        /// Its byte classes (the width of its table).
        public let byteClasses: Int
        /// The ids of the rules it decides (or prefilters).
        public let rules: [String]
    }

    /// The field validated.
    public let field: Field
    /// Every rule, in pack order.
    public let rules: [Rule]
    /// Every automaton.
    public let automata: [Automaton]

    init(_ set: CompiledRuleSet) {
        var automata: [Automaton] = []
        var automatonOf: [Int: Int] = [:]
        for subject in set.patterns.subjects {
            for (automaton, members) in zip(subject.patterns.automata, subject.patterns.members) {
                // An automaton of a validator's own patterns alone decides no rule.
                let ids = members.compactMap { subject.rules[$0] ?? subject.prefilters[$0] }
                guard !ids.isEmpty else { continue }
                for rule in ids { automatonOf[rule] = automata.count }
                automata.append(Automaton(subject: subject.name, states: automaton.stateCount, byteClasses: automaton.classCount,
                                          rules: ids.map { set.rules[$0].id }))
            }
        }
        rules = set.rules.enumerated().map { index, rule in
            let strategy: Strategy
            var reason: String?
            switch rule.check {
            case .length: strategy = .length
            case .list: strategy = .list
            case .swift(let rule):
                strategy = (rule as? any KindRule)?.strategy ?? .swift
                if automatonOf[index] != nil { reason = "runs only where its prefilter (\((rule as? any SubjectRule)?.prefilter ?? "")) matches" }
            case .mustMatch, .mustNotMatch:
                switch set.patterns.slots[index]?.strategy {
                case .automaton?: strategy = .automaton
                case .prefilter(let construct)?:
                    strategy = .prefilterPCRE2
                    reason = construct
                case .alone(let why)?:
                    strategy = .pcre2
                    reason = why
                case nil:
                    strategy = .pcre2
                    reason = set.patterns.leftOut[rule.target] ?? (set.patterns.isCompiled
                        ? "more than 64 pattern rules on one subject, or PCRE2 built with another newline"
                        : "the rule set was compiled without automata")
                }
            }
            return Rule(id: rule.id, code: rule.code, subject: rule.target, strategy: strategy, automaton: automatonOf[index], reason: reason)
        }
        self.automata = automata
        self.field = set.field
    }

    /// The plan as text: one line per rule, then one per automaton.
    public var description: String {
        var lines = ["plan for \(field.rawValue): \(rules.count) rule\(rules.count == 1 ? "" : "s"), \(automata.count) automat\(automata.count == 1 ? "on" : "a")"]
        for rule in rules {
            var line = "  \(rule.code)  \(rule.id)  on \(rule.subject): \(rule.strategy.rawValue)"
            if let automaton = rule.automaton { line += " (automaton \(automaton + 1))" }
            if let reason = rule.reason { line += ": \(reason)" }
            lines.append(line)
        }
        for (index, automaton) in automata.enumerated() {
            lines.append("  automaton \(index + 1) on \(automaton.subject): \(automaton.states) states, \(automaton.byteClasses) byte classes, \(automaton.rules.count) rule\(automaton.rules.count == 1 ? "" : "s")")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
