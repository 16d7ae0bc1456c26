// IDNA: internationalized domain names (IDNA 2008 with UTS #46 mapping) through libidn2.
// Owns every call into libidn2; nothing else in RulesKit imports CIDN2.
import CIDN2

/// Converts domain names between their Unicode and ASCII (`xn--`) forms.
///
/// `toASCII` applies UTS #46 non-transitional mapping (so `Straße.de` keeps its `ß`) with STD3
/// ASCII rules, then checks every label under IDNA 2008 (RFC 5891/5892): disallowed and
/// unassigned code points, bidi and contextual rules. `toUnicode` decodes `xn--` labels and
/// checks them the same way.
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
    /// - Throws: ``Failure`` when the name is not a valid IDNA 2008 domain after UTS #46 mapping.
    public static func toASCII(_ domain: String) throws(Failure) -> String {
        let flags = Int32(IDN2_NONTRANSITIONAL.rawValue) | Int32(IDN2_NFC_INPUT.rawValue)
            | Int32(IDN2_USE_STD3_ASCII_RULES.rawValue)
        return try call(domain) { input, output in idn2_to_ascii_8z(input, output, flags) }
    }

    /// The Unicode form of `domain`, decoding `xn--` labels and validating them under IDNA 2008.
    ///
    /// - Throws: ``Failure`` when a label does not decode or the result is not valid.
    public static func toUnicode(_ domain: String) throws(Failure) -> String {
        let flags = Int32(IDN2_NONTRANSITIONAL.rawValue) | Int32(IDN2_USE_STD3_ASCII_RULES.rawValue)
        return try call(domain) { input, output in idn2_to_unicode_8z8z(input, output, flags) }
    }

    private static func call(
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
