// CaseMapping: what the string methods `lower()` and `upper()` compute. One definition, used by
// the evaluator and by the verifier (which pushes literals back through exactly this function).

/// The case mapping of the string methods `lower()` and `upper()`.
///
/// Swift's full Unicode case mapping, one scalar at a time and without context (`Σ` always
/// becomes `σ`); a scalar may map to several (`İ` lowercases to `i` + U+0307, `ß` uppercases to
/// `SS`).
public enum CaseMapping: String, Sendable, CaseIterable {
    case lower
    case upper

    /// The mapping of the method named `name` (`lower` or `upper`), or nil.
    public init?(method name: String) { self.init(rawValue: name) }

    /// `text` mapped.
    ///
    /// - Parameter text: any string.
    /// - Returns: `text.lowercased()` for ``lower``, `text.uppercased()` for ``upper``.
    public func apply(_ text: String) -> String {
        switch self {
        case .lower: text.lowercased()
        case .upper: text.uppercased()
        }
    }
}
