/// Counts of records and of violations per code; merged across chunks and inputs.
public struct Tally: Sendable, Hashable {
    /// Records seen (one per input record, damaged ones included).
    public var records = 0
    /// Records with no violation.
    public var valid = 0
    /// Records with at least one violation or damage.
    public var invalid: Int { records - valid }
    /// How often each violation code occurred.
    public var codes: [String: Int] = [:]

    /// An empty tally.
    public init() {}

    mutating func add(_ verdict: Verdict) {
        records += 1
        switch verdict {
        case let .damaged(damage): codes[damage.code, default: 0] += 1
        case let .checked(outcome):
            if outcome.isValid { valid += 1 }
            for violation in outcome.violations { codes[violation.code, default: 0] += 1 }
        }
    }

    /// Adds `other`'s counts to this tally.
    public mutating func merge(_ other: Tally) {
        records += other.records
        valid += other.valid
        codes.merge(other.codes, uniquingKeysWith: +)
    }

    /// Codes ordered by count (highest first), then by code.
    public var sortedCodes: [(code: String, count: Int)] {
        codes.map { (code: $0.key, count: $0.value) }.sorted { $0.count != $1.count ? $0.count > $1.count : $0.code < $1.code }
    }
}

/// The result for one record: damaged before it could be checked, or checked.
enum Verdict {
    case damaged(InputDamage)
    case checked(FieldOutcome)

    var isValid: Bool {
        if case let .checked(outcome) = self { return outcome.isValid }
        return false
    }
}
