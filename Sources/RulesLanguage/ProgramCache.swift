// ProgramCache: compile each distinct rules source once and share the Program between threads.
import Diagnostics
import Foundation

/// A thread-safe cache of compiled rules, keyed by the source's name and text.
///
/// Programs are immutable and `Sendable`, so one compiled ruleset serves every request on every
/// thread. The cache holds at most `capacity` sources and is cleared when it fills up.
public final class ProgramCache: @unchecked Sendable {
    // INVARIANT: `entries` and `compilations` are only touched while holding `lock`.
    private let lock = NSLock()
    private var entries: [Key: CompileResult] = [:]
    private var compilationCount = 0
    private let capacity: Int
    private let limits: RulesLimits
    private let regexEngine: any RegexEngine

    private struct Key: Hashable {
        let name: String
        let text: String
    }

    /// - Parameters:
    ///   - capacity: most sources kept.
    ///   - limits: the limits every program is compiled and evaluated under.
    ///   - regexEngine: the engine behind `matches`/`replace`/`split`.
    public init(capacity: Int = 64, limits: RulesLimits = .default, regexEngine: any RegexEngine = UnavailableRegexEngine()) {
        self.capacity = max(1, capacity)
        self.limits = limits
        self.regexEngine = regexEngine
    }

    /// The compile result for `source`, compiling it on first use (diagnostics are cached too).
    public func compile(_ source: SourceFile) -> CompileResult {
        let key = Key(name: source.name, text: source.text)
        lock.lock()
        let cached = entries[key]
        lock.unlock()
        if let cached { return cached }
        let result = RulesCompiler.compile(source, limits: limits, regexEngine: regexEngine)
        lock.lock()
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        entries[key] = result
        compilationCount += 1
        lock.unlock()
        return result
    }

    /// How many times a source was actually compiled (for tests and metrics).
    public var compilations: Int {
        lock.lock()
        defer { lock.unlock() }
        return compilationCount
    }
}
