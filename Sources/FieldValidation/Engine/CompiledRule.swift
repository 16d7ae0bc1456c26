import BreachedPasswords
import Foundation
import Diagnostics
import Patterns

/// One rule ready to run: its identity, its message template and a compiled check.
///
/// A class so that handing rules around costs one reference count, not one per field.
final class CompiledRule: Sendable {
    enum Check: Sendable {
        case mustMatch(Pattern)
        case mustNotMatch(Pattern)
        case length(LengthUnit, min: Int?, max: Int?)
        case list(KeyList)
        case swift(any FieldRule)
    }

    let id: String
    let code: String
    let message: String
    let target: String
    let check: Check
    /// Values known when the pack is compiled (`min`, `max`), substituted into the message.
    let staticParameters: [String: String]
    /// Indices of earlier rules whose violation makes this one skip.
    let unless: [Int]
    let definition: RuleDefinition
    /// The violation with only the static parameters, rendered once (pattern, list and most
    /// Swift rules report exactly this).
    let staticViolation: Violation
    /// Length rules: the violation for each length below ``cachedLengths`` (nil where the
    /// length is within bounds), rendered once so a too-short or too-long value costs no
    /// formatting.
    private let lengthViolations: [Violation?]
    static let cachedLengths = 256
    /// Swift rules: the violations already worded, by the parameters the rule found.
    private let swiftViolations = ViolationCache()

    init(id: String, code: String, message: String, target: String, check: Check,
         staticParameters: [String: String], unless: [Int], definition: RuleDefinition) {
        self.id = id
        self.code = code
        self.message = message
        self.target = target
        self.check = check
        self.staticParameters = staticParameters
        self.unless = unless
        self.definition = definition
        self.staticViolation = Violation(code: code, rule: id, message: render(message, staticParameters), parameters: staticParameters)
        if case let .length(_, min, max) = check {
            lengthViolations = (0..<Self.cachedLengths).map { length in
                Self.lengthViolation(length, min: min, max: max, id: id, code: code, message: message, staticParameters: staticParameters)
            }
        } else {
            lengthViolations = []
        }
    }

    /// The violation `input` commits against this rule, or nil. Rules whose subject is absent
    /// are skipped. A pattern error (match limit) fails closed: it counts as a violation.
    func evaluate(_ input: FieldInput) -> Violation? {
        guard let subject = input.subject(target) else { return nil }
        switch check {
        case let .mustMatch(pattern):
            do {
                return try pattern.matches(subject) ? nil : staticViolation
            } catch {
                return gaveUp(error)
            }
        case let .mustNotMatch(pattern):
            do {
                guard try pattern.firstMatch(in: subject) != nil else { return nil }
                return try matchViolation(pattern, subject, input.field)
            } catch {
                return gaveUp(error)
            }
        case let .length(unit, min, max):
            return lengthViolation(unit == .codePoints ? subject.unicodeScalars.count : subject.utf8.count, min: min, max: max)
        case let .list(list):
            return list.contains(subject) ? staticViolation : nil
        case let .swift(rule):
            return rule.check(input).map(swiftViolation)
        }
    }

    /// The violation of a Swift rule that reported `found` (its parameters, possibly none).
    func swiftViolation(_ found: [String: String]) -> Violation {
        guard !found.isEmpty else { return staticViolation }
        return swiftViolations.violation(for: found) { violation(staticParameters.merging(found) { $1 }) }
    }

    /// The violation of a pattern rule whose outcome is known (from an automaton): a
    /// must-match rule's fixed violation, or a must-not-match rule's with its matches worded by
    /// PCRE2 (the fixed one when PCRE2 finds none or gives up: the automaton decided).
    func knownPatternViolation(_ input: FieldInput) -> Violation {
        guard case let .mustNotMatch(pattern) = check, let subject = input.subject(target) else { return staticViolation }
        return (try? matchViolation(pattern, subject, input.field)) ?? staticViolation
    }

    /// A must-not-match violation naming its first match and the characters matched; passwords
    /// get the fixed violation (never echo any part of a password).
    private func matchViolation(_ pattern: Pattern, _ subject: String, _ field: Field) throws(PatternError) -> Violation {
        guard field != .password else { return staticViolation }
        let bytes = Array(subject.utf8)
        let ranges = try pattern.allMatches(in: subject)
        var parameters = staticParameters
        if let first = ranges.first {
            parameters["match"] = String(decoding: bytes[first], as: UTF8.self)
        }
        parameters["characters"] = displayCharacters(ranges.flatMap { String(decoding: bytes[$0], as: UTF8.self).unicodeScalars })
        return violation(parameters)
    }

    /// The violation when this rule's pattern gave up on a value (match limit hit, or any other
    /// PCRE2 error), so that the value fails closed: code ``RulePackCodes/matchGaveUp``, this
    /// rule's id, and the rule's own code and PCRE2's error as parameters.
    func gaveUp(_ error: any Error) -> Violation {
        Violation(code: RulePackCodes.matchGaveUp.id, rule: id,
                  message: "This value could not be checked against rule \(id) (\(code)): the check gave up, so the value is not accepted.",
                  parameters: ["rule-code": code, "error": "\(error)"])
    }

    /// Length rules: the violation of every out-of-bounds length, parameters aside, when the
    /// message does not mention the length; else nil.
    var fixedLengthViolation: Violation? {
        func rendered(length: String) -> String {
            render(message, staticParameters.merging(["length": length, "count": length]) { $1 })
        }
        let wording = rendered(length: "1")
        guard wording == rendered(length: "2") else { return nil }
        return Violation(code: code, rule: id, message: wording, parameters: staticParameters)
    }

    /// The violation of a length rule by a value `length` units long, or nil when in bounds.
    func lengthViolation(_ length: Int, min: Int?, max: Int?) -> Violation? {
        if length < lengthViolations.count { return lengthViolations[length] }
        return Self.lengthViolation(length, min: min, max: max, id: id, code: code, message: message, staticParameters: staticParameters)
    }

    private static func lengthViolation(_ length: Int, min: Int?, max: Int?, id: String, code: String, message: String,
                                        staticParameters: [String: String]) -> Violation? {
        let count: Int
        if let min, length < min {
            count = min - length
        } else if let max, length > max {
            count = length - max
        } else {
            return nil
        }
        var parameters = staticParameters
        parameters["length"] = String(length)
        parameters["count"] = String(count)
        return Violation(code: code, rule: id, message: render(message, parameters), parameters: parameters)
    }

    func violation(_ parameters: [String: String]) -> Violation {
        Violation(code: code, rule: id, message: render(message, parameters), parameters: parameters)
    }
}

/// A Swift rule's violations by the parameters its check found: most failing values repeat a
/// few (`email.one-at-sign` with a count of 0 or 2), so each is worded once. Bounded, thread-safe.
final class ViolationCache: @unchecked Sendable {
    // INVARIANT: `violations` is read and written only with `lock` held.
    private let lock = NSLock()
    private var violations: [[String: String]: Violation] = [:]
    /// At most this many are kept; the others are worded each time.
    static let capacity = 64

    /// The violation for `parameters`, worded by `word` the first time.
    func violation(for parameters: [String: String], word: () -> Violation) -> Violation {
        if let known = lock.withLock({ violations[parameters] }) { return known }
        let violation = word()
        lock.withLock {
            if violations.count < Self.capacity { violations[parameters] = violation }
        }
        return violation
    }
}

/// Names characters for an end-user message, email-validator style: printable ones quoted
/// (`'<'`), invisible ones by Unicode name or code point (`SPACE`, `ZERO WIDTH SPACE`, `U+0000`);
/// each once, in order of first appearance.
func displayCharacters<S: Sequence>(_ scalars: S) -> String where S.Element == Unicode.Scalar {
    var seen = Set<Unicode.Scalar>()
    var shown: [String] = []
    for scalar in scalars where seen.insert(scalar).inserted {
        shown.append(displayCharacter(scalar))
    }
    return shown.joined(separator: ", ")
}

/// One character for an end-user message (see ``displayCharacters(_:)``).
func displayCharacter(_ scalar: Unicode.Scalar) -> String {
    switch scalar.properties.generalCategory {
    case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
         .decimalNumber, .letterNumber, .otherNumber,
         .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
         .initialPunctuation, .finalPunctuation, .otherPunctuation,
         .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol:
        return "'\(scalar)'"
    default:
        if let name = scalar.properties.name, !name.isEmpty { return name }
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}

/// Substitutes `{name}` placeholders and `{name:singular:plural}` ("1 byte", "2 bytes");
/// unknown placeholders stay as written.
func render(_ template: String, _ parameters: [String: String]) -> String {
    guard template.utf8.contains(UInt8(ascii: "{")) else { return template }
    var out = ""
    var rest = Substring(template)
    while let open = rest.firstIndex(of: "{") {
        out += rest[..<open]
        guard let close = rest[open...].firstIndex(of: "}") else { break }
        let inside = rest[rest.index(after: open)..<close].split(separator: ":", omittingEmptySubsequences: false)
        if let value = parameters[String(inside[0])] {
            // `{count:byte:bytes}` → "1 byte" / "2 bytes".
            out += inside.count == 3 ? "\(value) \(value == "1" ? inside[1] : inside[2])" : value
        } else {
            out += rest[open...close]
        }
        rest = rest[rest.index(after: close)...]
    }
    return out + rest
}

/// The effective rules of one field, compiled in pack order.
struct CompiledRuleSet: Sendable {
    let field: Field
    let rules: [CompiledRule]
    /// The pattern rules as automata, one group per subject.
    let patterns: PatternPlan

    /// With `compilesAutomata` false, the pattern rules run in PCRE2 (see ``PatternPlan/init(uncompiled:)``);
    /// pattern rules on a subject in `leftOut` run in PCRE2 for the reason given.
    init(field: Field, rules: [CompiledRule], extraPatterns: [PatternPlan.ExtraPattern] = [], compilesAutomata: Bool = true,
         leftOut: [String: String] = [:]) {
        self.field = field
        self.rules = rules
        self.patterns = compilesAutomata ? PatternPlan(rules, extras: extraPatterns, leftOut: leftOut) : PatternPlan(uncompiled: rules.count)
    }

    /// Every violation of `input`, in pack order; rules for which `skip` is true are not run.
    ///
    /// Pattern rules are decided by their subject's automata (one pass per subject); a
    /// prefilter that fires, and a rule with no automaton, run in PCRE2.
    func evaluate(_ input: FieldInput, skip: (Int) -> Bool = { _ in false }) -> [Violation] {
        var violations: [Violation] = []
        var violated = Array(repeating: false, count: rules.count)
        let outcomes = patterns.outcomes(input)
        for (index, rule) in rules.enumerated() where !skip(index) {
            if rule.unless.contains(where: { violated[$0] }) { continue }
            if let violation = evaluate(rule, index, input, outcomes) {
                violations.append(violation)
                violated[index] = true
            }
        }
        return violations
    }

    /// Rule `index`'s violation, from its subject's automaton outcome where it has one.
    private func evaluate(_ rule: CompiledRule, _ index: Int, _ input: FieldInput, _ outcomes: [UInt64]) -> Violation? {
        guard let slot = patterns.slots[index], input.subject(rule.target) != nil else { return rule.evaluate(input) }
        let matched = outcomes[slot.subject] & slot.bit != 0
        let mustMatch: Bool
        if case .mustMatch = rule.check { mustMatch = true } else { mustMatch = false }
        switch slot.strategy {
        case .automaton:
            return matched != mustMatch ? rule.knownPatternViolation(input) : nil
        case .prefilter:
            // The approximation matches whatever the pattern matches: when it does not, the
            // pattern does not either; when it does, PCRE2 decides.
            guard matched else { return mustMatch ? rule.staticViolation : nil }
            return rule.evaluate(input)
        case .alone:
            return rule.evaluate(input)
        }
    }

    /// Compiles the effective rules of `field` in `packs`.
    ///
    /// - Parameters:
    ///   - library: the Swift rules `kind: swift` entries may name (built-ins and the app's).
    ///   - appName: added to every `list` rule with `include-app-name: true`.
    ///   - adjust: a last chance to change a definition (e.g. a configured minimum length).
    ///   - extraPatterns: patterns the validator's own pass needs, compiled into the rules' automata.
    ///   - compilesAutomata: false leaves the pattern rules to PCRE2 (``PatternPlan/init(uncompiled:)``).
    /// - Throws: ``RulePackError`` with every problem: missing or inapplicable keys (`RP2005`,
    ///   `RP2007`), bad patterns with PCRE2's message and offset (`RP2004`), unknown Swift
    ///   rules (`RP2006`), unknown targets (`RP2008`).
    static func compile(
        _ packs: RulePackSet, field: Field, library: [any FieldRule], appName: String? = nil,
        extraPatterns: [PatternPlan.ExtraPattern] = [], compilesAutomata: Bool = true,
        adjust: (inout RuleDefinition) -> Void = { _ in }
    ) throws(RulePackError) -> CompiledRuleSet {
        var sink = DiagnosticSink()
        var named: [String: any FieldRule] = [:]
        for rule in library {
            if named[rule.name] != nil {
                sink.error(RulePackCodes.duplicateSwiftRule.id, "two Swift rules are registered as `\(rule.name)`", file: nil)
            }
            named[rule.name] = rule
        }
        var compiled: [CompiledRule] = []
        // Rules switched off (`enabled: false`) are not compiled; an `unless` naming one is moot.
        var switchedOff: Set<String> = []
        for var definition in try packs.rules(for: field) {
            adjust(&definition)
            guard definition.isEnabled else {
                switchedOff.insert(definition.id)
                continue
            }
            if let rule = compileOne(definition, field: field, named: named, appName: appName,
                                      earlier: compiled.map(\.id), switchedOff: switchedOff, sink: &sink) {
                compiled.append(rule)
            }
        }
        try sink.check()
        return CompiledRuleSet(field: field, rules: compiled, extraPatterns: extraPatterns, compilesAutomata: compilesAutomata)
    }

    private static let keysByKind: [RuleKind: Set<String>] = [
        .mustMatch: ["pattern"], .mustNotMatch: ["pattern"], .length: ["unit", "min", "max"],
        .list: ["file", "key", "include-app-name", "allow-file"], .swift: ["name"],
        .breached: ["file", "min-count"], .strength: ["min-score"],
    ]

    private static func compileOne(
        _ rule: RuleDefinition, field: Field, named: [String: any FieldRule], appName: String?, earlier: [String],
        switchedOff: Set<String>, sink: inout DiagnosticSink
    ) -> CompiledRule? {
        let location = rule.location
        func missing(_ key: String, _ why: String = "") {
            sink.error(RulePackCodes.invalidRuleSettings.id, "rule `\(rule.id)` is missing `\(key)`\(why)", file: location.file, span: location.span)
        }
        guard let kind = rule.kind else { missing("kind"); return nil }
        guard let code = rule.code else { missing("code"); return nil }
        guard let message = rule.message else { missing("message"); return nil }
        let allKindKeys = Set(keysByKind.values.joined())
        for key in location.keySpans.keys where allKindKeys.contains(key) && keysByKind[kind]?.contains(key) != true {
            sink.error(RulePackCodes.inapplicableKey.id, "`\(key)` does not apply to a `\(kind.rawValue)` rule", file: location.file,
                       span: location.span(of: key))
        }
        let target = rule.target ?? field.targets[0]
        guard field.targets.contains(target) else {
            sink.error(RulePackCodes.unknownSubject.id, "unknown subject `\(target)` for a \(field.rawValue) rule", file: location.file,
                       span: location.span(of: "on"),
                       help: "use one of " + field.targets.map { "`\($0)`" }.joined(separator: ", "))
            return nil
        }
        var parameters: [String: String] = [:]
        let check: CompiledRule.Check
        switch kind {
        case .mustMatch, .mustNotMatch:
            guard let source = rule.pattern else { missing("pattern"); return nil }
            do {
                let pattern = try Pattern(source, anchoring: kind == .mustMatch ? .wholeString : .search)
                check = kind == .mustMatch ? .mustMatch(pattern) : .mustNotMatch(pattern)
            } catch {
                var span = location.span(of: "pattern")
                if case let .compile(pcre, offset) = error {
                    // Point at the offset when the pattern is written plainly on one line.
                    // (A quoted scalar's span starts at its opening quote.)
                    for start in [span.start, span.start + 1]
                    where patternIsVerbatim(source, in: location.file, at: SourceSpan(start: start, end: start)) {
                        span = SourceSpan(start: start + offset, end: start + offset + 1)
                        break
                    }
                    sink.error(RulePackCodes.patternDoesNotCompile.id, "pattern of `\(rule.id)` does not compile at offset \(offset): \(pcre)",
                               file: location.file, span: span)
                } else {
                    sink.error(RulePackCodes.patternDoesNotCompile.id, "pattern of `\(rule.id)` does not compile: \(error)", file: location.file, span: span)
                }
                return nil
            }
        case .length:
            guard let unit = rule.unit else { missing("unit", " (`code-points` or `utf8-octets`)"); return nil }
            guard rule.min != nil || rule.max != nil else { missing("min` or `max"); return nil }
            if let min = rule.min, let max = rule.max, min > max {
                sink.error(RulePackCodes.invalidRuleSettings.id, "rule `\(rule.id)` has `min` \(min) greater than `max` \(max)", file: location.file,
                           span: location.span(of: "min"))
            }
            rule.min.map { parameters["min"] = String($0) }
            rule.max.map { parameters["max"] = String($0) }
            check = .length(unit, min: rule.min, max: rule.max)
        case .list:
            var entries = rule.listEntries
            if entries == nil, let deferred = rule.deferredList {
                do {
                    entries = try deferred()
                } catch {
                    sink.error(RulePackCodes.unreadableListFile.id, "cannot read list file `\(rule.listFile ?? "")`: \(error)", file: location.file,
                               span: location.span(of: "file"))
                    return nil
                }
            }
            guard let entries else { missing("file"); return nil }
            guard let key = rule.listKey else { missing("key"); return nil }
            var all = entries
            if rule.includeAppName == true, let appName { all.append(appName) }
            let list = KeyList(kind: key, entries: all)
            if key == .domainSuffix || rule.allowEntries != nil {
                check = .swift(ListWithAllowRule(name: rule.id, target: target, list: list,
                                                 allow: rule.allowEntries.map { KeyList(kind: key, entries: $0) }))
            } else {
                check = .list(list)
            }
        case .breached:
            let store: BreachedStore
            if let given = rule.breachedStore {
                store = given
            } else {
                guard let path = rule.filePath else { missing("file", " (the breached-password store)"); return nil }
                do {
                    store = try BreachedStore(path: path)
                } catch {
                    if case .unreadable = error {
                        sink.error(RulePackCodes.unreadableListFile.id, "\(error)", file: location.file, span: location.span(of: "file"))
                    } else {
                        sink.error(RulePackCodes.notABreachedStore.id, "`\(path)` is \(error)", file: location.file, span: location.span(of: "file"),
                                   help: "build a store with `validate breached import FILE… --output STORE`")
                    }
                    return nil
                }
            }
            let minimum = rule.minCount ?? 1
            guard minimum >= 1 else {
                sink.error(RulePackCodes.invalidRuleSettings.id, "rule `\(rule.id)` has `min-count` 0; the fewest sightings is 1", file: location.file,
                           span: location.span(of: "min-count"))
                return nil
            }
            check = .swift(BreachedRule(name: rule.id, target: target, store: store, minimumCount: UInt32(clamping: minimum)))
        case .strength:
            guard field == .password else {
                sink.error(RulePackCodes.strengthOutsidePassword.id, "rule `\(rule.id)` is a `strength` rule of a \(field.rawValue) pack; strength applies to passwords",
                           file: location.file, span: location.span(of: "kind"))
                return nil
            }
            guard let minimum = rule.minScore else { missing("min-score", " (the least strength score, 0-4)"); return nil }
            guard (0...4).contains(minimum) else {
                sink.error(RulePackCodes.invalidRuleSettings.id, "rule `\(rule.id)` has `min-score` \(minimum); scores are 0 to 4", file: location.file,
                           span: location.span(of: "min-score"))
                return nil
            }
            check = .swift(StrengthRule(name: rule.id, target: target, minimumScore: minimum,
                                        estimator: rule.strengthEstimator, appName: appName))
        case .swift:
            let name = rule.swiftName ?? rule.id
            guard let swiftRule = named[name] else {
                sink.error(RulePackCodes.unregisteredSwiftRule.id, "no Swift rule is registered as `\(name)`", file: location.file,
                           span: location.span(of: rule.swiftName == nil ? "id" : "name"),
                           help: suggestion(for: name, in: Set(named.keys)).map { $0 } ?? "register it with the validator's `rules:` parameter")
                return nil
            }
            check = .swift(swiftRule)
        }
        var unless: [Int] = []
        for id in rule.unless ?? [] {
            guard let index = earlier.firstIndex(of: id) else {
                if switchedOff.contains(id) { continue }
                sink.error(RulePackCodes.unlessNotEarlier.id, "`unless` names `\(id)`, which is not an earlier rule", file: location.file,
                           span: location.span(of: "unless"), help: suggestion(for: id, in: Set(earlier)))
                continue
            }
            unless.append(index)
        }
        return CompiledRule(id: rule.id, code: code, message: message, target: target, check: check,
                            staticParameters: parameters, unless: unless, definition: rule)
    }

    /// Whether the YAML text at `span` is the pattern exactly (plain or single-quoted without
    /// doubled quotes), so an offset into the pattern is an offset into the file.
    private static func patternIsVerbatim(_ source: String, in file: SourceFile, at span: SourceSpan) -> Bool {
        let bytes = Array(source.utf8)
        let start = span.start, end = span.start + bytes.count
        guard end <= file.bytes.count else { return false }
        return Array(file.bytes[start..<end]) == bytes
    }
}
