// The syntax tree of a pattern, for the subset of PCRE2 (UTF mode, no UCP, newline LF) that
// compiles to an automaton, and the marks of what falls outside it.

/// A set of Unicode scalar values, as sorted, disjoint, non-adjacent closed ranges.
struct ScalarSet: Hashable, Sendable {
    private(set) var ranges: [ClosedRange<UInt32>] = []

    static let empty = ScalarSet()
    /// Every scalar value (surrogates are not scalars and are never in a set).
    static let all = ScalarSet(0...0x10FFFF)

    init() {}

    init(_ range: ClosedRange<UInt32>) { insert(range) }

    init(_ scalars: [UInt32]) {
        for scalar in scalars { insert(scalar...scalar) }
    }

    var isEmpty: Bool { ranges.isEmpty }

    /// Adds `range`, keeping the ranges sorted and merged.
    mutating func insert(_ range: ClosedRange<UInt32>) {
        var merged = range
        var kept: [ClosedRange<UInt32>] = []
        kept.reserveCapacity(ranges.count + 1)
        for existing in ranges {
            if existing.upperBound &+ 1 < merged.lowerBound || merged.upperBound &+ 1 < existing.lowerBound {
                kept.append(existing)
            } else {
                merged = min(existing.lowerBound, merged.lowerBound)...max(existing.upperBound, merged.upperBound)
            }
        }
        kept.append(merged)
        kept.sort { $0.lowerBound < $1.lowerBound }
        ranges = kept
    }

    mutating func formUnion(_ other: ScalarSet) {
        for range in other.ranges { insert(range) }
    }

    /// Every scalar not in this set.
    var inverted: ScalarSet {
        var result = ScalarSet()
        var next: UInt32 = 0
        for range in ranges {
            if range.lowerBound > next { result.ranges.append(next...(range.lowerBound - 1)) }
            next = range.upperBound + 1
        }
        if next <= 0x10FFFF { result.ranges.append(next...0x10FFFF) }
        return result
    }

    func contains(_ scalar: UInt32) -> Bool {
        ranges.contains { $0.contains(scalar) }
    }
}

/// A zero-width assertion the automaton decides.
enum Assertion: Hashable, Sendable {
    /// `\A`, `\G` (matches start at offset 0).
    case startOfSubject
    /// `^` (not multi-line): the start of the subject, as `\A`, but PCRE2's start-of-line
    /// optimization treats it apart (see ``Regex/searchStart``).
    case circumflex
    /// `$`, `\Z`: the end, or before a newline that ends the subject.
    case endOrFinalNewline
    /// `\z`.
    case endOfSubject
    /// `\b`: one side is a word character (ASCII `[A-Za-z0-9_]`), the other is not.
    case wordBoundary
    /// `\B`.
    case notWordBoundary
}

/// A pattern's syntax tree.
indirect enum Regex: Hashable, Sendable {
    /// Matches the empty string.
    case empty
    /// One character from the set.
    case characters(ScalarSet)
    /// `.` or `\N`: any character but a newline, or any at all with dot-all (PCRE2's own item:
    /// its start-of-line optimization looks for it).
    case anyCharacter(dotAll: Bool)
    case concatenation([Regex])
    case alternation([Regex])
    /// `min` to `max` (nil: unbounded) repetitions.
    case repetition(Regex, min: Int, max: Int?)
    case assertion(Assertion)
    /// A construct whose language the automaton cannot give exactly (lookaround, atomic or
    /// possessive groups, backreferences), replaced by `approximation`, whose language
    /// contains every string the construct can match in context.
    case approximated(Regex, construct: String)
}

/// Why a pattern has no automaton, even as a prefilter.
struct Unsupported: Error, Hashable, Sendable {
    /// The construct, as a reader of the pattern would name it (`(?i)`, `\p{…}`, recursion).
    let construct: String
    /// Its offset in the pattern, in bytes.
    let offset: Int
}

/// Parses PCRE2 pattern text (UTF mode, no UCP, default options) into a ``Regex``.
///
/// Constructs outside the regular subset become ``Regex/approximated(_:construct:)`` when an
/// over-approximation exists, and throw ``Unsupported`` otherwise. The parser assumes the text
/// compiles with PCRE2 (the pack loader compiles every pattern first); on text PCRE2 would
/// refuse, it throws ``Unsupported``.
struct RegexParser {
    private let scalars: [Unicode.Scalar]
    /// The UTF-8 offset of each scalar, for messages.
    private let offsets: [Int]
    private var index = 0
    /// `(?s)`: `.` matches a newline too.
    private var dotAll = false
    /// Capture groups opened so far (a backreference to a later group is text PCRE2 compiles
    /// differently; it is approximated all the same).
    private var groups = 0

    static func parse(_ pattern: String) throws(Unsupported) -> Regex {
        var parser = RegexParser(pattern)
        let regex = try parser.parseAlternation()
        guard parser.index == parser.scalars.count else { throw parser.unsupported("`)` without `(`") }
        return regex
    }

    private init(_ pattern: String) {
        scalars = Array(pattern.unicodeScalars)
        var offsets: [Int] = []
        var offset = 0
        for scalar in scalars {
            offsets.append(offset)
            offset += UTF8.width(scalar)
        }
        offsets.append(offset)
        self.offsets = offsets
    }

    private func unsupported(_ construct: String) -> Unsupported {
        Unsupported(construct: construct, offset: offsets[min(index, offsets.count - 1)])
    }

    private var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private func peek(_ ahead: Int) -> Unicode.Scalar? { index + ahead < scalars.count ? scalars[index + ahead] : nil }

    private mutating func take(_ scalar: Unicode.Scalar) -> Bool {
        guard peek == scalar else { return false }
        index += 1
        return true
    }

    // MARK: - Alternation, concatenation, repetition

    private mutating func parseAlternation() throws(Unsupported) -> Regex {
        var branches = [try parseConcatenation()]
        while take("|") { branches.append(try parseConcatenation()) }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func parseConcatenation() throws(Unsupported) -> Regex {
        var items: [Regex] = []
        while let scalar = peek, scalar != "|", scalar != ")" {
            guard let atom = try parseAtom() else { continue }
            items.append(try parseQuantifiers(atom))
        }
        return items.count == 1 ? items[0] : (items.isEmpty ? .empty : .concatenation(items))
    }

    /// Quantifiers after an atom; several in a row apply in turn (`a{2}{3}`).
    private mutating func parseQuantifiers(_ atom: Regex) throws(Unsupported) -> Regex {
        var regex = atom
        while let (min, max) = try parseQuantifier() {
            regex = .repetition(regex, min: min, max: max)
            if take("+") {
                regex = .approximated(regex, construct: "a possessive quantifier")
            } else {
                _ = take("?")  // Lazy or greedy: the same language.
            }
        }
        return regex
    }

    /// `*`, `+`, `?` or `{n}`, `{n,}`, `{n,m}`; a `{` that is not a quantifier is a literal
    /// (PCRE2 10.42: `{,m}` too).
    private mutating func parseQuantifier() throws(Unsupported) -> (Int, Int?)? {
        switch peek {
        case "*": index += 1; return (0, nil)
        case "+": index += 1; return (1, nil)
        case "?": index += 1; return (0, 1)
        case "{":
            var probe = index + 1
            func number() -> Int? {
                var value = 0, digits = 0
                while probe < scalars.count, scalars[probe].isASCII, ("0"..."9").contains(scalars[probe]) {
                    value = value * 10 + Int(scalars[probe].value - 0x30)
                    digits += 1
                    probe += 1
                    if value > 65_535 { return nil }
                }
                return digits > 0 ? value : nil
            }
            guard let min = number() else { return nil }
            var max: Int? = min
            if probe < scalars.count, scalars[probe] == "," {
                probe += 1
                max = number()
            }
            guard probe < scalars.count, scalars[probe] == "}" else { return nil }
            if let max, max < min { throw unsupported("a quantifier whose maximum is below its minimum") }
            index = probe + 1
            return (min, max)
        default:
            return nil
        }
    }

    // MARK: - Atoms

    /// One atom, or nil for text that stands for nothing (`(?#…)`, `\E`, `\K`, an option setting).
    private mutating func parseAtom() throws(Unsupported) -> Regex? {
        guard let scalar = peek else { return nil }
        switch scalar {
        case "(": return try parseGroup()
        case "[": return try parseClass()
        case ".":
            index += 1
            return .anyCharacter(dotAll: dotAll)
        case "^": index += 1; return .assertion(.circumflex)
        case "$": index += 1; return .assertion(.endOrFinalNewline)
        case "\\": return try parseEscape()
        case "*", "+", "?":
            throw unsupported("a quantifier with nothing to repeat")
        default:
            if scalar == "{", let _ = try lookaheadQuantifier() { throw unsupported("a quantifier with nothing to repeat") }
            index += 1
            return .characters(ScalarSet([scalar.value]))
        }
    }

    /// Whether a quantifier starts here (without consuming it).
    private mutating func lookaheadQuantifier() throws(Unsupported) -> (Int, Int?)? {
        let saved = index
        defer { index = saved }
        return try parseQuantifier()
    }

    private mutating func parseGroup() throws(Unsupported) -> Regex? {
        index += 1  // `(`
        guard take("?") else {
            if peek == "*" { throw unsupported("a `(*VERB)`") }
            groups += 1
            return try groupBody()
        }
        switch peek {
        case ":":
            index += 1
            return try groupBody()
        case "|":
            index += 1
            return try groupBody()
        case "#":
            while let scalar = peek, scalar != ")" { index += 1 }
            guard take(")") else { throw unsupported("an unclosed comment") }
            return nil
        case "=", "!":
            let negative = peek == "!"
            index += 1
            _ = try groupBody()
            // Dropping a lookahead can only let more strings match.
            return .approximated(.empty, construct: negative ? "a negative lookahead" : "a lookahead")
        case ">":
            index += 1
            return .approximated(try groupBody(), construct: "an atomic group")
        case "<":
            if peek(1) == "=" || peek(1) == "!" {
                index += 2
                _ = try groupBody()
                return .approximated(.empty, construct: "a lookbehind")
            }
            index += 1
            try skipName(until: ">")
            groups += 1
            return try groupBody()
        case "P":
            if peek(1) == "<" {
                index += 2
                try skipName(until: ">")
                groups += 1
                return try groupBody()
            }
            if peek(1) == "=" {
                index += 2
                try skipName(until: ")")
                return .approximated(.repetition(.characters(.all), min: 0, max: nil), construct: "a backreference")
            }
            throw unsupported("a `(?P…)` subroutine call")
        case "'":
            index += 1
            try skipName(until: "'")
            groups += 1
            return try groupBody()
        default:
            return try parseOptionSetting()
        }
    }

    /// `(?s)`, `(?-s)`, `(?s:…)`, `(?^)`: only the dot-all option; any other is left to PCRE2.
    private mutating func parseOptionSetting() throws(Unsupported) -> Regex? {
        let start = index
        var on = true
        var value = dotAll
        while let scalar = peek, scalar != ")", scalar != ":" {
            switch scalar {
            case "-": on = false
            case "^": value = false
            case "s": value = on
            default:
                index = start
                switch scalar {
                case "R", "&", "+", "0"..."9": throw unsupported("recursion or a subroutine call")
                case "(": throw unsupported("a conditional group")
                case "C": throw unsupported("a callout")
                default: throw unsupported("the option `(?\(String(scalar)))`")
                }
            }
            index += 1
        }
        if take(")") {
            dotAll = value
            return nil
        }
        guard take(":") else { throw unsupported("an unclosed group") }
        let outer = dotAll
        dotAll = value
        defer { dotAll = outer }
        return try groupBody()
    }

    /// A group's alternatives and its `)`; options set inside end with it. A group of one item
    /// stays a concatenation, so `(.)*` is not taken for `.*` (PCRE2 tells them apart).
    private mutating func groupBody() throws(Unsupported) -> Regex {
        let outer = dotAll
        defer { dotAll = outer }
        let body = try parseAlternation()
        guard take(")") else { throw unsupported("an unclosed group") }
        switch body {
        case .concatenation, .alternation, .empty: return body
        default: return .concatenation([body])
        }
    }

    private mutating func skipName(until end: Unicode.Scalar) throws(Unsupported) {
        while let scalar = peek, scalar != end { index += 1 }
        guard take(end) else { throw unsupported("an unclosed group name") }
    }

    // MARK: - Escapes

    private mutating func parseEscape() throws(Unsupported) -> Regex? {
        index += 1  // `\`
        guard let scalar = peek else { throw unsupported("a trailing `\\`") }
        index += 1
        switch scalar {
        case "A", "G": return .assertion(.startOfSubject)
        case "z": return .assertion(.endOfSubject)
        case "Z": return .assertion(.endOrFinalNewline)
        case "b": return .assertion(.wordBoundary)
        case "B": return .assertion(.notWordBoundary)
        case "K":
            // Whether there is a match is unchanged, but PCRE2's start-of-line optimization
            // sees `\K` as an item: a prefilter keeps every start.
            return .approximated(.empty, construct: "`\\K`")
        case "E": return nil
        case "Q":
            var items: [Regex] = []
            while let literal = peek {
                if literal == "\\", peek(1) == "E" {
                    index += 2
                    break
                }
                items.append(.characters(ScalarSet([literal.value])))
                index += 1
            }
            return items.isEmpty ? nil : .concatenation(items)
        case "N":
            // `\N{U+…}` names a code point; `\N{2}` is `\N` repeated.
            if peek == "{", peek(1) == "U" { throw unsupported("`\\N{U+…}`") }
            return .anyCharacter(dotAll: false)
        case "R":
            // `\R` is atomic: `(?>\r\n|[\n\x0b\f\r\x85\x{2028}\x{2029}])`.
            return .approximated(.alternation([
                .concatenation([.characters(ScalarSet([0x0D])), .characters(ScalarSet([0x0A]))]),
                .characters(ScalarSet([0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029])),
            ]), construct: "`\\R`")
        case "X": throw unsupported("`\\X`")
        case "C": throw unsupported("`\\C`")
        case "p", "P":
            index -= 1
            return .characters(try parseCharacterEscape(inClass: false))
        case "g", "k":
            // A backreference (`\g1`, `\g{name}`, `\k<name>`) or a subroutine call (`\g<…>`).
            if scalar == "g", peek == "<" || peek == "'" { throw unsupported("a subroutine call") }
            try skipReferenceName()
            return .approximated(.repetition(.characters(.all), min: 0, max: nil), construct: "a backreference")
        case "1"..."9":
            // `\1`–`\9` are backreferences; longer numbers may be octal (left to PCRE2).
            var digits = String(scalar)
            while let next = peek, next.isASCII, ("0"..."9").contains(next) {
                digits.unicodeScalars.append(next)
                index += 1
            }
            guard digits.count == 1 || (Int(digits) ?? 0) < 10 else { throw unsupported("`\\\(digits)`") }
            return .approximated(.repetition(.characters(.all), min: 0, max: nil), construct: "a backreference")
        case "D", "S", "W":
            // PCRE2 10.42's JIT, with PCRE2_MATCH_INVALID_UTF, never matches a non-ASCII
            // character with these (its interpreter, `[\W]` and the documentation do): the
            // documented set contains what either engine matches, so it is a prefilter.
            index -= 1
            return .approximated(.characters(try parseCharacterEscape(inClass: false)),
                                 construct: "`\\\(String(scalar))` outside a class (PCRE2's JIT and documentation differ on non-ASCII characters)")
        default:
            index -= 1
            return .characters(try parseCharacterEscape(inClass: false))
        }
    }

    private mutating func skipReferenceName() throws(Unsupported) {
        let closers: [Unicode.Scalar: Unicode.Scalar] = ["{": "}", "<": ">", "'": "'"]
        if let open = peek, let close = closers[open] {
            index += 1
            try skipName(until: close)
            return
        }
        _ = take("-")
        let start = index
        while let digit = peek, digit.isASCII, ("0"..."9").contains(digit) { index += 1 }
        guard index > start else { throw unsupported("a malformed backreference") }
    }

    /// An escape standing for characters (after `\`; `index` is on the escaped scalar).
    private mutating func parseCharacterEscape(inClass: Bool) throws(Unsupported) -> ScalarSet {
        guard let scalar = peek else { throw unsupported("a trailing `\\`") }
        index += 1
        switch scalar {
        case "d": return Self.digit
        case "D": return Self.digit.inverted
        case "w": return Self.word
        case "W": return Self.word.inverted
        case "s": return Self.space
        case "S": return Self.space.inverted
        case "h": return Self.horizontalSpace
        case "H": return Self.horizontalSpace.inverted
        case "v": return Self.verticalSpace
        case "V": return Self.verticalSpace.inverted
        case "p", "P": return try parseProperty(negated: scalar == "P")
        case "n": return ScalarSet([0x0A])
        case "t": return ScalarSet([0x09])
        case "r": return ScalarSet([0x0D])
        case "f": return ScalarSet([0x0C])
        case "e": return ScalarSet([0x1B])
        case "a": return ScalarSet([0x07])
        case "b" where inClass: return ScalarSet([0x08])
        case "c":
            guard let control = peek, control.isASCII, control.value >= 0x20, control.value < 0x7F else {
                throw unsupported("a malformed `\\c`")
            }
            index += 1
            let upper = control.value >= 0x61 && control.value <= 0x7A ? control.value - 0x20 : control.value
            return ScalarSet([upper ^ 0x40])
        case "x":
            return ScalarSet([try scalarValue(try parseHex())])
        case "o":
            guard take("{") else { throw unsupported("a malformed `\\o`") }
            var value: UInt32 = 0, digits = 0
            while let digit = peek, digit.isASCII, ("0"..."7").contains(digit) {
                value = value * 8 + (digit.value - 0x30)
                digits += 1
                index += 1
                guard value <= 0x10FFFF else { throw unsupported("an octal escape above U+10FFFF") }
            }
            guard digits > 0, take("}") else { throw unsupported("a malformed `\\o{…}`") }
            return ScalarSet([try scalarValue(value)])
        case "0":
            // `\0` and up to two more octal digits.
            var value: UInt32 = 0
            for _ in 0..<2 {
                guard let digit = peek, digit.isASCII, ("0"..."7").contains(digit) else { break }
                value = value * 8 + (digit.value - 0x30)
                index += 1
            }
            return ScalarSet([value])
        case "1"..."9" where inClass:
            // In a class, `\1`–`\7…` are octal; `\8`, `\9` are literal digits.
            throw unsupported("`\\\(String(scalar))` in a class")
        default:
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                throw unsupported("the escape `\\\(String(scalar))`")
            }
            return ScalarSet([scalar.value])
        }
    }

    /// After `\p` or `\P`: a property whose set is the same in every Unicode version (PCRE2
    /// has its own tables: a property that grows with new versions is left to it).
    private mutating func parseProperty(negated: Bool) throws(Unsupported) -> ScalarSet {
        var name = ""
        if take("{") {
            while let scalar = peek, scalar != "}" {
                name.unicodeScalars.append(scalar)
                index += 1
            }
            guard take("}") else { throw unsupported("an unclosed `\\p{…}`") }
        } else if let scalar = peek {
            name = String(scalar)
            index += 1
        }
        var invert = negated
        if name.hasPrefix("^") {
            invert.toggle()
            name.removeFirst()
        }
        // PCRE2 ignores case, spaces, hyphens and underscores in property names.
        let key = String(name.lowercased().unicodeScalars.filter { $0 != " " && $0 != "-" && $0 != "_" })
        guard let set = Self.stableProperties[key] else { throw unsupported("the Unicode property `\\p{\(name)}`") }
        return invert ? set.inverted : set
    }

    /// Properties whose code points no Unicode version changes: control characters (Cc), private
    /// use (Co), surrogates (Cs, never in UTF-8) and every character.
    static let stableProperties: [String: ScalarSet] = {
        var privateUse = ScalarSet(0xE000...0xF8FF)
        privateUse.insert(0xF0000...0xFFFFD)
        privateUse.insert(0x100000...0x10FFFD)
        var control = ScalarSet(0x00...0x1F)
        control.insert(0x7F...0x9F)
        return ["cc": control, "co": privateUse, "cs": .empty, "any": .all]
    }()

    /// After `\x`: `{h…}` or up to two hex digits (none is U+0000).
    private mutating func parseHex() throws(Unsupported) -> UInt32 {
        func digit(_ scalar: Unicode.Scalar?) -> UInt32? {
            guard let scalar, scalar.isASCII else { return nil }
            return UInt32(String(scalar), radix: 16)
        }
        if take("{") {
            var value: UInt32 = 0, digits = 0
            while let d = digit(peek) {
                value = value * 16 + d
                digits += 1
                index += 1
                guard value <= 0x10FFFF else { throw unsupported("a hex escape above U+10FFFF") }
            }
            guard digits > 0, take("}") else { throw unsupported("a malformed `\\x{…}`") }
            return value
        }
        var value: UInt32 = 0
        for _ in 0..<2 {
            guard let d = digit(peek) else { break }
            value = value * 16 + d
            index += 1
        }
        return value
    }

    private func scalarValue(_ value: UInt32) throws(Unsupported) -> UInt32 {
        guard Unicode.Scalar(value) != nil else { throw unsupported("a surrogate code point") }
        return value
    }

    // MARK: - Classes

    /// A class, and whether it holds the mix PCRE2 10.42 gets wrong: a negated class item
    /// (`\D`, `\S`, `\W`, `\H`, `\V`, `[:^…:]`) together with a POSIX class or another
    /// negated item, which then misses every character above U+00FF (both engines).
    private mutating func parseClass() throws(Unsupported) -> Regex {
        let start = index
        let (set, negated, negatedItems, posixItems) = try parseClassItems()
        guard negatedItems > 0, negatedItems + posixItems > 1 else { return .characters(negated ? set.inverted : set) }
        // PCRE2 matches a subset of the documented set: the documented set is a prefilter
        // for the class; its complement is not one for a negated class.
        guard !negated else {
            index = start
            throw unsupported("a negated class mixing negated class items with POSIX classes")
        }
        return .approximated(.characters(set), construct: "a class mixing negated class items with POSIX classes (PCRE2 misses characters above U+00FF)")
    }

    private mutating func parseClassItems() throws(Unsupported) -> (ScalarSet, negated: Bool, negatedItems: Int, posixItems: Int) {
        index += 1  // `[`
        let negated = take("^")
        var set = ScalarSet()
        var first = true
        var negatedItems = 0, posixItems = 0
        while true {
            guard let scalar = peek else { throw unsupported("an unclosed class") }
            if scalar == "]", !first {
                index += 1
                break
            }
            first = false
            if scalar == "[", peek(1) == ":" {
                if peek(2) == "^" { negatedItems += 1 } else { posixItems += 1 }
                set.formUnion(try parsePOSIXClass())
                continue
            }
            if scalar == "\\", let escaped = peek(1), "DSWHV".unicodeScalars.contains(escaped) { negatedItems += 1 }
            if scalar == "\\", peek(1) == "Q" {
                index += 2
                while let literal = peek {
                    if literal == "\\", peek(1) == "E" {
                        index += 2
                        break
                    }
                    set.insert(literal.value...literal.value)
                    index += 1
                }
                continue
            }
            if scalar == "\\", peek(1) == "E" {
                index += 2
                continue
            }
            guard let low = try parseClassAtom() else { continue }
            // A range needs single characters on both sides and a `-` that is not last.
            if low.ranges.count == 1, low.ranges[0].count == 1, peek == "-", let after = peek(1), after != "]" {
                let saved = index
                index += 1
                if after == "[", peek(1) == ":" {
                    // `a-[:digit:]`: the `-` is a literal.
                    index = saved
                    set.formUnion(low)
                    continue
                }
                if let high = try parseClassAtom(), high.ranges.count == 1, high.ranges[0].count == 1 {
                    let (lo, hi) = (low.ranges[0].lowerBound, high.ranges[0].lowerBound)
                    guard lo <= hi else { throw unsupported("a class range out of order") }
                    set.insert(lo...hi)
                    continue
                }
                throw unsupported("a class range with a class at one end")
            }
            set.formUnion(low)
        }
        return (set, negated, negatedItems, posixItems)
    }

    /// One class item: a character or an escape (nil for text standing for nothing).
    private mutating func parseClassAtom() throws(Unsupported) -> ScalarSet? {
        guard let scalar = peek else { throw unsupported("an unclosed class") }
        if scalar == "\\" {
            index += 1
            if peek == "N" || peek == "R" || peek == "X" || peek == "B" { throw unsupported("`\\\(String(peek!))` in a class") }
            return try parseCharacterEscape(inClass: true)
        }
        index += 1
        return ScalarSet([scalar.value])
    }

    private mutating func parsePOSIXClass() throws(Unsupported) -> ScalarSet {
        index += 2  // `[:`
        let negated = take("^")
        var name = ""
        while let scalar = peek, scalar != ":" {
            name.unicodeScalars.append(scalar)
            index += 1
        }
        guard take(":"), take("]"), let set = Self.posixClasses[name] else { throw unsupported("the POSIX class `[:\(name):]`") }
        return negated ? set.inverted : set
    }

    // MARK: - ASCII classes (no UCP: nothing above U+007F is a digit, word or space character)

    static let digit = ScalarSet(0x30...0x39)
    static let word: ScalarSet = {
        var set = ScalarSet(0x30...0x39)
        set.insert(0x41...0x5A)
        set.insert(0x61...0x7A)
        set.insert(0x5F...0x5F)
        return set
    }()
    static let space = ScalarSet([0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20])
    static let horizontalSpace: ScalarSet = {
        var set = ScalarSet([0x09, 0x20, 0xA0, 0x1680, 0x180E, 0x202F, 0x205F, 0x3000])
        set.insert(0x2000...0x200A)
        return set
    }()
    static let verticalSpace: ScalarSet = {
        var set = ScalarSet(0x0A...0x0D)
        set.insert(0x85...0x85)
        set.insert(0x2028...0x2029)
        return set
    }()
    static let posixClasses: [String: ScalarSet] = {
        func ranges(_ list: [ClosedRange<UInt32>]) -> ScalarSet {
            var set = ScalarSet()
            for range in list { set.insert(range) }
            return set
        }
        return [
            "alnum": ranges([0x30...0x39, 0x41...0x5A, 0x61...0x7A]),
            "alpha": ranges([0x41...0x5A, 0x61...0x7A]),
            "ascii": ranges([0x00...0x7F]),
            "blank": ranges([0x09...0x09, 0x20...0x20]),
            "cntrl": ranges([0x00...0x1F, 0x7F...0x7F]),
            "digit": digit,
            "graph": ranges([0x21...0x7E]),
            "lower": ranges([0x61...0x7A]),
            "print": ranges([0x20...0x7E]),
            "punct": ranges([0x21...0x2F, 0x3A...0x40, 0x5B...0x60, 0x7B...0x7E]),
            "space": space,
            "upper": ranges([0x41...0x5A]),
            "word": word,
            "xdigit": ranges([0x30...0x39, 0x41...0x46, 0x61...0x66]),
        ]
    }()
}
