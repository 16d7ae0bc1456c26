import Synchronization

/// Where the rate limiter reads the time: seconds on a monotonic scale.
public protocol RateLimitClock: Sendable {
    /// Now, in seconds since some fixed instant.
    func now() -> Double
}

/// The system's monotonic clock.
public struct SystemRateLimitClock: RateLimitClock {
    private let start = ContinuousClock.now

    /// Creates the clock.
    public init() {}

    public func now() -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}

/// A token bucket per client: each client may make `rate` requests a second on average, in
/// bursts of up to `burst`. Buckets of clients gone quiet are dropped, so memory stays bounded.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    let rate: Double
    let burst: Double
    private let clock: any RateLimitClock
    private let buckets = Mutex<[String: Bucket]>([:])
    /// Buckets kept before full ones are dropped.
    private let maxClients: Int

    /// - Parameters:
    ///   - rate: Tokens added per second (> 0).
    ///   - burst: The bucket's size; at least 1 (default: one second's worth).
    init(rate: Double, burst: Double? = nil, clock: any RateLimitClock, maxClients: Int = 10_000) {
        self.rate = rate
        self.burst = max(1, burst ?? rate)
        self.clock = clock
        self.maxClients = maxClients
    }

    /// Takes a token for `client`.
    ///
    /// - Returns: nil when allowed; otherwise the whole seconds until a token is available.
    func take(for client: String) -> Int? {
        let now = clock.now()
        return buckets.withLock { buckets in
            var bucket = buckets[client] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + max(0, now - bucket.updated) * rate)
            bucket.updated = now
            defer {
                buckets[client] = bucket
                if buckets.count > maxClients { dropFull(&buckets, now: now) }
            }
            guard bucket.tokens >= 1 else {
                return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
            }
            bucket.tokens -= 1
            return nil
        }
    }

    /// Drops the buckets that have refilled (their clients are as if new).
    private func dropFull(_ buckets: inout [String: Bucket], now: Double) {
        buckets = buckets.filter { $0.value.tokens + (now - $0.value.updated) * rate < burst }
    }
}
