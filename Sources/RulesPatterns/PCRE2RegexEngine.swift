// PCRE2RegexEngine: RulesLanguage's RegexEngine on `Patterns.Pattern`, with a thread-safe cache.
import Foundation
import Patterns
import RulesLanguage

/// The production regular-expression engine for rules: RE2 syntax checked first, then PCRE2
/// (UTF mode, JIT) under hard match limits. Compiled patterns are cached; safe to share.
///
/// - `matches` is a whole-string match (`PCRE2_ANCHORED | PCRE2_ENDANCHORED`, no `$` trap).
/// - `$` means end of text as in RE2 (`PCRE2_DOLLAR_ENDONLY`), unless `(?m)` is set.
/// - `replace` replaces every match with the replacement taken literally (no `$1`).
/// - `split` follows Java/RE2J: a zero-width match at the start adds no leading empty field and
///   trailing empty fields are removed.
/// - A limit hit is an error (`RL3021`), never a match; bad syntax is `RL3020`.
public final class PCRE2RegexEngine: RegexEngine, @unchecked Sendable {
    // INVARIANT: `cache` is only touched while holding `lock`.
    private let lock = NSLock()
    private var cache: [CacheKey: Pattern] = [:]
    private let limits: MatchLimits
    private let cacheCapacity: Int

    private struct CacheKey: Hashable {
        let source: String
        let wholeString: Bool
    }

    /// - Parameters:
    ///   - limits: PCRE2 match limits for every match (the rules' `regexMatchLimit`).
    ///   - cacheCapacity: most compiled patterns kept; the cache is cleared when it fills.
    public init(limits: MatchLimits = .default, cacheCapacity: Int = 1024) {
        self.limits = limits
        self.cacheCapacity = cacheCapacity
    }

    /// Returns the compiled pattern, compiling and caching it on first use.
    func pattern(_ source: String, wholeString: Bool) throws(RegexError) -> Pattern {
        let key = CacheKey(source: source, wholeString: wholeString)
        lock.lock()
        let cached = cache[key]
        lock.unlock()
        if let cached { return cached }
        if let problem = validate(pattern: source) { throw problem }
        let compiled: Pattern
        do {
            compiled = try Pattern(source, anchoring: wholeString ? .wholeString : .search, limits: limits, dollarEndOnly: true)
        } catch {
            throw RegexError(code: RulesLanguageCodes.invalidRegex.id, message: "invalid regular expression `\(source)`: \(error)")
        }
        lock.lock()
        if cache.count >= cacheCapacity { cache.removeAll(keepingCapacity: true) }
        cache[key] = compiled
        lock.unlock()
        return compiled
    }

    /// The RE2 syntax check, then a PCRE2 compile; nil when the pattern is usable.
    public func validate(pattern: String) -> RegexError? {
        if let construct = RE2Syntax.unsupportedConstruct(in: pattern) {
            return RegexError(code: RulesLanguageCodes.invalidRegex.id, message: "\(construct) is not supported in RE2 syntax")
        }
        do {
            _ = try Pattern(pattern, anchoring: .search, limits: limits, jit: false)
            return nil
        } catch {
            return RegexError(code: RulesLanguageCodes.invalidRegex.id, message: "\(error)")
        }
    }

    private func run<T>(_ body: () throws(PatternError) -> T) throws(RegexError) -> T {
        do {
            return try body()
        } catch {
            if error.isLimitExceeded {
                throw RegexError(code: RulesLanguageCodes.regexMatchLimit.id, message: "regular expression match limit exceeded")
            }
            throw RegexError(code: RulesLanguageCodes.invalidRegex.id, message: "\(error)")
        }
    }

    /// Whole-string match under the match limits.
    public func matches(_ subject: String, pattern: String) throws(RegexError) -> Bool {
        let compiled = try self.pattern(pattern, wholeString: true)
        return try run { () throws(PatternError) in try compiled.matches(subject) }
    }

    /// Replaces every match with `replacement` taken literally.
    public func replace(_ subject: String, pattern: String, with replacement: String) throws(RegexError) -> String {
        switch try replace(subject, pattern: pattern, with: replacement, maxResultBytes: .max) {
        case .text(let text): return text
        case .tooLarge: return ""  // INVARIANT: nothing is longer than `Int.max` bytes.
        }
    }

    /// Replaces every match with `replacement` taken literally, sizing the result from the
    /// matches before building it: a result over `maxResultBytes` is never built.
    public func replace(_ subject: String, pattern: String, with replacement: String, maxResultBytes: Int) throws(RegexError) -> BoundedReplacement {
        let compiled = try self.pattern(pattern, wholeString: false)
        let ranges = try run { () throws(PatternError) in try compiled.allMatches(in: subject) }
        let matched = ranges.reduce(0) { $0 + $1.count }
        let (added, addOverflow) = ranges.count.multipliedReportingOverflow(by: replacement.utf8.count)
        let (size, sizeOverflow) = (subject.utf8.count - matched).addingReportingOverflow(added)
        if addOverflow || sizeOverflow || size > maxResultBytes { return .tooLarge(bytes: addOverflow || sizeOverflow ? .max : size) }
        let bytes = Array(subject.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(size)
        var position = 0
        for range in ranges {
            out += bytes[position..<range.lowerBound]
            out += replacement.utf8
            position = range.upperBound
        }
        out += bytes[position...]
        return .text(String(decoding: out, as: UTF8.self))
    }

    /// Splits on every match (Java/RE2J conventions, see the type's documentation).
    public func split(_ subject: String, pattern: String) throws(RegexError) -> [String] {
        let compiled = try self.pattern(pattern, wholeString: false)
        let ranges = try run { () throws(PatternError) in try compiled.allMatches(in: subject) }
        let bytes = Array(subject.utf8)
        var fields: [String] = []
        var position = 0
        for range in ranges {
            if range.isEmpty && range.lowerBound == 0 { continue }
            if range.isEmpty && range.lowerBound >= bytes.count { continue }
            fields.append(String(decoding: bytes[position..<range.lowerBound], as: UTF8.self))
            position = range.upperBound
        }
        fields.append(String(decoding: bytes[position...], as: UTF8.self))
        while let last = fields.last, last.isEmpty, fields.count > 1 { fields.removeLast() }
        if fields == [""] && !bytes.isEmpty { return [] }
        return fields
    }
}
