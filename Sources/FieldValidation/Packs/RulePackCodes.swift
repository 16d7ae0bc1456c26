// RulePackCodes: the catalogue of the rule-pack codes (`RP…`). Every call site, here and in the
// RulesKit facade, names its code through this table; the message, which may name values, stays
// at the call site. Wording may change; a code never does, and a retired code is never reused.
// docs/RULE-PACKS.md ("Errors") lists the same codes.
import Diagnostics

/// Every rule-pack code.
///
/// `RP0000`: RulesKit's fallback when the shipped packs did not load and their error named no
/// code. `RP1xxx`: reading and parsing a pack file. `RP2xxx`: combining and compiling packs (both
/// reported by ``RulePackError``). `RP3001`: a value a compiled rule could not decide (a
/// ``Violation``, not a pack error).
public enum RulePackCodes {
    // MARK: - RulesKit (RP0000)

    /// The shipped packs did not load and their error named no code.
    public static let unnamedLoadFailure = DiagnosticCode(
        id: "RP0000", summary: "the shipped packs did not load and their error named no code",
        help: "please report it")

    // MARK: - Reading a pack (RP1xxx)

    /// The pack is empty or not valid YAML (position from the YAML parser).
    public static let malformedYAML = DiagnosticCode(
        id: "RP1001", summary: "the pack is empty or not valid YAML",
        help: "fix the YAML at the position shown")
    /// A key the format does not have.
    public static let unknownKey = DiagnosticCode(
        id: "RP1002", summary: "a key the rule-pack format does not have",
        help: "check the spelling; the help line names the nearest key")
    /// A required key (`pack`, `field`, `id`, …) is missing.
    public static let missingKey = DiagnosticCode(
        id: "RP1003", summary: "a required key (`pack`, `field`, `id`) is missing",
        help: "add the key; docs/RULE-PACKS.md gives the format")
    /// A value of the wrong type (mapping, list, string, integer, boolean expected).
    public static let wrongType = DiagnosticCode(
        id: "RP1004", summary: "a value of the wrong type (a mapping, list, string, integer or boolean was expected)",
        help: "write the value as the message says")
    /// A key twice in one mapping.
    public static let duplicateKey = DiagnosticCode(
        id: "RP1005", summary: "a key appears twice in one mapping",
        help: "keep one of them")
    /// A value `field`, `kind`, `unit` or `key` does not take.
    public static let unknownValue = DiagnosticCode(
        id: "RP1006", summary: "an unknown value for `field`, `kind`, `unit` or `key`",
        help: "use one of the values the help line lists")
    /// A list file that cannot be read.
    public static let unreadableListFile = DiagnosticCode(
        id: "RP1007", summary: "a list file cannot be read",
        help: "check the path (relative to the pack) and that the file is readable")
    /// A pack directory or file that cannot be read, or embedded packs that do not load.
    public static let unreadablePack = DiagnosticCode(
        id: "RP1008", summary: "a pack directory or file cannot be read",
        help: "check the path and its permissions")
    /// A `breached` rule's `file` that is not a breached-password store.
    public static let notABreachedStore = DiagnosticCode(
        id: "RP1009", summary: "a `breached` rule's `file` is not a breached-password store this build reads",
        help: "build a store with `validate breached import FILE… --output STORE`")

    // MARK: - Combining and compiling packs (RP2xxx)

    /// Two rules with one id.
    public static let duplicateRuleID = DiagnosticCode(
        id: "RP2001", summary: "two rules have the same id",
        help: "rename one, or add `override: true` to replace the first")
    /// `override` of an id no earlier pack defines.
    public static let overrideOfUnknownRule = DiagnosticCode(
        id: "RP2002", summary: "`override` of a rule id no earlier pack defines",
        help: "check the id; drop `override` for a new rule")
    /// `disable` of an id no pack defines.
    public static let disableOfUnknownRule = DiagnosticCode(
        id: "RP2003", summary: "`disable` of a rule id no pack defines",
        help: "check the id")
    /// A pattern PCRE2 does not compile.
    public static let patternDoesNotCompile = DiagnosticCode(
        id: "RP2004", summary: "a pattern does not compile (PCRE2's message and offset)",
        help: "fix the pattern at the caret")
    /// A key the rule's kind needs is missing, or a bound is out of range.
    public static let invalidRuleSettings = DiagnosticCode(
        id: "RP2005", summary: "a key the rule's kind needs is missing, or a bound is out of range (`min` > `max`, `min-count` 0, `min-score` outside 0-4)",
        help: "give the rule the keys its kind needs, with bounds in range")
    /// A `swift` rule that names no registered `FieldRule`.
    public static let unregisteredSwiftRule = DiagnosticCode(
        id: "RP2006", summary: "a `swift` rule names no registered `FieldRule`",
        help: "register it with the validator's `rules:` parameter")
    /// A key that does not apply to the rule's kind.
    public static let inapplicableKey = DiagnosticCode(
        id: "RP2007", summary: "a key that does not apply to the rule's kind",
        help: "remove the key, or change the rule's `kind`")
    /// An `on:` subject the field does not have.
    public static let unknownSubject = DiagnosticCode(
        id: "RP2008", summary: "an unknown subject in `on:`",
        help: "use one of the field's subjects the help line lists")
    /// Two rules of one field with one code.
    public static let duplicateCode = DiagnosticCode(
        id: "RP2009", summary: "two rules of one field share a code",
        help: "give each rule its own code")
    /// Two Swift rules registered under one name.
    public static let duplicateSwiftRule = DiagnosticCode(
        id: "RP2010", summary: "two Swift rules are registered under one name",
        help: "register each `FieldRule` under its own name")
    /// An `unless` naming a rule that is not earlier in the pack order.
    public static let unlessNotEarlier = DiagnosticCode(
        id: "RP2011", summary: "`unless` names a rule that is not earlier in the pack order",
        help: "name a rule defined before this one")
    /// A `strength` rule in a pack whose field is not `password`.
    public static let strengthOutsidePassword = DiagnosticCode(
        id: "RP2012", summary: "a `strength` rule in a pack whose field is not `password`",
        help: "move the rule to a password pack")

    // MARK: - Validation (RP3xxx)

    /// A value a pattern rule could not decide (match limit hit, or any other PCRE2 error): the
    /// value fails closed, never valid because a match gave up.
    public static let matchGaveUp = DiagnosticCode(
        id: "RP3001", summary: "a rule's match gave up on the value, so the value fails closed",
        help: "the parameters name the rule's own code and PCRE2's error; simplify the pattern or send a shorter value")

    /// Every code, in order.
    public static let all: [DiagnosticCode] = [
        unnamedLoadFailure,
        malformedYAML, unknownKey, missingKey, wrongType, duplicateKey, unknownValue, unreadableListFile, unreadablePack,
        notABreachedStore,
        duplicateRuleID, overrideOfUnknownRule, disableOfUnknownRule, patternDoesNotCompile, invalidRuleSettings,
        unregisteredSwiftRule, inapplicableKey, unknownSubject, duplicateCode, duplicateSwiftRule, unlessNotEarlier,
        strengthOutsidePassword,
        matchGaveUp,
    ]
}
