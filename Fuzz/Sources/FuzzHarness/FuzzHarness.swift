// FuzzHarness: the checks each fuzz target runs on one input, as plain functions.
// The libFuzzer executable (`fuzz`, this package, built by scripts/fuzz) runs the harness that
// RULESKIT_FUZZ_TARGET names and traps when it reports a problem; the tests (FuzzHarnessTests,
// run by scripts/fuzz-test) replay the seed corpora and every minimized crash in
// corpus/regressions/ through the same code.
// Adding a target: a harness function here and one line in `FuzzTargets.all` (docs/FUZZING.md).
import Foundation

/// The repository's root folder (the one holding `rules/` and `corpus/`): this file is
/// `Fuzz/Sources/FuzzHarness/FuzzHarness.swift` under it.
public let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A broken invariant found while running one fuzz input.
public struct FuzzFinding: Error, CustomStringConvertible, Sendable {
    /// What went wrong, in one line.
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// The fuzz entry points by target name, for tests that replay corpora.
public enum FuzzTargets {
    /// Every harness, keyed by the fuzz target (and corpus directory) name.
    public static let all: [String: @Sendable (UnsafeRawBufferPointer) -> [FuzzFinding]] = [
        "FuzzPattern": PatternHarness.run,
        "FuzzDisplayName": DisplayNameHarness.run,
        "FuzzEmail": EmailHarness.run,
        "FuzzPassword": PasswordHarness.run,
        "FuzzStrength": StrengthHarness.run,
        "FuzzRulePack": RulePackHarness.run,
        "FuzzRulesParser": RulesParserHarness.run,
        "FuzzRulesEval": RulesEvalTarget.run,
        "FuzzRecordReader": RecordReaderHarness.run,
        "FuzzRecordReaderJobs": RecordReaderJobsHarness.run,
        "FuzzRulesCaseFile": CaseFileHarness.run,
        "FuzzRulesRequestFile": RequestFileHarness.run,
        "FuzzDatabaseParser": DatabaseParserHarness.run,
        "FuzzDatabaseEval": DatabaseEvalHarness.run,
        "FuzzVerify": VerifyHarness.run,
        "FuzzDiff": DiffHarness.run,
        "FuzzDatabaseDiff": DatabaseDiffHarness.run,
        "FuzzRulesDocuments": DocumentReadersHarness.run,
        "FuzzPackCompiler": PackCompilerHarness.run,
        "FuzzBreached": BreachedHarness.run,
    ]
}

/// Runs a harness on libFuzzer's buffer and traps on the first finding, so libFuzzer records it.
public func runFuzzInput(
    _ data: UnsafePointer<UInt8>, _ size: Int,
    _ harness: (UnsafeRawBufferPointer) -> [FuzzFinding]
) -> Int32 {
    let findings = harness(UnsafeRawBufferPointer(start: data, count: size))
    if let first = findings.first {
        fatalError("fuzz finding: \(first)")
    }
    return 0
}
