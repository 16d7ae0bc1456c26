// Z3Solver: the one Swift wrapper over Z3's C API. Problems are SMT-LIB 2 text, run through
// `Z3_eval_smtlib2_string` in a fresh context per query, so nothing else needs Z3 handles.
import CZ3

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
    /// Checks `script` (declarations and assertions, without `check-sat`) and, when satisfiable,
    /// asks for the values of `terms`.
    ///
    /// - Parameters:
    ///   - script: SMT-LIB 2 declarations and assertions.
    ///   - terms: terms whose model values are wanted.
    ///   - timeoutMilliseconds: the solver's own time limit for this query.
    static func check(_ script: String, values terms: [String], timeoutMilliseconds: UInt32) -> SolverAnswer {
        guard let config = Z3_mk_config() else { return .unknown("cannot create a Z3 configuration") }
        Z3_set_param_value(config, "timeout", String(timeoutMilliseconds))
        Z3_set_param_value(config, "model", "true")
        guard let context = Z3_mk_context(config) else {
            Z3_del_config(config)
            return .unknown("cannot create a Z3 context")
        }
        Z3_del_config(config)
        defer { Z3_del_context(context) }
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
