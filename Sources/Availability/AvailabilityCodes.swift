// AvailabilityCodes: the catalogue of the availability codes (`AV…`) that claims, checkers and
// stores report. Every call site, here and in the modules above (RulesKit, RulesService), names
// its code through this table. Wording may change; a code never does, and a retired code is never
// reused. docs/AVAILABILITY.md ("Codes") lists the same codes.

/// One code of the catalogue.
public struct AvailabilityCode: Sendable, Hashable {
    /// The stable id, e.g. `AV1003`.
    public let id: String
    /// What the code reports, one line.
    public let summary: String
    /// What to do about it, one sentence (a store fault's help is also its message in a batch).
    public let help: String
}

/// Every availability code.
///
/// `AV1xxx`: a claim, release or rename refused (end-user messages say "username").
/// `AV2xxx`: an availability lookup that found no answer. `AV3xxx`: a claim store that could not
/// answer (``ClaimStoreError/Reason``), and `AV3016` for a batch record never attempted.
public enum AvailabilityCodes {
    // MARK: - Refusals (AV1xxx)

    /// The name breaks the username rules; the policy's violations follow.
    public static let invalidName = AvailabilityCode(
        id: "AV1001", summary: "the username is not valid",
        help: "the policy's violations that follow say which rule the name breaks")
    /// The name is reserved.
    public static let reservedName = AvailabilityCode(
        id: "AV1002", summary: "the username is reserved",
        help: "choose another name; the policy's reason follows when it gives one")
    /// Someone else holds the name.
    public static let taken = AvailabilityCode(
        id: "AV1003", summary: "another user holds the username",
        help: "choose another name (the checker suggests available ones)")
    /// Nobody holds the name (release, rename).
    public static let notClaimed = AvailabilityCode(
        id: "AV1004", summary: "nobody holds the username",
        help: "there is nothing to release or rename")
    /// Another user holds the name (release, rename).
    public static let notOwner = AvailabilityCode(
        id: "AV1005", summary: "another user holds the username",
        help: "only the holder can release or rename it")
    /// The user already holds another name.
    public static let alreadyHolds = AvailabilityCode(
        id: "AV1006", summary: "the user already holds another username",
        help: "rename the held name instead of claiming a second one")
    /// The security rules deny the change (`RuleGuardedClaimStore`).
    public static let rulesDeny = AvailabilityCode(
        id: "AV1007", summary: "the security rules do not allow the change",
        help: "`validate rules eval` on the same request shows which rule decides")
    /// The user id cannot act on claims (``UserID``).
    public static let invalidUser = AvailabilityCode(
        id: "AV1008", summary: "the user id is not valid (empty, or holding a control character)",
        help: "send the authenticated user's id; the message says what is wrong, never the id")

    // MARK: - Lookups (AV2xxx)

    /// Every attempt of a lookup timed out.
    public static let lookupTimedOut = AvailabilityCode(
        id: "AV2001", summary: "every attempt of the lookup timed out",
        help: "check the store's health, or raise the checker's timeout")
    /// The store stayed unavailable through every retry.
    public static let lookupUnavailable = AvailabilityCode(
        id: "AV2002", summary: "the store was unavailable through every retry",
        help: "the store fault's code in the message says what to fix")
    /// The store failed in a way retrying cannot fix.
    public static let lookupFailed = AvailabilityCode(
        id: "AV2003", summary: "the store failed and a retry cannot help",
        help: "the store fault's code in the message says what to fix")

    // MARK: - Store faults (AV3xxx)

    /// ``ClaimStoreError/Reason/unreachable``.
    public static let unreachable = AvailabilityCode(
        id: "AV3001", summary: "the store cannot be reached (or gave no answer in time)",
        help: "Check that the database is running and reachable at the given location, then try again.")
    /// ``ClaimStoreError/Reason/transient``.
    public static let transient = AvailabilityCode(
        id: "AV3002", summary: "a transient conflict",
        help: "Another request changed the same data at the same moment; try again.")
    /// ``ClaimStoreError/Reason/failed``.
    public static let failed = AvailabilityCode(
        id: "AV3003", summary: "the store failed (unexpected schema, SQL error)",
        help: "The database answered with an unexpected error; check the details above and the database's own log.")
    /// ``ClaimStoreError/Reason/badLocation``.
    public static let badLocation = AvailabilityCode(
        id: "AV3004", summary: "the store location is malformed",
        help: "Give the store as sqlite:PATH or postgres://USER:PASSWORD@HOST:PORT/DATABASE.")
    /// ``ClaimStoreError/Reason/readOnly``.
    public static let readOnly = AvailabilityCode(
        id: "AV3005", summary: "the database file or its directory is read-only",
        help: "Make the database file and its directory writable by this user, or use another store location.")
    /// ``ClaimStoreError/Reason/storageFull``.
    public static let storageFull = AvailabilityCode(
        id: "AV3006", summary: "the database is full (disk, or its size limit)",
        help: "Free disk space (or raise the database's size limit), then run the request again; nothing not reported as claimed was kept.")
    /// ``ClaimStoreError/Reason/locked``.
    public static let locked = AvailabilityCode(
        id: "AV3007", summary: "another connection held the write lock past the busy timeout",
        help: "Another program is writing to the database and held its lock too long; wait for it to finish, then try again.")
    /// ``ClaimStoreError/Reason/notADatabase``.
    public static let notADatabase = AvailabilityCode(
        id: "AV3008", summary: "the file is not a claims database",
        help: "The file is not a claims database; restore it from a backup or point the store at the right file.")
    /// ``ClaimStoreError/Reason/fileReplaced``.
    public static let fileReplaced = AvailabilityCode(
        id: "AV3009", summary: "the database file was replaced or removed while open",
        help: "The database file was replaced or removed while in use; restore it and start the program again.")
    /// ``ClaimStoreError/Reason/serializationFailure``.
    public static let serializationFailure = AvailabilityCode(
        id: "AV3010", summary: "a serialization failure or deadlock after every retry",
        help: "Other changes kept conflicting with this one; try again in a moment.")
    /// ``ClaimStoreError/Reason/statementTimeout``.
    public static let statementTimeout = AvailabilityCode(
        id: "AV3011", summary: "the server cancelled the statement at its statement timeout",
        help: "The database did not finish in time, usually because another session holds a lock; try again later.")
    /// ``ClaimStoreError/Reason/authenticationFailed``.
    public static let authenticationFailed = AvailabilityCode(
        id: "AV3012", summary: "the server refused the user name or password",
        help: "Check the user name and password in the store location.")
    /// ``ClaimStoreError/Reason/unknownDatabase``.
    public static let unknownDatabase = AvailabilityCode(
        id: "AV3013", summary: "the database named in the location does not exist",
        help: "Create the database or correct its name in the store location.")
    /// ``ClaimStoreError/Reason/connectionLost``.
    public static let connectionLost = AvailabilityCode(
        id: "AV3014", summary: "the connection was lost mid-request (outcome unknown)",
        help: "The connection dropped mid-request, so its outcome is unknown; run it again when the database is back (claims are idempotent).")
    /// ``ClaimStoreError/Reason/shutDown``.
    public static let shutDown = AvailabilityCode(
        id: "AV3015", summary: "the store was used after `shutdown()`",
        help: "This store was shut down; create a new store to continue.")
    /// A batch record never sent to the store.
    public static let notAttempted = AvailabilityCode(
        id: "AV3016", summary: "a batch record not attempted (the store failed at an earlier record, or could not be opened)",
        help: "run the batch again once the store's fault is fixed")

    /// Every code, in order.
    public static let all: [AvailabilityCode] = [
        invalidName, reservedName, taken, notClaimed, notOwner, alreadyHolds, rulesDeny, invalidUser,
        lookupTimedOut, lookupUnavailable, lookupFailed,
        unreachable, transient, failed, badLocation, readOnly, storageFull, locked, notADatabase, fileReplaced,
        serializationFailure, statementTimeout, authenticationFailed, unknownDatabase, connectionLost, shutDown,
        notAttempted,
    ]
}
