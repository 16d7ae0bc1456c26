/// A small deterministic random number generator (SplitMix64), identical on every platform and
/// Swift version, so a seed always regenerates the same corpus.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator; the same seed gives the same sequence.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform integer in `range` (not `Int.random(in:using:)`, whose algorithm may change
    /// between Swift versions).
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        let width = UInt64(range.upperBound - range.lowerBound) &+ 1
        guard width != 0 else { return Int(truncatingIfNeeded: next()) }
        return range.lowerBound + Int(next() % width)
    }

    /// A uniform integer in `0..<count` (`count` > 0).
    public mutating func index(_ count: Int) -> Int { int(in: 0...(max(count, 1) - 1)) }

    /// A uniform element of a non-empty collection.
    public mutating func pick<C: RandomAccessCollection>(_ options: C) -> C.Element where C.Index == Int {
        options[options.startIndex + index(options.count)]
    }

    /// True with probability `percent`/100.
    public mutating func chance(_ percent: Int) -> Bool { int(in: 0...99) < percent }

    /// `count` characters drawn from `alphabet`.
    public mutating func string(_ count: Int, from alphabet: [Character]) -> String {
        String((0..<count).map { _ in pick(alphabet) })
    }
}

/// Character sets shared by the generators.
enum Alphabet {
    static let lower = Array("abcdefghijklmnopqrstuvwxyz")
    static let upper = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    static let digits = Array("0123456789")
    /// Digits that no reserved name's look-alike key can contain (`0` and `1` map to letters).
    static let safeDigits = Array("23456789")
    static let word = lower + upper + digits + ["_"]
}

extension String {
    /// The string with `insert` placed before the code point at `offset`.
    func inserting(_ insert: String, atScalar offset: Int) -> String {
        var scalars = Array(unicodeScalars)
        scalars.insert(contentsOf: insert.unicodeScalars, at: Swift.min(Swift.max(0, offset), scalars.count))
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars)
        return String(out)
    }

    /// The string with the code point at `offset` replaced by `replacement`.
    func replacing(scalarAt offset: Int, with replacement: Unicode.Scalar) -> String {
        var scalars = Array(unicodeScalars)
        guard scalars.indices.contains(offset) else { return self }
        scalars[offset] = replacement
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars)
        return String(out)
    }
}

/// `U+200B`-style name of a code point.
func scalarName(_ scalar: Unicode.Scalar) -> String {
    let hex = String(scalar.value, radix: 16, uppercase: true)
    return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
}
