import CPCRE2

/// What went wrong compiling or running a ``Pattern``. A match error is never a match.
public enum PatternError: Error, Sendable, Hashable {
    /// The pattern does not compile; `offset` is the UTF-8 byte offset in the pattern source.
    case compile(message: String, offset: Int)
    /// The match exceeded ``MatchLimits/matchLimit`` (catastrophic backtracking).
    case matchLimitExceeded
    /// The match exceeded ``MatchLimits/depthLimit``.
    case depthLimitExceeded
    /// The match exceeded ``MatchLimits/heapLimitKibibytes``.
    case heapLimitExceeded
    /// PCRE2 could not allocate memory or a stack for the match.
    case resourceExhausted(String)
    /// Any other PCRE2 match error, with its code and message.
    case matchFailed(code: Int32, message: String)

    init(matchCode rc: Int32) {
        switch rc {
        case PCRE2_ERROR_MATCHLIMIT: self = .matchLimitExceeded
        case PCRE2_ERROR_DEPTHLIMIT: self = .depthLimitExceeded
        case PCRE2_ERROR_HEAPLIMIT: self = .heapLimitExceeded
        case PCRE2_ERROR_JIT_STACKLIMIT, PCRE2_ERROR_NOMEMORY:
            self = .resourceExhausted(pcre2Message(rc))
        default: self = .matchFailed(code: rc, message: pcre2Message(rc))
        }
    }

    /// True for the errors that mean "the match did too much work" rather than a bug.
    public var isLimitExceeded: Bool {
        switch self {
        case .matchLimitExceeded, .depthLimitExceeded, .heapLimitExceeded: true
        default: false
        }
    }
}

extension PatternError: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .compile(message, offset): "pattern does not compile at offset \(offset): \(message)"
        case .matchLimitExceeded: "pattern match limit exceeded (catastrophic backtracking?)"
        case .depthLimitExceeded: "pattern depth limit exceeded"
        case .heapLimitExceeded: "pattern heap limit exceeded"
        case let .resourceExhausted(message): "pattern match ran out of resources: \(message)"
        case let .matchFailed(code, message): "pattern match failed (PCRE2 error \(code)): \(message)"
        }
    }
}

/// PCRE2's own text for an error code.
func pcre2Message(_ code: Int32) -> String {
    var buffer = [UInt8](repeating: 0, count: 256)
    let length = buffer.withUnsafeMutableBufferPointer {
        pcre2_get_error_message_8(code, $0.baseAddress, $0.count)
    }
    guard length > 0 else { return "unknown PCRE2 error \(code)" }
    return String(decoding: buffer[..<Int(length)], as: UTF8.self)
}
