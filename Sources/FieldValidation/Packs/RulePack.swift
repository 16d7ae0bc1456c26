import BreachedPasswords
import Diagnostics
import PasswordStrength

/// Which validator a rule pack configures.
public enum Field: String, Sendable, Hashable, CaseIterable {
    case displayName = "display-name"
    case email
    case password

    /// The subjects a rule of this field can be applied to with `on:`; the first is the default.
    public var targets: [String] {
        switch self {
        case .displayName: ["value"]
        case .email: ["address", "local-part", "domain", "ascii-domain", "ascii-address"]
        case .password: ["value", "raw"]
        }
    }
}

/// What a rule checks.
public enum RuleKind: String, Sendable, Hashable, CaseIterable {
    /// The subject must match the pattern as a whole (`\A…\z`).
    case mustMatch = "must-match"
    /// The pattern must not match anywhere in the subject (search).
    case mustNotMatch = "must-not-match"
    /// The subject's length, in an explicit unit, must lie within `min`…`max`.
    case length
    /// The subject's key (see ``ListKey``) must not be in a list file.
    case list
    /// Logic written in Swift: a ``FieldRule`` registered under the rule's `name`.
    case swift
    /// The subject's SHA-1 must not be in a breached-password store (`file:`) seen at least
    /// `min-count` times.
    case breached
    /// A password's strength score (zxcvbn 4.5.0's estimate of its first 72 characters, with
    /// the account's words as a user dictionary) must be at least `min-score` (0-4).
    case strength
}

/// The unit a `length` rule counts in.
public enum LengthUnit: String, Sendable, Hashable, CaseIterable {
    /// Unicode scalar values.
    case codePoints = "code-points"
    /// Bytes of the UTF-8 encoding.
    case utf8Octets = "utf8-octets"
}

/// How a `list` rule turns the subject and every list entry into comparable keys.
public enum ListKey: String, Sendable, Hashable, CaseIterable {
    /// Compared as written.
    case exact
    /// ASCII letters lowercased; everything else (including `.` and `_`) kept.
    case canonical
    /// ``canonical``, then `1`, `i`, `|` → `l`, `0` → `o`, `rn` → `m`.
    case lookalike
    /// NFKC, leading/trailing whitespace trimmed, then lowercased.
    case nfkcCasefold = "nfkc-casefold"
    /// ASCII letters lowercased, and listed when the value or any parent domain is an entry
    /// (`a.b.example` is listed by `b.example` and by `example`).
    case domainSuffix = "domain-suffix"
}

/// One rule as written in a pack. Every property but `id` may be missing in an `override`
/// entry, which inherits what it leaves out from the rule it overrides.
public struct RuleDefinition: Sendable {
    /// Stable dotted id, e.g. `display-name.consecutive-periods`.
    public var id: String
    public var code: String?
    public var kind: RuleKind?
    /// End-user message with `{placeholder}`s.
    public var message: String?
    public var description: String?
    /// Where the rule comes from: an RFC section, NIST SP 800-63B, a product rule.
    public var source: String?
    /// The subject the rule applies to (see ``Field/targets``).
    public var target: String?
    public var pattern: String?
    public var unit: LengthUnit?
    public var min: Int?
    public var max: Int?
    /// The `file:` as written, and its entries (one per non-blank, non-`#` line).
    public var listFile: String?
    public var listEntries: [String]?
    /// The `file:` resolved like list files (relative to the pack's directory): where a
    /// `breached` rule's store is.
    public var filePath: String?
    /// `allow-file:` of a `list` rule as written, and its entries: values whose key is listed
    /// there (for `domain-suffix`, whose domain or a parent domain is) never violate the rule.
    public var allowFile: String?
    public var allowEntries: [String]?
    /// `breached`: the fewest sightings that make a password breached (default 1).
    public var minCount: Int?
    /// `strength`: the least score (0-4) a password needs.
    public var minScore: Int?
    /// `enabled: false` keeps a rule in the pack, switched off: it is not compiled, so keys its
    /// kind needs may be missing; an overriding entry, or a validator option, switches it on.
    public var enabled: Bool?
    public var listKey: ListKey?
    /// Whether a `list` rule also treats the validator's app name as a list entry.
    public var includeAppName: Bool?
    /// The registered ``FieldRule`` name of a `swift` rule (defaults to the id).
    public var swiftName: String?
    public var validExamples: [String]?
    public var invalidExamples: [String]?
    /// Ids of earlier rules whose violation makes this one skip (no double reports).
    public var unless: [String]?
    /// True when this entry overrides a rule of an earlier pack.
    public var isOverride: Bool

    /// Where the rule is defined, for diagnostics.
    public var location: RuleLocation

    /// Reads an override entry's `file:` as a list when its kind is only known after merging.
    var deferredList: (@Sendable () throws -> [String])?
    /// A `breached` rule's store when a validator was handed one (it wins over `file:`).
    var breachedStore: BreachedStore?
    /// A `strength` rule's estimator when a validator was handed one (else the shipped one).
    var strengthEstimator: StrengthEstimator?

    /// Whether the rule runs (`enabled` is not false).
    public var isEnabled: Bool { enabled != false }
}

/// A place in a pack file, kept so later stages can point at it.
public struct RuleLocation: Sendable {
    /// The pack file.
    public var file: SourceFile
    /// The rule's own span, and the spans of its keys' values.
    public var span: SourceSpan
    public var keySpans: [String: SourceSpan]

    /// The span of a key's value, or of the rule when the key is absent.
    public func span(of key: String) -> SourceSpan { keySpans[key] ?? span }
}

/// A parsed rule-pack file: which field it configures, its rules and the ids it disables.
public struct RulePack: Sendable {
    /// The pack's name (`pack:`).
    public var name: String
    /// The validator it configures (`field:`).
    public var field: Field
    public var description: String?
    /// Rules in file order.
    public var rules: [RuleDefinition]
    /// Ids of earlier rules this pack disables, with where each was written.
    public var disabled: [(id: String, span: SourceSpan)]
    /// The file, for diagnostics.
    public var file: SourceFile
}
