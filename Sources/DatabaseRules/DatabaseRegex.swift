// DatabaseRegex: the regular-expression dialect of database rules (reference §5.3) and its
// translation to a PCRE2 search pattern, plus the injected engine protocol. The interpreter never
// links PCRE2; `RulesPatterns.PCRE2DatabaseRegexEngine` is the production engine.

/// A regular-expression literal outside the dialect.
public struct RegexSyntaxError: Error, Sendable {
    /// Terse message.
    public var message: String
    /// Byte offset in the pattern.
    public var offset: Int
    /// How to fix it.
    public var help: String?
}

/// The engine `matches()` runs on. Implementations must be thread-safe; a failure is never a match.
public protocol DatabaseRegexEngine: Sendable {
    /// Whether `pattern` (a translated PCRE2 pattern from ``DatabaseRegex/translate(_:caseInsensitive:)``)
    /// matches anywhere in `subject`.
    ///
    /// - Throws: a message when the pattern cannot be compiled or a match limit is hit.
    func search(_ subject: String, pattern: String) throws(DatabaseRegexFailure) -> Bool

    /// Prepares `pattern` once, when a program is compiled, for every later match. The default
    /// defers to ``search(_:pattern:)`` on each match; an engine that can compile ahead returns
    /// a matcher that reports a compile failure on each match instead.
    func prepare(_ pattern: String) -> any DatabaseRegexMatcher
}

/// A pattern prepared by a ``DatabaseRegexEngine``. Implementations must be thread-safe.
public protocol DatabaseRegexMatcher: Sendable {
    /// Whether the pattern matches anywhere in `subject`.
    ///
    /// - Throws: a message when the pattern did not compile or a match limit is hit.
    func search(_ subject: String) throws(DatabaseRegexFailure) -> Bool
}

extension DatabaseRegexEngine {
    /// A matcher that calls ``search(_:pattern:)`` on this engine for each match.
    public func prepare(_ pattern: String) -> any DatabaseRegexMatcher {
        DeferredDatabaseRegexMatcher(engine: self, pattern: pattern)
    }
}

/// The default prepared pattern: the engine's ``DatabaseRegexEngine/search(_:pattern:)`` per match.
struct DeferredDatabaseRegexMatcher: DatabaseRegexMatcher {
    let engine: any DatabaseRegexEngine
    let pattern: String

    func search(_ subject: String) throws(DatabaseRegexFailure) -> Bool {
        try engine.search(subject, pattern: pattern)
    }
}

/// Why the regex engine gave no answer.
public struct DatabaseRegexFailure: Error, Sendable {
    /// Terse message.
    public var message: String
    /// Creates a failure.
    public init(message: String) { self.message = message }
}

/// An engine that refuses every match; the default when none is injected, so `matches()` fails
/// closed.
public struct UnavailableDatabaseRegexEngine: DatabaseRegexEngine {
    /// Creates the engine.
    public init() {}
    /// Always throws.
    public func search(_ subject: String, pattern: String) throws(DatabaseRegexFailure) -> Bool {
        throw DatabaseRegexFailure(message: "no regular-expression engine is configured")
    }
}

/// The database rules regex dialect.
public enum DatabaseRegex {
    /// Checks `body` against the dialect and translates it into a PCRE2 pattern meant for an
    /// unanchored search in UTF mode without UCP (so `\d \w \s` stay ASCII, as documented).
    ///
    /// `^` anchors only as the first character and `$` only as the last; `.` matches any
    /// character including line breaks (the production automaton's `.`; inferred); an escaped
    /// letter or digit other than `d w s D W S` is refused because JavaScript gives it a meaning
    /// (`\b`, `\n`) the dialect does not (inferred).
    ///
    /// - Throws: ``RegexSyntaxError`` with the offset of the offending byte.
    public static func translate(_ body: String, caseInsensitive: Bool) throws(RegexSyntaxError) -> String {
        let bytes = Array(body.utf8)
        var index = 0
        var out = "(?s)" + (caseInsensitive ? "(?i)" : "")
        var end = bytes.count
        if bytes.first == UInt8(ascii: "^") { out += "\\A"; index = 1 }
        var anchoredEnd = false
        if end > index, bytes[end - 1] == UInt8(ascii: "$") {
            var backslashes = 0
            var k = end - 2
            while k >= index, bytes[k] == UInt8(ascii: "\\") { backslashes += 1; k -= 1 }
            if backslashes % 2 == 0 { anchoredEnd = true; end -= 1 }
        }
        out += "(?:"
        var groupDepth = 0
        var canQuantify = false
        var lastWasQuantifier = false
        func fail(_ message: String, _ at: Int, _ help: String? = nil) -> RegexSyntaxError {
            RegexSyntaxError(message: message, offset: at, help: help)
        }
        func literal(_ scalarBytes: ArraySlice<UInt8>) -> String {
            let text = String(decoding: scalarBytes, as: UTF8.self)
            if scalarBytes.count == 1, let b = scalarBytes.first,
               !((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b >= 0x80) {
                if b < 0x20 || b == 0x7F { return "\\x{" + String(b, radix: 16) + "}" }
                return "\\" + text
            }
            return text
        }
        func scalarEnd(_ at: Int) -> Int {
            var e = at + 1
            while e < bytes.count, bytes[e] & 0xC0 == 0x80 { e += 1 }
            return e
        }
        func escape(_ at: Int, inClass: Bool) throws(RegexSyntaxError) -> (String, Int) {
            guard at + 1 < end else { throw fail("the pattern ends with a lone `\\`", at, "write a backslash as `\\\\`") }
            let e = bytes[at + 1]
            switch e {
            case UInt8(ascii: "d"), UInt8(ascii: "w"), UInt8(ascii: "s"), UInt8(ascii: "D"), UInt8(ascii: "W"), UInt8(ascii: "S"):
                return ("\\" + String(decoding: [e], as: UTF8.self), at + 2)
            case (0x30...0x39), (0x41...0x5A), (0x61...0x7A):
                throw fail("escape `\\\(String(decoding: [e], as: UTF8.self))` is not supported in database rules regular expressions", at,
                           "the dialect knows \\d \\w \\s \\D \\W \\S and escaped punctuation only")
            default:
                let e2 = scalarEnd(at + 1)
                return (literal(bytes[(at + 1)..<e2]), e2)
            }
        }
        /// One class member: its PCRE2 text, the next offset, and its scalar (nil for shorthands).
        func classItem(_ at: Int) throws(RegexSyntaxError) -> (String, Int, UInt32?) {
            if bytes[at] == UInt8(ascii: "\\") {
                let (text, next) = try escape(at, inClass: true)
                let scalar = next - at == 2 && "dwsDWS".contains(Character(Unicode.Scalar(bytes[at + 1])))
                    ? nil : String(decoding: bytes[(at + 1)..<next], as: UTF8.self).unicodeScalars.first?.value
                return (text, next, scalar)
            }
            let e = scalarEnd(at)
            return (literal(bytes[at..<e]), e, String(decoding: bytes[at..<e], as: UTF8.self).unicodeScalars.first?.value)
        }
        while index < end {
            let b = bytes[index]
            switch b {
            case UInt8(ascii: "\\"):
                let (text, next) = try escape(index, inClass: false)
                out += text
                index = next
                canQuantify = true; lastWasQuantifier = false
            case UInt8(ascii: "^"):
                throw fail("`^` is only allowed as the first character of the pattern", index, "write a literal `^` as `\\^`")
            case UInt8(ascii: "$"):
                throw fail("`$` is only allowed as the last character of the pattern", index, "write a literal `$` as `\\$`")
            case UInt8(ascii: "."):
                out += "."
                index += 1
                canQuantify = true; lastWasQuantifier = false
            case UInt8(ascii: "("):
                if index + 1 < end, bytes[index + 1] == UInt8(ascii: "?") {
                    throw fail("`(?` groups (look-arounds, named or non-capturing groups) are not supported", index)
                }
                out += "(?:"
                groupDepth += 1
                index += 1
                canQuantify = false; lastWasQuantifier = false
            case UInt8(ascii: ")"):
                guard groupDepth > 0 else { throw fail("unmatched `)`", index, "write a literal `)` as `\\)`") }
                groupDepth -= 1
                out += ")"
                index += 1
                canQuantify = true; lastWasQuantifier = false
            case UInt8(ascii: "|"):
                out += "|"
                index += 1
                canQuantify = false; lastWasQuantifier = false
            case UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "?"):
                guard canQuantify, !lastWasQuantifier else {
                    throw fail(lastWasQuantifier ? "a quantifier cannot follow a quantifier (no lazy or possessive forms)" : "nothing to repeat before `\(String(decoding: [b], as: UTF8.self))`", index)
                }
                out += String(decoding: [b], as: UTF8.self)
                index += 1
                lastWasQuantifier = true
            case UInt8(ascii: "{"):
                guard canQuantify, !lastWasQuantifier else { throw fail("nothing to repeat before `{`", index, "write a literal `{` as `\\{`") }
                var k = index + 1
                var low = "", high: String? = nil
                while k < end, bytes[k] >= 0x30, bytes[k] <= 0x39 { low.append(Character(Unicode.Scalar(bytes[k]))); k += 1 }
                if k < end, bytes[k] == UInt8(ascii: ",") {
                    k += 1
                    var h = ""
                    while k < end, bytes[k] >= 0x30, bytes[k] <= 0x39 { h.append(Character(Unicode.Scalar(bytes[k]))); k += 1 }
                    high = h
                }
                guard !low.isEmpty, k < end, bytes[k] == UInt8(ascii: "}"), low.count <= 4, (high ?? "").count <= 4,
                      let lowValue = Int(low), high.map({ $0.isEmpty || Int($0)! >= lowValue }) ?? true else {
                    throw fail("malformed counted repetition; write `{n}`, `{n,}` or `{n,m}` with n ≤ m < 10000", index)
                }
                out += String(decoding: bytes[index...k], as: UTF8.self)
                index = k + 1
                lastWasQuantifier = true
            case UInt8(ascii: "}"):
                throw fail("unmatched `}`", index, "write a literal `}` as `\\}`")
            case UInt8(ascii: "]"):
                throw fail("unmatched `]`", index, "write a literal `]` as `\\]`")
            case UInt8(ascii: "["):
                var k = index + 1
                var cls = "["
                if k < end, bytes[k] == UInt8(ascii: "^") { cls += "^"; k += 1 }
                var items = 0
                var closed = false
                while k < end {
                    let c = bytes[k]
                    if c == UInt8(ascii: "]") { closed = true; k += 1; break }
                    if c == UInt8(ascii: "[") { throw fail("`[` inside a character class must be escaped", k, "write `\\[`") }
                    var (text, next, lower) = try classItem(k)
                    // A range `a-z`: the `-` is kept as PCRE2's range operator.
                    if next + 1 < end, bytes[next] == UInt8(ascii: "-"), bytes[next + 1] != UInt8(ascii: "]") {
                        let (upperText, after, upper) = try classItem(next + 1)
                        guard let lower, let upper else { throw fail("a class shorthand cannot be a range end", k) }
                        guard lower <= upper else { throw fail("range out of order in a character class", k) }
                        text += "-" + upperText
                        next = after
                    }
                    k = next
                    cls += text
                    items += 1
                }
                guard closed else { throw fail("unterminated character class", index, "close it with `]`") }
                guard items > 0 else { throw fail("empty character class", index) }
                out += cls + "]"
                index = k
                canQuantify = true; lastWasQuantifier = false
            default:
                let e = scalarEnd(index)
                out += literal(bytes[index..<e])
                index = e
                canQuantify = true; lastWasQuantifier = false
            }
        }
        guard groupDepth == 0 else { throw fail("unclosed `(`", max(0, end - 1), "close every group with `)`") }
        out += ")"
        if anchoredEnd { out += "\\z" }
        return out
    }
}
