/// Why a claim store could not answer (as opposed to answering "no").
///
/// Codes are stable: `AV3001` the store cannot be reached, `AV3002` a transient conflict
/// (busy, serialization failure; retrying may succeed), `AV3003` the store failed
/// (corrupt file, unexpected schema, SQL error), `AV3004` the store location is malformed.
public struct ClaimStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The broad reason, which decides whether a retry can help.
    public enum Kind: String, Sendable, Hashable {
        case unreachable, transient, failed, badLocation
    }

    /// The broad reason.
    public var kind: Kind
    /// Terse developer-facing line (lowercase, user text in backticks). Never contains a password.
    public var message: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// Stable code for ``kind``.
    public var code: String {
        switch kind {
        case .unreachable: "AV3001"
        case .transient: "AV3002"
        case .failed: "AV3003"
        case .badLocation: "AV3004"
        }
    }

    /// True when trying again later may succeed.
    public var isTransient: Bool { kind == .transient || kind == .unreachable }

    public var description: String { "error[\(code)]: \(message)" }
}
