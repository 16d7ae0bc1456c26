// BatchEngineBenchmark: the BatchValidation engine alone, with grep's display-name pattern as the
// checker, so the engine's own cost can be compared with `grep -cP` independently of the
// FieldValidation validators. Used by Benchmarks/compare-cli.sh.
//
// Usage: BatchEngineBenchmark FILE [summary|jsonl] [JOBS]
import BatchValidation
import Patterns
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Valid when the whole field matches the display-name pattern (one PCRE2 JIT match).
struct PatternChecker: FieldChecker {
    let pattern: Pattern
    static let violation = FieldViolation(code: "DN000", rule: "display-name.pattern", message: "Username is not valid.")

    func check(_ value: UnsafeRawBufferPointer, context: RecordContext, detail: OutcomeDetail) -> FieldOutcome {
        let matched = (try? pattern.matches(utf8: value)) ?? false
        guard matched else { return FieldOutcome(violations: [Self.violation]) }
        return detail == .full ? FieldOutcome(normalized: String(decoding: value, as: UTF8.self)) : FieldOutcome()
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    OutputSink.standardError().write("usage: BatchEngineBenchmark FILE [summary|jsonl] [JOBS]\n")
    exit(64)
}
let format: OutputFormat = arguments.count > 2 && arguments[2] == "jsonl" ? .jsonl : .summary
let jobs = arguments.count > 3 ? Int(arguments[3]) ?? BatchConfiguration.activeCores : BatchConfiguration.activeCores
do {
    let pattern = try Pattern(#"(?!\.)(?!.*\.\.)(?!.*\.$)[A-Za-z0-9._]{3,30}"#)
    let configuration = BatchConfiguration(writer: WriterOptions(format: format), jobs: jobs)
    let report = BatchRunner(configuration: configuration, checker: PatternChecker(pattern: pattern),
                             output: .standardOutput(), errors: .standardError()).run([InputSpec(path: arguments[1])])
    exit(report.exitStatus == 2 ? 2 : 0)
} catch {
    OutputSink.standardError().write("BatchEngineBenchmark: \(error)\n")
    exit(2)
}
