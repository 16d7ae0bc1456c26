// PCRE2DatabaseRegexEngine: DatabaseRules' `matches()` on `Patterns.Pattern`, with a thread-safe
// cache. Patterns arrive already translated from the database dialect (`DatabaseRegex`).
import DatabaseRules
import Foundation
import Patterns

/// The production regular-expression engine for database rules: PCRE2 (UTF mode, JIT, no UCP so
/// `\d \w \s` are ASCII) searching for the translated pattern under hard match limits. A limit hit
/// or compile failure is an error, never a match. Safe to share.
public final class PCRE2DatabaseRegexEngine: DatabaseRegexEngine, @unchecked Sendable {
    // INVARIANT: `cache` is only touched while holding `lock`.
    private let lock = NSLock()
    private var cache: [String: Pattern] = [:]
    private let limits: MatchLimits
    private let cacheCapacity: Int

    /// - Parameters:
    ///   - limits: PCRE2 match limits for every match.
    ///   - cacheCapacity: most compiled patterns kept; the cache is cleared when it fills.
    public init(limits: MatchLimits = .default, cacheCapacity: Int = 1024) {
        self.limits = limits
        self.cacheCapacity = cacheCapacity
    }

    /// `pattern` compiled now, for a program to match with on every evaluation (no cache
    /// lookup); a pattern that does not compile fails each match with the message ``search(_:pattern:)`` gives.
    public func prepare(_ pattern: String) -> any DatabaseRegexMatcher {
        do {
            return CompiledMatcher(pattern: try Pattern(pattern, anchoring: .search, limits: limits))
        } catch {
            return FailedMatcher(failure: DatabaseRegexFailure(message: "the pattern does not compile: \(error)"))
        }
    }

    /// Whether `pattern` matches anywhere in `subject`.
    ///
    /// - Throws: ``DatabaseRegexFailure`` when the pattern does not compile or a limit is hit.
    public func search(_ subject: String, pattern: String) throws(DatabaseRegexFailure) -> Bool {
        lock.lock()
        let cached = cache[pattern]
        lock.unlock()
        let compiled: Pattern
        if let cached {
            compiled = cached
        } else {
            do {
                compiled = try Pattern(pattern, anchoring: .search, limits: limits)
            } catch {
                throw DatabaseRegexFailure(message: "the pattern does not compile: \(error)")
            }
            lock.lock()
            if cache.count >= cacheCapacity { cache.removeAll(keepingCapacity: true) }
            cache[pattern] = compiled
            lock.unlock()
        }
        return try CompiledMatcher(pattern: compiled).search(subject)
    }
}

/// A PCRE2 pattern compiled ahead.
private struct CompiledMatcher: DatabaseRegexMatcher {
    let pattern: Pattern

    func search(_ subject: String) throws(DatabaseRegexFailure) -> Bool {
        do {
            return try pattern.matches(subject)
        } catch {
            throw DatabaseRegexFailure(message: "\(error)")
        }
    }
}

/// A pattern that did not compile: every match fails with the compile error.
private struct FailedMatcher: DatabaseRegexMatcher {
    let failure: DatabaseRegexFailure

    func search(_ subject: String) throws(DatabaseRegexFailure) -> Bool { throw failure }
}
