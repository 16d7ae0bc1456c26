#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Patterns

/// Why a record could not be checked at all. Each case has a stable code (`input.*`).
///
/// A damaged record still produces exactly one output record (`valid: false`), and processing
/// continues with the next one. Messages never quote the record's content.
public enum InputDamage: Error, Sendable, Hashable {
    /// The record is not well-formed UTF-8; `offset` is the first bad byte within the record.
    case invalidUTF8(offset: Int)
    /// The record contains a NUL byte at `offset`.
    case nulByte(offset: Int)
    /// The record (or its selected field) is empty.
    case empty
    /// The record is longer than `limit` bytes.
    case tooLong(limit: Int)
    /// A JSONL record is not a JSON object; `detail` says what is wrong and where.
    case malformedJSON(String)
    /// A JSONL record repeats a key within one object; `detail` names the key and its offset.
    /// Parsers disagree on which value wins (RFC 8259 section 4), so none is chosen.
    case duplicateKey(String)
    /// A CSV record breaks RFC 4180 quoting; `detail` says what is wrong.
    case malformedCSV(String)
    /// The record has no field with this name or column.
    case missingField(String)
    /// The field exists but is not a string (JSONL).
    case notAString(String)
    /// The field exists but is not an array of strings (JSONL, `--user-inputs-field`).
    case notAStringArray(String)
    /// No more input arrived for `seconds` (a streamed batch whose sender stalled): the input
    /// ends at this record, which is not checked.
    case idleTimeout(seconds: Int)

    /// The stable code, e.g. `input.invalid-utf8`.
    public var code: String {
        switch self {
        case .invalidUTF8: "input.invalid-utf8"
        case .nulByte: "input.nul-byte"
        case .empty: "input.empty"
        case .tooLong: "input.too-long"
        case .malformedJSON: "input.malformed-json"
        case .duplicateKey: "input.duplicate-key"
        case .malformedCSV: "input.malformed-csv"
        case .missingField: "input.missing-field"
        case .notAString: "input.not-a-string"
        case .notAStringArray: "input.not-a-string-array"
        case .idleTimeout: "input.idle-timeout"
        }
    }

    /// A full sentence for the person reading the output.
    public var message: String {
        switch self {
        case let .invalidUTF8(offset): "The record is not valid UTF-8 (first bad byte at offset \(offset))."
        case let .nulByte(offset): "The record contains a NUL byte (at offset \(offset))."
        case .empty: "The record is empty."
        case let .tooLong(limit): "The record is longer than the limit of \(limit) bytes."
        case let .malformedJSON(detail): "The record is not a valid JSON object: \(detail)."
        case let .duplicateKey(detail): "The record repeats a key: \(detail)."
        case let .malformedCSV(detail): "The record is not valid CSV: \(detail)."
        case let .missingField(field): "The record has no field `\(field)`."
        case let .notAString(field): "The field `\(field)` is not a string."
        case let .notAStringArray(field): "The field `\(field)` is not an array of strings."
        case let .idleTimeout(seconds):
            "No more input arrived for \(seconds) second\(seconds == 1 ? "" : "s"); the input ends before this record."
        }
    }

    /// Checks bytes every record must pass before decoding: not empty, no NUL, valid UTF-8.
    static func scan(_ bytes: UnsafeRawBufferPointer) -> InputDamage? {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return .empty }
        if let nul = memchr(base, 0, bytes.count) {
            return .nulByte(offset: UnsafeRawPointer(nul) - base)
        }
        if let bad = firstInvalidUTF8Offset(bytes) { return .invalidUTF8(offset: bad) }
        return nil
    }
}
