/// Counts of records and of violations per code; merged across chunks and inputs.
public struct Tally: Sendable, Hashable {
    /// Records seen (one per input record, damaged ones included).
    public var records = 0
    /// Records with no violation.
    public var valid = 0
    /// Records with at least one violation or damage.
    public var invalid: Int { records - valid }
    /// How many records got each strength score, 0 to 4 (records the checker estimated).
    public private(set) var strengthScores = [0, 0, 0, 0, 0]
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

    /// Counts valid records.
    mutating func addValid(_ count: Int = 1) {
        records += count
        valid += count
    }

    mutating func add(_ verdict: Verdict) {
        records += 1
        switch verdict {
        case let .damaged(damage): count(damage.code, 1)
        case let .checked(outcome):
            if outcome.isValid { valid += 1 }
            for violation in outcome.violations { count(violation.code, 1) }
            countStrength(outcome)
        }
    }

    /// Counts the strength score of `outcome`, if it has one.
    mutating func countStrength(_ outcome: FieldOutcome) {
        if let score = outcome.strength?.score, strengthScores.indices.contains(score) { strengthScores[score] += 1 }
    }

    /// Counts one invalid record, whose codes the caller counts.
    mutating func addInvalid() {
        records += 1
    }

    /// Adds `amount` occurrences of `code`.
    mutating func count(_ code: String, _ amount: Int) {
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
        for score in strengthScores.indices { strengthScores[score] += other.strengthScores[score] }
    }

    /// Equal when the record counts and the count of every code are (whatever the order the
    /// codes were first seen in).
    public static func == (lhs: Tally, rhs: Tally) -> Bool {
        lhs.records == rhs.records && lhs.valid == rhs.valid && lhs.codes == rhs.codes && lhs.strengthScores == rhs.strengthScores
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(records)
        hasher.combine(valid)
        hasher.combine(codes)
        hasher.combine(strengthScores)
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

/// Counts of violations within one chunk, kept by identity and merged into a ``Tally`` by code
/// at the end: comparing identities is cheaper than comparing codes for every violation.
struct ViolationCounts {
    private var memo = ViolationMemo<Int>()
    /// Counts of violations the memo had no room for.
    private var overflow = Tally()

    mutating func add(_ violation: FieldViolation) {
        if let index = memo.index(of: violation) {
            memo.values[index] += 1
        } else if !memo.insert(violation, 1) {
            overflow.count(violation.code, 1)
        }
    }

    /// Adds the codes counted here to `tally` (its record counts are the caller's).
    func merge(into tally: inout Tally) {
        for (violation, count) in zip(memo.violations, memo.values) { tally.count(violation.code, count) }
        tally.merge(overflow)
    }
}

/// Up to 64 violations, found by identity, each with a value.
struct ViolationMemo<Value> {
    // INVARIANT: `violations[i]` has identity `identities[i]`; holding it means no other object
    // can take that identity while the entry exists.
    private var identities: [ObjectIdentifier] = []
    private(set) var violations: [FieldViolation] = []
    var values: [Value] = []
    private static var limit: Int { 64 }

    func index(of violation: FieldViolation) -> Int? { identities.firstIndex(of: violation.identity) }

    /// Adds an entry; false when the memo is full.
    @discardableResult
    mutating func insert(_ violation: FieldViolation, _ value: Value) -> Bool {
        guard identities.count < Self.limit else { return false }
        identities.append(violation.identity)
        violations.append(violation)
        values.append(value)
        return true
    }
}
