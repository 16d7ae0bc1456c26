/// The Pwned Passwords range API's answer for one prefix: `SUFFIX:COUNT` lines, each suffix the
/// hash's last 35 hex digits in uppercase, in increasing order, joined by CRLF (no line break
/// after the last).
public enum RangeAnswer {
    /// How padding is chosen: the public API pads an answer to at least 800 lines and adds 0 to
    /// 200 more, each a random suffix with count 0 (the Add-Padding request header).
    public static let paddedMinimum = 800
    public static let paddingExtra = 0...200

    /// The prefix (five hex digits, either case) as a number, or nil when it is not one.
    public static func prefix(_ text: String) -> Int? { Hex.prefix(text) }

    /// The answer's text for `prefix` from `store`.
    ///
    /// - Parameters:
    ///   - padded: adds random suffixes with count 0 until there are at least
    ///     ``paddedMinimum`` lines, then 0 to 200 more (``paddingExtra``), mixed in order among
    ///     the real ones; a padding suffix is never one the store holds.
    ///   - random: the source of the padding (tests pass a seeded one).
    /// - Throws: ``BreachedStoreError/notExact`` for a `--bits 64` store.
    public static func text<R: RandomNumberGenerator>(prefix: Int, store: BreachedStore, padded: Bool,
                                                       random: inout R) throws(BreachedStoreError) -> [UInt8] {
        var lines = try store.range(prefix: prefix).map { (suffix: suffix(of: $0.hash), count: $0.count) }
        if padded {
            let padding = max(0, paddedMinimum - lines.count) + Int.random(in: paddingExtra, using: &random)
            var taken = Set(lines.map(\.suffix))
            var added = 0
            while added < padding {
                let hash = SHA1Digest(high: UInt64(prefix & 0xFFFFF) << 44 | (random.next() >> 20),
                                      middle: random.next(), low: UInt32(truncatingIfNeeded: random.next()))
                let suffix = suffix(of: hash)
                guard taken.insert(suffix).inserted else { continue }
                lines.append((suffix, 0))
                added += 1
            }
            lines.sort { $0.suffix.lexicographicallyPrecedes($1.suffix) }
        }
        var out: [UInt8] = []
        out.reserveCapacity(lines.count * 44)
        for (index, line) in lines.enumerated() {
            if index > 0 { out += [0x0D, 0x0A] }
            out += line.suffix
            out.append(UInt8(ascii: ":"))
            out += Array(String(line.count).utf8)
        }
        return out
    }

    /// ``text(prefix:store:padded:random:)`` with the system's random numbers.
    public static func text(prefix: Int, store: BreachedStore, padded: Bool) throws(BreachedStoreError) -> [UInt8] {
        var random = SystemRandomNumberGenerator()
        return try text(prefix: prefix, store: store, padded: padded, random: &random)
    }

    /// The hash's last 35 hex digits, uppercase.
    static func suffix(of hash: SHA1Digest) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(35)
        for nibble in 5..<40 {
            let byte = hash.byte(nibble / 2)
            out.append(Hex.digits[Int(nibble % 2 == 0 ? byte >> 4 : byte & 0xF)])
        }
        return out
    }
}
