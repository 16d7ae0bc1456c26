// Generated patterns and subjects for the differential tests of the pattern automata against
// PCRE2 (PatternAutomataTests, FieldValidationTests, the FuzzPackCompiler harness).

/// A small deterministic generator (SplitMix64), so a failing seed reproduces.
public struct SplitMix: RandomNumberGenerator {
    public var state: UInt64
    public init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 &+ 1 }
    /// A generator that starts from `state` as it is.
    public init(state: UInt64) { self.state = state }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    public mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
}

/// Patterns from a grammar over every construct the automaton compiles, plus lookaheads,
/// atomic groups and possessive quantifiers (prefilters).
public struct PatternGenerator {
    public var random: SplitMix
    /// Literal texts used, so subjects can contain them.
    public var literals: [String] = []
    /// Constructs used in the last pattern.
    public var constructs: Set<String> = []

    public static let allConstructs = [
        "literal", "non-ASCII literal", "class", "negated class", "hex range", "class escape", "POSIX class", "dot",
        "dot-all", "alternation", "group", "star", "plus", "optional", "counted", "\\A", "^", "$", "\\z", "\\Z",
        "\\b", "\\B", "lookahead", "atomic", "possessive", "empty", "property",
    ]

    public init(random: SplitMix) { self.random = random }

    public mutating func pattern() -> String {
        constructs = []
        literals = []
        return alternation(depth: 0)
    }

    private mutating func alternation(depth: Int) -> String {
        if depth < 3, random.chance(20) {
            constructs.insert("alternation")
            return (0..<(2 + random.below(2))).map { _ in concatenation(depth: depth + 1) }.joined(separator: "|")
        }
        return concatenation(depth: depth + 1)
    }

    private mutating func concatenation(depth: Int) -> String {
        let count = random.below(depth > 2 ? 3 : 5)
        if count == 0 { constructs.insert("empty") }
        return (0..<count).map { _ in quantified(depth: depth) }.joined()
    }

    private mutating func quantified(depth: Int) -> String {
        var (atom, repeatable) = self.atom(depth: depth)
        guard repeatable, random.chance(35) else { return atom }
        switch random.below(5) {
        case 0: constructs.insert("star"); atom += "*"
        case 1: constructs.insert("plus"); atom += "+"
        case 2: constructs.insert("optional"); atom += "?"
        default:
            constructs.insert("counted")
            let low = random.below(3)
            switch random.below(3) {
            case 0: atom += "{\(low)}"
            case 1: atom += "{\(low),}"
            default: atom += "{\(low),\(low + random.below(3))}"
            }
        }
        if random.chance(15) { atom += "?" } else if random.chance(8) { constructs.insert("possessive"); atom += "+" }
        return atom
    }

    private mutating func atom(depth: Int) -> (String, Bool) {
        switch random.below(depth > 3 ? 10 : 14) {
        case 0, 1, 2:
            constructs.insert("literal")
            let text = ["a", "b", ".", "-", "x", "\\.", "\\n", "\\r", "\\x00", "@", "\\-", " "][random.below(12)]
            literals.append(String(text.filter { $0 != "\\" }))
            return (text, true)
        case 3:
            constructs.insert("non-ASCII literal")
            let text = ["é", "ж", "€", "😀", "\\x{E9}", "\\x{1F600}"][random.below(6)]
            return (text, true)
        case 4:
            return (characterClass(), true)
        case 5:
            constructs.insert("dot")
            return (".", true)
        case 6:
            let anchors: [(String, String)] = [("\\A", "\\A"), ("^", "^"), ("$", "$"), ("\\z", "\\z"), ("\\Z", "\\Z"), ("\\b", "\\b"), ("\\B", "\\B")]
            let (text, name) = anchors[random.below(anchors.count)]
            constructs.insert(name)
            return (text, false)
        case 7:
            constructs.insert("class escape")
            if random.chance(25) {
                constructs.insert("property")
                return (["\\p{Cc}", "\\P{Cc}", "\\p{Co}", "\\p{Any}", "\\p{^Cc}", "[\\p{Cc}a]", "[^\\p{Cc}\\x{E9}]"][random.below(7)], true)
            }
            return (["\\d", "\\w", "\\s", "\\D", "\\W", "\\S", "\\h", "\\v", "\\N"][random.below(9)], true)
        case 8, 9:
            return (group(depth: depth), true)
        case 10:
            constructs.insert("dot-all")
            return ("(?s:" + alternation(depth: depth + 1) + ")", true)
        case 11:
            constructs.insert("lookahead")
            return ("(?" + (random.chance(50) ? "=" : "!") + alternation(depth: depth + 1) + ")", false)
        case 12:
            constructs.insert("atomic")
            return ("(?>" + alternation(depth: depth + 1) + ")", true)
        default:
            return (group(depth: depth), true)
        }
    }

    private mutating func group(depth: Int) -> String {
        constructs.insert("group")
        return (random.chance(50) ? "(" : "(?:") + alternation(depth: depth + 1) + ")"
    }

    private mutating func characterClass() -> String {
        let negated = random.chance(30)
        constructs.insert(negated ? "negated class" : "class")
        var items: [String] = []
        for _ in 0..<(1 + random.below(3)) {
            switch random.below(6) {
            case 0: items.append(["a-c", "x", ".", "\\-", "0-9", "A-Z"][random.below(6)])
            case 1: constructs.insert("hex range"); items.append(["\\x{80}-\\x{10FFFF}", "\\x{E0}-\\x{FF}", "\\x{400}-\\x{44F}", "\\x{1F600}-\\x{1F64F}"][random.below(4)])
            case 2: constructs.insert("class escape"); items.append(["\\d", "\\w", "\\s", "\\n", "\\r"][random.below(5)])
            case 3: constructs.insert("POSIX class"); items.append(["[:alpha:]", "[:digit:]", "[:punct:]", "[:^space:]"][random.below(4)])
            case 4: items.append(["é", "€", "😀"][random.below(3)])
            default: items.append(["b", "_", "@"][random.below(3)])
            }
        }
        return "[" + (negated ? "^" : "") + items.joined() + "]"
    }
}

/// Subjects built from pattern literals, a small alphabet, newlines, NUL and invalid UTF-8.
public enum SubjectGenerator {
    public static let pieces: [[UInt8]] = [
        Array("a".utf8), Array("b".utf8), Array("x".utf8), Array(".".utf8), Array("-".utf8), Array("@".utf8),
        Array("0".utf8), Array("Z".utf8), Array("_".utf8), Array(" ".utf8), Array("é".utf8), Array("ж".utf8),
        Array("€".utf8), Array("😀".utf8), [0x0A], [0x0D], [0x00], [0x7F], [0xC2, 0x85], [0xEE, 0x80, 0x80],
        [0xFF], [0xC3], [0x80], [0xED, 0xA0, 0x80], [0xF0, 0x9F], [0xC0, 0xAF],
    ]

    public static func subject(using random: inout SplitMix, hints: [String]) -> [UInt8] {
        var bytes: [UInt8] = []
        for _ in 0..<random.below(9) {
            if !hints.isEmpty, random.chance(30) {
                bytes += Array(hints[random.below(hints.count)].utf8)
            } else {
                // Invalid sequences are rarer than characters, but common enough to matter.
                let index = random.chance(12) ? 20 + random.below(6) : random.below(20)
                bytes += pieces[index]
            }
        }
        if random.chance(20) { bytes.append(0x0A) }
        return bytes
    }
}
