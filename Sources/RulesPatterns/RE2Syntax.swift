// RulesPatterns: the RE2-syntax regular-expression library of the rules language (`matches`,
// `replace`, `split`), run on the PCRE2 engine from `Patterns`. Owns the RE2 syntax check and the
// compiled-pattern cache; does not own the language (RulesLanguage) or PCRE2 itself (Patterns).
import RulesLanguage

/// Rejects syntax PCRE2 accepts but RE2 does not, so rules behave as they do in production.
///
/// Rejected: backreferences (`\1`, `\k<n>`, `\g1`, `(?P=n)`), lookaround (`(?=`, `(?!`, `(?<=`,
/// `(?<!`), atomic groups `(?>`, possessive quantifiers (`a++`, `a*+`, `a{2}+`), recursion and
/// subroutines (`(?R)`, `(?1)`, `(?&n)`, `(?P>n)`), conditionals `(?(`, branch reset `(?|`,
/// callouts `(?C`, verbs `(*…)`, the escapes `\G \Z \K \R \X \h \H \V \N \c`, `(?'name'…)`,
/// inline flags other than `i m s U` (e.g. `(?x)`), and repetition counts above 1000 (RE2 syntax wiki).
public enum RE2Syntax {
    /// The first unsupported construct in `pattern`, or nil when RE2 would accept its syntax.
    public static func unsupportedConstruct(in pattern: String) -> String? {
        let b = Array(pattern.utf8)
        var i = 0
        var lastWasQuantifier = false
        func at(_ k: Int) -> UInt8? { k < b.count ? b[k] : nil }
        func starts(_ text: String, _ k: Int) -> Bool {
            let t = Array(text.utf8)
            return k + t.count <= b.count && Array(b[k..<(k + t.count)]) == t
        }
        while i < b.count {
            let c = b[i]
            switch c {
            case UInt8(ascii: "\\"):
                guard let e = at(i + 1) else { return nil }
                if e == UInt8(ascii: "Q") {
                    // \Q…\E is literal text.
                    i += 2
                    while i < b.count && !starts("\\E", i) { i += 1 }
                    i += 2
                    lastWasQuantifier = false
                    continue
                }
                if e >= UInt8(ascii: "1") && e <= UInt8(ascii: "9") { return "backreference `\\\(Character(Unicode.Scalar(e)))`" }
                if let letter = "GZKRXhHVNckg".utf8.first(where: { $0 == e }) {
                    let name = Character(Unicode.Scalar(letter))
                    return name == "k" || name == "g" ? "backreference `\\\(name)`" : "escape `\\\(name)`"
                }
                i += 2
                lastWasQuantifier = false
            case UInt8(ascii: "["):
                // Skip a character class; `]` first is literal, `[:name:]` is a POSIX class.
                i += 1
                if at(i) == UInt8(ascii: "^") { i += 1 }
                if at(i) == UInt8(ascii: "]") { i += 1 }
                while i < b.count && b[i] != UInt8(ascii: "]") {
                    if b[i] == UInt8(ascii: "\\") { i += 2; continue }
                    if starts("[:", i), let close = (i + 2..<b.count).first(where: { starts(":]", $0) }) { i = close + 2; continue }
                    i += 1
                }
                i += 1
                lastWasQuantifier = false
            case UInt8(ascii: "("):
                if at(i + 1) == UInt8(ascii: "*") { return "verb `(*…)`" }
                if at(i + 1) == UInt8(ascii: "?") {
                    let rejected: [(String, String)] = [
                        ("(?=", "lookahead `(?=`"), ("(?!", "negative lookahead `(?!`"), ("(?<=", "lookbehind `(?<=`"),
                        ("(?<!", "negative lookbehind `(?<!`"), ("(?>", "atomic group `(?>`"), ("(?R", "recursion `(?R)`"),
                        ("(?(", "conditional `(?(`"), ("(?|", "branch reset `(?|`"), ("(?&", "subroutine call `(?&`"),
                        ("(?P>", "subroutine call `(?P>`"), ("(?P=", "backreference `(?P=`"), ("(?C", "callout `(?C`"),
                        ("(?+", "subroutine call `(?+`"), ("(?-1", "subroutine call `(?-n)`"),
                    ]
                    for (prefix, name) in rejected where starts(prefix, i) { return name }
                    if let d = at(i + 2), d >= UInt8(ascii: "0") && d <= UInt8(ascii: "9") { return "subroutine call `(?n)`" }
                    if starts("(?'", i) { return "named group `(?'name'…)`" }
                    // Inline flags `(?ims-U)` / `(?i:…)`: RE2 has only i, m, s and U.
                    var j = starts("(?P<", i) ? b.count : i + 2
                    while let f = at(j), (f >= UInt8(ascii: "a") && f <= UInt8(ascii: "z")) || (f >= UInt8(ascii: "A") && f <= UInt8(ascii: "Z")) || f == UInt8(ascii: "-") || f == UInt8(ascii: "^") {
                        if !"imsU-".utf8.contains(f) { return "flag `\(Character(Unicode.Scalar(f)))`" }
                        j += 1
                    }
                }
                i += 1
                lastWasQuantifier = false
            case UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "?"):
                if lastWasQuantifier && c == UInt8(ascii: "+") { return "possessive quantifier" }
                // `*?`, `+?`, `??` are lazy quantifiers (RE2 has them); a further `+` is still possessive.
                lastWasQuantifier = !(lastWasQuantifier && c == UInt8(ascii: "?"))
                i += 1
            case UInt8(ascii: "{"):
                // `{n}`, `{n,}`, `{n,m}` are repetitions; anything else is a literal brace.
                var j = i + 1
                var numbers: [Int] = []
                var current = ""
                while let d = at(j), (d >= 0x30 && d <= 0x39) || d == UInt8(ascii: ",") {
                    if d == UInt8(ascii: ",") { numbers.append(Int(current) ?? 0); current = "" } else { current.append(Character(Unicode.Scalar(d))) }
                    j += 1
                }
                if at(j) == UInt8(ascii: "}"), j > i + 1 {
                    if !current.isEmpty { numbers.append(Int(current.prefix(9)) ?? Int.max) }
                    if numbers.contains(where: { $0 > 1000 }) { return "repetition count above 1000" }
                    i = j + 1
                    lastWasQuantifier = true
                } else {
                    i += 1
                    lastWasQuantifier = false
                }
            default:
                i += 1
                lastWasQuantifier = false
            }
        }
        return nil
    }
}
