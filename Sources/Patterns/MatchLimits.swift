/// Bounds on the work a single match may do, so no pattern or subject can hang a process.
///
/// The JIT honours only ``matchLimit`` (pcre2jit: depth and heap limits are ignored), so it
/// is the limit that matters; the others bound the interpreter fallback.
public struct MatchLimits: Sendable, Hashable {
    /// Maximum number of internal match-function calls / backtracking steps (`pcre2_set_match_limit`).
    public var matchLimit: UInt32
    /// Maximum backtracking depth for the interpreter (`pcre2_set_depth_limit`).
    public var depthLimit: UInt32
    /// Maximum heap memory for the interpreter, in KiB (`pcre2_set_heap_limit`).
    public var heapLimitKibibytes: UInt32

    /// Creates limits; the defaults stop `^(a+)+$` on 35 `a`s and `!` in well under a millisecond.
    public init(matchLimit: UInt32 = 100_000, depthLimit: UInt32 = 10_000, heapLimitKibibytes: UInt32 = 8_192) {
        self.matchLimit = matchLimit
        self.depthLimit = depthLimit
        self.heapLimitKibibytes = heapLimitKibibytes
    }

    /// 100 000 steps, depth 10 000, 8 MiB of heap.
    public static let `default` = MatchLimits()
}
