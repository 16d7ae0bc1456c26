// EvaluationError: why an expression produced an error instead of a value (RL3xxx).
import Diagnostics

/// An error raised while evaluating an expression. Errors make a condition deny; `&&`/`||`
/// absorb ordinary errors, but never a limit error (`isLimit`), which denies the whole request.
public struct EvaluationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable code (`RL3001` …).
    public var code: String
    /// Terse developer-facing text, e.g. "property `age` is undefined on object".
    public var message: String
    /// The sub-expression where the error arose (nil when it has no source location).
    public var span: SourceSpan?
    /// True for exceeded limits (call depth, lookups, evaluation steps): not absorbable.
    public var isLimit: Bool

    /// Creates an error.
    public init(code: String, message: String, span: SourceSpan? = nil, isLimit: Bool = false) {
        self.code = code
        self.message = message
        self.span = span
        self.isLimit = isLimit
    }

    /// `error[CODE]: message`.
    public var description: String { "error[\(code)]: \(message)" }

    // MARK: - Constructors for the stable codes

    static func undefinedProperty(_ key: String, _ span: SourceSpan?) -> EvaluationError {
        EvaluationError(code: RulesLanguageCodes.undefinedProperty.id, message: "property `\(key)` is undefined on object", span: span)
    }

    static func nullValue(_ what: String, _ span: SourceSpan?) -> EvaluationError {
        EvaluationError(code: RulesLanguageCodes.nullValue.id, message: "null value error: \(what)", span: span)
    }

    static func unsupported(_ what: String, _ span: SourceSpan?) -> EvaluationError {
        EvaluationError(code: RulesLanguageCodes.unsupportedOperation.id, message: "unsupported operation: \(what)", span: span)
    }

    static func divideByZero(_ span: SourceSpan?) -> EvaluationError {
        EvaluationError(code: RulesLanguageCodes.divideByZero.id, message: "divide by zero", span: span)
    }

    static func indexOutOfRange(_ index: Int64, size: Int, _ span: SourceSpan?) -> EvaluationError {
        EvaluationError(code: RulesLanguageCodes.indexOutOfRange.id, message: "index out of bounds: index \(index), size \(size)", span: span)
    }

    static func functionNotFound(_ name: String, _ span: SourceSpan?) -> EvaluationError {
        EvaluationError(code: RulesLanguageCodes.functionNotFound.id, message: "function not found: `\(name)`", span: span)
    }

    static func notBoolean(_ value: Value, _ span: SourceSpan?) -> EvaluationError {
        EvaluationError(code: RulesLanguageCodes.notBool.id, message: "condition is \(value.typeName) `\(value)`, not bool", span: span)
    }

    static func invalidArgument(_ what: String, _ span: SourceSpan?) -> EvaluationError {
        EvaluationError(code: RulesLanguageCodes.invalidArgument.id, message: "invalid argument: \(what)", span: span)
    }

    static func overflow(_ span: SourceSpan?) -> EvaluationError {
        EvaluationError(code: RulesLanguageCodes.integerOverflow.id, message: "integer overflow", span: span)
    }

    static func workLimit(_ limit: Int, _ span: SourceSpan?) -> EvaluationError {
        EvaluationError(code: RulesLanguageCodes.workLimit.id, message: "built-in operations did more than \(limit) units of work for one request",
                        span: span, isLimit: true)
    }

    /// `RL3025`: `operation` would build a value of `size` units (`bytes`, `elements`, `segments`).
    static func valueTooLarge(_ operation: String, size: Int, unit: String, limit: Int, _ span: SourceSpan?) -> EvaluationError {
        EvaluationError(code: RulesLanguageCodes.valueTooLarge.id, message: "\(operation) would build a value of \(size) \(unit), more than the limit of \(limit)",
                        span: span, isLimit: true)
    }
}
