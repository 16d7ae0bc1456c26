import Patterns

/// The fused fast-accept check for display names: one pass over the bytes that proves every
/// pattern and length rule of the shipped policy passes, without running them one by one.
///
/// It exists only when every active pattern rule is one it implements (recognized by kind and
/// pattern text, so overriding a message or a length keeps it); any other pattern rule turns it
/// off and names go rule by rule. It may be stricter than the rules (it always demands the
/// shipped character set and period placement): a name it does not accept simply takes the
/// rule-by-rule path, so the result is always the rules' result.
struct DisplayNameScanner: Sendable {
    /// Whether rule `i` is proven by an accepted scan (pattern and length rules).
    let covered: [Bool]
    let minLength: Int
    let maxLength: Int

    private static let knownPatterns: Set<String> = [
        "must-match \u{0}[A-Za-z0-9._]*", "must-match \u{0}[A-Za-z0-9._]+",
        "must-not-match \u{0}\\A\\.", "must-not-match \u{0}^\\.",
        "must-not-match \u{0}\\.\\z", "must-not-match \u{0}\\.\\.",
    ]

    init?(_ rules: CompiledRuleSet) {
        var covered: [Bool] = []
        var minLength = 1
        var maxLength = Int.max
        for rule in rules.rules {
            switch rule.check {
            case .mustMatch, .mustNotMatch:
                let kind = rule.definition.kind?.rawValue ?? ""
                guard Self.knownPatterns.contains(kind + " \u{0}" + (rule.definition.pattern ?? "")) else { return nil }
                covered.append(true)
            case let .length(_, min, max):
                // The scan accepts ASCII only, where code points and UTF-8 octets agree.
                minLength = Swift.max(minLength, min ?? 0)
                maxLength = Swift.min(maxLength, max ?? Int.max)
                covered.append(true)
            case .list, .swift:
                covered.append(false)
            }
        }
        self.covered = covered
        self.minLength = minLength
        self.maxLength = maxLength
    }

    // Bit sets of the allowed bytes: `.` and `0-9` below 64; `A-Z`, `_`, `a-z` from 64.
    private static let allowedLow: UInt64 = (1 << 46) | (0x3FF << 48)
    private static let allowedHigh: UInt64 = (0x3FF_FFFF << 1) | (1 << 31) | (0x3FF_FFFF << 33)

    /// True when `bytes` is ASCII in `[A-Za-z0-9._]`, within the length bounds, with no leading,
    /// trailing or doubled period. Does not allocate.
    @inline(__always)
    func accepts(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        guard count >= minLength, count <= maxLength else { return false }
        let dot = UInt8(ascii: ".")
        guard bytes[0] != dot, bytes[count - 1] != dot else { return false }
        var previous: UInt8 = 0
        for byte in bytes {
            let bit = byte < 64 ? (Self.allowedLow >> UInt64(byte)) : (byte < 128 ? Self.allowedHigh >> UInt64(byte - 64) : 0)
            guard bit & 1 == 1, !(byte == dot && previous == dot) else { return false }
            previous = byte
        }
        return true
    }
}
