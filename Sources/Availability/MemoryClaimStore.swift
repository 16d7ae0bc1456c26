/// A ``ClaimStore`` in process memory: for tests, previews and single-process tools.
///
/// Every operation runs on the actor, so each is atomic. Keys and user ids are compared byte
/// for byte, as the databases compare them (``UserID``).
///
/// Its single requests are decided here, on its dictionaries, and not by the batch planner
/// (``PreparedBatch``) that its batches use: the batch conformance tests take them as the
/// reference the planner is checked against.
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
        switch CheckedClaim.check(NameRequest(name: name, user: user), policy: policy) {
        case .refused(let outcome):
            return outcome
        case .ready(let claim):
            let holder = claimsByKey[ExactKey(claim.key)]
            let held = keyByUser[ExactKey(user)].flatMap { claimsByKey[ExactKey($0)] }
            if holder == nil, held == nil {
                insert(claim.stored)
                return claim.claimed
            }
            // INVARIANT: a conflict is always explained by the key's holder or the user's name.
            return claim.afterConflict(holderOfKey: holder, heldByUser: held)
                ?? ClaimOutcome(name: claim.name, key: claim.key, claimed: false, owner: nil, problems: [.taken(claim.name)])
        }
    }

    public func release(_ name: String, by user: String) throws(ClaimStoreError) -> ClaimOutcome {
        switch CheckedRelease.check(NameRequest(name: name, user: user), policy: policy) {
        case .refused(let outcome):
            return outcome
        case .ready(let release):
            guard let holder = claimsByKey[ExactKey(release.key)], UserID.same(holder.owner, user) else {
                return release.notHeld(holder: claimsByKey[ExactKey(release.key)])
            }
            remove(holder)
            return release.released(heldName: holder.name)
        }
    }

    public func rename(from old: String, to new: String, by user: String) throws(ClaimStoreError) -> ClaimOutcome {
        switch CheckedRename.check(RenameRequest(old: old, new: new, user: user), policy: policy) {
        case .refused(let outcome):
            return outcome
        case .ready(let rename):
            let newHolder = claimsByKey[ExactKey(rename.key)]
            guard let held = claimsByKey[ExactKey(rename.oldKey)], UserID.same(held.owner, user) else {
                return rename.withoutOld(oldHolder: claimsByKey[ExactKey(rename.oldKey)], newHolder: newHolder)
            }
            if let newHolder, !UserID.same(newHolder.owner, user) { return rename.taken(by: newHolder) }
            remove(held)
            insert(rename.stored)
            return rename.renamed
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
