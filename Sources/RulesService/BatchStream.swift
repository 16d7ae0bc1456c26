import BatchValidation
import Hummingbird
import NIOCore

/// One streamed batch: the request body's pieces go into the CLI's ``StreamedBatch`` and its
/// rows come out as their lines complete. When no piece arrives for the idle timeout, the
/// stream ends with one `input.idle-timeout` row (``InputDamage/idleTimeout(seconds:)``).
///
/// Only the wait for the body counts as idle: time spent writing rows to a slow reader does not.
// INVARIANT: used by one task at a time (the route, then its response body), each call awaited
// before the next, so the unchecked state is never shared.
final class BatchStream: @unchecked Sendable {
    /// What waiting for the body gave next.
    private enum Piece: Sendable {
        case bytes(ByteBuffer)
        case end
        case idle
    }

    private let batch: StreamedBatch
    private let body: BodyIterator
    private let idleTimeout: Duration
    private let clock: any Clock<Duration>
    private var isOver = false
    /// True once the stream ended because the body idled.
    private(set) var idled = false

    /// Creates the stream of `request`'s body into `batch`.
    init(batch: StreamedBatch, body: RequestBody, idleTimeout: Duration, clock: any Clock<Duration>) {
        self.batch = batch
        self.body = BodyIterator(body.makeAsyncIterator())
        self.idleTimeout = idleTimeout
        self.clock = clock
    }

    /// The next rows: at least one complete row, or nil once the stream is over (the body ended
    /// and its last rows were given, or it idled and the `input.idle-timeout` row was given).
    ///
    /// - Throws: What reading the body throws (the client went away).
    func nextRows() async throws -> [UInt8]? {
        while !isOver {
            var rows: [UInt8]
            switch try await nextPiece() {
            case .bytes(let piece):
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

    /// The body's next piece, or `.idle` when none arrives within the idle timeout (the read is
    /// then cancelled: the body is not read again).
    private func nextPiece() async throws -> Piece {
        let (body, clock, timeout) = (body, clock, idleTimeout)
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

/// A request body's iterator, handed to the child task that waits for the next piece.
// INVARIANT: one `next()` at a time: ``BatchStream`` awaits each (its task group awaits the
// reading child even when the timer won) before it asks again.
private final class BodyIterator: @unchecked Sendable {
    private var iterator: RequestBody.AsyncIterator

    init(_ iterator: RequestBody.AsyncIterator) { self.iterator = iterator }

    func next() async throws -> ByteBuffer? { try await iterator.next() }
}
