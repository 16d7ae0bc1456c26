/// A ``ClaimStore`` in process memory: for tests, previews and single-process tools.
///
/// Every operation runs on the actor, so each is atomic.
public actor MemoryClaimStore: ClaimStore {
    public nonisolated let policy: any DisplayNamePolicy
    private var claimsByKey: [String: Claim] = [:]
    private var keyByUser: [String: String] = [:]

    /// Creates an empty store.
    ///
    /// - Parameter policy: The display-name rules names are checked against.
    public init(policy: any DisplayNamePolicy) {
        self.policy = policy
    }

    /// Every claim, sorted by key (for tests and tools).
    public func allClaims() -> [Claim] {
        claimsByKey.values.sorted { $0.key < $1.key }
    }

    public func availability(of name: String) throws(ClaimStoreError) -> NameAvailability {
        switch PreparedName.prepare(name, with: policy) {
        case .refused(let outcome): ClaimVerdict.availability(refused: outcome)
        case .claimable(let name, let key): ClaimVerdict.availability(name: name, key: key, holder: claimsByKey[key])
        }
    }

    public func claim(_ name: String, by user: String) throws(ClaimStoreError) -> ClaimOutcome {
        switch PreparedName.prepare(name, with: policy) {
        case .refused(let outcome):
            return outcome
        case .claimable(let name, let key):
            if claimsByKey[key] == nil, keyByUser[user] == nil {
                insert(Claim(name: name, key: key, owner: user))
                return ClaimOutcome(name: name, key: key, claimed: true, owner: user)
            }
            // INVARIANT: a conflict is always explained by the key's holder or the user's name.
            return ClaimVerdict.afterConflict(
                name: name, key: key, user: user, holderOfKey: claimsByKey[key],
                heldByUser: keyByUser[user].flatMap { claimsByKey[$0] })
                ?? ClaimOutcome(name: name, key: key, claimed: false, owner: nil, problems: [.taken(name)])
        }
    }

    public func release(_ name: String, by user: String) throws(ClaimStoreError) -> ClaimOutcome {
        let key = policy.evaluate(name).key
        guard let holder = claimsByKey[key], holder.owner == user else {
            return ClaimVerdict.notHeld(name: name, key: key, holder: claimsByKey[key])
        }
        remove(holder)
        return ClaimOutcome(name: holder.name, key: key, claimed: false, owner: nil)
    }

    public func rename(from old: String, to new: String, by user: String) throws(ClaimStoreError) -> ClaimOutcome {
        let oldKey = policy.evaluate(old).key
        switch PreparedName.prepare(new, with: policy) {
        case .refused(let outcome):
            return outcome
        case .claimable(let name, let key):
            guard let held = claimsByKey[oldKey], held.owner == user else {
                return ClaimVerdict.renameWithoutOld(old: old, oldKey: oldKey, oldHolder: claimsByKey[oldKey],
                                                     newHolder: claimsByKey[key], user: user)
            }
            if let holder = claimsByKey[key], holder.owner != user {
                return ClaimOutcome(name: name, key: key, claimed: false, owner: holder.owner, problems: [.taken(name)])
            }
            remove(held)
            insert(Claim(name: name, key: key, owner: user))
            return ClaimOutcome(name: name, key: key, claimed: true, owner: user)
        }
    }

    public func owner(of name: String) throws(ClaimStoreError) -> Claim? {
        claimsByKey[policy.evaluate(name).key]
    }

    private func insert(_ claim: Claim) {
        claimsByKey[claim.key] = claim
        keyByUser[claim.owner] = claim.key
    }

    private func remove(_ claim: Claim) {
        claimsByKey[claim.key] = nil
        keyByUser[claim.owner] = nil
    }
}
