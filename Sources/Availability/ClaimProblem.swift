/// Why a claim, release or rename was refused, or why a name is not available.
///
/// Codes are stable: `AV1001` invalid name, `AV1002` reserved (for both, the policy's violations
/// follow as their own problems, with their `DN…` codes), `AV1003` taken, `AV1004` not claimed,
/// `AV1005` held by another user, `AV1006` the user already holds another name, `AV1008` the
/// user id is not valid (``UserID``); in a batch,
/// a store fault's own code (``fault(_:)``, `AV30xx`) and `AV3016` for a record not attempted.
/// Messages are end-user sentences that say "username", as the app does.
public struct ClaimProblem: Sendable, Hashable, Codable {
    /// Stable code (`AV1003`, or a policy's `DN…` code).
    public var code: String
    /// End-user sentence.
    public var message: String

    /// Creates a problem.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// The name breaks the username rules; `violations` say how.
    public static func invalid(_ name: String, _ violations: [NameViolation]) -> [ClaimProblem] {
        [ClaimProblem(code: AvailabilityCodes.invalidName.id, message: "The username “\(name)” is not valid.")]
            + violations.map { ClaimProblem(code: $0.code, message: $0.message) }
    }

    /// The name is reserved.
    public static func reserved(_ name: String) -> ClaimProblem {
        ClaimProblem(code: AvailabilityCodes.reservedName.id, message: "The username “\(name)” is reserved and cannot be claimed.")
    }

    /// Someone else holds the name. Worded as the app shows it.
    public static func taken(_ name: String) -> ClaimProblem {
        ClaimProblem(code: AvailabilityCodes.taken.id, message: "This username is already taken. Please choose another.")
    }

    /// Nobody holds the name, so there is nothing to release or rename.
    public static func notClaimed(_ name: String) -> ClaimProblem {
        ClaimProblem(code: AvailabilityCodes.notClaimed.id, message: "The username “\(name)” is not claimed by anyone.")
    }

    /// Another user holds the name.
    public static func notOwner(_ name: String) -> ClaimProblem {
        ClaimProblem(code: AvailabilityCodes.notOwner.id, message: "The username “\(name)” belongs to another user.")
    }

    /// The user already holds a name; they should rename instead.
    public static func alreadyHolds(_ held: String) -> ClaimProblem {
        ClaimProblem(code: AvailabilityCodes.alreadyHolds.id, message: "You already have the username “\(held)”; rename it instead of claiming a second one.")
    }

    /// The user id cannot act on claims (``UserID/problem(_:)``): `reason` says why, as a clause;
    /// the id itself is never repeated.
    public static func invalidUser(_ reason: String) -> ClaimProblem {
        ClaimProblem(code: AvailabilityCodes.invalidUser.id, message: "The user id is not valid: \(reason). A user id is at least one character, with no control characters.")
    }

    /// The store could not decide this request: the fault's code and what to do. The request
    /// may not have been carried out (for a lost connection its outcome is unknown).
    public static func fault(_ error: ClaimStoreError) -> ClaimProblem {
        ClaimProblem(code: error.code, message: error.help)
    }

    /// A batch record that was never sent to the store, because the store failed at an earlier
    /// record or could not be opened at all.
    ///
    /// - Parameters:
    ///   - record: The 1-based number of the record the store failed at; nil when it could not
    ///     be opened.
    ///   - error: The fault.
    public static func notAttempted(stoppedAt record: Int?, by error: ClaimStoreError) -> ClaimProblem {
        let cause = record.map { "the store failed at record \($0)" } ?? "the store could not be opened"
        return ClaimProblem(code: AvailabilityCodes.notAttempted.id, message: "This record was not attempted because \(cause) (\(error.code)); run the batch again once that is fixed.")
    }
}

/// A name that passed the policy and is ready to be stored, or the refusal that stops it.
public enum PreparedName: Sendable, Hashable {
    /// The name is claimable: its display form and key.
    case claimable(name: String, key: String)
    /// The name is refused before reaching storage.
    case refused(ClaimOutcome)

    /// Runs `policy` on `name`.
    ///
    /// - Returns: `.claimable`, or `.refused` with `AV1002` for a reserved name or `AV1001` for
    ///   an invalid one, each followed by the policy's violations.
    public static func prepare(_ name: String, with policy: any DisplayNamePolicy) -> PreparedName {
        prepare(name, evaluation: policy.evaluate(name))
    }

    /// Decides `name` from the policy's `evaluation` of it (already made by the caller).
    ///
    /// - Returns: As ``prepare(_:with:)``.
    public static func prepare(_ name: String, evaluation: NameEvaluation) -> PreparedName {
        let details = evaluation.violations.map { ClaimProblem(code: $0.code, message: $0.message) }
        if evaluation.isReserved {
            return .refused(ClaimOutcome(name: name, key: evaluation.key, claimed: false, owner: nil,
                                         problems: [.reserved(name)] + details))
        }
        if !evaluation.violations.isEmpty {
            return .refused(ClaimOutcome(name: name, key: evaluation.key, claimed: false, owner: nil,
                                         problems: ClaimProblem.invalid(name, evaluation.violations)))
        }
        return .claimable(name: name, key: evaluation.key)
    }

    /// The claimable names among `names` with their keys, in order; refused names are dropped.
    public static func claimable(among names: [String], with policy: any DisplayNamePolicy) -> [(name: String, key: String)] {
        names.compactMap { name in
            guard case .claimable(let name, let key) = prepare(name, with: policy) else { return nil }
            return (name, key)
        }
    }
}

/// Turns what a store found into outcomes, so every store words its answers the same way.
/// Owners are compared byte for byte (``UserID/same(_:_:)``), as the databases compare them.
public enum ClaimVerdict {
    /// The refusal of a claim, release or rename by a user id that cannot act (`AV1008`), or nil
    /// when `user` is valid. Every store asks this first, so no invalid id reaches storage.
    ///
    /// - Parameters:
    ///   - user: The user id asking.
    ///   - name: The name the request is about, as given; `key` its canonical key (evaluated only
    ///     for a refusal).
    public static func refusing(user: String, name: String, key: @autoclosure () -> String) -> ClaimOutcome? {
        UserID.problem(user).map { ClaimOutcome(name: name, key: key(), claimed: false, owner: nil, problems: [$0]) }
    }

    /// The outcome of a claim whose insert did not happen: who holds `key`, and which name (if
    /// any) `user` holds. Returns nil when neither explains the conflict (a concurrent release
    /// raced the insert): the caller retries.
    public static func afterConflict(name: String, key: String, user: String,
                                     holderOfKey: Claim?, heldByUser: Claim?) -> ClaimOutcome? {
        if let holderOfKey {
            if UserID.same(holderOfKey.owner, user) {
                return ClaimOutcome(name: holderOfKey.name, key: key, claimed: true, owner: user)
            }
            return ClaimOutcome(name: name, key: key, claimed: false, owner: holderOfKey.owner, problems: [.taken(name)])
        }
        if let heldByUser {
            return ClaimOutcome(name: name, key: key, claimed: false, owner: nil, problems: [.alreadyHolds(heldByUser.name)])
        }
        return nil
    }

    /// The outcome of a release or rename that found `user` does not hold `key`.
    public static func notHeld(name: String, key: String, holder: Claim?) -> ClaimOutcome {
        ClaimOutcome(name: name, key: key, claimed: false, owner: holder?.owner,
                     problems: [holder == nil ? .notClaimed(name) : .notOwner(name)])
    }

    /// The outcome of a rename that found `user` does not hold the old name. When the user
    /// already holds the new one, the rename has already happened (a repeated request, or a
    /// re-run after a crash) and it succeeds again; otherwise it is refused as ``notHeld``.
    ///
    /// - Parameters:
    ///   - old: The old name as given; `oldKey` its key; `oldHolder` who holds it, if anyone.
    ///   - newHolder: Who holds the new name's key, if anyone.
    ///   - user: The user asking.
    public static func renameWithoutOld(old: String, oldKey: String, oldHolder: Claim?,
                                        newHolder: Claim?, user: String) -> ClaimOutcome {
        if let newHolder, UserID.same(newHolder.owner, user) {
            return ClaimOutcome(name: newHolder.name, key: newHolder.key, claimed: true, owner: user)
        }
        return notHeld(name: old, key: oldKey, holder: oldHolder)
    }

    /// The answer to an availability question once the policy has passed the name.
    public static func availability(name: String, key: String, holder: Claim?) -> NameAvailability {
        NameAvailability(name: name, key: key, isAvailable: holder == nil)
    }

    /// The availability answer for a name the policy refused.
    public static func availability(refused outcome: ClaimOutcome) -> NameAvailability {
        NameAvailability(name: outcome.name, key: outcome.key, isAvailable: false, problems: outcome.problems)
    }
}
