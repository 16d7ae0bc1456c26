/// Why a claim, release or rename was refused, or why a name is not available.
///
/// Codes are stable: `AV1001` invalid name, `AV1002` reserved (for both, the policy's violations
/// follow as their own problems, with their `DN…` codes), `AV1003` taken, `AV1004` not claimed,
/// `AV1005` held by another user, `AV1006` the user already holds another name. Messages are
/// end-user sentences.
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

    /// The name breaks the display-name rules; `violations` say how.
    public static func invalid(_ name: String, _ violations: [NameViolation]) -> [ClaimProblem] {
        [ClaimProblem(code: "AV1001", message: "The display name “\(name)” is not valid.")]
            + violations.map { ClaimProblem(code: $0.code, message: $0.message) }
    }

    /// The name is reserved.
    public static func reserved(_ name: String) -> ClaimProblem {
        ClaimProblem(code: "AV1002", message: "The display name “\(name)” is reserved and cannot be claimed.")
    }

    /// Someone else holds the name.
    public static func taken(_ name: String) -> ClaimProblem {
        ClaimProblem(code: "AV1003", message: "The display name “\(name)” is already taken.")
    }

    /// Nobody holds the name, so there is nothing to release or rename.
    public static func notClaimed(_ name: String) -> ClaimProblem {
        ClaimProblem(code: "AV1004", message: "The display name “\(name)” is not claimed by anyone.")
    }

    /// Another user holds the name.
    public static func notOwner(_ name: String) -> ClaimProblem {
        ClaimProblem(code: "AV1005", message: "The display name “\(name)” belongs to another user.")
    }

    /// The user already holds a name; they should rename instead.
    public static func alreadyHolds(_ held: String) -> ClaimProblem {
        ClaimProblem(code: "AV1006", message: "You already have the display name “\(held)”; rename it instead of claiming a second one.")
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
        let evaluation = policy.evaluate(name)
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
public enum ClaimVerdict {
    /// The outcome of a claim whose insert did not happen: who holds `key`, and which name (if
    /// any) `user` holds. Returns nil when neither explains the conflict (a concurrent release
    /// raced the insert): the caller retries.
    public static func afterConflict(name: String, key: String, user: String,
                                     holderOfKey: Claim?, heldByUser: Claim?) -> ClaimOutcome? {
        if let holderOfKey {
            if holderOfKey.owner == user {
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

    /// The answer to an availability question once the policy has passed the name.
    public static func availability(name: String, key: String, holder: Claim?) -> NameAvailability {
        NameAvailability(name: name, key: key, isAvailable: holder == nil)
    }

    /// The availability answer for a name the policy refused.
    public static func availability(refused outcome: ClaimOutcome) -> NameAvailability {
        NameAvailability(name: outcome.name, key: outcome.key, isAvailable: false, problems: outcome.problems)
    }
}
