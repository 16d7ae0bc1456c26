/// One thread's violations that can be told apart by a small number, its *variant*, and the
/// lists they form: a value that breaks the same rules, with the same variants, as an earlier
/// value shares that one's prebuilt array, so returning it allocates nothing and counts one
/// reference, on memory no other thread touches.
///
/// Variants, per rule (an index below 64):
/// - 0: the rule's violation of fixed wording (one that does not depend on the value);
/// - a length rule's violation for length `n` below 255: `n + 1`;
/// - a Swift rule's: 1 + the position of the parameters it found among those seen so far
///   (at most 254 per rule).
final class KnownViolations {
    // INVARIANT: used by the one thread that made it. The buffers are allocated in `init` and
    // freed in `deinit`; `values[i]` is initialized exactly where `keys[i].rules != 0`.

    /// A list of violations: which rules, and their variants in rule order, 8 bits each.
    struct Key: Equatable {
        var rules: UInt64 = 0
        var variants: UInt64 = 0
    }

    /// At most this many lists are kept; the others are built each time.
    static let capacity = 256
    private static let slotCount = 2 * capacity
    /// The most violations a ``Key`` holds.
    static let maxCount = 8

    /// Per rule, its violation of fixed wording (this thread's deep copy), or nil.
    let fixed: [Violation?]
    /// Per rule, that violation alone in an array (empty when the rule has none).
    private let alone: [[Violation]]
    /// Per length rule, its violations by length, deep-copied on first use.
    private let lengthViolations: [UnsafeMutablePointer<Violation?>?]
    /// Per Swift rule, the parameters it found and their violations (deep copies), in order.
    private var swiftFound: [[(parameters: [String: String], violation: Violation)]]
    /// Open addressing: a list of two or more violations (`rules == 0` when the slot is empty).
    private let keys = UnsafeMutablePointer<Key>.allocate(capacity: slotCount)
    private let values = UnsafeMutablePointer<[Violation]>.allocate(capacity: slotCount)
    private let count = UnsafeMutablePointer<Int>.allocate(capacity: 1)

    /// The known violations of `rules`, whose fixed violations are `fixed` (copied deeply, for
    /// this thread).
    init(rules: [CompiledRule], fixed: [Violation?]) {
        self.fixed = fixed.map { $0?.deepCopy }
        alone = self.fixed.map { $0.map { [$0] } ?? [] }
        lengthViolations = rules.map { rule in
            guard case .length = rule.check else { return nil }
            let table = UnsafeMutablePointer<Violation?>.allocate(capacity: 255)
            table.initialize(repeating: nil, count: 255)
            return table
        }
        swiftFound = Array(repeating: [], count: rules.count)
        keys.initialize(repeating: Key(), count: Self.slotCount)
        count.initialize(to: 0)
    }

    deinit {
        for slot in 0..<Self.slotCount where keys[slot].rules != 0 { (values + slot).deinitialize(count: 1) }
        for table in lengthViolations { table?.deinitialize(count: 255).deallocate() }
        keys.deallocate()
        values.deallocate()
        count.deallocate()
    }

    /// How many lists are kept.
    var listCount: Int { count.pointee }

    /// The variant of length rule `rule`'s violation `violation` for `length`, or nil when
    /// the length has none.
    func lengthVariant(_ rule: Int, _ length: Int, _ violation: Violation) -> Int? {
        guard length < 255, let table = lengthViolations[rule] else { return nil }
        if table[length] == nil { table[length] = violation.deepCopy }
        return length + 1
    }

    /// The variant of Swift rule `rule`'s violation for the parameters it `found`, worded by
    /// `word` the first time; nil once the rule has as many variants as a key can tell apart.
    func swiftVariant(_ rule: Int, _ found: [String: String], word: () -> Violation) -> Int? {
        if let position = swiftFound[rule].firstIndex(where: { $0.parameters == found }) { return position + 1 }
        guard swiftFound[rule].count < 254 else { return nil }
        swiftFound[rule].append((found, word().deepCopy))
        return swiftFound[rule].count
    }

    /// Rule `rule`'s violation of variant `variant`.
    func violation(_ rule: Int, _ variant: Int) -> Violation {
        if variant == 0 { return fixed[rule]! }
        if let table = lengthViolations[rule] { return table[variant - 1]! }
        return swiftFound[rule][variant - 1].violation
    }

    /// The violations of `key`, in rule order.
    func violations(of key: Key) -> [Violation] {
        let rules = key.rules
        if rules & (rules &- 1) == 0 {
            if rules == 0 { return [] }
            if key.variants == 0 { return alone[rules.trailingZeroBitCount] }
        }
        let mask = Self.slotCount - 1
        var slot = Int(truncatingIfNeeded: ((rules ^ key.variants &* 0xFF51_AFD7_ED55_8CCD) &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
        while keys[slot].rules != 0 {
            if keys[slot] == key { return values[slot] }
            slot = (slot + 1) & mask
        }
        var list: [Violation] = []
        list.reserveCapacity(rules.nonzeroBitCount)
        var rest = rules, variants = key.variants
        while rest != 0 {
            list.append(violation(rest.trailingZeroBitCount, Int(variants & 0xFF)))
            rest &= rest &- 1
            variants >>= 8
        }
        if count.pointee < Self.capacity {
            keys[slot] = key
            (values + slot).initialize(to: list)
            count.pointee += 1
        }
        return list
    }
}
