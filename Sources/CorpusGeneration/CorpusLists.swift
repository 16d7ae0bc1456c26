import FieldValidation

/// The word lists the generators draw labelled values from: the reserved display names and the
/// common passwords of the shipped rule packs (so a corpus follows the lists it is checked against).
public struct CorpusLists: Sendable {
    /// Reserved display names (`display-name.reserved`), lowercase ASCII.
    public var reservedNames: [String]
    /// Common passwords (`password.common`).
    public var commonPasswords: [String]

    /// Creates lists.
    public init(reservedNames: [String], commonPasswords: [String]) {
        self.reservedNames = reservedNames
        self.commonPasswords = commonPasswords
    }

    /// The lists of the shipped packs; empty lists when a pack does not load (the generators
    /// then skip the mutations that need them).
    public static let shipped = CorpusLists(
        reservedNames: entries(.displayName, rule: "display-name.reserved"),
        commonPasswords: entries(.password, rule: "password.common"))

    private static func entries(_ field: Field, rule id: String) -> [String] {
        let rules = (try? RulePackSet.shipped.rules(for: field)) ?? []
        return rules.first { $0.id == id }?.listEntries ?? []
    }
}
