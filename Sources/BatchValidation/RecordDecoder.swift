/// Which field of a CSV or JSONL record to read.
public enum FieldSelector: Sendable, Hashable, CustomStringConvertible {
    /// A CSV header name or a JSONL key / dotted path (`user.email`).
    case name(String)
    /// A 1-based CSV column.
    case column(Int)

    /// Reads `--field` text: all digits means a column number, anything else a name.
    public init(_ text: String) {
        if let number = Int(text), number >= 1, text.allSatisfy(\.isASCII) { self = .column(number) } else { self = .name(text) }
    }

    public var description: String {
        switch self {
        case let .name(name): name
        case let .column(number): "column \(number)"
        }
    }
}

/// The fields to read from each record: the value to check plus optional password context.
public struct FieldSelection: Sendable, Hashable {
    /// The field to check (required for JSONL; CSV defaults to column 1; ignored for lines).
    public var value: FieldSelector?
    /// Where each record's username is (password context).
    public var username: FieldSelector?
    /// Where each record's email address is (password context).
    public var email: FieldSelector?
    /// Where each record's app name is (password context).
    public var appName: FieldSelector?
    /// Where each record's password confirmation is (`--confirm-field`); checkers receive it
    /// through ``FieldChecker/check(_:context:confirmation:detail:)``.
    public var confirmation: FieldSelector?
    /// Where each record's extra user inputs for the strength estimate are: an array of strings
    /// (`--user-inputs-field`, JSONL only), given to checkers as ``RecordContext/userInputs``.
    public var userInputs: FieldSelector?
    /// Whether a JSONL record without a context or confirmation field is damaged
    /// (`input.missing-field`, as the CLI's `--username-field` … `--confirm-field` require) or
    /// simply has none (the HTTP API, where they are optional members).
    public var contextRequired: Bool

    /// Creates a selection.
    public init(value: FieldSelector? = nil, username: FieldSelector? = nil, email: FieldSelector? = nil, appName: FieldSelector? = nil,
                confirmation: FieldSelector? = nil, userInputs: FieldSelector? = nil, contextRequired: Bool = true) {
        self.value = value
        self.username = username
        self.email = email
        self.appName = appName
        self.confirmation = confirmation
        self.userInputs = userInputs
        self.contextRequired = contextRequired
    }

    var hasContextFields: Bool { username != nil || email != nil || appName != nil || confirmation != nil || userInputs != nil }
}

/// The input formats `validate` reads.
public enum InputFormat: String, Sendable, CaseIterable {
    /// One value per line.
    case lines
    /// RFC 4180 CSV with a header row.
    case csv
    /// One JSON object per line.
    case jsonl

    var framing: Framing { self == .csv ? .csv : .lines }
}

/// A record's field bytes and context, valid for the duration of one closure call.
struct DecodedFields {
    var value: UnsafeRawBufferPointer
    var context: RecordContext
    /// The confirmation field's text, when one is selected (never printed).
    var confirmation: String? = nil
}

/// Turns one framed record into the field to check (lines: the record itself).
struct RecordDecoder: Sendable {
    enum Kind: Sendable {
        case lines
        /// 0-based columns, resolved against the file's header.
        case csv(value: Int, username: Int?, email: Int?, appName: Int?, confirmation: Int?, names: [Int: String])
        case jsonl(FieldSelection)
    }

    let kind: Kind

    /// Decodes `record` and calls `body` with the field, or returns the damage found.
    func withFields<R>(_ record: UnsafeRawBufferPointer, _ body: (DecodedFields) -> R) -> Result<R, InputDamage> {
        switch kind {
        case .lines:
            return .success(body(DecodedFields(value: record, context: RecordContext())))
        case let .csv(value, username, email, appName, confirmationColumn, names):
            let fields: [[UInt8]]
            switch decodeCSVRow(record) {
            case let .success(decoded): fields = decoded
            case let .failure(damage): return .failure(damage)
            }
            func column(_ index: Int?) -> Result<String?, InputDamage> {
                guard let index else { return .success(nil) }
                guard index < fields.count else { return .failure(.missingField(names[index] ?? "column \(index + 1)")) }
                return .success(String(validating: fields[index], as: UTF8.self))
            }
            guard value < fields.count else { return .failure(.missingField(names[value] ?? "column \(value + 1)")) }
            var context = RecordContext()
            switch (column(username), column(email), column(appName)) {
            case let (.success(u), .success(e), .success(a)): context = RecordContext(username: u, email: e, appName: a)
            case let (.failure(d), _, _), let (_, .failure(d), _), let (_, _, .failure(d)): return .failure(d)
            }
            var confirmation: String?
            if let confirmationColumn {
                guard confirmationColumn < fields.count else {
                    return .failure(.missingField(names[confirmationColumn] ?? "column \(confirmationColumn + 1)"))
                }
                confirmation = String(decoding: fields[confirmationColumn], as: UTF8.self)
            }
            return .success(fields[value].withUnsafeBytes {
                body(DecodedFields(value: $0, context: context, confirmation: confirmation))
            })
        case let .jsonl(selection):
            let object: JSONValue
            switch JSONParser.parseObject(record) {
            case let .success(parsed): object = parsed
            case let .failure(damage): return .failure(damage)
            }
            guard case let .name(path)? = selection.value else { return .failure(.missingField("(none)")) }
            let bytes: [UInt8]
            switch object.value(at: path) {
            case let .string(found)?: bytes = found
            case nil: return .failure(.missingField(path))
            default: return .failure(.notAString(path))
            }
            func text(_ selector: FieldSelector?) -> Result<String?, InputDamage> {
                guard case let .name(name)? = selector else { return .success(nil) }
                switch object.value(at: name) {
                case let .string(found)?: return .success(String(validating: found, as: UTF8.self))
                case .null?: return .success(nil)
                case nil where !selection.contextRequired: return .success(nil)
                case nil: return .failure(.missingField(name))
                default: return .failure(.notAString(name))
                }
            }
            var context = RecordContext()
            switch (text(selection.username), text(selection.email), text(selection.appName)) {
            case let (.success(u), .success(e), .success(a)): context = RecordContext(username: u, email: e, appName: a)
            case let (.failure(d), _, _), let (_, .failure(d), _), let (_, _, .failure(d)): return .failure(d)
            }
            if case let .name(name)? = selection.userInputs {
                switch object.value(at: name) {
                case let .array(elements)?:
                    var inputs: [String] = []
                    for element in elements {
                        guard case let .string(found) = element else { return .failure(.notAStringArray(name)) }
                        inputs.append(String(decoding: found, as: UTF8.self))
                    }
                    context.userInputs = inputs
                case .null?: break
                case nil where !selection.contextRequired: break
                case nil: return .failure(.missingField(name))
                default: return .failure(.notAStringArray(name))
                }
            }
            var confirmation: String?
            if case let .name(name)? = selection.confirmation {
                // Unlike context fields, a null confirmation is not "none given": it cannot match.
                switch object.value(at: name) {
                case let .string(found)?: confirmation = String(decoding: found, as: UTF8.self)
                case nil where !selection.contextRequired: break
                case nil: return .failure(.missingField(name))
                default: return .failure(.notAString(name))
                }
            }
            return .success(bytes.withUnsafeBytes { body(DecodedFields(value: $0, context: context, confirmation: confirmation)) })
        }
    }
}

/// A header problem that makes a whole CSV input unusable (reported like an unreadable file).
struct HeaderError: Error {
    var reason: String
}

extension RecordDecoder {
    /// Builds the decoder for one input; for CSV, resolves names against its `header` row.
    static func make(format: InputFormat, fields: FieldSelection, header: UnsafeRawBufferPointer?) throws(HeaderError) -> RecordDecoder {
        switch format {
        case .lines: return RecordDecoder(kind: .lines)
        case .jsonl: return RecordDecoder(kind: .jsonl(fields))
        case .csv:
            var names: [String] = []
            if let header {
                switch decodeCSVRow(header) {
                case let .success(row): names = row.map { String(decoding: $0, as: UTF8.self) }
                case let .failure(damage): throw HeaderError(reason: "the header row is not valid CSV: \(damage.message)")
                }
            }
            func resolve(_ selector: FieldSelector?) throws(HeaderError) -> Int? {
                switch selector {
                case nil: return nil
                case let .column(number)?: return number - 1
                case let .name(name)?:
                    guard let index = names.firstIndex(of: name) else {
                        let known = names.map { "`\($0)`" }.joined(separator: ", ")
                        throw HeaderError(reason: "no column `\(name)` in the header (columns: \(known))")
                    }
                    return index
                }
            }
            let value = try resolve(fields.value) ?? 0
            var labels: [Int: String] = [:]
            for (index, name) in names.enumerated() { labels[index] = name }
            return RecordDecoder(kind: .csv(value: value, username: try resolve(fields.username),
                                            email: try resolve(fields.email), appName: try resolve(fields.appName),
                                            confirmation: try resolve(fields.confirmation), names: labels))
        }
    }
}
