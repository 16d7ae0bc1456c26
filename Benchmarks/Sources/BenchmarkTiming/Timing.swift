// BenchmarkTiming: the clocks and timing loops every benchmark of this package uses: seconds of a
// duration, wall-clock and thread CPU time, interleaved rounds of labelled bodies with the best
// round reported (a busy shared machine inflates the figures less), and repeated runs of one
// operation for a median. Release-mode executables only; nothing here is tested for speed.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Nanoseconds per call of `body` over `iterations` calls, and how many calls returned true.
public func timeRound(iterations: Int, _ body: () -> Bool) -> (nanos: Double, allowed: Int) {
    let clock = ContinuousClock()
    var allowed = 0
    let elapsed = clock.measure {
        for _ in 0..<iterations where body() { allowed += 1 }
    }
    return (seconds(elapsed) * 1e9 / Double(iterations), allowed)
}

/// Measures labelled bodies in 7 interleaved rounds after a warm-up, prints decisions per second
/// for each (best round), and returns the best nanoseconds per call of each, in order.
///
/// - Parameters:
///   - iterations: calls per body over all rounds.
///   - bodies: a label and a decision to time.
public func measureInterleaved(iterations: Int, _ bodies: [(String, () -> Bool)]) -> [Double] {
    let rounds = 7
    let perRound = max(1, iterations / rounds)
    var best = Array(repeating: Double.infinity, count: bodies.count)
    var allowed = Array(repeating: 0, count: bodies.count)
    for (_, body) in bodies { _ = timeRound(iterations: perRound / 10 + 1, body) }  // warm-up
    for _ in 0..<rounds {
        for (index, (_, body)) in bodies.enumerated() {
            let (nanos, granted) = timeRound(iterations: perRound, body)
            best[index] = min(best[index], nanos)
            allowed[index] += granted
        }
    }
    for (index, (label, _)) in bodies.enumerated() {
        print("  \(label): \(Int(1e9 / best[index])) decisions/s, \(format1(best[index])) ns/decision (\(allowed[index])/\(perRound * rounds) allowed)")
    }
    return best
}

/// Milliseconds of each of `runs` runs of `body`, sorted; nil as soon as a run returns false.
public func sortedMilliseconds(runs: Int, _ body: () -> Bool) -> [Double]? {
    let clock = ContinuousClock()
    var timings: [Double] = []
    for _ in 0..<runs {
        var ok = false
        let elapsed = clock.measure { ok = body() }
        guard ok else { return nil }
        timings.append(seconds(elapsed) * 1000)
    }
    return timings.sorted()
}

/// A value with one decimal, as the benchmarks print figures.
public func format1(_ value: Double) -> String {
    "\((value * 10).rounded() / 10)"
}

/// A duration in seconds.
public func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// Seconds from `start` to now on the continuous clock.
public func seconds(since start: ContinuousClock.Instant) -> Double {
    seconds(start.duration(to: .now))
}

/// The monotonic wall clock, in seconds from an arbitrary start.
public func wallSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// This thread's CPU time in seconds: what single-threaded work costs whatever the machine's
/// load (wall time adds the wait for a core).
public func threadCPUSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}
