/// A bounded cache of lookup answers by canonical key, with separate lifetimes for "available"
/// and "taken" answers (a free name can be taken any moment; a taken one rarely frees up).
///
/// Pure value: the caller passes the current instant. When full, the least recently used entry
/// goes.
package struct AnswerCache<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    private struct Entry: Sendable {
        var answer: LookupAnswer
        var expires: Instant
        var lastUse: UInt64
    }

    /// Most entries kept; 0 disables the cache.
    package let capacity: Int
    /// How long an "available" answer is reused.
    package let availableLifetime: Duration
    /// How long a "taken" answer is reused.
    package let takenLifetime: Duration
    private var entries: [String: Entry] = [:]
    private var useCounter: UInt64 = 0

    /// Creates an empty cache.
    package init(capacity: Int, availableLifetime: Duration, takenLifetime: Duration) {
        self.capacity = max(0, capacity)
        self.availableLifetime = availableLifetime
        self.takenLifetime = takenLifetime
    }

    /// Number of entries held (expired ones included until they are looked up or evicted).
    package var count: Int { entries.count }

    /// The answer for `key` if it is still fresh at `now`.
    package mutating func answer(for key: String, at now: Instant) -> LookupAnswer? {
        guard var entry = entries[key] else { return nil }
        guard now < entry.expires else {
            entries[key] = nil
            return nil
        }
        useCounter += 1
        entry.lastUse = useCounter
        entries[key] = entry
        return entry.answer
    }

    /// Remembers `answer` for `key`, received at `now`.
    package mutating func insert(_ answer: LookupAnswer, for key: String, at now: Instant) {
        guard capacity > 0 else { return }
        if entries[key] == nil, entries.count >= capacity,
           let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            entries[oldest] = nil
        }
        let lifetime = if case .available = answer { availableLifetime } else { takenLifetime }
        useCounter += 1
        entries[key] = Entry(answer: answer, expires: now.advanced(by: lifetime), lastUse: useCounter)
    }
}
