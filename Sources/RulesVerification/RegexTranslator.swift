// RegexTranslator: the RE2 subset of `matches()` patterns as SMT-LIB regular expressions.
// Whole-string semantics (as `matches()` has), PCRE2 without UCP: `\d \w \s` are ASCII, `.` is
// any character except a line feed. Anything else is refused with the construct named, and the
// caller encodes that `matches()` as an unconstrained value.

/// A construct the translator does not encode.
struct RegexProblem: Error, Equatable {
    var message: String
}

/// Translates RE2-syntax patterns into SMT-LIB regular expressions over Z3 strings.
enum RegexTranslator {
    /// The SMT-LIB regex for a whole-string match of `pattern`, or the unsupported construct.
    static func translate(_ pattern: String) -> Result<String, RegexProblem> {
        translateMembership(pattern).map { $0.regex }
    }

    /// A translation: `subject ∈ pattern` is `subject ∈ regex`, and also "no line feed in
    /// subject" when `forbidsNewline`.
    struct Translation {
        var regex: String
        var forbidsNewline: Bool

        /// One regex for the whole-string match: `regex`, without line feeds when `forbidsNewline`.
        var combined: String {
            forbidsNewline ? "(re.inter \(regex) (re.comp \(RegexTranslator.containsNewline)))" : regex
        }

        /// The membership term for `subject`.
        func membership(_ subject: String) -> String {
            let inRegex = "(str.in_re \(subject) \(regex))"
            return forbidsNewline ? "(and \(inRegex) (not (str.contains \(subject) \"\\u{a}\")))" : inRegex
        }
    }

    /// Translates `pattern`. When `.` is the only construct that decides about line feeds, `.` is
    /// encoded as any character and line feeds are excluded from the whole subject instead: an
    /// equivalent form Z3 decides much faster, also under negation.
    static func translateMembership(_ pattern: String) -> Result<Translation, RegexProblem> {
        do {
            var fast = Parser(Array(pattern.unicodeScalars))
            fast.dotIsAnyCharacter = true
            let regex = try fast.alternation(top: true)
            guard fast.atEnd else { throw RegexProblem(message: "unbalanced `)`") }
            if !fast.newlineElsewhere { return .success(Translation(regex: regex, forbidsNewline: fast.sawDot)) }
            var exact = Parser(Array(pattern.unicodeScalars))
            return .success(Translation(regex: try exact.alternation(top: true), forbidsNewline: false))
        } catch let problem as RegexProblem {
            return .failure(problem)
        } catch {
            return .failure(RegexProblem(message: "\(error)"))
        }
    }

    static func char(_ scalar: Unicode.Scalar) -> String { SMT.string(String(scalar)) }

    static func range(_ low: Unicode.Scalar, _ high: Unicode.Scalar) -> String {
        low == high ? "(str.to_re \(char(low)))" : "(re.range \(char(low)) \(char(high)))"
    }

    static func union(_ parts: [String]) -> String {
        parts.isEmpty ? "re.none" : (parts.count == 1 ? parts[0] : "(re.union " + parts.joined(separator: " ") + ")")
    }

    /// Strings containing a line feed.
    static let containsNewline = "(re.++ (re.* re.allchar) (str.to_re \"\\u{a}\") (re.* re.allchar))"

    /// The largest character of Z3 4.8's string alphabet.
    static let maxCharacter: UInt32 = 0x2FFFF

    /// A character set as sorted, disjoint, inclusive code-point intervals.
    typealias CharSet = [(UInt32, UInt32)]

    static let digit: CharSet = [(0x30, 0x39)]
    static let word: CharSet = normalize([(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)])
    static let space: CharSet = [(0x09, 0x0D), (0x20, 0x20)]

    static func normalize(_ set: CharSet) -> CharSet {
        var result: CharSet = []
        for (low, high) in set.sorted(by: { $0.0 < $1.0 }) {
            if let last = result.last, low <= last.1 &+ 1 {
                result[result.count - 1].1 = max(last.1, high)
            } else {
                result.append((low, high))
            }
        }
        return result
    }

    /// The characters not in `set` (within Z3's alphabet): explicit ranges, which Z3 decides far
    /// faster than `re.comp`.
    static func complement(_ set: CharSet) -> CharSet {
        var result: CharSet = []
        var next: UInt32 = 0
        for (low, high) in normalize(set) {
            if low > next { result.append((next, low - 1)) }
            next = high &+ 1
        }
        if next <= maxCharacter { result.append((next, maxCharacter)) }
        return result
    }

    static func regex(_ set: CharSet) -> String {
        union(normalize(set).filter { $0.0 <= maxCharacter }.map { low, high in
            let l = Unicode.Scalar(low) ?? "\u{FFFD}", h = Unicode.Scalar(min(high, maxCharacter)) ?? "\u{FFFD}"
            return range(l, h)
        })
    }

    struct Parser {
        let s: [Unicode.Scalar]
        var i = 0
        /// Encode `.` as any character (the caller then excludes line feeds).
        var dotIsAnyCharacter = false
        var sawDot = false
        /// Some construct other than `.` can match a line feed.
        var newlineElsewhere = false
        /// The set of the last character class read (see ``characterClass()``).
        var lastClass: CharSet?
        init(_ s: [Unicode.Scalar]) { self.s = s }
        var atEnd: Bool { i >= s.count }
        func peek(_ k: Int = 0) -> Unicode.Scalar? { i + k < s.count ? s[i + k] : nil }

        mutating func alternation(top: Bool) throws -> String {
            var branches = [try concatenation(top: top)]
            while peek() == "|" {
                i += 1
                branches.append(try concatenation(top: top))
            }
            return RegexTranslator.union(branches)
        }

        mutating func concatenation(top: Bool) throws -> String {
            var items: [String] = []
            while let c = peek(), c != "|", c != ")" {
                if c == "^" {
                    // Only a leading `^` of the whole pattern is a no-op in a whole-string match.
                    guard top, i == 0 else { throw RegexProblem(message: "`^` inside the pattern") }
                    i += 1
                    continue
                }
                if c == "$" {
                    guard top, i == s.count - 1 else { throw RegexProblem(message: "`$` inside the pattern") }
                    i += 1
                    continue
                }
                var atom = try self.atom()
                atom = try quantified(atom)
                items.append(atom)
            }
            if items.isEmpty { return "(str.to_re \"\")" }
            return items.count == 1 ? items[0] : "(re.++ " + items.joined(separator: " ") + ")"
        }

        mutating func quantified(_ atom: String) throws -> String {
            var result = atom
            var quantifiers = 0
            while let c = peek() {
                var next: String?
                switch c {
                case "*": next = "(re.* \(result))"; i += 1
                case "+": next = "(re.+ \(result))"; i += 1
                case "?": next = "(re.opt \(result))"; i += 1
                case "{":
                    guard let (low, high, length) = counted() else { return result }
                    i += length
                    if let high {
                        guard low <= high, high <= 1000 else { throw RegexProblem(message: "repetition count above 1000") }
                        next = "((_ re.loop \(low) \(high)) \(result))"
                    } else {
                        guard low <= 1000 else { throw RegexProblem(message: "repetition count above 1000") }
                        next = "(re.++ ((_ re.loop \(low) \(low)) \(result)) (re.* \(result)))"
                    }
                default: return result
                }
                quantifiers += 1
                // A `?` after a quantifier makes it lazy, which a whole-string match ignores.
                if peek() == "?" { i += 1 }
                if peek() == "+" { throw RegexProblem(message: "possessive quantifier") }
                if let next { result = next }
                if quantifiers > 1 { throw RegexProblem(message: "repeated quantifier") }
            }
            return result
        }

        /// `{n}`, `{n,}`, `{n,m}` at `i`: (low, high, length); nil when it is a literal `{`.
        func counted() -> (Int, Int?, Int)? {
            var j = i + 1
            var low = ""
            while j < s.count, ("0"..."9").contains(s[j]) { low.unicodeScalars.append(s[j]); j += 1 }
            guard !low.isEmpty, j < s.count, let l = Int(low) else { return nil }
            if s[j] == "}" { return (l, l, j - i + 1) }
            guard s[j] == "," else { return nil }
            j += 1
            var high = ""
            while j < s.count, ("0"..."9").contains(s[j]) { high.unicodeScalars.append(s[j]); j += 1 }
            guard j < s.count, s[j] == "}" else { return nil }
            if high.isEmpty { return (l, nil, j - i + 1) }
            guard let h = Int(high) else { return nil }
            return (l, h, j - i + 1)
        }

        mutating func atom() throws -> String {
            guard let c = peek() else { throw RegexProblem(message: "unexpected end") }
            switch c {
            case "(":
                i += 1
                if peek() == "?" {
                    if peek(1) == ":" {
                        i += 2
                    } else if peek(1) == "P" && peek(2) == "<" || peek(1) == "<" && peek(2) != "=" && peek(2) != "!" {
                        while let d = peek(), d != ">" { i += 1 }
                        i += 1
                    } else {
                        throw RegexProblem(message: "group flags or lookaround `(?`")
                    }
                }
                let inner = try alternation(top: false)
                guard peek() == ")" else { throw RegexProblem(message: "missing `)`") }
                i += 1
                return inner
            case "[":
                return try characterClass()
            case ".":
                i += 1
                sawDot = true
                return dotIsAnyCharacter ? "re.allchar" : RegexTranslator.regex(RegexTranslator.complement([(0x0A, 0x0A)]))
            case "\\":
                let (set, _) = try escape(inClass: false)
                note(set)
                return RegexTranslator.regex(set)
            case "*", "+", "?":
                throw RegexProblem(message: "quantifier without a target")
            default:
                i += 1
                if c == "\n" { newlineElsewhere = true }
                return RegexTranslator.range(c, c)
            }
        }

        typealias CharSet = RegexTranslator.CharSet

        mutating func note(_ set: CharSet) {
            if set.contains(where: { $0.0 <= 0x0A && 0x0A <= $0.1 }) { newlineElsewhere = true }
        }

        /// An escape at `i`: the regex for it, and the single scalar when it is one.
        mutating func escape(inClass: Bool) throws -> (CharSet, Unicode.Scalar?) {
            i += 1
            guard let e = peek() else { throw RegexProblem(message: "trailing `\\`") }
            i += 1
            func one(_ scalar: Unicode.Scalar) -> (CharSet, Unicode.Scalar?) { ([(scalar.value, scalar.value)], scalar) }
            switch e {
            case "d": return (RegexTranslator.digit, nil)
            case "D": return (RegexTranslator.complement(RegexTranslator.digit), nil)
            case "w": return (RegexTranslator.word, nil)
            case "W": return (RegexTranslator.complement(RegexTranslator.word), nil)
            case "s": return (RegexTranslator.space, nil)
            case "S": return (RegexTranslator.complement(RegexTranslator.space), nil)
            case "n": return one("\n")
            case "t": return one("\t")
            case "r": return one("\r")
            case "f": return one("\u{0C}")
            case "v": return one("\u{0B}")
            case "x":
                var hex = ""
                if peek() == "{" {
                    i += 1
                    while let d = peek(), d != "}" { hex.unicodeScalars.append(d); i += 1 }
                    i += 1
                } else {
                    for _ in 0..<2 { if let d = peek() { hex.unicodeScalars.append(d); i += 1 } }
                }
                guard let v = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(v) else { throw RegexProblem(message: "bad `\\x` escape") }
                return one(scalar)
            default:
                let isPunctuation = e.value < 128 && !(("a"..."z").contains(e) || ("A"..."Z").contains(e) || ("0"..."9").contains(e))
                guard isPunctuation else { throw RegexProblem(message: "escape `\\\(e)`") }
                return one(e)
            }
        }

        mutating func characterClass() throws -> String {
            i += 1
            var negated = false
            if peek() == "^" { negated = true; i += 1 }
            var parts: CharSet = []
            var first = true
            while let c = peek(), c != "]" || first {
                first = false
                if c == "[" && peek(1) == ":" { throw RegexProblem(message: "POSIX class `[:…:]`") }
                var low: Unicode.Scalar
                if c == "\\" {
                    let (set, scalar) = try escape(inClass: true)
                    guard let scalar else { parts += set; continue }
                    low = scalar
                } else {
                    low = c
                    i += 1
                }
                if peek() == "-", let next = peek(1), next != "]" {
                    i += 1
                    var high: Unicode.Scalar
                    if next == "\\" {
                        let (_, scalar) = try escape(inClass: true)
                        guard let scalar else { throw RegexProblem(message: "a class escape as a range end") }
                        high = scalar
                    } else {
                        high = next
                        i += 1
                    }
                    guard low.value <= high.value else { throw RegexProblem(message: "reversed range") }
                    parts.append((low.value, high.value))
                } else {
                    parts.append((low.value, low.value))
                }
            }
            guard peek() == "]" else { throw RegexProblem(message: "missing `]`") }
            i += 1
            let set = negated ? RegexTranslator.complement(parts) : parts
            lastClass = RegexTranslator.normalize(set)
            note(set)
            return RegexTranslator.regex(set)
        }
    }
}
