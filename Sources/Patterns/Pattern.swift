// Patterns: compiled PCRE2 regular expressions with JIT, UTF mode and hard match limits.
// Owns every call into libpcre2; nothing else in RulesKit imports CPCRE2.
import CPCRE2

/// A compiled PCRE2 regular expression: compiled once, immutable, safe to share across threads.
///
/// Patterns are compiled in UTF mode with `PCRE2_MATCH_INVALID_UTF`, so any byte sequence is a
/// legal subject: invalid UTF-8 simply never matches a character. Every match runs under the
/// pattern's ``MatchLimits``; hitting a limit throws instead of hanging or reporting a match.
///
/// ```swift
/// let name = try Pattern(#"[A-Za-z0-9._]+"#, anchoring: .wholeString)
/// try name.matches("john.doe")      // true
/// try name.matches("john.doe\n")    // false: no `$`-before-newline trap
/// ```
public final class Pattern: @unchecked Sendable {
    // INVARIANT: `code` and `matchContext` are never mutated after `init`, which is what
    // makes sharing one `Pattern` between threads sound (pcre2api: "Sharing contexts").

    /// How a pattern is applied to a subject.
    public enum Anchoring: Sendable, Hashable {
        /// The pattern must match the entire subject (`PCRE2_ANCHORED | PCRE2_ENDANCHORED`).
        case wholeString
        /// The pattern may match anywhere in the subject.
        case search
    }

    /// The pattern text as given, without any anchoring added.
    public let source: String
    /// Whether matches must span the whole subject.
    public let anchoring: Anchoring
    /// The limits every match of this pattern runs under.
    public let limits: MatchLimits
    /// True when the JIT compiler accepted the pattern; false means the interpreter is used.
    public let isJITCompiled: Bool

    private let code: OpaquePointer
    private let matchContext: OpaquePointer

    /// Compiles `source`.
    ///
    /// - Parameters:
    ///   - source: PCRE2 syntax. No caseless option is offered: under UTF, `(?i)[a-z]` matches
    ///     U+212A KELVIN SIGN, so spell ASCII classes out (`[A-Za-z]`).
    ///   - anchoring: ``Anchoring/wholeString`` (default) or ``Anchoring/search``.
    ///   - limits: bounds on the work one match may do.
    ///   - jit: compile with the JIT where the platform has one (falls back to the interpreter).
    ///   - dollarEndOnly: make `$` match only at the very end of the subject, never before a final
    ///     newline (`PCRE2_DOLLAR_ENDONLY`; RE2's meaning of `$` outside multi-line mode).
    /// - Throws: ``PatternError/compile(message:offset:)`` with PCRE2's message and the byte
    ///   offset in `source` where compilation failed.
    public init(
        _ source: String,
        anchoring: Anchoring = .wholeString,
        limits: MatchLimits = .default,
        jit: Bool = true,
        dollarEndOnly: Bool = false
    ) throws(PatternError) {
        self.source = source
        self.anchoring = anchoring
        self.limits = limits

        var options = UInt32(PCRE2_UTF) | UInt32(PCRE2_MATCH_INVALID_UTF)
        if anchoring == .wholeString {
            options |= UInt32(PCRE2_ANCHORED) | UInt32(PCRE2_ENDANCHORED)
        }
        if dollarEndOnly { options |= UInt32(PCRE2_DOLLAR_ENDONLY) }
        var errorCode: Int32 = 0
        var errorOffset = 0
        var text = source
        let compiled = text.withUTF8 { utf8 in
            pcre2_compile_8(
                utf8.baseAddress ?? Pattern.emptySubject, utf8.count, options,
                &errorCode, &errorOffset, nil)
        }
        guard let compiled else {
            throw .compile(message: pcre2Message(errorCode), offset: errorOffset)
        }
        guard let context = pcre2_match_context_create_8(nil) else {
            pcre2_code_free_8(compiled)
            throw .resourceExhausted("could not allocate a PCRE2 match context")
        }
        pcre2_set_match_limit_8(context, limits.matchLimit)
        pcre2_set_depth_limit_8(context, limits.depthLimit)
        pcre2_set_heap_limit_8(context, limits.heapLimitKibibytes)

        self.code = compiled
        self.matchContext = context
        self.isJITCompiled = jit && PCRE2Runtime.hasJIT
            && pcre2_jit_compile_8(compiled, UInt32(PCRE2_JIT_COMPLETE)) == 0
    }

    deinit {
        pcre2_match_context_free_8(matchContext)
        pcre2_code_free_8(code)
    }

    // MARK: - Matching

    /// Returns whether the pattern matches `subject` (whole string or anywhere, per ``anchoring``).
    ///
    /// - Throws: ``PatternError`` when a match limit is hit or PCRE2 reports any other error.
    ///   An error is never a match.
    public func matches(_ subject: String) throws(PatternError) -> Bool {
        try firstMatch(in: subject) != nil
    }

    /// Returns whether the pattern matches raw bytes that may not be valid UTF-8.
    ///
    /// Invalid UTF-8 sequences never match any part of the pattern.
    public func matches(utf8 subject: UnsafeRawBufferPointer) throws(PatternError) -> Bool {
        try firstMatch(utf8: subject) != nil
    }

    /// Returns the byte range of the first match in `subject`, or nil.
    public func firstMatch(in subject: String) throws(PatternError) -> Range<Int>? {
        try withBytes(of: subject) { bytes in Result { () throws(PatternError) in try firstMatch(utf8: bytes) } }.get()
    }

    /// Returns the byte range of the first match in raw bytes, or nil.
    public func firstMatch(utf8 subject: UnsafeRawBufferPointer, from start: Int = 0) throws(PatternError) -> Range<Int>? {
        let matchData = try MatchScratch.current()
        let base = subject.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? Pattern.emptySubject
        // `PCRE2_MATCH_INVALID_UTF` makes the JIT fast path (which skips UTF validation) safe
        // on arbitrary bytes: invalid sequences are non-matching characters, never UB.
        let rc: Int32
        if isJITCompiled {
            rc = pcre2_jit_match_8(code, base, subject.count, start, 0, matchData, matchContext)
        } else {
            // The interpreter matches each valid fragment of an invalid subject as if it were the
            // whole subject, so `\z` would hold before the first bad byte: refuse such subjects.
            if anchoring == .wholeString, !isValidUTF8(subject) { return nil }
            rc = pcre2_match_8(code, base, subject.count, start, 0, matchData, matchContext)
        }
        if rc == PCRE2_ERROR_NOMATCH { return nil }
        // rc == 0 means "matched, ovector too small for the groups", which is fine: we read pair 0.
        guard rc >= 0 else { throw PatternError(matchCode: rc) }
        guard let ovector = pcre2_get_ovector_pointer_8(matchData) else {
            throw .matchFailed(code: rc, message: "no ovector after a successful match")
        }
        return ovector[0]..<ovector[1]
    }

    /// Returns the byte ranges of all non-overlapping matches in `subject` (search semantics).
    ///
    /// An empty match advances by one code point so the scan always terminates.
    public func allMatches(in subject: String) throws(PatternError) -> [Range<Int>] {
        try withBytes(of: subject) { bytes in
            Result { () throws(PatternError) in
                var found: [Range<Int>] = []
                var position = 0
                while position <= bytes.count, let range = try firstMatch(utf8: bytes, from: position) {
                    found.append(range)
                    position = range.upperBound
                    if range.isEmpty {
                        position += 1
                        while position < bytes.count, bytes[position] & 0xC0 == 0x80 { position += 1 }
                    }
                }
                return found
            }
        }.get()
    }

    /// Runs `body` on the UTF-8 bytes of `subject`, in place when the string is contiguous.
    private func withBytes<R>(of subject: String, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        if let result = subject.utf8.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        var copy = subject
        return copy.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }

    nonisolated(unsafe) static let emptySubject: UnsafePointer<UInt8> = {
        // PCRE2 rejects a NULL subject even with length 0; any valid address will do.
        UnsafePointer(UnsafeMutablePointer<UInt8>.allocate(capacity: 1))
    }()
}

extension Pattern: CustomStringConvertible {
    public var description: String { "Pattern(\(source.debugDescription))" }
}
