// The libFuzzer entry point. `RULESKIT_FUZZ_TARGET` names the harness (a key of
// `FuzzTargets.all`, e.g. `FuzzRulesParser`); scripts/fuzz sets it. The file must not be called
// main.swift: it holds only globals and the `@_cdecl` function.
import FuzzHarness
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The harness named by `RULESKIT_FUZZ_TARGET`; exits with status 64 when it names none.
let harness: @Sendable (UnsafeRawBufferPointer) -> [FuzzFinding] = {
    let name = getenv("RULESKIT_FUZZ_TARGET").map { String(cString: $0) } ?? ""
    guard let harness = FuzzTargets.all[name] else {
        let known = FuzzTargets.all.keys.sorted().joined(separator: ", ")
        let message = Array("fuzz: set RULESKIT_FUZZ_TARGET to one of \(known) (got `\(name)`)\n".utf8)
        _ = message.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        exit(64)
    }
    return harness
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    runFuzzInput(data, size, harness)
}
