/// A display name held by a user.
public struct Claim: Sendable, Hashable, Codable {
    /// The display form, as the user typed it when claiming (`Alice.B`).
    public var name: String
    /// The canonical uniqueness key (`alice.b`).
    public var key: String
    /// The user id of the holder.
    public var owner: String

    /// Creates a claim.
    public init(name: String, key: String, owner: String) {
        self.name = name
        self.key = key
        self.owner = owner
    }
}

/// An advisory answer to "could this name be claimed right now?".
///
/// Availability is advisory: another user may claim the name a moment later. The claim is the
/// authority.
public struct NameAvailability: Sendable, Hashable {
    /// The name as asked.
    public var name: String
    /// Its canonical key.
    public var key: String
    /// True when the name is valid, not reserved and not held by anyone.
    public var isAvailable: Bool
    /// Why it is not available (empty when available, or when it is simply taken).
    public var problems: [ClaimProblem]

    /// Creates an answer.
    public init(name: String, key: String, isAvailable: Bool, problems: [ClaimProblem] = []) {
        self.name = name
        self.key = key
        self.isAvailable = isAvailable
        self.problems = problems
    }
}

/// The result of a claim, release or rename.
///
/// A refused request is not an error: it is an outcome with ``problems``. Errors thrown by a
/// store (``ClaimStoreError``) mean the store could not decide.
public struct ClaimOutcome: Sendable, Hashable {
    /// The name the request was about, as given (for a rename, the new name).
    public var name: String
    /// Its canonical key.
    public var key: String
    /// True when the requesting user holds the name after the request (false after a release).
    public var claimed: Bool
    /// Who holds the name after the request; nil when nobody does.
    public var owner: String?
    /// Why the request was refused; empty when it was carried out.
    public var problems: [ClaimProblem]

    /// Creates an outcome.
    public init(name: String, key: String, claimed: Bool, owner: String?, problems: [ClaimProblem] = []) {
        self.name = name
        self.key = key
        self.claimed = claimed
        self.owner = owner
        self.problems = problems
    }

    /// True when the request was carried out.
    public var succeeded: Bool { problems.isEmpty }
}

/// Stores display-name claims and guarantees that a canonical key has at most one owner and a
/// user holds at most one name.
///
/// Implementations: ``MemoryClaimStore``; SQLite (`SQLiteClaims`) and PostgreSQL
/// (`PostgresClaims`). Every method validates the name with the store's ``policy`` first: an
/// invalid or reserved name is refused and never reaches storage.
public protocol ClaimStore: Sendable {
    /// The rules names are checked against, and that gives their canonical key.
    var policy: any DisplayNamePolicy { get }

    /// Advisory: whether `name` could be claimed right now.
    ///
    /// - Throws: ``ClaimStoreError`` when the store cannot answer.
    func availability(of name: String) async throws(ClaimStoreError) -> NameAvailability

    /// The names among `names` that are available, in the given order. One round trip where the
    /// store allows it (used for suggestions).
    ///
    /// - Throws: ``ClaimStoreError`` when the store cannot answer.
    func availableNames(among names: [String]) async throws(ClaimStoreError) -> [String]

    /// Claims `name` for `user`, atomically. Claiming a name one already holds succeeds again
    /// (`claimed` true, the held display form), so a repeated or re-run claim is never "taken".
    ///
    /// - Returns: Claimed, or refused (`AV1001` invalid, `AV1002` reserved, `AV1003` taken,
    ///   `AV1006` the user already holds another name).
    /// - Throws: ``ClaimStoreError`` when the store cannot decide.
    func claim(_ name: String, by user: String) async throws(ClaimStoreError) -> ClaimOutcome

    /// Releases `name` if `user` holds it.
    ///
    /// - Returns: Released, or refused (`AV1004` nobody holds it, `AV1005` another user does).
    /// - Throws: ``ClaimStoreError`` when the store cannot decide.
    func release(_ name: String, by user: String) async throws(ClaimStoreError) -> ClaimOutcome

    /// Releases `old` and claims `new` for `user` in one atomic step: afterwards the user holds
    /// exactly one of them. When the user already holds `new` and not `old`, the rename has
    /// already happened and succeeds again (idempotent, like ``claim(_:by:)``).
    ///
    /// - Returns: Renamed, or refused (any claim or release refusal); on refusal nothing changed.
    /// - Throws: ``ClaimStoreError`` when the store cannot decide.
    func rename(from old: String, to new: String, by user: String) async throws(ClaimStoreError) -> ClaimOutcome

    /// Who holds `name`, if anyone.
    ///
    /// - Throws: ``ClaimStoreError`` when the store cannot answer.
    func owner(of name: String) async throws(ClaimStoreError) -> Claim?

    /// Claims a batch: each record decided in input order, exactly as ``claim(_:by:)`` per
    /// record in that order would decide it (see ``BatchOutcome``). The SQLite, PostgreSQL and
    /// memory stores decide the whole batch in one transaction; the default asks one record at
    /// a time.
    ///
    /// - Returns: The outcome of every record decided, and the fault that stopped the batch, if any.
    func claim(batch: [NameRequest]) async -> BatchOutcome

    /// Releases a batch, as ``release(_:by:)`` per record in input order would (see ``claim(batch:)``).
    func release(batch: [NameRequest]) async -> BatchOutcome

    /// Renames a batch, as ``rename(from:to:by:)`` per record in input order would (see
    /// ``claim(batch:)``).
    func rename(batch: [RenameRequest]) async -> BatchOutcome
}

extension ClaimStore {
    /// Asks ``availability(of:)`` once per name. Stores that can answer in one round trip
    /// override this.
    public func availableNames(among names: [String]) async throws(ClaimStoreError) -> [String] {
        var available: [String] = []
        for name in names {
            if try await availability(of: name).isAvailable { available.append(name) }
        }
        return available
    }
}
