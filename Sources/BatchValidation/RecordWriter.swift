/// The output formats `validate` writes.
public enum OutputFormat: String, Sendable, CaseIterable {
    /// One line per record for people, then a summary.
    case text
    /// One JSON object per record (the `validate` record contract).
    case jsonl
    /// One CSV row per record after a header row.
    case csv
    /// Totals and counts per code, as text.
    case summary
    /// Totals and counts per code, as one JSON object.
    case summaryJSON = "summary-json"

    /// True when the format writes one entry per record.
    public var isPerRecord: Bool { self == .text || self == .jsonl || self == .csv }
}

/// Which records the per-record formats write (summaries always count every record).
public enum RecordFilter: String, Sendable, CaseIterable {
    /// Every record.
    case all
    /// Only records that failed.
    case invalid
    /// Only records that passed.
    case valid

    func admits(_ isValid: Bool) -> Bool {
        switch self {
        case .all: true
        case .invalid: !isValid
        case .valid: isValid
        }
    }
}

/// How records are rendered.
public struct WriterOptions: Sendable, Hashable {
    /// The output format.
    public var format: OutputFormat
    /// Which records to write.
    public var only: RecordFilter
    /// Whether the field is secret (passwords): then neither the input nor `normalized` is ever
    /// written, whatever the format.
    public var isSecret: Bool
    /// Whether records carry a uniqueness key column/field (display names).
    public var includesKey: Bool
    /// Whether to colour `text` output (decided by the caller: a TTY and no `NO_COLOR`).
    public var color: Bool
    /// Whether records name their input file (several inputs in one run).
    public var showsFile: Bool
    /// Whether JSONL records carry `"strength"` (null for a damaged record) and summaries a
    /// histogram of strength scores (`validate password --strength`).
    public var includesStrength: Bool

    /// Creates options.
    public init(format: OutputFormat, only: RecordFilter = .all, isSecret: Bool = false, includesKey: Bool = false,
                color: Bool = false, showsFile: Bool = false, includesStrength: Bool = false) {
        self.format = format
        self.only = only
        self.isSecret = isSecret
        self.includesKey = includesKey
        self.color = color
        self.showsFile = showsFile
        self.includesStrength = includesStrength
    }
}

/// Renders records, headers and summaries as UTF-8 bytes.
struct RecordWriter: Sendable {
    let options: WriterOptions

    /// Written once before the first record.
    func header(into out: inout [UInt8]) {
        guard options.format == .csv else { return }
        var columns = options.showsFile ? ["file"] : []
        columns += ["record", "valid", "codes", "messages"]
        if !options.isSecret { columns.append("normalized") }
        if options.includesKey { columns.append("key") }
        out.append(contentsOf: columns.joined(separator: ",").utf8)
        out.append(0x0A)
    }

    /// The bytes every JSONL record of `file` starts with, up to its number (rendered once per
    /// input).
    func jsonlPrefix(file: String) -> [UInt8] {
        var prefix: [UInt8] = []
        prefix.append(#"{"#)
        if options.showsFile {
            prefix.append(#""file": "#); appendJSON(file, &prefix); prefix.append(", ")
        }
        prefix.append(#""record": "#)
        return prefix
    }

    /// Writes one record, if the format and filter want it; `prefix` is ``jsonlPrefix(file:)``
    /// and `rendered` keeps the JSON of violations already written.
    func record(file: String, prefix: [UInt8], number: Int, value: UnsafeRawBufferPointer?, verdict: Verdict,
                rendered: inout RenderedViolations, into out: inout [UInt8]) {
        guard options.format.isPerRecord, options.only.admits(verdict.isValid) else { return }
        let shown = shown(verdict)
        switch options.format {
        case .jsonl:
            jsonl(prefix, number, verdict.isValid, shown, strength(verdict), &rendered, &out)
        case .csv: csv(file, number, verdict.isValid, shown.violations, shown.normalized, shown.key, &out)
        case .text: text(file, number, verdict.isValid, options.isSecret ? nil : value, shown.violations, shown.normalized, &out)
        case .summary, .summaryJSON: break
        }
    }

    /// What a record shows of a verdict: its violations (a damaged record's one), and the
    /// normalized value, key and mailbox key unless the field is secret.
    private func shown(_ verdict: Verdict) -> Shown {
        switch verdict {
        case let .damaged(damage):
            Shown(violations: [FieldViolation(code: damage.code, rule: damage.code, message: damage.message)])
        case let .checked(outcome) where options.isSecret:
            Shown(violations: outcome.violations)
        case let .checked(outcome):
            Shown(violations: outcome.violations, normalized: outcome.normalized, key: outcome.key, mailboxKey: outcome.mailboxKey)
        }
    }

    /// What ``shown(_:)`` gives.
    private struct Shown {
        var violations: [FieldViolation]
        var normalized: String?
        var key: String?
        /// Written in JSONL only, whenever the checker put one in the outcome (the email checker
        /// does when asked, for JSONL output; CSV keeps its header).
        var mailboxKey: String?
    }

    /// The `"strength"` member of a record: none when the options leave it out; a damaged
    /// record's is null.
    private func strength(_ verdict: Verdict) -> [UInt8]? {
        guard options.includesStrength else { return nil }
        guard case let .checked(outcome) = verdict, let report = outcome.strength else { return Array("null".utf8) }
        return Self.strengthJSON(report)
    }

    /// `{"score": …, "guessesLog10": …, "warning": {"code": …, "message": …} | null, "suggestions": [{"code": …, "message": …}]}`.
    static func strengthJSON(_ report: StrengthReport) -> [UInt8] {
        func feedback(_ line: StrengthReport.Feedback, _ out: inout [UInt8]) {
            out.append(#"{"code": "#); appendJSON(line.code, &out)
            out.append(#", "message": "#); appendJSON(line.message, &out)
            out.append(UInt8(ascii: "}"))
        }
        var out: [UInt8] = []
        out.append(utf8: #"{"score": \#(report.score), "guessesLog10": \#(report.guessesLog10.isFinite ? report.guessesLog10 : 0), "warning": "#)
        if let warning = report.warning { feedback(warning, &out) } else { out.append("null") }
        out.append(#", "suggestions": ["#)
        for (index, line) in report.suggestions.enumerated() {
            if index > 0 { out.append(", ") }
            feedback(line, &out)
        }
        out.append("]}")
        return out
    }

    /// The JSONL record of `verdict` without its `"record"` (and `"file"`) member and without the
    /// line feed: `{"valid", "errors", "normalized"?, "key"?, "mailboxKey"?, "strength"?}`, as one
    /// JSON object.
    func object(_ verdict: Verdict) -> [UInt8] {
        var rendered = RenderedViolations()
        var out: [UInt8] = []
        jsonl(nil, 0, verdict.isValid, shown(verdict), strength(verdict), &rendered, &out)
        out.removeLast()
        return out
    }

    /// True when valid-as-is records are JSONL written straight from the bytes
    /// (``writeValidAsIs(head:value:plain:into:)``).
    var writesValidAsIsDirectly: Bool { options.format == .jsonl && !options.isSecret && options.only.admits(true) }

    /// The most ``writeValidAsIs(head:value:plain:into:)`` writes: every byte escaped (6×), plus the
    /// 8 bytes a short value's word may store past its end.
    func validAsIsCapacity(head: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Int {
        // Wrapping arithmetic: 12 × a record held in memory cannot overflow.
        88 &+ head.count &+ 12 &* value.count
    }

    /// The JSONL record of a valid-as-is value, after `head` (``RecordHead``). `plain` promises
    /// that no byte of the value needs an escape (``FieldChecker/validAsIsArePlainASCII``).
    @inline(__always)
    func writeValidAsIs(head: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, plain: Bool, into cursor: inout ByteCursor) {
        cursor.writeWords(head)
        cursor.writeWords(#", "valid": true, "errors": [], "normalized": "#)
        // The commonest value, short and plain, is loaded once and written twice.
        if plain, let short = ShortValue(value) {
            cursor.writeQuoted(short)
            if options.includesKey {
                cursor.writeWords(#", "key": "#)
                cursor.writeQuoted(short.lowercased)
            }
        } else {
            writeValueAndKey(value, into: &cursor)
        }
        cursor.write(UInt8(ascii: "}"))
        cursor.write(0x0A)
    }

    /// The value and key of ``writeValidAsIs(head:value:plain:into:)``, any value.
    private func writeValueAndKey(_ value: UnsafeRawBufferPointer, into cursor: inout ByteCursor) {
        let plain = cursor.writeJSONValue(value, lowercased: false)
        if options.includesKey {
            cursor.writeWords(#", "key": "#)
            // Lowercasing creates no byte that needs an escape.
            cursor.writeJSONValue(value, lowercased: true, knownPlain: plain)
        }
    }

    /// True when invalid records whose violations are known by rule (``FieldChecker/violatedRules(_:)``)
    /// can be written from their `errors` alone (``writeInvalid(head:errors:into:)``).
    var writesInvalidFromErrors: Bool { options.format == .jsonl && options.only.admits(false) }

    /// The JSONL record of an invalid value whose violations are `errors` (``errorsJSON(_:)``),
    /// after `head` (``RecordHead``): at most `head.count + errors.count + 32` bytes.
    func writeInvalid(head: UnsafeRawBufferPointer, errors: UnsafeRawBufferPointer, into cursor: inout ByteCursor) {
        cursor.writeWords(head)
        cursor.writeWords(#", "valid": false, "errors": "#)
        // An `errors` array is long enough (about 100 bytes a violation) for `memcpy`.
        cursor.write(errors)
        cursor.write(UInt8(ascii: "}"))
        cursor.write(0x0A)
    }

    /// The `errors` array of a JSONL record: `[{"code": …, "rule": …, "message": …}, …]`.
    static func errorsJSON(_ violations: [FieldViolation]) -> [UInt8] {
        var json: [UInt8] = [UInt8(ascii: "[")]
        for (index, violation) in violations.enumerated() {
            if index > 0 { json.append(", ") }
            json += RenderedViolations.render(violation)
        }
        json.append(UInt8(ascii: "]"))
        return json
    }

    // MARK: - Per-record formats

    /// One JSONL record: `prefix` and `number`, or, with no prefix, the object without them.
    private func jsonl(_ prefix: [UInt8]?, _ number: Int, _ valid: Bool, _ shown: Shown, _ strength: [UInt8]?,
                       _ rendered: inout RenderedViolations, _ out: inout [UInt8]) {
        let violations = shown.violations
        var capacity = (prefix?.count ?? 0) + 120 + 6 * (shown.normalized?.utf8.count ?? 0) + 6 * (shown.key?.utf8.count ?? 0)
            + (strength?.count ?? 0)
        if let mailboxKey = shown.mailboxKey { capacity += 24 + 6 * mailboxKey.utf8.count }
        for violation in violations { capacity += rendered.size(violation) + 2 }
        // One copy into `out` for the whole record.
        out.appendWritten(capacity: capacity) { cursor in
            if let prefix {
                prefix.withUnsafeBytes { cursor.write($0) }
                cursor.writeDecimal(number)
                cursor.write(", ")
            } else {
                cursor.write(UInt8(ascii: "{"))
            }
            cursor.write(valid ? #""valid": true, "errors": ["# : #""valid": false, "errors": ["#)
            for (index, violation) in violations.enumerated() {
                if index > 0 { cursor.write(", ") }
                rendered.write(violation, into: &cursor)
            }
            cursor.write(UInt8(ascii: "]"))
            if let normalized = shown.normalized {
                cursor.write(#", "normalized": "#); cursor.writeJSON(normalized)
            }
            if let key = shown.key, options.includesKey {
                cursor.write(#", "key": "#); cursor.writeJSON(key)
            }
            if let mailboxKey = shown.mailboxKey {
                cursor.write(#", "mailboxKey": "#); cursor.writeJSON(mailboxKey)
            }
            if let strength {
                cursor.write(#", "strength": "#)
                strength.withUnsafeBytes { cursor.write($0) }
            }
            cursor.write("}\n")
        }
    }

    private func csv(_ file: String, _ number: Int, _ valid: Bool, _ violations: [FieldViolation],
                     _ normalized: String?, _ key: String?, _ out: inout [UInt8]) {
        if options.showsFile { appendCSV(file, &out); out.append(UInt8(ascii: ",")) }
        appendDecimal(number, &out)
        out.append(valid ? ",true," : ",false,")
        appendCSV(violations.map(\.code).joined(separator: ";"), &out)
        out.append(UInt8(ascii: ","))
        appendCSV(violations.map(\.message).joined(separator: " "), &out)
        if !options.isSecret { out.append(UInt8(ascii: ",")); appendCSV(normalized ?? "", &out) }
        if options.includesKey { out.append(UInt8(ascii: ",")); appendCSV(key ?? "", &out) }
        out.append(0x0A)
    }

    private func text(_ file: String, _ number: Int, _ valid: Bool, _ value: UnsafeRawBufferPointer?,
                      _ violations: [FieldViolation], _ normalized: String?, _ out: inout [UInt8]) {
        if options.showsFile { out.append(utf8: file); out.append(UInt8(ascii: ":")) }
        appendDecimal(number, &out)
        out.append(": ")
        let word = valid ? "valid" : "invalid"
        if options.color { out.append(valid ? "\u{1B}[32m" : "\u{1B}[31m") }
        out.append(utf8: word)
        if options.color { out.append("\u{1B}[0m") }
        if let value {
            let shown = String(decoding: value, as: UTF8.self)
            out.append(UInt8(ascii: " "))
            appendQuoted(shown, &out)
            if let normalized, normalized != shown {
                out.append(" -> ")
                appendQuoted(normalized, &out)
            }
        }
        for (index, violation) in violations.enumerated() {
            out.append(index == 0 ? ": " : "; ")
            out.append(utf8: violation.message)
            out.append(" [")
            out.append(utf8: violation.code)
            out.append(UInt8(ascii: "]"))
        }
        out.append(0x0A)
    }

    // MARK: - Summaries

    /// Written once after the last record: the summary for `text`, `summary` and `summary-json`.
    func footer(total: Tally, files: [(name: String, tally: Tally)], into out: inout [UInt8]) {
        switch options.format {
        case .jsonl, .csv: return
        case .text:
            out.append(0x0A)
            summaryText(total, files, &out)
        case .summary: summaryText(total, files, &out)
        case .summaryJSON: summaryJSON(total, files, &out)
        }
    }

    private func summaryText(_ total: Tally, _ files: [(name: String, tally: Tally)], _ out: inout [UInt8]) {
        func line(_ tally: Tally) -> String {
            "\(tally.records) record\(tally.records == 1 ? "" : "s"): \(tally.valid) valid, \(tally.invalid) invalid"
        }
        if files.count > 1 {
            for file in files { out.append(utf8: "\(file.name): \(line(file.tally))\n") }
            out.append("total: ")
        }
        out.append(utf8: "\(line(total))\n")
        let codes = total.sortedCodes
        if !codes.isEmpty {
            let width = codes.map(\.code.count).max() ?? 0
            out.append("errors by code:\n")
            for entry in codes {
                let pad = String(repeating: " ", count: width - entry.code.count)
                out.append(utf8: "  \(entry.code)\(pad)  \(entry.count)\n")
            }
        }
        guard options.includesStrength else { return }
        out.append("strength scores:\n")
        for (score, count) in total.strengthScores.enumerated() { out.append(utf8: "  \(score)  \(count)\n") }
    }

    private func summaryJSON(_ total: Tally, _ files: [(name: String, tally: Tally)], _ out: inout [UInt8]) {
        func counts(_ tally: Tally) -> String {
            #""records": \#(tally.records), "valid": \#(tally.valid), "invalid": \#(tally.invalid)"#
        }
        out.append(utf8: "{\(counts(total)), \"errors\": {")
        for (index, entry) in total.sortedCodes.enumerated() {
            if index > 0 { out.append(", ") }
            appendJSON(entry.code, &out)
            out.append(utf8: ": \(entry.count)")
        }
        if options.includesStrength {
            out.append(#"}, "strengthScores": {"#)
            for (score, count) in total.strengthScores.enumerated() {
                if score > 0 { out.append(", ") }
                out.append(utf8: #""\#(score)": \#(count)"#)
            }
        }
        out.append("}, \"files\": [")
        for (index, file) in files.enumerated() {
            if index > 0 { out.append(", ") }
            out.append(#"{"file": "#)
            appendJSON(file.name, &out)
            out.append(utf8: ", \(counts(file.tally))}")
        }
        out.append("]}\n")
    }
}

/// The JSON objects of violations already written, so a violation shared by many records (the
/// validators build fixed-wording violations once) is rendered once per chunk.
struct RenderedViolations {
    private var memo = ViolationMemo<[UInt8]>()

    /// The size of ``write(_:into:)``'s output for `violation`.
    mutating func size(_ violation: FieldViolation) -> Int {
        if let index = memo.index(of: violation) { return memo.values[index].count }
        let object = Self.render(violation)
        memo.insert(violation, object)
        return object.count
    }

    /// Writes `{"code": …, "rule": …, "message": …}` for `violation`.
    mutating func write(_ violation: FieldViolation, into cursor: inout ByteCursor) {
        if let index = memo.index(of: violation) {
            memo.values[index].withUnsafeBytes { cursor.write($0) }
        } else {
            Self.render(violation).withUnsafeBytes { cursor.write($0) }
        }
    }

    static func render(_ violation: FieldViolation) -> [UInt8] {
        var object: [UInt8] = []
        object.append(#"{"code": "#); appendJSON(violation.code, &object)
        object.append(#", "rule": "#); appendJSON(violation.rule, &object)
        object.append(#", "message": "#); appendJSON(violation.message, &object)
        object.append(UInt8(ascii: "}"))
        return object
    }
}

// MARK: - Byte-level escaping

/// Appends a JSON string literal (RFC 8259) for `text`.
func appendJSON(_ text: String, _ out: inout [UInt8]) {
    out.appendWritten(capacity: 2 + 6 * text.utf8.count) { $0.writeJSON(text) }
}

/// Appends a CSV field, quoted when it holds a comma, quote or line break (RFC 4180).
func appendCSV(_ text: String, _ out: inout [UInt8]) {
    let needsQuotes = text.utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }
    guard needsQuotes else { out.append(utf8: text); return }
    out.append(UInt8(ascii: "\""))
    for byte in text.utf8 {
        if byte == UInt8(ascii: "\"") { out.append(byte) }
        out.append(byte)
    }
    out.append(UInt8(ascii: "\""))
}

/// Appends `text` in double quotes for a terminal: control and invisible format characters
/// (bidi overrides, zero-width spaces) are shown as `\u{…}` so they cannot disturb the screen.
func appendQuoted(_ text: String, _ out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    for scalar in text.unicodeScalars {
        let category = scalar.properties.generalCategory
        if scalar == "\"" || scalar == "\\" {
            out.append(UInt8(ascii: "\\"))
            out.append(UInt8(scalar.value))
        } else if category == .control || category == .format || category == .lineSeparator || category == .paragraphSeparator {
            out.append(utf8: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}")
        } else {
            out.append(contentsOf: String(scalar).utf8)
        }
    }
    out.append(UInt8(ascii: "\""))
}

/// Appends the decimal digits of an integer.
func appendDecimal(_ value: Int, _ out: inout [UInt8]) {
    out.appendWritten(capacity: 21) { $0.writeDecimal(value) }
}

/// Writes into memory reserved up front: every write is a plain store or copy, with no capacity
/// check, so a record costs one bounds-checked append instead of one per piece. The reservation
/// (``Swift/Array/appendWritten(capacity:_:)``) must cover the worst case.
struct ByteCursor {
    var next: UnsafeMutablePointer<UInt8>

    mutating func write(_ byte: UInt8) {
        next.initialize(to: byte)
        next += 1
    }

    mutating func write(_ literal: StaticString) {
        write(UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    mutating func write(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        next.initialize(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        next += bytes.count
    }

    /// ``write(_:)`` for the short pieces records are made of: eight bytes at a time, the last
    /// word overlapping the one before, with no call.
    @inline(__always)
    mutating func writeWords(_ bytes: UnsafeRawBufferPointer) {
        let count = bytes.count
        guard let source = bytes.baseAddress, count >= 8 else { return write(bytes) }
        if count <= 16 {
            // Two words, the second overlapping the first: no loop.
            UnsafeMutableRawPointer(next).storeBytes(of: source.loadUnaligned(as: UInt64.self), as: UInt64.self)
            UnsafeMutableRawPointer(next + count - 8).storeBytes(of: source.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self), as: UInt64.self)
            next += count
            return
        }
        var offset = 0
        while true {
            offset = Swift.min(offset, count - 8)
            UnsafeMutableRawPointer(next + offset).storeBytes(of: source.loadUnaligned(fromByteOffset: offset, as: UInt64.self), as: UInt64.self)
            offset += 8
            if offset >= count { break }
        }
        next += count
    }

    @inline(__always)
    mutating func writeWords(_ literal: StaticString) {
        writeWords(UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// At most 21 bytes.
    mutating func writeDecimal(_ value: Int) {
        if value < 0 { write(UInt8(ascii: "-")) }
        var rest = value.magnitude
        var length = 1, bound: UInt = 10
        while length < 20 && rest >= bound {
            length += 1
            bound = bound &* 10
        }
        // From the last digit back, two per division.
        next += length
        var position = next
        let pairs = Self.digitPairs
        while rest >= 10 {
            let pair = Int(truncatingIfNeeded: rest % 100) &* 2
            rest /= 100
            position -= 2
            position[0] = pairs[pair]
            position[1] = pairs[pair &+ 1]
        }
        if position > next - length { (position - 1).initialize(to: UInt8(truncatingIfNeeded: 0x30 &+ rest)) }
    }

    /// "00", "01", … "99".
    // INVARIANT: written once here, then only read.
    nonisolated(unsafe) private static let digitPairs: UnsafeMutablePointer<UInt8> = {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 200)
        for pair in 0..<100 {
            table[2 * pair] = UInt8(0x30 + pair / 10)
            table[2 * pair + 1] = UInt8(0x30 + pair % 10)
        }
        return table
    }()

    /// A JSON string literal (RFC 8259) for `text`: at most 2 + 6 × its UTF-8 count bytes.
    mutating func writeJSON(_ text: String) {
        var text = text
        _ = text.withUTF8 { writeJSON(UnsafeRawBufferPointer($0), lowercased: false) }
    }

    /// Valid UTF-8 `bytes` as a JSON string literal, optionally with ASCII letters lowercased:
    /// at most 2 + 6 × `bytes.count` bytes. `knownPlain` promises that no byte needs an escape
    /// (an earlier call returned true for the same bytes). Returns whether no byte needed one.
    @inline(__always) @discardableResult
    mutating func writeJSON(_ bytes: UnsafeRawBufferPointer, lowercased: Bool, knownPlain: Bool = false) -> Bool {
        let opening = next
        write(UInt8(ascii: "\""))
        // Most values need no escape: copy optimistically, eight bytes at a time, noting any
        // byte that needs one, and start over with escapes only if one did.
        let count = bytes.count
        var needsEscape: UInt64 = 0
        if let source = bytes.baseAddress, count >= 8 {
            var offset = 0
            while true {
                // The last word overlaps the one before rather than reading past the end.
                offset = Swift.min(offset, count - 8)
                var word = source.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                if !knownPlain { needsEscape |= Self.escapeBits(word) }
                if lowercased { word = Self.lowercasedASCII(word) }
                UnsafeMutableRawPointer(next + offset).storeBytes(of: word, as: UInt64.self)
                offset += 8
                if offset >= count { break }
            }
        } else {
            let escapes = Self.escapes
            for i in 0..<count {
                let byte = bytes[i]
                needsEscape |= UInt64(escapes[Int(byte)])
                next[i] = lowercased && byte &- 0x41 < 26 ? byte | 0x20 : byte
            }
        }
        if needsEscape == 0 {
            next += bytes.count
        } else {
            next = opening + 1
            let escapes = Self.escapes
            for byte in bytes {
                if escapes[Int(byte)] != 0 {
                    writeEscaped(byte)
                } else {
                    write(lowercased && byte &- 0x41 < 26 ? byte | 0x20 : byte)
                }
            }
        }
        write(UInt8(ascii: "\""))
        return needsEscape == 0
    }

    /// ``writeJSON(_:lowercased:knownPlain:)`` that also takes a value shorter than eight bytes
    /// a word at a time — assembled from two overlapping loads, so nothing past it is read — and
    /// may therefore store up to 8 bytes past what it writes: the caller's reservation must
    /// allow for them.
    @inline(__always) @discardableResult
    mutating func writeJSONValue(_ bytes: UnsafeRawBufferPointer, lowercased: Bool, knownPlain: Bool = false) -> Bool {
        guard bytes.count < 8, let short = ShortValue(bytes) else {
            return writeJSON(bytes, lowercased: lowercased, knownPlain: knownPlain)
        }
        // The zero bytes above the value would count as controls: only the value's bytes count
        // (the tests misfire only above a byte that needs an escape, never below one).
        let live = Self.highBits >> UInt64(8 * (8 - short.count))
        if !knownPlain, Self.escapeBits(short.low) & live != 0 {
            return writeJSON(bytes, lowercased: lowercased, knownPlain: false)
        }
        writeQuoted(lowercased ? short.lowercased : short)
        return true
    }

    /// A ``ShortValue`` that needs no escape as a JSON string literal: two word stores, so up to
    /// 8 bytes past what it writes may be stored too — the caller's reservation must allow for
    /// them.
    @inline(__always)
    mutating func writeQuoted(_ value: ShortValue) {
        write(UInt8(ascii: "\""))
        UnsafeMutableRawPointer(next).storeBytes(of: value.low.littleEndian, as: UInt64.self)
        if value.count > 8 {
            UnsafeMutableRawPointer(next + value.count - 8).storeBytes(of: value.high.littleEndian, as: UInt64.self)
        }
        next += value.count
        write(UInt8(ascii: "\""))
    }

    /// The `count` (1 to 8) bytes at `source` as a word, byte i in bits 8i..<8i+8, zeros above,
    /// read with loads that stay inside them.
    @inline(__always)
    static func loadShort(_ source: UnsafeRawPointer, _ count: Int) -> UInt64 {
        if count == 8 { return UInt64(littleEndian: source.loadUnaligned(as: UInt64.self)) }
        // Two overlapping loads: the bytes they share are equal, so or-ing them is exact.
        if count >= 4 {
            let first = UInt64(UInt32(littleEndian: source.loadUnaligned(as: UInt32.self)))
            let last = UInt64(UInt32(littleEndian: source.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)))
            return first | last << UInt64(8 * (count - 4))
        }
        var word = UInt64(source.load(as: UInt8.self))
        if count > 1 { word |= UInt64(source.load(fromByteOffset: 1, as: UInt8.self)) << 8 }
        if count > 2 { word |= UInt64(source.load(fromByteOffset: 2, as: UInt8.self)) << 16 }
        return word
    }

    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Nonzero when some byte of `word` needs an escape (see ``escapes``): a byte below 0x20,
    /// `"`, `\` or DEL (the classic "has a byte less than" and "has a zero byte" tests).
    @inline(__always)
    static func escapeBits(_ word: UInt64) -> UInt64 {
        @inline(__always) func hasZeroByte(_ value: UInt64) -> UInt64 { (value &- ones) & ~value & highBits }
        let control = (word &- ones &* 0x20) & ~word & highBits
        return control | hasZeroByte(word ^ (ones &* 0x22)) | hasZeroByte(word ^ (ones &* 0x5C)) | hasZeroByte(word ^ (ones &* 0x7F))
    }

    /// `word` with its ASCII capitals lowercased, bytewise with no carry between bytes: a byte
    /// is a capital when its low seven bits are at least `A` and below `[` and its top bit is clear.
    @inline(__always)
    static func lowercasedASCII(_ word: UInt64) -> UInt64 {
        let low = word & ~highBits
        let atLeastA = low &+ ones &* (0x80 - 0x41)
        let pastZ = low &+ ones &* (0x80 - 0x5B)
        let capitals = atLeastA & ~pastZ & ~word & highBits
        return word | capitals >> 2
    }

    /// 1 for the bytes that cannot appear raw in a JSON string literal (C0 controls, `"`, `\`;
    /// and DEL, which this writer escapes too), else 0.
    // INVARIANT: written once here, then only read.
    nonisolated(unsafe) private static let escapes: UnsafeMutablePointer<UInt8> = {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        for byte in 0..<256 {
            table[byte] = byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F ? 1 : 0
        }
        return table
    }()

    /// The JSON escape for one ASCII byte that cannot appear raw in a string literal.
    private mutating func writeEscaped(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): write(#"\""#)
        case UInt8(ascii: "\\"): write(#"\\"#)
        case 0x0A: write(#"\n"#)
        case 0x0D: write(#"\r"#)
        case 0x09: write(#"\t"#)
        default:
            write(#"\u00"#)
            write(hexDigit(byte >> 4))
            write(hexDigit(byte & 0xF))
        }
    }
}

/// A value of 1 to 16 bytes held in two words, read with loads that stay inside it: the JSON
/// writer's fast path for the short values most records hold.
struct ShortValue {
    /// Bytes `0..<min(count, 8)`, byte i in bits 8i..<8i+8, zeros above.
    let low: UInt64
    /// Bytes `count - 8..<count` when `count` > 8, else 0.
    let high: UInt64
    let count: Int

    /// `bytes` in two words; nil when empty or longer than 16 bytes.
    @inline(__always)
    init?(_ bytes: UnsafeRawBufferPointer) {
        count = bytes.count
        guard count > 0, count <= 16, let source = bytes.baseAddress else { return nil }
        guard count > 8 else {
            low = ByteCursor.loadShort(source, count)
            high = 0
            return
        }
        low = UInt64(littleEndian: source.loadUnaligned(as: UInt64.self))
        high = UInt64(littleEndian: source.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))
    }

    private init(low: UInt64, high: UInt64, count: Int) {
        self.low = low
        self.high = high
        self.count = count
    }

    /// The value with its ASCII capitals lowercased.
    @inline(__always)
    var lowercased: ShortValue {
        ShortValue(low: ByteCursor.lowercasedASCII(low), high: ByteCursor.lowercasedASCII(high), count: count)
    }
}

private func hexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? 0x30 + nibble : 0x61 + nibble - 10
}

extension Array where Element == UInt8 {
    /// Appends what `body` writes through a ``ByteCursor`` (at most `capacity` bytes), with one
    /// copy.
    mutating func appendWritten(capacity: Int, _ body: (inout ByteCursor) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            guard let start = buffer.baseAddress else { return }
            var cursor = ByteCursor(next: start)
            body(&cursor)
            assert(cursor.next - start <= capacity, "ByteCursor wrote past its reservation")
            append(contentsOf: UnsafeBufferPointer(start: start, count: cursor.next - start))
        }
    }

    /// Appends a literal's bytes with one copy.
    @inline(__always)
    mutating func append(_ literal: StaticString) {
        append(bytes: UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Appends raw bytes with one copy (a generic `append(contentsOf:)` of an
    /// `UnsafeRawBufferPointer` or a `String.UTF8View` may go byte by byte).
    @inline(__always)
    mutating func append(bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        append(contentsOf: UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: bytes.count))
    }

    /// Appends a string's UTF-8 with one copy.
    @inline(__always)
    mutating func append(utf8 text: String) {
        var text = text
        text.withUTF8 { append(contentsOf: $0) }
    }
}
