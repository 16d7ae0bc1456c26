// Single claims, releases and renames after the checks every store makes before storage, the
// rules that decide one against the claims it touches, and the flow of a lookup by name. Shared
// by every store, so that the SQL stores add only their transactions and SQL, and by the batch
// planner (ClaimBatch.swift). Outcomes are worded by `ClaimVerdict`.

/// A request after the checks every store makes before storage: refused there, or ready to be
/// decided against the stored claims.
public enum Checked<Request: Sendable & Hashable>: Sendable, Hashable {
    /// Refused before storage: `AV1008` for a user id that cannot act (``UserID``), `AV1001` or
    /// `AV1002` for a name the policy refuses. Nothing was read or written.
    case refused(ClaimOutcome)
    /// Ready to be decided against the stored claims.
    case ready(Request)
}

/// What one request decided against the claims it touches: its outcome and the change to
/// storage (a delete, then an insert).
struct Decision: Sendable, Hashable {
    var outcome: ClaimOutcome
    /// The stored claim to delete (by key and owner), if any.
    var delete: Claim?
    /// The claim to insert after the delete, if any.
    var insert: Claim?
}

// MARK: - Claims

/// A claim that passed the checks: the name's display form and canonical key, and a user id
/// that can act.
public struct CheckedClaim: Sendable, Hashable {
    /// The name as given.
    public let name: String
    /// Its canonical key.
    public let key: String
    /// The user id asking.
    public let user: String

    /// Checks `request`: the user id first (`AV1008`), then the name with `policy` (`AV1002`
    /// reserved, `AV1001` invalid).
    ///
    /// - Returns: The claim ready for storage, or its refusal.
    public static func check(_ request: NameRequest, policy: any DisplayNamePolicy) -> Checked<CheckedClaim> {
        let evaluation = policy.evaluate(request.name)
        if let refusal = ClaimVerdict.refusing(user: request.user, name: request.name, key: evaluation.key) {
            return .refused(refusal)
        }
        switch PreparedName.prepare(request.name, evaluation: evaluation) {
        case .refused(let outcome): return .refused(outcome)
        case .claimable(let name, let key): return .ready(CheckedClaim(name: name, key: key, user: request.user))
        }
    }

    /// The claim as it is stored when it succeeds.
    public var stored: Claim { Claim(name: name, key: key, owner: user) }

    /// The outcome of a claim that was stored: the user holds the name.
    public var claimed: ClaimOutcome { ClaimOutcome(name: name, key: key, claimed: true, owner: user) }

    /// The outcome of a claim whose insert did not happen, from who holds the key and which
    /// claim the user holds (``ClaimVerdict/afterConflict(name:key:user:holderOfKey:heldByUser:)``);
    /// nil when neither explains the conflict (a concurrent release raced the insert).
    public func afterConflict(holderOfKey: Claim?, heldByUser: Claim?) -> ClaimOutcome? {
        ClaimVerdict.afterConflict(name: name, key: key, user: user, holderOfKey: holderOfKey, heldByUser: heldByUser)
    }

    /// Decides the claim from who holds its key and which claim the user holds: stored when
    /// neither exists, otherwise explained by them.
    func decide(holderOfKey: Claim?, heldByUser: Claim?) -> Decision {
        guard holderOfKey != nil || heldByUser != nil else { return Decision(outcome: claimed, insert: stored) }
        // INVARIANT: a conflict is explained by the key's holder or the user's name.
        return Decision(outcome: afterConflict(holderOfKey: holderOfKey, heldByUser: heldByUser)
            ?? ClaimOutcome(name: name, key: key, claimed: false, owner: nil, problems: [.taken(name)]))
    }
}

// MARK: - Releases

/// A release that passed the checks: the name as given, its canonical key, and a user id that
/// can act. (A name the policy refuses is not refused here: nobody holds it.)
public struct CheckedRelease: Sendable, Hashable {
    /// The name as given.
    public let name: String
    /// Its canonical key.
    public let key: String
    /// The user id asking.
    public let user: String

    /// Checks `request`'s user id (`AV1008`) and gives the name's key by `policy`.
    ///
    /// - Returns: The release ready for storage, or its refusal.
    public static func check(_ request: NameRequest, policy: any DisplayNamePolicy) -> Checked<CheckedRelease> {
        let key = policy.evaluate(request.name).key
        if let refusal = ClaimVerdict.refusing(user: request.user, name: request.name, key: key) {
            return .refused(refusal)
        }
        return .ready(CheckedRelease(name: request.name, key: key, user: request.user))
    }

    /// The outcome of a release that deleted the user's claim, whose display form was `heldName`.
    public func released(heldName: String) -> ClaimOutcome {
        ClaimOutcome(name: heldName, key: key, claimed: false, owner: nil)
    }

    /// The outcome of a release that found the user does not hold the key: `holder` holds it,
    /// or nobody (``ClaimVerdict/notHeld(name:key:holder:)``).
    public func notHeld(holder: Claim?) -> ClaimOutcome {
        ClaimVerdict.notHeld(name: name, key: key, holder: holder)
    }

    /// Decides the release from who holds its key: deleted when the user does.
    func decide(holder: Claim?) -> Decision {
        guard let holder, UserID.same(holder.owner, user) else { return Decision(outcome: notHeld(holder: holder)) }
        return Decision(outcome: released(heldName: holder.name), delete: holder)
    }
}

// MARK: - Renames

/// A rename that passed the checks: the old name and its key, the new name (passed by the
/// policy) and its key, and a user id that can act.
public struct CheckedRename: Sendable, Hashable {
    /// The old name as given.
    public let old: String
    /// The old name's canonical key.
    public let oldKey: String
    /// The new name as given.
    public let name: String
    /// The new name's canonical key.
    public let key: String
    /// The user id asking.
    public let user: String

    /// Checks `request`: the user id and the new name as a claim of it (``CheckedClaim/check(_:policy:)``).
    /// The old name is only keyed: whoever holds it decides.
    ///
    /// - Returns: The rename ready for storage, or its refusal.
    public static func check(_ request: RenameRequest, policy: any DisplayNamePolicy) -> Checked<CheckedRename> {
        switch CheckedClaim.check(NameRequest(name: request.new, user: request.user), policy: policy) {
        case .refused(let outcome):
            return .refused(outcome)
        case .ready(let new):
            return .ready(CheckedRename(old: request.old, oldKey: policy.evaluate(request.old).key,
                                        name: new.name, key: new.key, user: new.user))
        }
    }

    /// The new name's claim as it is stored when the rename succeeds.
    public var stored: Claim { Claim(name: name, key: key, owner: user) }

    /// The outcome of a rename that was stored: the user holds the new name.
    public var renamed: ClaimOutcome { ClaimOutcome(name: name, key: key, claimed: true, owner: user) }

    /// The outcome of a rename that found the user does not hold the old name: done already when
    /// they hold the new one, refused otherwise
    /// (``ClaimVerdict/renameWithoutOld(old:oldKey:oldHolder:newHolder:user:)``).
    public func withoutOld(oldHolder: Claim?, newHolder: Claim?) -> ClaimOutcome {
        ClaimVerdict.renameWithoutOld(old: old, oldKey: oldKey, oldHolder: oldHolder, newHolder: newHolder, user: user)
    }

    /// The outcome of a rename whose new name another user holds (`AV1003`); `holder` is that
    /// claim, if it could be read.
    public func taken(by holder: Claim?) -> ClaimOutcome {
        ClaimOutcome(name: name, key: key, claimed: false, owner: holder?.owner, problems: [.taken(name)])
    }

    /// Decides the rename from who holds the old key and the new one: the old claim replaced by
    /// the new when the user holds the old name and nobody else the new one.
    func decide(oldHolder: Claim?, newHolder: Claim?) -> Decision {
        guard let oldHolder, UserID.same(oldHolder.owner, user) else {
            return Decision(outcome: withoutOld(oldHolder: oldHolder, newHolder: newHolder))
        }
        if let newHolder, !UserID.same(newHolder.owner, user) { return Decision(outcome: taken(by: newHolder)) }
        return Decision(outcome: renamed, delete: oldHolder, insert: stored)
    }
}

// MARK: - Lookups

extension PreparedName {
    /// Whether `name` could be claimed right now: refused by `policy`, or available when nobody
    /// holds its key. Every store's ``ClaimStore/availability(of:)``, the lookup aside.
    ///
    /// - Parameters:
    ///   - name: The name as typed.
    ///   - policy: The display-name rules.
    ///   - holder: Who holds a canonical key; asked only for a name the policy passes.
    /// - Throws: What `holder` throws.
    public static func availability(of name: String, with policy: any DisplayNamePolicy,
                                    holder: (String) async throws(ClaimStoreError) -> Claim?) async throws(ClaimStoreError) -> NameAvailability {
        switch prepare(name, with: policy) {
        case .refused(let outcome): ClaimVerdict.availability(refused: outcome)
        case .claimable(let name, let key): ClaimVerdict.availability(name: name, key: key, holder: try await holder(key))
        }
    }

    /// The names among `names` that `policy` passes and nobody holds, in the given order. Every
    /// store's ``ClaimStore/availableNames(among:)``, the lookup aside.
    ///
    /// - Parameters:
    ///   - names: The names as typed.
    ///   - policy: The display-name rules.
    ///   - heldKeys: Which of the given keys (those of the names the policy passes; never empty,
    ///     so not asked when none passes) somebody holds.
    /// - Throws: What `heldKeys` throws.
    public static func available(among names: [String], with policy: any DisplayNamePolicy,
                                 heldKeys: ([String]) async throws(ClaimStoreError) -> Set<String>) async throws(ClaimStoreError) -> [String] {
        let candidates = claimable(among: names, with: policy)
        guard !candidates.isEmpty else { return [] }
        let held = try await heldKeys(candidates.map(\.key))
        return candidates.filter { !held.contains($0.key) }.map(\.name)
    }
}
