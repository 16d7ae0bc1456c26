// Batches of claims, releases and renames: the records, what a store did with them, and the
// planner that decides a batch against the claims it touches, record by record in input order.

/// One record of a batch of claims or releases: a name and the user asking.
public struct NameRequest: Sendable, Hashable {
    /// The name as given.
    public var name: String
    /// The user id asking.
    public var user: String

    /// Creates a record.
    public init(name: String, user: String) {
        self.name = name
        self.user = user
    }
}

/// One record of a batch of renames: the name the user holds, the name to take instead, and the
/// user asking.
public struct RenameRequest: Sendable, Hashable {
    /// The name the user holds, as given.
    public var old: String
    /// The name to take instead, as given.
    public var new: String
    /// The user id asking.
    public var user: String

    /// Creates a record.
    public init(old: String, new: String, user: String) {
        self.old = old
        self.new = new
        self.user = user
    }
}

/// What a store did with a batch.
///
/// Records are decided in input order, exactly as one request per record in that order would
/// be (the first claimant of a name wins; a repeat by its holder succeeds again; a second user
/// gets `AV1003` with the holder). ``outcomes`` holds the decided records, a prefix of the
/// batch; every `claimed: true` among them is committed. When the store failed, ``fault`` says
/// which records the failed transaction held (none of them is committed, except that after a lost
/// connection, `AV3014`, whether it committed is unknown) and every record after those was not
/// sent to the store.
public struct BatchOutcome: Sendable {
    /// The fault that stopped a batch, and the records it met.
    public struct Fault: Sendable {
        /// What went wrong.
        public var error: ClaimStoreError
        /// The 0-based indexes of the records the failed transaction held: from
        /// `outcomes.count` on, never empty.
        public var records: Range<Int>

        /// Creates a fault.
        public init(error: ClaimStoreError, records: Range<Int>) {
            self.error = error
            self.records = records
        }
    }

    /// The outcomes of the decided records, in input order (a prefix of the batch).
    public var outcomes: [ClaimOutcome]
    /// Why the store stopped before the end of the batch; nil when every record was decided.
    public var fault: Fault?

    /// Creates an outcome.
    public init(outcomes: [ClaimOutcome], fault: Fault? = nil) {
        self.outcomes = outcomes
        self.fault = fault
    }

    /// Every record decided, or the whole batch failed with `error` in one transaction.
    ///
    /// - Parameters:
    ///   - count: The number of records in the batch.
    public static func deciding(_ count: Int, _ body: () async throws(ClaimStoreError) -> [ClaimOutcome]) async -> BatchOutcome {
        do throws(ClaimStoreError) {
            return BatchOutcome(outcomes: try await body())
        } catch {
            return BatchOutcome(outcomes: [], fault: count == 0 ? nil : Fault(error: error, records: 0..<count))
        }
    }

    /// The outcome of each record, or the error that kept it from being decided (the fault's, for
    /// records the failed transaction held and records never sent).
    public func results(count: Int) -> [Result<ClaimOutcome, ClaimStoreError>] {
        (0..<count).map { index in
            if index < outcomes.count { return .success(outcomes[index]) }
            return .failure(fault?.error ?? ClaimStoreError(.failed, "the store decided \(outcomes.count) of \(count) records; please report it"))
        }
    }
}

extension ClaimStore {
    /// Claims each record's name for its user, one ``claim(_:by:)`` after another. Stores that
    /// can decide a batch in one transaction override this.
    public func claim(batch: [NameRequest]) async -> BatchOutcome {
        await Self.oneByOne(batch.count) { index throws(ClaimStoreError) in
            try await claim(batch[index].name, by: batch[index].user)
        }
    }

    /// Releases each record's name for its user, one ``release(_:by:)`` after another. Stores
    /// that can decide a batch in one transaction override this.
    public func release(batch: [NameRequest]) async -> BatchOutcome {
        await Self.oneByOne(batch.count) { index throws(ClaimStoreError) in
            try await release(batch[index].name, by: batch[index].user)
        }
    }

    /// Renames each record, one ``rename(from:to:by:)`` after another. Stores that can decide a
    /// batch in one transaction override this.
    public func rename(batch: [RenameRequest]) async -> BatchOutcome {
        await Self.oneByOne(batch.count) { index throws(ClaimStoreError) in
            try await rename(from: batch[index].old, to: batch[index].new, by: batch[index].user)
        }
    }

    /// Runs `request` for each index in order, stopping at the first fault (which then holds
    /// that one record): a batch decided one record at a time.
    ///
    /// - Parameters:
    ///   - count: The number of records.
    ///   - request: Decides the record at an index.
    public static func oneByOne(_ count: Int, _ request: (Int) async throws(ClaimStoreError) -> ClaimOutcome) async -> BatchOutcome {
        var outcomes: [ClaimOutcome] = []
        outcomes.reserveCapacity(count)
        for index in 0..<count {
            do throws(ClaimStoreError) {
                outcomes.append(try await request(index))
            } catch {
                return BatchOutcome(outcomes: outcomes, fault: .init(error: error, records: index..<(index + 1)))
            }
        }
        return BatchOutcome(outcomes: outcomes)
    }
}

// MARK: - Planning

/// A batch checked by the policy and ready to be decided against the claims it touches.
///
/// A store reads the claims on ``keys`` and ``users`` (every row whose key is among the keys or
/// whose owner is among the users), calls ``plan(holdings:)``, and applies the plan's
/// ``BatchPlan/deletes`` then ``BatchPlan/inserts`` in the same transaction. The plan decides the
/// records one after another in input order, on the claims as the earlier records left them,
/// with the rules of a single request (``CheckedClaim``, ``CheckedRelease``, ``CheckedRename``),
/// so a batch gives every record the answer that a request per record, in order, would have
/// given. Records the policy or the user check refuse are decided here and never reach storage.
/// A store decides a single release or rename as a batch of one record, or with its own SQL and
/// the same checked requests.
public struct PreparedBatch: Sendable {
    enum Record: Sendable {
        case decided(ClaimOutcome)
        case claim(CheckedClaim)
        case release(CheckedRelease)
        case rename(CheckedRename)
    }

    let records: [Record]
    /// The canonical keys the batch reads or writes, each once.
    public let keys: [String]
    /// The user ids the batch acts for, each once.
    public let users: [String]

    init(_ records: [Record]) {
        self.records = records
        var keys: [String] = []
        var users: [String] = []
        var seenKeys: Set<ExactKey> = []
        var seenUsers: Set<ExactKey> = []
        func add(key: String) { if seenKeys.insert(ExactKey(key)).inserted { keys.append(key) } }
        func add(user: String) { if seenUsers.insert(ExactKey(user)).inserted { users.append(user) } }
        for record in records {
            switch record {
            case .decided: break
            case .claim(let claim):
                add(key: claim.key)
                add(user: claim.user)
            case .release(let release):
                add(key: release.key)
                add(user: release.user)
            case .rename(let rename):
                add(key: rename.oldKey)
                add(key: rename.key)
                add(user: rename.user)
            }
        }
        self.keys = keys
        self.users = users
    }

    /// The number of records.
    public var count: Int { records.count }

    /// True when no record reaches storage (every one was refused before it).
    public var isDecided: Bool { keys.isEmpty }

    /// The batch's outcome when no record reaches storage (``isDecided``): every record's
    /// refusal, with nothing read or written. Nil when some record needs the stored claims.
    public var decidedOutcome: BatchOutcome? {
        isDecided ? BatchOutcome(outcomes: plan(holdings: []).outcomes) : nil
    }

    /// Claims: each checked as ``CheckedClaim/check(_:policy:)`` does.
    public static func claims(_ batch: [NameRequest], policy: any DisplayNamePolicy) -> PreparedBatch {
        PreparedBatch(batch.map { request in
            switch CheckedClaim.check(request, policy: policy) {
            case .refused(let outcome): .decided(outcome)
            case .ready(let claim): .claim(claim)
            }
        })
    }

    /// Releases: each checked as ``CheckedRelease/check(_:policy:)`` does (a name the policy
    /// refuses is simply not held).
    public static func releases(_ batch: [NameRequest], policy: any DisplayNamePolicy) -> PreparedBatch {
        PreparedBatch(batch.map { request in
            switch CheckedRelease.check(request, policy: policy) {
            case .refused(let outcome): .decided(outcome)
            case .ready(let release): .release(release)
            }
        })
    }

    /// Renames: each checked as ``CheckedRename/check(_:policy:)`` does.
    public static func renames(_ batch: [RenameRequest], policy: any DisplayNamePolicy) -> PreparedBatch {
        PreparedBatch(batch.map { request in
            switch CheckedRename.check(request, policy: policy) {
            case .refused(let outcome): .decided(outcome)
            case .ready(let rename): .rename(rename)
            }
        })
    }

    /// Decides every record in input order against `holdings`, the claims on ``keys`` and
    /// ``users`` before the batch.
    ///
    /// - Parameter holdings: Every stored claim whose key is among ``keys`` or whose owner is
    ///   among ``users`` (others are ignored; duplicates are harmless).
    /// - Returns: One outcome per record, and the rows to delete and insert so that storage holds
    ///   what the records left.
    public func plan(holdings: [Claim]) -> BatchPlan {
        var state = Holdings(holdings)
        var outcomes: [ClaimOutcome] = []
        outcomes.reserveCapacity(records.count)
        for record in records {
            let decision = switch record {
            case .decided(let outcome): Decision(outcome: outcome)
            case .claim(let claim):
                claim.decide(holderOfKey: state.holder(ofKey: claim.key), heldByUser: state.claim(heldBy: claim.user))
            case .release(let release):
                release.decide(holder: state.holder(ofKey: release.key))
            case .rename(let rename):
                rename.decide(oldHolder: state.holder(ofKey: rename.oldKey), newHolder: state.holder(ofKey: rename.key))
            }
            if let deleted = decision.delete { state.remove(deleted) }
            if let inserted = decision.insert { state.insert(inserted) }
            outcomes.append(decision.outcome)
        }
        let (deletes, inserts) = state.changes()
        return BatchPlan(outcomes: outcomes, deletes: deletes, inserts: inserts)
    }
}

/// What a batch decided (``PreparedBatch/plan(holdings:)``).
public struct BatchPlan: Sendable {
    /// One outcome per record, in input order.
    public var outcomes: [ClaimOutcome]
    /// Stored rows to delete (by key and owner), sorted by key.
    public var deletes: [Claim]
    /// Rows to insert after the deletes, sorted by key (so concurrent writers lock keys in one
    /// order). Their keys and owners are unique among themselves and among the rows left.
    public var inserts: [Claim]
}

/// The claims a batch touches, as its records change them, compared byte for byte.
struct Holdings {
    private var byKey: [ExactKey: Claim] = [:]
    private var keyByOwner: [ExactKey: ExactKey] = [:]
    private var initial: [ExactKey: Claim] = [:]

    init(_ claims: [Claim]) {
        for claim in claims {
            let key = ExactKey(claim.key)
            byKey[key] = claim
            keyByOwner[ExactKey(claim.owner)] = key
            initial[key] = claim
        }
    }

    func holder(ofKey key: String) -> Claim? { byKey[ExactKey(key)] }

    func claim(heldBy user: String) -> Claim? { keyByOwner[ExactKey(user)].flatMap { byKey[$0] } }

    mutating func insert(_ claim: Claim) {
        let key = ExactKey(claim.key)
        byKey[key] = claim
        keyByOwner[ExactKey(claim.owner)] = key
    }

    mutating func remove(_ claim: Claim) {
        byKey[ExactKey(claim.key)] = nil
        keyByOwner[ExactKey(claim.owner)] = nil
    }

    /// The rows to delete and insert to turn the initial claims into the current ones.
    func changes() -> (deletes: [Claim], inserts: [Claim]) {
        var deletes: [Claim] = []
        var inserts: [Claim] = []
        for (key, before) in initial where !Self.same(byKey[key], before) { deletes.append(before) }
        for (key, after) in byKey where !Self.same(initial[key], after) { inserts.append(after) }
        let byKeyBytes: (Claim, Claim) -> Bool = { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        return (deletes.sorted(by: byKeyBytes), inserts.sorted(by: byKeyBytes))
    }

    private static func same(_ a: Claim?, _ b: Claim) -> Bool {
        guard let a else { return false }
        return UserID.same(a.key, b.key) && UserID.same(a.name, b.name) && UserID.same(a.owner, b.owner)
    }
}
