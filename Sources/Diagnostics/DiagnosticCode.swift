// DiagnosticCode: one entry of a module's catalogue of stable codes (RulesLanguageCodes,
// RulePackCodes): the code a diagnostic carries, what it reports and what to do about it.

/// One code of a module's catalogue.
///
/// The entry holds what does not depend on the input: the stable id, a one-line summary and
/// general help. The call site writes the ``Diagnostic``'s message, which may name values, and
/// may give a more specific help of its own.
public struct DiagnosticCode: Sendable, Hashable {
    /// The stable id, e.g. `RL1003`. Wording may change; an id never does, and a retired id is
    /// never reused.
    public let id: String
    /// What the code reports, one line.
    public let summary: String
    /// What to do about it.
    public let help: String

    /// Creates a catalogue entry.
    public init(id: String, summary: String, help: String) {
        self.id = id
        self.summary = summary
        self.help = help
    }
}
