// Z3Solver: the one Swift wrapper over Z3's C API. Problems are SMT-LIB 2 text, run through
// `Z3_eval_smtlib2_string` in a fresh context per query, so nothing else needs Z3 handles.
import CZ3
import Foundation

/// What the solver answered for one query.
enum SolverAnswer: Sendable, Equatable {
    /// Satisfiable, with the requested values as SMT-LIB text (`((term value) …)`).
    case sat(values: String)
    /// Unsatisfiable: no assignment exists.
    case unsat
    /// The solver gave up (timeout or incompleteness), with its reason.
    case unknown(String)
    /// The query needed more than its resource limit (``SolverLimits/resourceLimit``).
    case outOfResources
}

/// The limits of one query. The resource limit decides: it counts Z3's own steps, so a query
/// runs out of it at the same point on a fast or a slow machine. The time limit is a safety net
/// for a machine far slower than the one the resource limits were measured on.
struct SolverLimits: Sendable, Equatable {
    /// Z3's `rlimit` for the query's `check-sat` (0: none).
    var resourceLimit: UInt64
    /// Wall-clock time for the query, in milliseconds.
    var timeoutMilliseconds: UInt32

    /// A query that decides, with `seconds` left of the property's (or change's) time.
    static func decision(_ resourceLimit: UInt64, secondsLeft seconds: Double) -> SolverLimits {
        SolverLimits(resourceLimit: resourceLimit, timeoutMilliseconds: milliseconds(seconds))
    }

    /// A query for a more readable witness, with `seconds` left of the property's time.
    static func preference(secondsLeft seconds: Double) -> SolverLimits {
        SolverLimits(resourceLimit: Z3Solver.preferenceResourceLimit,
                     timeoutMilliseconds: milliseconds(min(seconds, Z3Solver.preferenceSafetyNetSeconds)))
    }

    /// `seconds` in whole milliseconds, within what a time limit can hold (any `--timeout`).
    private static func milliseconds(_ seconds: Double) -> UInt32 {
        let value = (seconds * 1000).rounded(.down)
        guard value.isFinite, value > 0 else { return 0 }
        return value >= Double(UInt32.max) ? UInt32.max : UInt32(value)
    }
}

/// Runs SMT-LIB 2 problems through Z3.
///
/// One context per call: contexts are not thread-safe, and a fresh one keeps queries independent.
enum Z3Solver {
    /// How long past its time limit a query may take to notice an interrupt before it is
    /// abandoned, in milliseconds.
    static let interruptGraceMilliseconds: UInt32 = 250

    /// The seed of every query's random choices (Z3's default, stated so that no configuration
    /// can change it): with the resource limit, the same query gets the same answer.
    static let randomSeed = 0

    // Resource limits, measured with `RULESKIT_SOLVER_LOG` (see ``log``) over RulesVerificationTests
    // and the `rules verify`/`diff`/`lint --prove` golden transcripts, Z3 4.8.12, 2 cores: 1,487
    // queries. Z3 counted 400 to 3,000 units per millisecond of CPU (fewest on string-heavy
    // queries); the wall clock ran up to 4.5 times slower than the CPU time when the tests ran
    // in parallel with other builds, which is why a time limit alone gave different answers.

    /// Z3 resource units for a query that decides (a property's or a change's goal): 6 times
    /// the most any such query took (3,349,938 units, 5.7 s of CPU: a planted hole in
    /// PlantedHoleTests; the next largest took 349,289), so no query the tests decide comes near
    /// it. It is about 7 to 50 s of one core here, in the range of the CLI's default 30 s
    /// timeout, so a query that the timeout let finish on an idle machine still finishes.
    static let decisionResourceLimit: UInt64 = 20_000_000

    /// Z3 resource units for a query that only narrows a model to a more readable witness:
    /// 4 times the most a successful one took (231,729 units, 0.2 s of CPU), about 0.3 to 2.5 s
    /// of one core here. These queries had a 1 s time limit, which a loaded machine reached
    /// first (a query of 231,729 units took 981 ms), so the witness shown depended on the load.
    static let preferenceResourceLimit: UInt64 = 1_000_000

    /// The time limit of a preference query, in seconds: only a safety net (see
    /// ``preferenceResourceLimit``); the property's own deadline still bounds it.
    static let preferenceSafetyNetSeconds = 10.0

    /// The `unknown` reason of a query that ran out of `resourceLimit` units.
    static func outOfResourcesReason(_ resourceLimit: UInt64) -> String {
        "\(VerificationCodes.solverBudget.id) a solver query needs more than \(resourceLimit) units of Z3's resource limit (rlimit)"
    }

    /// Checks `script` (declarations and assertions, without `check-sat`) and, when satisfiable,
    /// asks for the values of `terms`.
    ///
    /// Z3 4.8 does not honour its own time limit (nor `Z3_interrupt`) in every phase: it can
    /// spend minutes simplifying a query whose named terms nest deeply. So the query runs on a
    /// thread of its own, is interrupted at the time limit, and is abandoned (answer: a
    /// timeout) if it has not stopped shortly after; the thread then ends on its own, and the
    /// process does not wait for it.
    ///
    /// - Parameters:
    ///   - script: SMT-LIB 2 declarations and assertions.
    ///   - terms: terms whose model values are wanted.
    ///   - limits: the resource limit and the time limit for this query.
    static func check(_ script: String, values terms: [String], limits: SolverLimits) -> SolverAnswer {
        let timeoutMilliseconds = limits.timeoutMilliseconds
        let query = Query()
        let thread = Thread {
            query.finish(checkNow(script, values: terms, limits: limits, query: query))
        }
        // Z3 recurses on deep terms; give it more than a secondary thread's default stack.
        thread.stackSize = 64 << 20
        thread.start()
        let limit = DispatchTime.now() + .milliseconds(Int(timeoutMilliseconds))
        if let answer = query.wait(until: limit) { return answer }
        query.interrupt()
        if let answer = query.wait(until: .now() + .milliseconds(Int(interruptGraceMilliseconds))) { return answer }
        query.abandon()
        return .unknown("timeout (the query was abandoned)")
    }

    /// Runs the query on the calling thread; `query` holds the context while it lives, for an
    /// interrupt.
    private static func checkNow(_ script: String, values terms: [String], limits: SolverLimits, query: Query) -> SolverAnswer {
        guard let config = Z3_mk_config() else { return .unknown("cannot create a Z3 configuration") }
        Z3_set_param_value(config, "timeout", String(limits.timeoutMilliseconds))
        Z3_set_param_value(config, "model", "true")
        guard let context = Z3_mk_context(config) else {
            Z3_del_config(config)
            return .unknown("cannot create a Z3 context")
        }
        Z3_del_config(config)
        query.begin(context)
        defer {
            query.end()
            Z3_del_context(context)
        }
        // Errors from malformed input are reported as text by eval_smtlib2 instead of aborting.
        Z3_set_error_handler(context, nil)
        let head = "(set-option :timeout \(limits.timeoutMilliseconds))\n(set-option :random-seed \(randomSeed))\n"
            + "(set-option :rlimit \(limits.resourceLimit))\n"
        let loaded = run(context, head + script)
        // INVARIANT: the encoder writes well-formed SMT-LIB; an error here is a bug, never a verdict.
        if loaded.contains("(error") {
            return .unknown("internal error: the solver rejected the encoding (\(loaded.prefix(200))); please report the input")
        }
        let before = resourceCount(context)
        let started = Clocks.now()
        let status = run(context, "(check-sat)").trimmingCharacters(in: " \n")
        let after = resourceCount(context)
        let used = after > before ? after - before : 0
        if let log { append(log, limits: limits, status: status, used: used, started: started) }
        switch status {
        case "sat":
            guard !terms.isEmpty else { return .sat(values: "()") }
            let values = run(context, "(get-value (" + terms.joined(separator: " ") + "))")
            return .sat(values: values)
        case "unsat":
            return .unsat
        default:
            // Z3 4.8 calls both an exhausted rlimit and an interrupt "canceled": the count tells.
            if limits.resourceLimit > 0, used >= limits.resourceLimit { return .outOfResources }
            let reason = run(context, "(get-info :reason-unknown)").trimmingCharacters(in: " \n")
            return .unknown(status.hasPrefix("unknown") ? reason : status)
        }
    }

    /// Z3's resource count so far in `context` (`(get-info :rlimit)` prints `(:rlimit N)`).
    private static func resourceCount(_ context: Z3_context) -> UInt64 {
        let text = run(context, "(get-info :rlimit)")
        return UInt64(text.filter(\.isASCII).filter(\.isNumber)) ?? 0
    }

    /// `RULESKIT_SOLVER_LOG=FILE` appends a line per query to FILE, for measuring the resource
    /// limits: the limit, the time limit (ms), the status, the units used, wall and CPU time (ms).
    static let log = ProcessInfo.processInfo.environment["RULESKIT_SOLVER_LOG"]

    private static func append(_ path: String, limits: SolverLimits, status: String, used: UInt64, started: Clocks) {
        let now = Clocks.now()
        let line = "\(limits.resourceLimit)\t\(limits.timeoutMilliseconds)\t\(status)\t\(used)\t"
            + "\((now.wall &- started.wall) / 1_000_000)\t\((now.cpu &- started.cpu) / 1_000_000)\n"
        // One `write` with O_APPEND: lines of concurrent queries do not interleave.
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard fd >= 0 else { return }
        _ = line.withCString { write(fd, $0, strlen($0)) }
        close(fd)
    }

    /// Wall-clock and this thread's CPU time, in nanoseconds.
    private struct Clocks {
        var wall: UInt64
        var cpu: UInt64

        static func now() -> Clocks {
            var cpu = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu)
            return Clocks(wall: DispatchTime.now().uptimeNanoseconds, cpu: UInt64(clamping: cpu.tv_sec) &* 1_000_000_000 &+ UInt64(clamping: cpu.tv_nsec))
        }
    }

    private static func run(_ context: Z3_context, _ text: String) -> String {
        guard let output = Z3_eval_smtlib2_string(context, text) else { return "" }
        return String(cString: output)
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}

/// One query's answer and context, shared by the thread that runs it and the one that waits.
private final class Query: @unchecked Sendable {
    // INVARIANT: every field is read and written under `lock`; `context` is set only while the
    // context exists (it is interrupted only then).
    private let lock = NSLock()
    private let done = DispatchSemaphore(value: 0)
    private var context: Z3_context?
    private var answer: SolverAnswer?
    private var abandoned = false

    func begin(_ context: Z3_context) {
        lock.lock()
        self.context = context
        let interruptNow = abandoned
        lock.unlock()
        if interruptNow { interrupt() }
    }

    func end() {
        lock.lock()
        context = nil
        lock.unlock()
    }

    func finish(_ answer: SolverAnswer) {
        lock.lock()
        self.answer = answer
        lock.unlock()
        done.signal()
    }

    /// The answer, once there is one before `deadline`.
    func wait(until deadline: DispatchTime) -> SolverAnswer? {
        guard done.wait(timeout: deadline) == .success else { return nil }
        lock.lock()
        defer { lock.unlock() }
        return answer
    }

    func interrupt() {
        lock.lock()
        defer { lock.unlock() }
        if let context { Z3_interrupt(context) }
    }

    /// Nobody waits any more; the thread still ends (and deletes its context) by itself.
    func abandon() {
        lock.lock()
        abandoned = true
        lock.unlock()
    }
}
