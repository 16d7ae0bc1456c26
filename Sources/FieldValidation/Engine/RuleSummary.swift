/// What one compiled rule checks, as data: for tools that reason about a whole pack, such as
/// `validate rules agree`, which translates a pack into SMT constraints.
///
/// Not the engine's own form (``CompiledRule``): it names the check and its parameters and leaves
/// out messages, automata and caches.
package struct RuleSummary: Sendable {
    /// What the rule checks.
    package enum Check: Sendable {
        /// The subject must match `pattern` (PCRE2, UTF, no UCP) as a whole.
        case mustMatch(pattern: String)
        /// `pattern` (PCRE2, UTF, no UCP) must not match anywhere in the subject.
        case mustNotMatch(pattern: String)
        /// The subject's length in `unit` lies within `min`…`max`.
        case length(LengthUnit, min: Int?, max: Int?)
        /// The subject's key must not be one of `keys` (the list's entries, and the app's name
        /// when the rule includes it, already turned into keys).
        case list(ListKey, keys: Set<String>)
        /// Logic in Swift: `name` is the registered rule's name and `kind` the pack's kind for
        /// the rule (`swift`; `list` with an allow file or on domain suffixes; `breached`; `strength`).
        case swift(name: String, kind: RuleKind)
    }

    /// The rule's stable id (`display-name.reserved`).
    package var id: String
    /// The rule's code (`DN107`).
    package var code: String
    /// The subject the rule reads (`value`).
    package var target: String
    package var check: Check
}

extension CompiledRuleSet {
    /// Every compiled rule, in pack order, as ``RuleSummary`` values.
    var summaries: [RuleSummary] {
        rules.map { rule in
            let check: RuleSummary.Check
            switch rule.check {
            case .mustMatch(let pattern): check = .mustMatch(pattern: pattern.source)
            case .mustNotMatch(let pattern): check = .mustNotMatch(pattern: pattern.source)
            case .length(let unit, let min, let max): check = .length(unit, min: min, max: max)
            case .list(let list): check = .list(list.kind, keys: list.entries)
            case .swift(let swiftRule): check = .swift(name: swiftRule.name, kind: rule.definition.kind ?? .swift)
            }
            return RuleSummary(id: rule.id, code: rule.code, target: rule.target, check: check)
        }
    }
}

extension DisplayNameValidator {
    /// The effective rules (shipped packs, overrides, disables and the app's name applied), in
    /// pack order. A name is valid exactly when it passes every one (`unless` only silences
    /// reports of a name already invalid).
    package var ruleSummaries: [RuleSummary] { rules.summaries }
}
