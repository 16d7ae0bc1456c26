/// Gathers concurrent single claims into batches (group commit): a claim that arrives while
/// another batch is being written waits, and every claim that waited goes into the next batch
/// together, decided in arrival order by the store's ``ClaimStore/claim(batch:)``.
///
/// A claim that arrives while nothing is being written is written at once, alone: it never waits
/// for company. Under load, one transaction then carries many claims, so the per-claim cost
/// (the transaction, the commit, the round trips) is shared. Each caller gets its own record's
/// outcome once the transaction that holds it has committed, or the fault that stopped it.
///
/// The first caller to find the coalescer idle leads: it writes its own claim with everything
/// waiting (up to ``limit``), answers the others, and hands the lead to the first claim still
/// waiting, so no task is started and nobody waits longer than one batch behind the current one.
public actor ClaimCoalescer {
    /// Most claims in one batch.
    public let limit: Int
    private let write: @Sendable ([NameRequest]) async -> BatchOutcome
    private var waiting: [(request: NameRequest, turn: CheckedContinuation<Turn, Never>)] = []
    private var busy = false

    private enum Turn: Sendable {
        case answered(Result<ClaimOutcome, ClaimStoreError>)
        case lead
    }

    /// Creates a coalescer.
    ///
    /// - Parameters:
    ///   - limit: Most claims per batch (at least 1).
    ///   - write: Writes one batch (the store's batch claim).
    public init(limit: Int, write: @escaping @Sendable ([NameRequest]) async -> BatchOutcome) {
        self.limit = max(1, limit)
        self.write = write
    }

    /// How many claims are waiting for the next batch.
    public var waitingCount: Int { waiting.count }

    /// Claims `name` for `user` in the next batch.
    ///
    /// - Throws: The fault that stopped the batch holding this claim.
    public func claim(_ name: String, by user: String) async throws(ClaimStoreError) -> ClaimOutcome {
        let request = NameRequest(name: name, user: user)
        if busy {
            let turn = await withCheckedContinuation { waiting.append((request, $0)) }
            switch turn {
            case .answered(let result): return try result.get()
            case .lead: break
            }
        }
        busy = true
        let others = Array(waiting.prefix(limit - 1))
        waiting.removeFirst(others.count)
        let batch = [request] + others.map(\.request)
        let results = await write(batch).results(count: batch.count)
        for (index, other) in others.enumerated() {
            other.turn.resume(returning: .answered(results[index + 1]))
        }
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().turn.resume(returning: .lead)
        }
        return try results[0].get()
    }
}
