/// A ``ClaimStore`` in process memory: for tests, previews and single-process tools.
///
/// Every operation runs on the actor, so each is atomic. Keys and user ids are compared byte
/// for byte, as the databases compare them (``UserID``).
public actor MemoryClaimStore: ClaimStore {
    public nonisolated let policy: any DisplayNamePolicy
    private var claimsByKey: [ExactKey: Claim] = [:]
    private var keyByUser: [ExactKey: String] = [:]

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
        case .claimable(let name, let key): ClaimVerdict.availability(name: name, key: key, holder: claimsByKey[ExactKey(key)])
        }
    }

    public func claim(_ name: String, by user: String) throws(ClaimStoreError) -> ClaimOutcome {
        if let refusal = ClaimVerdict.refusing(user: user, name: name, key: policy.evaluate(name).key) { return refusal }
        switch PreparedName.prepare(name, with: policy) {
        case .refused(let outcome):
            return outcome
        case .claimable(let name, let key):
            if claimsByKey[ExactKey(key)] == nil, keyByUser[ExactKey(user)] == nil {
                insert(Claim(name: name, key: key, owner: user))
                return ClaimOutcome(name: name, key: key, claimed: true, owner: user)
            }
            // INVARIANT: a conflict is always explained by the key's holder or the user's name.
            return ClaimVerdict.afterConflict(
                name: name, key: key, user: user, holderOfKey: claimsByKey[ExactKey(key)],
                heldByUser: keyByUser[ExactKey(user)].flatMap { claimsByKey[ExactKey($0)] })
                ?? ClaimOutcome(name: name, key: key, claimed: false, owner: nil, problems: [.taken(name)])
        }
    }

    public func release(_ name: String, by user: String) throws(ClaimStoreError) -> ClaimOutcome {
        let key = policy.evaluate(name).key
        if let refusal = ClaimVerdict.refusing(user: user, name: name, key: key) { return refusal }
        guard let holder = claimsByKey[ExactKey(key)], UserID.same(holder.owner, user) else {
            return ClaimVerdict.notHeld(name: name, key: key, holder: claimsByKey[ExactKey(key)])
        }
        remove(holder)
        return ClaimOutcome(name: holder.name, key: key, claimed: false, owner: nil)
    }

    public func rename(from old: String, to new: String, by user: String) throws(ClaimStoreError) -> ClaimOutcome {
        let oldKey = policy.evaluate(old).key
        if let refusal = ClaimVerdict.refusing(user: user, name: new, key: policy.evaluate(new).key) { return refusal }
        switch PreparedName.prepare(new, with: policy) {
        case .refused(let outcome):
            return outcome
        case .claimable(let name, let key):
            guard let held = claimsByKey[ExactKey(oldKey)], UserID.same(held.owner, user) else {
                return ClaimVerdict.renameWithoutOld(old: old, oldKey: oldKey, oldHolder: claimsByKey[ExactKey(oldKey)],
                                                     newHolder: claimsByKey[ExactKey(key)], user: user)
            }
            if let holder = claimsByKey[ExactKey(key)], !UserID.same(holder.owner, user) {
                return ClaimOutcome(name: name, key: key, claimed: false, owner: holder.owner, problems: [.taken(name)])
            }
            remove(held)
            insert(Claim(name: name, key: key, owner: user))
            return ClaimOutcome(name: name, key: key, claimed: true, owner: user)
        }
    }

    public func owner(of name: String) throws(ClaimStoreError) -> Claim? {
        claimsByKey[ExactKey(policy.evaluate(name).key)]
    }

    // MARK: - Batches (one atomic step each, decided by the shared planner)

    public func claim(batch: [NameRequest]) -> BatchOutcome {
        apply(PreparedBatch.claims(batch, policy: policy))
    }

    public func release(batch: [NameRequest]) -> BatchOutcome {
        apply(PreparedBatch.releases(batch, policy: policy))
    }

    public func rename(batch: [RenameRequest]) -> BatchOutcome {
        apply(PreparedBatch.renames(batch, policy: policy))
    }

    /// Plans `batch` against the claims it touches and applies the plan, all on the actor.
    private func apply(_ batch: PreparedBatch) -> BatchOutcome {
        var holdings: [Claim] = batch.keys.compactMap { claimsByKey[ExactKey($0)] }
        holdings += batch.users.compactMap { keyByUser[ExactKey($0)].flatMap { claimsByKey[ExactKey($0)] } }
        let plan = batch.plan(holdings: holdings)
        plan.deletes.forEach(remove)
        plan.inserts.forEach(insert)
        return BatchOutcome(outcomes: plan.outcomes)
    }

    private func insert(_ claim: Claim) {
        claimsByKey[ExactKey(claim.key)] = claim
        keyByUser[ExactKey(claim.owner)] = claim.key
    }

    private func remove(_ claim: Claim) {
        claimsByKey[ExactKey(claim.key)] = nil
        keyByUser[ExactKey(claim.owner)] = nil
    }
}
