/// One availability lookup as the checker runs it: a per-attempt timeout, retries with
/// exponential backoff on transient store errors, and suggestions for a taken name.
struct LookupRunner<C: Clock>: Sendable where C.Duration == Duration {
    let store: any ClaimStore
    let policy: any DisplayNamePolicy
    let clock: C
    let timeout: Duration
    let maxAttempts: Int
    let backoff: Duration
    let maxSuggestions: Int

    /// Looks up `name`. Returns nil when the task was cancelled (the answer would be stale).
    func run(name: String) async -> Result<LookupAnswer, AvailabilityError>? {
        var failure = AvailabilityError.timedOut(after: timeout, attempts: maxAttempts)
        for attempt in 1...max(1, maxAttempts) {
            if attempt > 1 {
                let delay = backoff * (1 << min(attempt - 2, 16))
                do { try await clock.sleep(for: delay) } catch { return nil }
            }
            switch await withDeadline(timeout, clock: clock, { () async throws(ClaimStoreError) -> LookupAnswer in try await lookup(name) }) {
            case .value(let answer): return .success(answer)
            case .error(let error) where error.isTransient: failure = .unavailable(error, attempts: maxAttempts)
            case .error(let error): return .failure(.failed(error))
            case .timedOut: failure = .timedOut(after: timeout, attempts: maxAttempts)
            case .cancelled: return nil
            }
        }
        return .failure(failure)
    }

    private func lookup(_ name: String) async throws(ClaimStoreError) -> LookupAnswer {
        if try await store.availability(of: name).isAvailable { return .available }
        let candidates = Suggestions.candidates(for: name, policy: policy)
        guard maxSuggestions > 0, !candidates.isEmpty else { return .taken(suggestions: []) }
        let available = try await store.availableNames(among: candidates)
        return .taken(suggestions: Array(available.prefix(maxSuggestions)))
    }
}
