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
}

/// Runs SMT-LIB 2 problems through Z3.
///
/// One context per call: contexts are not thread-safe, and a fresh one keeps queries independent.
enum Z3Solver {
    /// How long past its time limit a query may take to notice an interrupt before it is
    /// abandoned, in milliseconds.
    static let interruptGraceMilliseconds: UInt32 = 250

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
    ///   - timeoutMilliseconds: the time limit for this query.
    static func check(_ script: String, values terms: [String], timeoutMilliseconds: UInt32) -> SolverAnswer {
        let query = Query()
        let thread = Thread {
            query.finish(checkNow(script, values: terms, timeoutMilliseconds: timeoutMilliseconds, query: query))
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
    private static func checkNow(_ script: String, values terms: [String], timeoutMilliseconds: UInt32, query: Query) -> SolverAnswer {
        guard let config = Z3_mk_config() else { return .unknown("cannot create a Z3 configuration") }
        Z3_set_param_value(config, "timeout", String(timeoutMilliseconds))
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
        let head = "(set-option :timeout \(timeoutMilliseconds))\n"
        let loaded = run(context, head + script)
        // INVARIANT: the encoder writes well-formed SMT-LIB; an error here is a bug, never a verdict.
        if loaded.contains("(error") {
            return .unknown("internal error: the solver rejected the encoding (\(loaded.prefix(200))); please report the input")
        }
        let status = run(context, "(check-sat)").trimmingCharacters(in: " \n")
        switch status {
        case "sat":
            guard !terms.isEmpty else { return .sat(values: "()") }
            let values = run(context, "(get-value (" + terms.joined(separator: " ") + "))")
            return .sat(values: values)
        case "unsat":
            return .unsat
        default:
            let reason = run(context, "(get-info :reason-unknown)").trimmingCharacters(in: " \n")
            return .unknown(status.hasPrefix("unknown") ? reason : status)
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
