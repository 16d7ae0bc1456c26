import FieldValidation

/// Checks one value given on its own (not read from a record) and renders the result as the
/// batch's JSONL record without `"record"`: `{"valid", "errors", "normalized"?, "key"?,
/// "mailboxKey"?, "strength"?}`.
///
/// The value goes through the same steps as a decoded JSONL field: an empty value or one
/// holding U+0000 is damaged (`input.empty`, `input.nul-byte`), anything else goes to the
/// checker with its context filled from the fixed one.
public struct ValueCheck: Sendable {
    private let checker: any FieldChecker
    private let writer: RecordWriter
    private let fixed: RecordContext

    /// Creates a check; `writer` decides what is shown (``WriterOptions/isSecret``,
    /// ``WriterOptions/includesKey``).
    public init(checker: any FieldChecker, writer: WriterOptions, fixedContext: RecordContext = RecordContext()) {
        self.checker = checker
        self.writer = RecordWriter(options: writer)
        self.fixed = fixedContext
    }

    /// Checks `value` (and, for passwords, its `confirmation`).
    ///
    /// - Returns: Whether it is valid, and the JSON object (no line feed).
    public func check(_ value: String, context: RecordContext = RecordContext(), confirmation: String? = nil) -> (isValid: Bool, json: [UInt8]) {
        var value = value
        let verdict = value.withUTF8 { bytes in
            DecodedFields(value: UnsafeRawBufferPointer(bytes), context: context, confirmation: confirmation)
                .verdict(checker: checker, fixed: fixed, detail: .full)
        }
        return (verdict.isValid, writer.object(verdict))
    }
}
