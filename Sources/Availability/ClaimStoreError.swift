/// Why a claim store could not answer (as opposed to answering "no").
///
/// Every error has a ``Reason`` with a stable code and a ``help`` sentence that says what to do.
/// The generic reasons (`AV3001` unreachable, `AV3002` transient conflict, `AV3003` failed,
/// `AV3004` malformed location) cover what no specific reason names; the specific ones
/// (`AV3005`…`AV3015`) name the faults a store recognises. A reason's ``Kind`` says whether
/// retrying later can help. Codes are stable; a retired code is never reused.
public struct ClaimStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The broad reason, which decides whether a retry can help.
    public enum Kind: String, Sendable, Hashable {
        case unreachable, transient, failed, badLocation
    }

    /// The specific fault, with its stable code and what to do about it.
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        /// `AV3001`: the store cannot be reached (closed port, missing directory, no answer in time).
        case unreachable
        /// `AV3002`: a transient conflict not named below; retrying may succeed.
        case transient
        /// `AV3003`: the store failed (unexpected schema, SQL error).
        case failed
        /// `AV3004`: the store location is malformed.
        case badLocation
        /// `AV3005`: the database file or its directory is read-only.
        case readOnly
        /// `AV3006`: the database is full (disk full, or its size limit reached).
        case storageFull
        /// `AV3007`: another connection held the write lock longer than the busy timeout.
        case locked
        /// `AV3008`: the file is not a claims database (not SQLite, or damaged).
        case notADatabase
        /// `AV3009`: the database file was replaced or removed while the store had it open.
        case fileReplaced
        /// `AV3010`: concurrent changes kept conflicting with this one (serialization failure or
        /// deadlock) after every retry.
        case serializationFailure
        /// `AV3011`: the server cancelled the statement at its statement timeout.
        case statementTimeout
        /// `AV3012`: the server refused the user name or password.
        case authenticationFailed
        /// `AV3013`: the database named in the location does not exist.
        case unknownDatabase
        /// `AV3014`: the connection was lost during the request; whether it took effect is unknown.
        case connectionLost
        /// `AV3015`: the store was shut down before the request.
        case shutDown

        /// This reason's entry in ``AvailabilityCodes``.
        public var entry: AvailabilityCode {
            switch self {
            case .unreachable: AvailabilityCodes.unreachable
            case .transient: AvailabilityCodes.transient
            case .failed: AvailabilityCodes.failed
            case .badLocation: AvailabilityCodes.badLocation
            case .readOnly: AvailabilityCodes.readOnly
            case .storageFull: AvailabilityCodes.storageFull
            case .locked: AvailabilityCodes.locked
            case .notADatabase: AvailabilityCodes.notADatabase
            case .fileReplaced: AvailabilityCodes.fileReplaced
            case .serializationFailure: AvailabilityCodes.serializationFailure
            case .statementTimeout: AvailabilityCodes.statementTimeout
            case .authenticationFailed: AvailabilityCodes.authenticationFailed
            case .unknownDatabase: AvailabilityCodes.unknownDatabase
            case .connectionLost: AvailabilityCodes.connectionLost
            case .shutDown: AvailabilityCodes.shutDown
            }
        }

        /// Stable code.
        public var code: String { entry.id }

        /// Whether retrying later can help.
        public var kind: Kind {
            switch self {
            case .unreachable, .connectionLost: .unreachable
            case .transient, .locked, .serializationFailure, .statementTimeout: .transient
            case .failed, .readOnly, .storageFull, .notADatabase, .fileReplaced, .shutDown,
                 .authenticationFailed, .unknownDatabase: .failed
            case .badLocation: .badLocation
            }
        }

        /// The generic reason for a broad kind.
        public init(_ kind: Kind) {
            switch kind {
            case .unreachable: self = .unreachable
            case .transient: self = .transient
            case .failed: self = .failed
            case .badLocation: self = .badLocation
            }
        }

        /// One sentence saying what to do, for the person running the program.
        public var help: String { entry.help }
    }

    /// The specific fault.
    public var reason: Reason
    /// Terse developer-facing line (lowercase, user text in backticks). Never contains a password.
    public var message: String

    /// Creates an error with a specific reason.
    ///
    /// - Parameters:
    ///   - reason: The fault, which fixes the code and the help sentence.
    ///   - message: Terse detail for developers; never a password.
    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    /// The broad reason.
    public var kind: Kind { reason.kind }

    /// Stable code of ``reason``.
    public var code: String { reason.code }

    /// What to do, as one sentence.
    public var help: String { reason.help }

    /// True when trying again later may succeed.
    public var isTransient: Bool { kind == .transient || kind == .unreachable }

    public var description: String { "error[\(code)]: \(message)" }
}
