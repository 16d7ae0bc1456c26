@testable import BatchValidation
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("ChunkPipeline")
struct PipelineTests {
    /// Chunks that finished, so a slow chunk can wait for the one after it (with more than one
    /// worker): later chunks then finish first on every run, without a sleep.
    let finished = Finished()

    /// A checker whose every fourth chunk ("slow…") waits until the chunk after it was checked
    /// (when `waiting`: another thread must check that one). On the caller's thread it waits
    /// only for a chunk already submitted: the caller is the one who submits, so a wait for a
    /// later chunk would never end.
    func unevenChecker(waiting: Bool) -> ClosureChecker {
        let caller = currentThread()
        return ClosureChecker { [finished] value, _ in
            let index = Int(value.dropFirst(4).prefix { $0 != "-" })!
            if waiting, value.hasPrefix("slow"), value.hasSuffix("-0") {
                if currentThread() != caller || finished.isSubmitted(index + 1) {
                    finished.wait(for: index + 1)
                } else {
                    finished.noteNotWaited()
                }
            }
            if value.hasSuffix("x") { finished.insert(index) }
            let violations = value.hasSuffix("x") ? [FieldViolation(code: "X", rule: "toy.x", message: "Ends in x.")] : []
            return FieldOutcome(violations: violations, normalized: value, key: value)
        }
    }

    func context(_ checker: some FieldChecker) throws -> ChunkContext {
        let writer = RecordWriter(options: WriterOptions(format: .csv))
        return ChunkContext(file: "test", jsonlPrefix: writer.jsonlPrefix(file: "test"),
                            decoder: try RecordDecoder.make(format: .lines, fields: FieldSelection(), header: nil),
                            checker: checker.shortcuts, indexedRules: checker.shortcuts.indexedRules, plainValidAsIs: false, writer: writer, fixed: RecordContext(), failFast: false)
    }

    /// Chunk `index` of a run: three lines, numbered from `3 × index + 1`; every fourth chunk slow.
    func chunk(_ index: Int) -> RecordChunk {
        let lines = (0..<3).map { line in (index % 4 == 0 ? "slow" : "fast") + "\(index)-\(line)" + (line == 2 ? "x" : "") }
        return RecordChunk(bytes: Array((lines.joined(separator: "\n") + "\n").utf8), records: [], unframedLines: 3,
                           firstNumber: 3 * index + 1, maxRecordBytes: 1 << 20)
    }

    @Test("results come back in submission order, each with its own chunk, whatever finishes first", arguments: [0, 2, 8])
    func order(workers: Int) throws {
        let pipeline = try ChunkPipeline(context: try context(unevenChecker(waiting: workers > 0)), workers: workers, window: 5)
        defer { pipeline.close() }
        var next = 0, taken: [String] = []
        var tally = Tally()
        while taken.count < 120 {
            while next < 40 && pipeline.inFlight < pipeline.window {
                finished.noteSubmitted(next)
                pipeline.submit(chunk(next), output: OutputBuffer())
                next += 1
            }
            #expect(pipeline.inFlight <= 5)
            let (chunk, result) = pipeline.takeOldest()
            let rows = String(decoding: result.output.bytes, as: UTF8.self).split(separator: "\n")
            #expect(rows.first?.hasPrefix("\(chunk.firstNumber),") == true, "chunk \(chunk.firstNumber): \(rows)")
            taken.append(contentsOf: rows.map { String($0.split(separator: ",")[0]) })
            tally.merge(result.tally)
        }
        #expect(taken == (1...120).map(String.init))
        #expect(tally.records == 120 && tally.invalid == 40)
        #expect(pipeline.inFlight == 0)
        // With workers, each slow chunk finished after the one submitted after it, except the ones
        // the caller checked before that one was submitted. Chunk 0 is always overtaken: a worker
        // waits for chunk 1, and the caller checks it only once it has submitted a window.
        if workers > 0 {
            #expect(finished.overtaken >= 1 && finished.overtaken + finished.notWaited == 10,
                    "overtaken \(finished.overtaken), not waited \(finished.notWaited)")
        } else {
            #expect(finished.overtaken == 0 && finished.notWaited == 0)
        }
        #expect(finished.timeouts == 0)
    }

    @Test("close() drops the chunks no worker started, waits for the two being checked and stops the workers")
    func closeDropsWaitingChunks() throws {
        let gate = Gate()
        let blocking = ClosureChecker { value, _ in
            gate.enterAndWait()
            return FieldOutcome(violations: [], normalized: value, key: value)
        }
        let pipeline = try ChunkPipeline(context: try context(blocking), workers: 2, window: 16)
        for index in 0..<16 { pipeline.submit(chunk(index), output: OutputBuffer()) }
        #expect(gate.waitUntilEntered(2), "the two workers never started a check")
        // Once close() has dropped the 14 waiting chunks, the two claimed ones may finish.
        let opener = try WorkerThread {
            pipeline.waitUntilClosing()
            if pipeline.inFlight != 2 { gate.noteTimeout("close() left \(pipeline.inFlight) chunks in flight") }
            gate.open()
        }
        pipeline.close()
        opener.join()
        #expect(gate.timeouts.isEmpty, "\(gate.timeouts)")
        #expect(pipeline.inFlight == 2)
        #expect(gate.entered == 2 * 3)
        let first = pipeline.takeOldest(), second = pipeline.takeOldest()
        #expect([first.chunk.firstNumber, second.chunk.firstNumber] == [1, 4] as [Int])
        #expect(first.result.tally.records + second.result.tally.records == 6)
        pipeline.close()
    }

    @Test("the caller checks the waiting chunks itself while a worker holds the oldest")
    func callerChecksWhileWaiting() throws {
        let started = Finished(), done = Finished(), checkedOn = CheckedOn()
        let caller = currentThread()
        let checker = ClosureChecker { [started, done, checkedOn] value, _ in
            let index = Int(value.dropFirst(4).prefix { $0 != "-" })!
            checkedOn.note(index, onCaller: currentThread() == caller)
            // Chunk 0 holds its worker until the last chunk was checked, by the caller.
            if value == "slow0-0" {
                started.insert(0)
                done.wait(for: 3)
            }
            if value.hasSuffix("x") { done.insert(index) }
            return FieldOutcome(violations: [], normalized: value, key: value)
        }
        let pipeline = try ChunkPipeline(context: try context(checker), workers: 1, window: 4)
        defer { pipeline.close() }
        pipeline.submit(chunk(0), output: OutputBuffer())
        started.wait(for: 0)
        for index in 1..<4 { pipeline.submit(chunk(index), output: OutputBuffer()) }
        var numbers: [Int] = []
        for _ in 0..<4 {
            let (chunk, result) = pipeline.takeOldest()
            #expect(result.tally.records == 3)
            numbers.append(chunk.firstNumber)
        }
        #expect(numbers == [1, 4, 7, 10])
        #expect(checkedOn.caller == [1, 2, 3] && checkedOn.workers == [0])
        #expect(started.timeouts == 0 && done.timeouts == 0)
    }
}

/// The chunks checked on the caller's thread and on workers.
private final class CheckedOn: @unchecked Sendable {
    // INVARIANT: both sets are used only with `lock` held.
    private let lock = NSLock()
    private var onCaller: Set<Int> = [], onWorkers: Set<Int> = []

    func note(_ index: Int, onCaller: Bool) {
        lock.withLock { _ = onCaller ? self.onCaller.insert(index) : onWorkers.insert(index) }
    }

    var caller: Set<Int> { lock.withLock { onCaller } }
    var workers: Set<Int> { lock.withLock { onWorkers } }
}

/// The calling thread's identity.
private func currentThread() -> UInt {
    #if canImport(Darwin)
    UInt(bitPattern: pthread_self())
    #else
    UInt(pthread_self())
    #endif
}

/// Chunk numbers whose last line was checked; ``wait(for:)`` blocks until one is (bounded, so a
/// regression fails the test instead of hanging it).
final class Finished: @unchecked Sendable {
    // INVARIANT: every `var` is used only with `condition` locked.
    private let condition = NSCondition()
    private var done: Set<Int> = [], submitted: Set<Int> = []
    private var overtakenCount = 0, timeoutCount = 0, notWaitedCount = 0

    func noteSubmitted(_ index: Int) { condition.lock(); submitted.insert(index); condition.unlock() }
    func isSubmitted(_ index: Int) -> Bool { condition.lock(); defer { condition.unlock() }; return submitted.contains(index) }
    func noteNotWaited() { condition.lock(); notWaitedCount += 1; condition.unlock() }

    func insert(_ index: Int) {
        condition.lock()
        done.insert(index)
        condition.broadcast()
        condition.unlock()
    }

    func wait(for index: Int) {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: 60)
        while !done.contains(index) {
            if !condition.wait(until: deadline) { timeoutCount += 1; return }
        }
        overtakenCount += 1
    }

    var overtaken: Int { condition.lock(); defer { condition.unlock() }; return overtakenCount }
    var timeouts: Int { condition.lock(); defer { condition.unlock() }; return timeoutCount }
    var notWaited: Int { condition.lock(); defer { condition.unlock() }; return notWaitedCount }
}

/// Holds checks until opened, counting those that arrived.
private final class Gate: @unchecked Sendable {
    // INVARIANT: `isOpen`, `count` and `timeoutNotes` are used only with `condition` locked.
    private let condition = NSCondition()
    private var isOpen = false
    private var count = 0
    private var timeoutNotes: [String] = []
    /// How long a wait may last before it counts as a timeout (a bound so that a regression
    /// fails the test instead of hanging it; no test asserts on how long a wait took).
    private static let bound: TimeInterval = 60

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }

    /// Waits, with `condition` locked, until `done` holds or the bound passes; false then.
    private func wait(until done: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: Self.bound)
        while !done() {
            if !condition.wait(until: deadline) { return done() }
        }
        return true
    }

    var entered: Int { locked { count } }

    /// Waits that hit their bound, from any thread (the test checks it is empty).
    var timeouts: [String] { locked { timeoutNotes } }

    func noteTimeout(_ what: String) { locked { timeoutNotes.append(what) } }

    /// Counts the check in and waits for ``open()`` (bounded: a gate never opened lets the check
    /// go on and records a timeout).
    func enterAndWait() {
        locked {
            count += 1
            condition.broadcast()
            if !wait(until: { isOpen }) { timeoutNotes.append("the gate was never opened") }
        }
    }

    /// Waits until `expected` checks have entered; false when the bound was reached first.
    func waitUntilEntered(_ expected: Int) -> Bool {
        locked { wait(until: { count >= expected }) }
    }

    func open() {
        locked {
            isOpen = true
            condition.broadcast()
        }
    }
}
