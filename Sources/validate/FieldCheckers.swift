// Connects the validators to the batch engine: one FieldChecker per kind of field.
import BatchValidation

/// A rule pack directory or validator that cannot be set up.
struct CheckerSetupError: Error, CustomStringConvertible {
    var description: String
}

/// Builds the checker for a kind of field.
enum FieldCheckers {
    static func make(_ kind: FieldKind, rulesDirectory: String?) throws -> any FieldChecker {
        throw CheckerSetupError(description: "the \(kind) validator is not available yet")
    }
}
