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
        var parser = Parser(Array(pattern.unicodeScalars))
        do {
            let regex = try parser.alternation(top: true)
            guard parser.atEnd else { throw RegexProblem(message: "unbalanced `)`") }
            return .success(regex)
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

    static let digit = range("0", "9")
    static let word = union([range("a", "z"), range("A", "Z"), range("0", "9"), range("_", "_")])
    static let space = union([range("\t", "\r"), range(" ", " ")])
    static func complement(_ set: String) -> String { "(re.inter re.allchar (re.comp \(set)))" }

    struct Parser {
        let s: [Unicode.Scalar]
        var i = 0
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
                return RegexTranslator.complement(RegexTranslator.range("\n", "\n"))
            case "\\":
                let (set, _) = try escape(inClass: false)
                return set
            case "*", "+", "?":
                throw RegexProblem(message: "quantifier without a target")
            default:
                i += 1
                return RegexTranslator.range(c, c)
            }
        }

        /// An escape at `i`: the regex for it, and the single scalar when it is one.
        mutating func escape(inClass: Bool) throws -> (String, Unicode.Scalar?) {
            i += 1
            guard let e = peek() else { throw RegexProblem(message: "trailing `\\`") }
            i += 1
            switch e {
            case "d": return (RegexTranslator.digit, nil)
            case "D": return (RegexTranslator.complement(RegexTranslator.digit), nil)
            case "w": return (RegexTranslator.word, nil)
            case "W": return (RegexTranslator.complement(RegexTranslator.word), nil)
            case "s": return (RegexTranslator.space, nil)
            case "S": return (RegexTranslator.complement(RegexTranslator.space), nil)
            case "n": return (RegexTranslator.range("\n", "\n"), "\n")
            case "t": return (RegexTranslator.range("\t", "\t"), "\t")
            case "r": return (RegexTranslator.range("\r", "\r"), "\r")
            case "f": return (RegexTranslator.range("\u{0C}", "\u{0C}"), "\u{0C}")
            case "v": return (RegexTranslator.range("\u{0B}", "\u{0B}"), "\u{0B}")
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
                return (RegexTranslator.range(scalar, scalar), scalar)
            default:
                let isPunctuation = e.value < 128 && !(("a"..."z").contains(e) || ("A"..."Z").contains(e) || ("0"..."9").contains(e))
                guard isPunctuation else { throw RegexProblem(message: "escape `\\\(e)`") }
                return (RegexTranslator.range(e, e), e)
            }
        }

        mutating func characterClass() throws -> String {
            i += 1
            var negated = false
            if peek() == "^" { negated = true; i += 1 }
            var parts: [String] = []
            var first = true
            while let c = peek(), c != "]" || first {
                first = false
                if c == "[" && peek(1) == ":" { throw RegexProblem(message: "POSIX class `[:…:]`") }
                var low: Unicode.Scalar
                if c == "\\" {
                    let (set, scalar) = try escape(inClass: true)
                    guard let scalar else { parts.append(set); continue }
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
                    parts.append(RegexTranslator.range(low, high))
                } else {
                    parts.append(RegexTranslator.range(low, low))
                }
            }
            guard peek() == "]" else { throw RegexProblem(message: "missing `]`") }
            i += 1
            let set = RegexTranslator.union(parts)
            return negated ? RegexTranslator.complement(set) : set
        }
    }
}
