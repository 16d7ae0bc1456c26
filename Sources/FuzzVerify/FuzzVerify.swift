// libFuzzer target for VerifyHarness: generated rules and properties, verdicts checked against
// the evaluator (a no-op executable in a normal build; see scripts/fuzz).
import FuzzHarness

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    runFuzzInput(data, size, VerifyHarness.run)
}
