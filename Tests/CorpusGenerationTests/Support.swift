import BatchValidation
import FieldValidation
import Foundation
import RulesTestSupport


func repoPath(_ relative: String) -> String { packageRoot.appendingPathComponent(relative).path }

/// The three validators with the shipped packs, built once.
enum Validators {
    static let displayName = try? DisplayNameValidator()
    static let email = try? EmailValidator()
    static let password = try? PasswordValidator()
}

/// A unique scratch path under the temporary directory.
func scratchPath(_ suffix: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("corpus-\(UUID().uuidString)\(suffix)").path
}

/// A batch checker over a validator's byte entry point, as the CLI wires it.
struct ValidatorChecker: FieldChecker {
    let check: @Sendable (UnsafeRawBufferPointer) -> ValidationResult

    func check(_ value: UnsafeRawBufferPointer, context: RecordContext, detail: OutcomeDetail) -> FieldOutcome {
        FieldOutcome(violations: check(value).violations)
    }
}

/// Runs the batch engine over one input file and returns its JSONL output lines.
func runBatch(_ bytes: [UInt8], format: InputFormat, checker: any FieldChecker) throws -> [String] {
    let input = scratchPath("-in")
    let output = scratchPath("-out")
    let errors = scratchPath("-err")
    defer { for path in [input, output, errors] { try? FileManager.default.removeItem(atPath: path) } }
    try Data(bytes).write(to: URL(fileURLWithPath: input))
    let configuration = BatchConfiguration(input: format, fields: FieldSelection(value: FieldSelector("value")),
                                           writer: WriterOptions(format: .jsonl), jobs: 2)
    _ = BatchRunner(configuration: configuration, checker: checker,
                    output: try OutputSink.file(output), errors: try OutputSink.file(errors))
        .run([InputSpec(path: input)])
    let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: output)), as: UTF8.self)
    return text.split(separator: "\n").map(String.init)
}
