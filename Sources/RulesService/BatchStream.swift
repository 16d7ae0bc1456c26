import BatchValidation
import Hummingbird
import NIOCore

/// One streamed batch: the request body's pieces go into the CLI's ``StreamedBatch`` and its
/// rows come out as their lines complete. When no piece arrives for the idle timeout, the
/// stream ends with one `input.idle-timeout` row (``InputDamage/idleTimeout(seconds:)``).
///
/// The body must also keep a minimum rate: over the time spent waiting for it, it gets the idle
/// timeout of grace plus one second per `minimumBytesPerSecond` bytes received. A body that
/// trickles (a byte now and then, never idle) runs out of that allowance: when a piece arrives
/// after it, the stream is too slow (``tooSlow``) and the piece is not read; the route answers
/// 408 before the first row, or ends the connection after it. So a few trickling clients cannot
/// hold every stream slot. A body that stops altogether is idle, never too slow.
///
/// Only the wait for the body counts: time spent writing rows to a slow reader does not.
// INVARIANT: used by one task at a time (the route, then its response body), each call awaited
// before the next, so the unchecked state is never shared.
final class BatchStream: @unchecked Sendable {
    /// What waiting for the body gave next.
    private enum Piece: Sendable {
        case bytes(ByteBuffer)
        case end
        case idle
    }

    /// The body arrived too slowly: `bytes` in `seconds` of waiting for it.
    struct TooSlow: Error {
        let bytes: Int
        let seconds: Int
    }

    private let batch: StreamedBatch
    private let body: BodyIterator
    private let idleTimeout: Duration
    private let minimumBytesPerSecond: Int
    private let clock: any Clock<Duration>
    private let stopwatch: Stopwatch
    private var isOver = false
    /// True once the stream ended because the body idled.
    private(set) var idled = false
    /// Set once the stream ended because the body came too slowly.
    private(set) var tooSlow: TooSlow?
    /// Bytes of the body received so far.
    private var received = 0
    /// Time spent waiting for the body so far.
    private var waited: Duration = .zero

    /// Creates the stream of `request`'s body into `batch`.
    ///
    /// - Parameters:
    ///   - idleTimeout: The longest wait for one piece of the body; also the rate's grace.
    ///   - minimumBytesPerSecond: The slowest rate the body may keep (0: no minimum).
    init(batch: StreamedBatch, body: RequestBody, idleTimeout: Duration, minimumBytesPerSecond: Int, clock: any Clock<Duration>) {
        self.batch = batch
        self.body = BodyIterator(body.makeAsyncIterator())
        self.idleTimeout = idleTimeout
        self.minimumBytesPerSecond = max(0, minimumBytesPerSecond)
        self.clock = clock
        self.stopwatch = Stopwatch(clock)
    }

    /// The next rows: at least one complete row, or nil once the stream is over (the body ended
    /// and its last rows were given, or it idled and the `input.idle-timeout` row was given, or
    /// it was too slow: then ``tooSlow`` is set and no row says so).
    ///
    /// - Throws: What reading the body throws (the client went away, its framing broke).
    func nextRows() async throws -> [UInt8]? {
        while !isOver {
            var rows: [UInt8]
            switch try await nextPiece() {
            case .bytes(let piece):
                received += piece.readableBytes
                if let allowance = rateAllowance, allowance < .zero {
                    isOver = true
                    tooSlow = TooSlow(bytes: received, seconds: Int(waited.components.seconds))
                    return nil
                }
                rows = piece.withUnsafeReadableBytes { batch.push($0) }
            case .end:
                isOver = true
                rows = batch.finish()
            case .idle:
                (isOver, idled) = (true, true)
                rows = batch.stop(.idleTimeout(seconds: Int(idleTimeout.components.seconds)))
            }
            if !rows.isEmpty { return rows }
        }
        return nil
    }

    /// How much longer the body may have taken at the minimum rate: the grace plus one second per
    /// `minimumBytesPerSecond` bytes received, less the time already waited (negative: too slow);
    /// nil for no minimum.
    private var rateAllowance: Duration? {
        guard minimumBytesPerSecond > 0 else { return nil }
        let earned = Duration.seconds(received / minimumBytesPerSecond)
            + .milliseconds((received % minimumBytesPerSecond) * 1000 / minimumBytesPerSecond)
        return idleTimeout + earned - waited
    }

    /// The body's next piece, or `.idle` when none arrives within the idle timeout (the read is
    /// then cancelled: the body is not read again). The wait counts toward ``rateAllowance``.
    private func nextPiece() async throws -> Piece {
        let (body, clock, timeout) = (body, clock, idleTimeout)
        let started = stopwatch.elapsed
        defer { waited += stopwatch.elapsed - started }
        return try await withThrowingTaskGroup(of: Piece.self) { group in
            group.addTask { try await body.next().map(Piece.bytes) ?? .end }
            group.addTask {
                try await clock.sleep(for: timeout)
                return .idle
            }
            defer { group.cancelAll() }
            // INVARIANT: two children were added, so there is a first result.
            return try await group.next() ?? .end
        }
    }
}

/// Time elapsed on a clock since the stopwatch was made (any clock: tests pass a test clock).
struct Stopwatch: Sendable {
    private let read: @Sendable () -> Duration

    init<C: Clock<Duration>>(_ clock: C) {
        let start = clock.now
        read = { start.duration(to: clock.now) }
    }

    /// Time since the stopwatch was made.
    var elapsed: Duration { read() }
}

/// A request body's iterator, handed to the child task that waits for the next piece.
// INVARIANT: one `next()` at a time: ``BatchStream`` awaits each (its task group awaits the
// reading child even when the timer won) before it asks again.
private final class BodyIterator: @unchecked Sendable {
    private var iterator: RequestBody.AsyncIterator

    init(_ iterator: RequestBody.AsyncIterator) { self.iterator = iterator }

    func next() async throws -> ByteBuffer? { try await iterator.next() }
}
