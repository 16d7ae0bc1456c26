@testable import BatchValidation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A toy checker: a value is valid when it is only ASCII lowercase letters and does not
/// contain the record's username. `normalized` is the value, `key` its length.
let toyChecker = ClosureChecker { value, context in
    var violations: [FieldViolation] = []
    if !value.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) }) {
        violations.append(FieldViolation(code: "TOY1", rule: "toy.lowercase", message: "Only lowercase letters."))
    }
    if let username = context.username, value.contains(username) {
        violations.append(FieldViolation(code: "TOY2", rule: "toy.username", message: "Contains the username."))
    }
    return FieldOutcome(violations: violations, normalized: value, key: String(value.utf8.count))
}

/// A unique scratch file path.
func temporaryPath(_ suffix: String) -> String {
    var template = Array("/tmp/batchvalidation-XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    close(fd)
    let base = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    unlink(base)
    return base + suffix
}

func writeFile(_ path: String, _ bytes: [UInt8]) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
}

func readFile(_ path: String) -> String {
    let fd = open(path, O_RDONLY)
    defer { close(fd) }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let got = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if got <= 0 { break }
        out += buffer[..<got]
    }
    return String(decoding: out, as: UTF8.self)
}

/// Runs the engine over `inputs` (each written to its own file) and returns output and report.
func runBatch(_ inputs: [[UInt8]], _ configuration: BatchConfiguration, checker: any FieldChecker = toyChecker) throws -> (output: String, errors: String, report: BatchReport) {
    let paths = inputs.enumerated().map { index, bytes in
        let path = temporaryPath("-in\(index)")
        writeFile(path, bytes)
        return path
    }
    let outPath = temporaryPath("-out")
    let errPath = temporaryPath("-err")
    let report = BatchRunner(configuration: configuration, checker: checker,
                             output: try OutputSink.file(outPath), errors: try OutputSink.file(errPath))
        .run(paths.map(InputSpec.init(path:)))
    defer { for path in paths + [outPath, errPath] { unlink(path) } }
    return (readFile(outPath), readFile(errPath), report)
}

func runBatch(_ input: String, _ configuration: BatchConfiguration, checker: any FieldChecker = toyChecker) throws -> (output: String, errors: String, report: BatchReport) {
    try runBatch([Array(input.utf8)], configuration, checker: checker)
}

func lines(_ text: String) -> [String] {
    text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
}

/// A deterministic generator (SplitMix64) for tests that draw random inputs. Each test prints
/// its seed in every failure message; `RULESKIT_TEST_SEED=N swift test --filter …` replays it.
struct SeededGenerator: RandomNumberGenerator {
    /// The seed this generator started from.
    let seed: UInt64
    private var state: UInt64

    /// Starts from `seed`, or from `RULESKIT_TEST_SEED` when set, else from a fresh random seed.
    init(seed: UInt64? = nil) {
        let chosen = seed ?? getenv("RULESKIT_TEST_SEED").flatMap { UInt64(String(cString: $0)) } ?? UInt64.random(in: 0 ... .max)
        self.seed = chosen
        self.state = chosen
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
