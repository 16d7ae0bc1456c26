// IDNA: internationalized domain names (IDNA 2008 with UTS #46 mapping) through libidn2.
// Owns every call into libidn2; nothing else in RulesKit imports CIDN2.
import CIDN2

/// Converts domain names between their Unicode and ASCII (`xn--`) forms.
///
/// `toASCII` maps with UTS #46 (non-transitional, so `Straße.de` keeps its `ß`) through
/// libidn2, applies STD3 ASCII rules to the mapped form, then checks every label under IDNA 2008
/// (RFC 5891/5892, with libidn2): disallowed and unassigned code points, bidi and contextual
/// rules. `toUnicode` decodes `xn--` labels and checks them the same way. ``process(_:)`` gives
/// the mapped and ASCII forms without the length limits, for callers that re-check the mapped
/// domain themselves (the email validator).
public enum IDNA {
    /// Why a domain name was rejected, with libidn2's code and message.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// libidn2's return code (`IDN2_*`, negative).
        public let code: Int32
        /// libidn2's description of the problem.
        public let message: String
        public var description: String { "\(message) (libidn2 error \(code))" }
    }

    /// The ASCII-compatible form of `domain` (each non-ASCII label as `xn--…`), lowercased.
    ///
    /// The domain is mapped by libidn2 (``process(_:)``); the mapped form may hold only letters, digits,
    /// hyphens and periods (STD3 rules: `a\u{37E}b.com` maps to `a;b.com` and is rejected, where
    /// libidn2 alone would drop the `;`), labels of at most 63 octets and at most 253 octets in
    /// all (RFC 1035 section 2.3.4) in ASCII form, and each label must be valid IDNA 2008.
    ///
    /// - Throws: ``Failure`` when the name is not a valid IDNA 2008 domain after UTS #46 mapping.
    public static func toASCII(_ domain: String) throws(Failure) -> String {
        let processed = try process(domain)
        if let problem = processed.problem { throw problem }
        for scalar in processed.mapped.unicodeScalars where scalar.isASCII {
            guard isLDH(scalar) else {
                throw Failure(code: Int32(IDN2_DISALLOWED.rawValue),
                              message: "the domain contains or maps to \(describe(scalar)), which STD3 rules do not allow")
            }
        }
        guard let ascii = processed.ascii else {
            throw Failure(code: Int32(IDN2_ENCODING_ERROR.rawValue), message: "the domain has no ASCII form")
        }
        for label in ascii.split(separator: ".", omittingEmptySubsequences: false) where label.utf8.count > 63 {
            throw Failure(code: Int32(IDN2_TOO_BIG_LABEL.rawValue), message: "a label is longer than 63 octets in ASCII form")
        }
        guard ascii.utf8.count <= 253 else {
            throw Failure(code: Int32(IDN2_TOO_BIG_DOMAIN.rawValue), message: "domain is longer than 253 octets in ASCII form")
        }
        return ascii
    }

    /// The Unicode form of `domain`, decoding `xn--` labels and validating them under IDNA 2008.
    ///
    /// - Throws: ``Failure`` when a label does not decode or the result is not valid.
    public static func toUnicode(_ domain: String) throws(Failure) -> String {
        let flags = Int32(IDN2_NONTRANSITIONAL.rawValue) | Int32(IDN2_USE_STD3_ASCII_RULES.rawValue)
        return try call(domain) { input, output in idn2_to_unicode_8z8z(input, output, flags) }
    }

    static func call(
        _ input: String,
        _ body: (UnsafePointer<CChar>, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32
    ) throws(Failure) -> String {
        // A C string stops at NUL; libidn2 would silently see a prefix, so refuse it here.
        guard !input.utf8.contains(0) else {
            throw Failure(code: Int32(IDN2_ENCODING_ERROR.rawValue), message: "domain contains a NUL character")
        }
        var output: UnsafeMutablePointer<CChar>? = nil
        let rc = input.withCString { body($0, &output) }
        defer { idn2_free(output) }
        guard rc == Int32(IDN2_OK.rawValue), let output else {
            let message = idn2_strerror(rc).map { String(cString: $0) } ?? "unknown error"
            throw Failure(code: rc, message: message)
        }
        return String(cString: output)
    }
}
