// libFuzzer target for DatabaseEvalHarness (a no-op executable in a normal build; see scripts/fuzz).
import FuzzHarness

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    runFuzzInput(data, size, DatabaseEvalHarness.run)
}
