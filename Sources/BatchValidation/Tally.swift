/// Counts of records and of violations per code; merged across chunks and inputs.
public struct Tally: Sendable, Hashable {
    /// Records seen (one per input record, damaged ones included).
    public var records = 0
    /// Records with no violation.
    public var valid = 0
    /// Records with at least one violation or damage.
    public var invalid: Int { records - valid }
    // A short list searched linearly: a run sees a handful of distinct codes, and comparing
    // strings that share storage is cheaper than hashing them for every violation.
    private var counts: [CodeCount] = []

    private struct CodeCount: Sendable, Hashable {
        var code: String
        var count: Int
    }

    /// An empty tally.
    public init() {}

    /// How often each violation code occurred.
    public var codes: [String: Int] {
        Dictionary(counts.map { ($0.code, $0.count) }, uniquingKeysWith: +)
    }

    /// Counts one valid record.
    mutating func addValid() {
        records += 1
        valid += 1
    }

    mutating func add(_ verdict: Verdict) {
        records += 1
        switch verdict {
        case let .damaged(damage): count(damage.code, 1)
        case let .checked(outcome):
            if outcome.isValid { valid += 1 }
            for violation in outcome.violations { count(violation.code, 1) }
        }
    }

    private mutating func count(_ code: String, _ amount: Int) {
        if let index = counts.firstIndex(where: { $0.code == code }) {
            counts[index].count += amount
        } else {
            counts.append(CodeCount(code: code, count: amount))
        }
    }

    /// Adds `other`'s counts to this tally.
    public mutating func merge(_ other: Tally) {
        records += other.records
        valid += other.valid
        for entry in other.counts { count(entry.code, entry.count) }
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
