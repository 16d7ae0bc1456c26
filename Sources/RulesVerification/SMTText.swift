// SMTText: SMT-LIB 2 spelling of literals, and a reader for the values Z3 prints back.

/// SMT-LIB helpers: literals in, model values out.
enum SMT {
    /// A string literal Z3 reads back as exactly `text` (code points outside printable ASCII,
    /// and `\`, as `\u{…}`; `"` doubled).
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x22: out += "\"\""
            case 0x5C: out += "\\u{5c}"
            case 0x20...0x7E: out.unicodeScalars.append(scalar)
            default: out += "\\u{" + String(scalar.value, radix: 16) + "}"
            }
        }
        return out + "\""
    }

    /// An integer literal (`(- 5)` for negatives).
    static func int(_ value: Int64) -> String {
        value < 0 ? "(- \(value.magnitude))" : String(value)
    }

    /// An integer literal from an arbitrary-precision decimal string.
    static func int(_ value: Int) -> String { int(Int64(value)) }

    /// A real literal that is exactly `value` (finite doubles only).
    static func real(_ value: Double) -> String {
        // A double is a dyadic rational: scale by 2^k until integral.
        var numerator = value.magnitude
        var denominator: Double = 1
        var steps = 0
        while numerator != numerator.rounded() && steps < 1100 {
            numerator *= 2
            denominator *= 2
            steps += 1
        }
        let n = String(format: "%.0f", numerator) + ".0"
        let d = String(format: "%.0f", denominator) + ".0"
        let body = denominator == 1 ? n : "(/ \(n) \(d))"
        return value < 0 ? "(- \(body))" : body
    }

    /// `(and …)` of the terms, each once (`a ∧ a` is `a`: repeated calls of one function
    /// inline to one term, and a term repeated at every level would nest exponentially once Z3
    /// expands the names).
    static func and(_ terms: [String]) -> String {
        var seen = Set<String>()
        let useful = terms.filter { $0 != "true" && seen.insert($0).inserted }
        if useful.contains("false") { return "false" }
        if useful.isEmpty { return "true" }
        return useful.count == 1 ? useful[0] : "(and " + useful.joined(separator: " ") + ")"
    }

    /// `(or …)` of the terms, each once.
    static func or(_ terms: [String]) -> String {
        var seen = Set<String>()
        let useful = terms.filter { $0 != "false" && seen.insert($0).inserted }
        if useful.contains("true") { return "true" }
        if useful.isEmpty { return "false" }
        return useful.count == 1 ? useful[0] : "(or " + useful.joined(separator: " ") + ")"
    }

    static func not(_ term: String) -> String {
        switch term {
        case "true": "false"
        case "false": "true"
        default: "(not \(term))"
        }
    }

    static func ite(_ c: String, _ a: String, _ b: String) -> String {
        switch c {
        case "true": a
        case "false": b
        default: a == b ? a : "(ite \(c) \(a) \(b))"
        }
    }

    static func eq(_ a: String, _ b: String) -> String { a == b ? "true" : "(= \(a) \(b))" }
    static func implies(_ a: String, _ b: String) -> String { or([not(a), b]) }
}

/// A parsed S-expression from Z3's output.
indirect enum SExpr: Equatable {
    case atom(String)
    case string(String)
    case list([SExpr])

    /// Parses one or more S-expressions; returns them as a list.
    static func parse(_ text: String) -> [SExpr] {
        let chars = Array(text.unicodeScalars)
        var i = 0
        func skip() { while i < chars.count, chars[i] == " " || chars[i] == "\n" || chars[i] == "\t" || chars[i] == "\r" { i += 1 } }
        func one() -> SExpr? {
            skip()
            guard i < chars.count else { return nil }
            if chars[i] == "(" {
                i += 1
                var items: [SExpr] = []
                while true {
                    skip()
                    if i >= chars.count { break }
                    if chars[i] == ")" { i += 1; break }
                    guard let item = one() else { break }
                    items.append(item)
                }
                return .list(items)
            }
            if chars[i] == "\"" {
                i += 1
                var raw = String.UnicodeScalarView()
                while i < chars.count {
                    if chars[i] == "\"" {
                        if i + 1 < chars.count, chars[i + 1] == "\"" { raw.append("\""); i += 2; continue }
                        i += 1
                        break
                    }
                    raw.append(chars[i])
                    i += 1
                }
                return .string(unescape(String(raw)))
            }
            var atom = String.UnicodeScalarView()
            while i < chars.count, !" \n\t\r()".unicodeScalars.contains(chars[i]) { atom.append(chars[i]); i += 1 }
            return .atom(String(atom))
        }
        var result: [SExpr] = []
        while let item = one() { result.append(item) }
        return result
    }

    /// Decodes Z3's `\u{…}`, `\uXXXX` and `\xXX` escapes.
    static func unescape(_ text: String) -> String {
        let s = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        while i < s.count {
            if s[i] == "\\", i + 1 < s.count {
                if s[i + 1] == "u", i + 2 < s.count, s[i + 2] == "{" {
                    var j = i + 3
                    var hex = ""
                    while j < s.count, s[j] != "}" { hex.unicodeScalars.append(s[j]); j += 1 }
                    if let v = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(v) { out.append(scalar); i = j + 1; continue }
                } else if s[i + 1] == "u", i + 5 < s.count {
                    let hex = String(String.UnicodeScalarView(s[(i + 2)..<(i + 6)]))
                    if let v = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(v) { out.append(scalar); i += 6; continue }
                } else if s[i + 1] == "x", i + 3 < s.count {
                    let hex = String(String.UnicodeScalarView(s[(i + 2)..<(i + 4)]))
                    if let v = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(v) { out.append(scalar); i += 4; continue }
                }
            }
            out.append(s[i])
            i += 1
        }
        return String(out)
    }

    /// An integer value (`5`, `(- 5)`).
    var integer: Int64? {
        switch self {
        case .atom(let a): return Int64(a)
        case .list(let items):
            if items.count == 2, items[0] == .atom("-"), let v = items[1].integer { return -v }
            return nil
        default: return nil
        }
    }

    /// A real value (`1.5`, `(/ 1.0 3.0)`, `(- …)`) as the nearest double.
    var real: Double? {
        switch self {
        case .atom(let a): return Double(a)
        case .list(let items):
            if items.count == 2, items[0] == .atom("-"), let v = items[1].real { return -v }
            if items.count == 3, items[0] == .atom("/"), let n = items[1].real, let d = items[2].real, d != 0 { return n / d }
            return nil
        default: return nil
        }
    }

    var boolean: Bool? {
        switch self {
        case .atom("true"): true
        case .atom("false"): false
        default: nil
        }
    }

    var text: String? { if case .string(let s) = self { s } else { nil } }
}

extension SMT {
    /// The text of a string literal term, or nil for any other term.
    static func concreteString(_ term: String) -> String? {
        guard term.hasPrefix("\""), term.hasSuffix("\""), term.count >= 2 else { return nil }
        let parsed = SExpr.parse(term)
        guard parsed.count == 1, case .string(let text) = parsed[0] else { return nil }
        return text
    }
}
