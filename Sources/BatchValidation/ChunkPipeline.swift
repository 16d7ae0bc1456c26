#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Checks chunks on worker threads of its own, and on the caller's, while the caller frames the
/// next chunks and writes finished ones out, in the order they were submitted.
///
/// Workers take the oldest waiting chunk as soon as they are free: there is no barrier between
/// groups of chunks, so a worker waits only when the caller has nothing framed for it. The
/// caller, waiting for the oldest chunk, checks waiting chunks itself until it is done: it
/// counts as one of the threads checking, so `jobs - 1` workers keep `jobs` cores busy. (A
/// caller that only waited would compete with `jobs` busy workers for `jobs` cores and get a
/// fraction of one, and its writing — the one serial part of a run — would hold everyone back.)
///
/// At most `window` chunks are in flight (submitted and not yet taken back); with their output
/// buffers, they are all the memory a run holds. The workers keep the pipeline alive until
/// ``close()`` stops them: call it when done.
final class ChunkPipeline: @unchecked Sendable {
    // INVARIANT: every `var` below, and the slots, are read and written only with `mutex` held,
    // except a claimed slot's chunk and output, which only its worker touches until it stores
    // the result. taken ≤ claimed ≤ submitted ≤ taken + window; only ``close()`` lowers
    // `submitted`, to `claimed`, dropping the chunks no worker took.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// Signalled when a chunk is submitted (or the pipeline closes): workers wait on it.
    private let chunkSubmitted = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Signalled when the oldest chunk in flight is done: the caller waits on it.
    private let oldestDone = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Broadcast when ``close()`` has dropped the waiting chunks (``waitUntilClosing()``).
    private let closingStarted = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var slots: [Slot]
    /// The most chunks in flight at once.
    let window: Int
    private var submitted = 0, claimed = 0, taken = 0
    private var closing = false
    private let context: ChunkContext
    private var workers: [WorkerThread] = []

    private struct Slot {
        var chunk: RecordChunk?
        var output: OutputBuffer?
        var result: ChunkResult?
    }

    /// Starts `workers` threads checking chunks with `context` (none: the caller checks every
    /// chunk in ``takeOldest()``), with at most `window` in flight.
    ///
    /// - Throws: ``WorkerStartError`` when a worker thread cannot start (the ones started are
    ///   stopped first).
    init(context: ChunkContext, workers: Int, window: Int) throws(WorkerStartError) {
        self.context = context
        self.window = max(1, window)
        slots = Array(repeating: Slot(), count: self.window)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(chunkSubmitted, nil)
        pthread_cond_init(oldestDone, nil)
        pthread_cond_init(closingStarted, nil)
        for started in 0..<max(0, workers) {
            do {
                self.workers.append(try WorkerThread { self.work() })
            } catch {
                close()
                throw WorkerStartError(started: started, wanted: workers, reason: error.reason)
            }
        }
    }

    deinit {
        pthread_cond_destroy(closingStarted)
        pthread_cond_destroy(oldestDone)
        pthread_cond_destroy(chunkSubmitted)
        pthread_mutex_destroy(mutex)
        closingStarted.deallocate()
        oldestDone.deallocate()
        chunkSubmitted.deallocate()
        mutex.deallocate()
    }

    /// Chunks submitted and not yet taken back.
    var inFlight: Int { locked { submitted - taken } }

    /// Queues `chunk` to be checked into `output` (which is emptied first). Needs room —
    /// ``inFlight`` below ``window`` — and an open pipeline.
    func submit(_ chunk: RecordChunk, output: OutputBuffer) {
        locked {
            precondition(!closing, "ChunkPipeline: a chunk submitted after close()")
            precondition(submitted - taken < window, "ChunkPipeline: more chunks submitted than its window holds")
            slots[submitted % window] = Slot(chunk: chunk, output: output)
            submitted += 1
            pthread_cond_signal(chunkSubmitted)
        }
    }

    /// Hands back the oldest chunk in flight with its result, checking waiting chunks on this
    /// thread until it is done. Needs a chunk in flight.
    func takeOldest() -> (chunk: RecordChunk, result: ChunkResult) {
        while true {
            let next: Claim? = locked {
                precondition(taken < submitted, "ChunkPipeline: nothing in flight to take")
                let index = taken % window
                // Wait only when the oldest is being checked and nothing else is waiting.
                while slots[index].result == nil && claimed == submitted { pthread_cond_wait(oldestDone, mutex) }
                return slots[index].result == nil ? claimLocked() : nil
            }
            guard let next else { break }
            check(next)
        }
        return locked {
            let index = taken % window
            let slot = slots[index]
            slots[index] = Slot()
            taken += 1
            // INVARIANT: a slot with a result also holds its chunk.
            return (slot.chunk!, slot.result!)
        }
    }

    /// Drops the chunks no worker has started, waits for those being checked and stops the
    /// workers. Called again, does nothing.
    func close() {
        let stopping: [WorkerThread] = locked {
            closing = true
            submitted = claimed
            pthread_cond_broadcast(chunkSubmitted)
            pthread_cond_broadcast(closingStarted)
            defer { workers = [] }
            return workers
        }
        for worker in stopping { worker.join() }
    }

    /// Blocks until ``close()`` has dropped the chunks no worker started (it may still be
    /// waiting for the ones being checked): the moment a test of closing needs.
    package func waitUntilClosing() {
        locked { while !closing { pthread_cond_wait(closingStarted, mutex) } }
    }

    /// A worker's loop: claim the oldest waiting chunk, check it, store the result.
    private func work() {
        while let next = claim() { check(next) }
    }

    /// A chunk claimed for checking: its sequence number, the chunk and its output buffer.
    private typealias Claim = (sequence: Int, chunk: RecordChunk, output: OutputBuffer)

    /// Checks a claimed chunk and stores its result.
    private func check(_ claim: Claim) {
        let result = context.process(claim.chunk, output: claim.output)
        locked {
            slots[claim.sequence % window].result = result
            if claim.sequence == taken { pthread_cond_signal(oldestDone) }
        }
    }

    /// The next waiting chunk, once there is one; nil once the pipeline closes.
    private func claim() -> Claim? {
        locked {
            while claimed == submitted && !closing { pthread_cond_wait(chunkSubmitted, mutex) }
            return claimLocked()
        }
    }

    /// The next waiting chunk, if any; `mutex` held.
    private func claimLocked() -> Claim? {
        guard claimed < submitted else { return nil }
        let sequence = claimed
        claimed += 1
        let slot = slots[sequence % window]
        // INVARIANT: a submitted slot holds its chunk and output.
        return (sequence, slot.chunk!, slot.output!)
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }
}

/// A thread running one closure, which ``join()`` waits for.
final class WorkerThread {
    private var thread: pthread_t?
    private var joined = false

    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Starts `body` on a new thread.
    ///
    /// - Throws: why the system would not start one (its `strerror` text).
    init(_ body: @escaping @Sendable () -> Void) throws(WorkerStartError.Reason) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        #if canImport(Glibc)
        var handle = pthread_t()
        let status = pthread_create(&handle, nil, { context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        thread = handle
        #else
        let status = pthread_create(&thread, nil, { context in
            Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
            return nil
        }, context)
        #endif
        guard status == 0 else {
            // The thread never ran, so the body it would have released is released here.
            Unmanaged<Body>.fromOpaque(context).release()
            throw WorkerStartError.Reason(reason: String(cString: strerror(status)))
        }
    }

    /// Waits for the closure to return.
    func join() {
        guard !joined, let thread else { return }
        joined = true
        pthread_join(thread, nil)
    }
}

/// A worker thread the system would not start (thread or memory limits).
struct WorkerStartError: Error {
    /// The system's reason.
    struct Reason: Error { let reason: String }

    /// How many workers had started.
    let started: Int
    /// How many were asked for.
    let wanted: Int
    /// The system's reason.
    let reason: String

    var message: String { "cannot start worker thread \(started + 1) of \(wanted) (\(reason)); try a smaller --jobs" }
}
