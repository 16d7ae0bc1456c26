import CPCRE2
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Per-thread PCRE2 match data, reused across matches of every pattern.
///
/// Creating match data per call costs about 2.5× the match itself. One ovector pair is all
/// RulesKit reads (the overall match), so a single block serves every pattern on a thread.
enum MatchScratch {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let rc = pthread_key_create(&key) { data in
            pcre2_match_data_free_8(OpaquePointer(data))
        }
        precondition(rc == 0, "pthread_key_create failed: \(rc)")
        return key
    }()

    /// The calling thread's match data, created on first use and freed when the thread exits.
    static func current() throws(PatternError) -> OpaquePointer {
        if let existing = pthread_getspecific(key) {
            return OpaquePointer(existing)
        }
        guard let created = pcre2_match_data_create_8(1, nil) else {
            throw .resourceExhausted("could not allocate PCRE2 match data")
        }
        pthread_setspecific(key, UnsafeRawPointer(created))
        return created
    }
}

/// Facts about the linked libpcre2.
public enum PCRE2Runtime {
    /// Whether this build of libpcre2 has a JIT compiler for this CPU.
    public static let hasJIT: Bool = {
        var available: UInt32 = 0
        return pcre2_config_8(UInt32(PCRE2_CONFIG_JIT), &available) >= 0 && available == 1
    }()

    /// Whether the library's newline convention is LF alone (its default), which `.`, `$`
    /// and `\Z` assume in the pattern automata.
    public static let newlineIsLF: Bool = {
        var newline: UInt32 = 0
        return pcre2_config_8(UInt32(PCRE2_CONFIG_NEWLINE), &newline) >= 0 && newline == UInt32(PCRE2_NEWLINE_LF)
    }()

    /// The library version, e.g. `10.42 2022-12-11`.
    public static let version: String = {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = pcre2_config_8(UInt32(PCRE2_CONFIG_VERSION), &buffer)
        guard count > 1 else { return "unknown" }
        return String(decoding: buffer[..<Int(count - 1)], as: UTF8.self)
    }()
}
