// RFC 4180 CSV: finding where a row ends (framing) and splitting a row into fields (decoding).

private let quote = UInt8(ascii: "\"")
private let comma = UInt8(ascii: ",")
private let lineFeed = UInt8(ascii: "\n")
private let carriageReturn = UInt8(ascii: "\r")

/// Where a CSV scan is inside a row; kept between reads so a row can span several of them.
struct CSVScanState {
    private enum Position { case fieldStart, unquoted, quoted, quoteInQuoted }
    private var position = Position.fieldStart

    /// True while a quoted field is open (its closing quote not yet seen). At the end of the
    /// input this tells an unclosed quote from a closed multi-line field with no final line feed.
    var isInQuotedField: Bool { position == .quoted }

    /// The index of the line feed that ends the row, scanning `buffer[from...]`, or nil.
    ///
    /// A quote opens a quoted field only at the start of a field; stray quotes elsewhere do
    /// not swallow the following lines (the decoder reports them as malformed).
    mutating func scan(_ buffer: [UInt8], from: Int) -> Int? {
        var index = from
        while index < buffer.count {
            let byte = buffer[index]
            switch position {
            case .fieldStart, .unquoted:
                if byte == lineFeed { return index }
                if byte == comma { position = .fieldStart }
                else if byte == quote && position == .fieldStart { position = .quoted }
                else { position = .unquoted }
            case .quoted:
                if byte == quote { position = .quoteInQuoted }
            case .quoteInQuoted:
                if byte == lineFeed { return index }
                if byte == quote { position = .quoted }
                else if byte == comma { position = .fieldStart }
                else { position = .unquoted }
            }
            index += 1
        }
        return nil
    }
}

/// Splits one framed row into its fields, unescaping `""`.
///
/// - Returns: the fields, or a description of the first quoting error.
func decodeCSVRow(_ row: UnsafeRawBufferPointer) -> Result<[[UInt8]], InputDamage> {
    var fields: [[UInt8]] = []
    var field: [UInt8] = []
    var index = 0
    let count = row.count
    while true {
        field.removeAll(keepingCapacity: true)
        if index < count, row[index] == quote {
            index += 1
            var closed = false
            while index < count {
                let byte = row[index]
                index += 1
                if byte == quote {
                    if index < count, row[index] == quote { field.append(quote); index += 1 } else { closed = true; break }
                } else {
                    field.append(byte)
                }
            }
            guard closed else { return .failure(.malformedCSV("a quoted field is not closed")) }
            if index < count, row[index] != comma {
                let what = row[index] == carriageReturn ? "a carriage return" : "a character"
                return .failure(.malformedCSV("\(what) follows a closing quote at offset \(index)"))
            }
        } else {
            while index < count, row[index] != comma {
                if row[index] == quote {
                    return .failure(.malformedCSV("a quote appears inside an unquoted field at offset \(index)"))
                }
                field.append(row[index])
                index += 1
            }
        }
        fields.append(field)
        if index >= count { return .success(fields) }
        index += 1 // the comma
    }
}
