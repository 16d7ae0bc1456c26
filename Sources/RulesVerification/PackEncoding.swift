// PackEncoding: a display-name rule pack as one SMT-LIB regex of the names it accepts, for
// `validate rules agree`. Pattern rules use RegexTranslator with PCRE2's meaning (UTF, no UCP,
// `$` also before a final line feed); lengths count code points or UTF-8 octets as each rule says;
// list rules push their keys back through the key function (CharAutomaton), all lists into one
// language, written from its minimal automaton (so a rules function's same list is the same text). A rule that cannot
// be encoded exactly is refused with its id, code and the construct.
import FieldValidation

/// The names a display-name pack accepts, as SMT-LIB.
struct PackEncoding {
    /// `define-fun`s the regex uses.
    var definitions: [String] = []
    /// The regex of the names the pattern and length rules accept.
    var regex = ""
    /// Each code-point length rule's bounds.
    var codePointBounds: [(min: Int?, max: Int?)] = []
    /// The regex of the names a list rule rejects (one language for every list rule), or nil
    /// when the pack has none.
    var listed: String?
    /// The automaton of ``listed``.
    var listedAutomaton = CharAutomaton(edges: [[]], finals: [])

    /// Why a pack cannot be encoded exactly.
    struct Refusal: Error {
        var message: String
    }

    /// The largest code point of Z3's alphabet a pattern or list key may name: every character
    /// above it behaves as U+2FFFF does in the encoding (see ``outsideAlphabet(_:)``).
    static let alphabetLimit: UInt32 = RegexTranslator.maxCharacter

    /// Longest `max` of a `utf8-octets` length rule encoded (one definition per octet count).
    static let maxOctetBound = 10_000

    /// Encodes every rule; the pack accepts a name exactly when the name is in ``regex``.
    static func encode(_ rules: [RuleSummary]) -> Result<PackEncoding, Refusal> {
        var encoding = PackEncoding()
        var parts: [String] = []
        var lists: [CharAutomaton] = []
        for rule in rules {
            let name = "rule `\(rule.id)` (\(rule.code))"
            guard rule.target == "value" else { return .failure(Refusal(message: "\(name) reads `\(rule.target)`")) }
            do {
                switch rule.check {
                case .mustMatch(let pattern):
                    parts.append(try wholeMatch(pattern, name))
                case .mustNotMatch(let pattern):
                    parts.append("(re.comp \(try search(pattern, name)))")
                case .length(let unit, let min, let max):
                    switch unit {
                    // Z3's characters are code points: `str.len`, which Z3 decides far faster than a loop.
                    case .codePoints: encoding.codePointBounds.append((min, max))
                    case .utf8Octets: parts.append(try encoding.octetLength(min: min, max: max, name))
                    }
                case .list(let key, let keys):
                    lists.append(try listed(key, keys, name))
                case .swift(let swiftName, let kind):
                    switch kind {
                    case .list: throw Refusal(message: "\(name) is a list rule decided in Swift (an `allow-file` or `domain-suffix` keys)")
                    case .swift: throw Refusal(message: "\(name) is a Swift rule (`\(swiftName)`)")
                    default: throw Refusal(message: "\(name) is a `\(kind.rawValue)` rule, decided in Swift")
                    }
                }
            } catch let refusal as Refusal {
                return .failure(refusal)
            } catch {
                return .failure(Refusal(message: "\(name): \(error)"))
            }
        }
        if !lists.isEmpty {
            encoding.listedAutomaton = CharAutomaton.union(lists)
            guard let regex = encoding.listedAutomaton.minimalRegex() else {
                return .failure(Refusal(message: "the list rules' keys have no finite regex"))
            }
            encoding.listed = regex
        }
        encoding.regex = parts.isEmpty ? "(re.* re.allchar)" : (parts.count == 1 ? parts[0] : "(re.inter \(parts.joined(separator: " ")))")
        return .success(encoding)
    }

    // MARK: - Patterns

    /// A must-match pattern (`PCRE2_ANCHORED | PCRE2_ENDANCHORED`): a leading `^`/`\A` and a
    /// trailing `$`/`\z`/`\Z` hold wherever such a match starts and ends, so they are dropped.
    static func wholeMatch(_ pattern: String, _ name: String) throws -> String {
        try checkPCRE(pattern, name)
        let anchors = Anchors(pattern)
        return try translate(anchors.body, pattern, name)
    }

    /// The names in which a must-not-match pattern matches somewhere (`pre body post`).
    static func search(_ pattern: String, _ name: String) throws -> String {
        try checkPCRE(pattern, name)
        let anchors = Anchors(pattern)
        if (anchors.start || anchors.end != .none) && hasTopLevelAlternation(anchors.body) {
            throw Refusal(message: "\(name): pattern `\(pattern)` anchors one branch of an alternation")
        }
        let body = try translate(anchors.body, pattern, name)
        let any = "(re.* re.allchar)"
        let post: String
        switch anchors.end {
        case .none: post = any
        case .exact: post = "(str.to_re \"\")"
        // PCRE2 without DOLLAR_ENDONLY: `$` and `\Z` also match before a final line feed.
        case .beforeFinalNewline: post = "(re.opt (str.to_re \"\\u{a}\"))"
        }
        return "(re.++ \(anchors.start ? "(str.to_re \"\")" : any) \(body) \(post))"
    }

    private static func translate(_ body: String, _ pattern: String, _ name: String) throws -> String {
        switch RegexTranslator.translateMembership(body) {
        case .success(let translation): return translation.combined
        case .failure(let problem): throw Refusal(message: "\(name): pattern `\(pattern)`: \(problem.message)")
        }
    }

    /// Refuses what PCRE2 reads differently from RegexTranslator's RE2 subset, and characters
    /// beyond Z3's alphabet.
    private static func checkPCRE(_ pattern: String, _ name: String) throws {
        // PCRE2 10.43 reads `{,n}` as a quantifier; RE2 and older PCRE2 as text.
        if pattern.contains("{,") { throw Refusal(message: "\(name): pattern `\(pattern)` has `{,`, which PCRE2 versions read differently") }
        if let scalar = outsideAlphabet(pattern) {
            throw Refusal(message: "\(name): pattern `\(pattern)` names U+\(String(scalar, radix: 16, uppercase: true)), beyond the solver's alphabet (up to U+2FFFE)")
        }
    }

    /// A code point at or above U+2FFFF in `text`, written or as a `\x{…}` escape, or nil.
    /// Below that, every character the encoding tells apart is in Z3's alphabet, and all
    /// characters above it behave alike (none has a case mapping; all are 4 UTF-8 octets).
    static func outsideAlphabet(_ text: String) -> UInt32? {
        if let scalar = text.unicodeScalars.first(where: { $0.value >= alphabetLimit }) { return scalar.value }
        var rest = Substring(text)
        while let range = rest.range(of: "x{") {
            let digits = rest[range.upperBound...].prefix { $0.isHexDigit }
            if let value = UInt32(digits, radix: 16), value >= alphabetLimit { return value }
            if digits.count > 8 { return UInt32.max }
            rest = rest[range.upperBound...]
        }
        return nil
    }

    /// Whether `pattern` has a `|` outside groups and classes.
    static func hasTopLevelAlternation(_ pattern: String) -> Bool {
        var depth = 0, inClass = false, escaped = false
        for c in pattern.unicodeScalars {
            if escaped { escaped = false; continue }
            switch c {
            case "\\": escaped = true
            case "[" where !inClass: inClass = true
            case "]" where inClass: inClass = false
            case "(" where !inClass: depth += 1
            case ")" where !inClass: depth -= 1
            case "|" where !inClass && depth == 0: return true
            default: break
            }
        }
        return false
    }

    /// A pattern's leading and trailing anchors, and what is between them.
    struct Anchors {
        enum End { case none, exact, beforeFinalNewline }
        var start = false
        var end = End.none
        var body: String

        init(_ pattern: String) {
            var scalars = Array(pattern.unicodeScalars)
            if scalars.first == "^" {
                start = true
                scalars.removeFirst()
            } else if scalars.starts(with: ["\\", "A"]) {
                start = true
                scalars.removeFirst(2)
            }
            // A trailing `$` or `\z` counts only when its backslash is not itself escaped.
            func backslashesBefore(_ index: Int) -> Int {
                var count = 0, i = index - 1
                while i >= 0 && scalars[i] == "\\" { count += 1; i -= 1 }
                return count
            }
            if let last = scalars.last {
                let n = scalars.count
                if last == "$" && backslashesBefore(n - 1) % 2 == 0 {
                    end = .beforeFinalNewline
                    scalars.removeLast()
                } else if (last == "z" || last == "Z") && n >= 2 && scalars[n - 2] == "\\" && backslashesBefore(n - 1) % 2 == 1 {
                    end = last == "z" ? .exact : .beforeFinalNewline
                    scalars.removeLast(2)
                }
            }
            var text = ""
            text.unicodeScalars.append(contentsOf: scalars)
            body = text
        }
    }

    // MARK: - Lengths

    /// Whether `subject` has a code-point length within every ``codePointBounds`` (Bool term).
    func lengthAccepted(_ subject: String) -> String {
        SMT.and(codePointBounds.flatMap { bounds in
            [bounds.min.map { "(<= \($0) (str.len \(subject)))" }, bounds.max.map { "(<= (str.len \(subject)) \($0))" }].compactMap { $0 }
        })
    }

    /// Characters by the length of their UTF-8 encoding (surrogates are excluded elsewhere).
    static let octetClasses = [
        "(re.range \"\\u{0}\" \"\\u{7f}\")", "(re.range \"\\u{80}\" \"\\u{7ff}\")",
        "(re.range \"\\u{800}\" \"\\u{ffff}\")", "(re.range \"\\u{10000}\" \"\\u{2ffff}\")",
    ]

    /// Names of `min`…`max` UTF-8 octets: `|u8.k|` is the names of exactly k octets.
    mutating func octetLength(min: Int?, max: Int?, _ name: String) throws -> String {
        let low = Swift.max(0, min ?? 0)
        let top = max ?? (low - 1)
        guard top <= Self.maxOctetBound else {
            throw Refusal(message: "\(name): a `utf8-octets` bound above \(Self.maxOctetBound)")
        }
        if max == nil && low == 0 { return "(re.* re.allchar)" }
        let defined = definitions.count
        if top >= defined {
            for k in defined...top {
                var branches: [String] = []
                for octets in 1...4 where octets <= k {
                    branches.append("(re.++ \(Self.octetClasses[octets - 1]) |u8.\(k - octets)|)")
                }
                let body = k == 0 ? "(str.to_re \"\")" : RegexTranslator.union(branches)
                definitions.append("(define-fun |u8.\(k)| () RegLan \(body))")
            }
        }
        if let max {
            guard max >= low else { return "re.none" }
            return RegexTranslator.union((low...max).map { "|u8.\($0)|" })
        }
        return "(re.comp \(RegexTranslator.union((0..<low).map { "|u8.\($0)|" })))"
    }

    // MARK: - Lists

    /// The steps of a list rule's key function (Keys.swift in FieldValidation), or nil for a key
    /// that is not a sequence of such steps.
    static func keySteps(_ key: ListKey) -> [StringStep]? {
        switch key {
        case .exact: []
        case .canonical: [.lowerASCII]
        case .lookalike:
            [.lowerASCII,
             .replaceCharacters(set: [0x31...0x31, 0x69...0x69, 0x7C...0x7C], with: [0x6C]),
             .replaceCharacters(set: [0x30...0x30], with: [0x6F]),
             .replaceLiteral([0x72, 0x6E], with: [0x6D])]
        case .nfkcCasefold, .domainSuffix: nil
        }
    }

    /// The names whose key is one of `keys` (compared as Swift's `==` compares strings).
    static func listed(_ key: ListKey, _ keys: Set<String>, _ name: String) throws -> CharAutomaton {
        guard let steps = keySteps(key) else { throw Refusal(message: "\(name) compares `\(key.rawValue)` keys") }
        if let odd = keys.sorted().first(where: { !$0.unicodeScalars.allSatisfy(\.isASCII) }) {
            throw Refusal(message: "\(name) lists `\(odd)`, which is not ASCII (keys are compared by canonical equivalence)")
        }
        var automaton = CharAutomaton.literals(keys.sorted().map { $0.unicodeScalars.map(\.value) }, canonicalEquivalents: true)
        for step in steps.reversed() { automaton = automaton.preimage(step) }
        return automaton
    }
}
