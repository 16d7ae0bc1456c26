/// What an availability indicator should show for the text being typed.
public enum AvailabilityState: Sendable, Hashable {
    /// Nothing typed.
    case idle
    /// The name breaks the display-name rules (published at once, without debounce or lookup).
    case invalid(name: String, violations: [NameViolation])
    /// A lookup for the name is pending or running.
    case checking(name: String)
    /// The name was free when the store was asked (advisory; the claim decides).
    case available(name: String)
    /// Someone holds the name; up to three available alternatives built from it.
    case taken(name: String, suggestions: [String])
    /// The store could not answer, even after retries.
    case failed(name: String, error: AvailabilityError)
}

/// Why a lookup failed, for an indicator to show ("couldn't check right now").
///
/// Codes are stable: `AV2001` every attempt timed out, `AV2002` the store stayed unavailable
/// through every retry, `AV2003` the store failed in a way retrying cannot fix.
public struct AvailabilityError: Error, Sendable, Hashable {
    /// Stable code.
    public var code: String
    /// Terse developer-facing line.
    public var message: String

    /// Creates an error.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    static func timedOut(after timeout: Duration, attempts: Int) -> AvailabilityError {
        AvailabilityError(code: AvailabilityCodes.lookupTimedOut.id, message: "lookup timed out after \(timeout) (\(attempts) attempts)")
    }

    static func unavailable(_ error: ClaimStoreError, attempts: Int) -> AvailabilityError {
        AvailabilityError(code: AvailabilityCodes.lookupUnavailable.id, message: "store unavailable after \(attempts) attempts: \(error.message)")
    }

    static func failed(_ error: ClaimStoreError) -> AvailabilityError {
        AvailabilityError(code: AvailabilityCodes.lookupFailed.id, message: "store failed: \(error.message)")
    }
}

/// The answer of one successful lookup, as cached and published.
public enum LookupAnswer: Sendable, Hashable {
    /// The name is free.
    case available
    /// The name is held (or otherwise unclaimable); available alternatives.
    case taken(suggestions: [String])

    /// The state to publish for `name`.
    public func state(for name: String) -> AvailabilityState {
        switch self {
        case .available: .available(name: name)
        case .taken(let suggestions): .taken(name: name, suggestions: suggestions)
        }
    }
}
