/// How a ``withDeadline(_:clock:_:)`` race ended.
package enum DeadlineResult<T: Sendable>: Sendable {
    /// The operation finished in time.
    case value(T)
    /// The operation threw in time.
    case error(ClaimStoreError)
    /// The time ran out first.
    case timedOut
    /// The waiting task was cancelled.
    case cancelled
}

/// Runs `operation`, giving up after `timeout` on `clock` even when the operation ignores
/// cancellation: the first of the two to finish wins, and the other is cancelled.
///
/// - Parameters:
///   - timeout: The longest wait.
///   - clock: The clock the wait is measured on.
///   - operation: The work; it runs in its own task.
/// - Returns: The operation's value or error, `.timedOut`, or `.cancelled`.
package func withDeadline<T: Sendable, C: Clock>(
    _ timeout: Duration, clock: C, _ operation: @escaping @Sendable () async throws(ClaimStoreError) -> T
) async -> DeadlineResult<T> where C.Duration == Duration {
    let (results, sink) = AsyncStream.makeStream(of: DeadlineResult<T>.self, bufferingPolicy: .bufferingOldest(1))
    let work = Task {
        do throws(ClaimStoreError) { sink.yield(.value(try await operation())) } catch { sink.yield(.error(error)) }
    }
    let timer = Task {
        do { try await clock.sleep(for: timeout); sink.yield(.timedOut) } catch {}
    }
    defer {
        work.cancel()
        timer.cancel()
        sink.finish()
    }
    for await result in results { return result }
    return .cancelled
}
