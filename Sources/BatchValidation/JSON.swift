// A small, strict JSON (RFC 8259) reader for JSONL records: enough to pull string fields out
// of nested objects. Bounded: nesting deeper than `maxDepth` is an error, never a stack overflow.

/// A parsed JSON value. Strings stay as UTF-8 bytes; numbers are kept as their source text.
enum JSONValue: Equatable {
    case string([UInt8])
    case number
    case bool
    case null
    case array([JSONValue])
    case object([(key: [UInt8], value: JSONValue)])

    static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)): a == b
        case (.number, .number), (.bool, .bool), (.null, .null): true
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)): a.map(\.key) == b.map(\.key) && a.map(\.value) == b.map(\.value)
        default: false
        }
    }

    /// The value at a dotted path (`user.email`); a key that itself contains the dots wins.
    func value(at path: String) -> JSONValue? {
        guard case let .object(members) = self else { return nil }
        let whole = Array(path.utf8)
        if let hit = members.first(where: { $0.key == whole }) { return hit.value }
        guard let dot = path.firstIndex(of: ".") else { return nil }
        let head = Array(path[..<dot].utf8)
        guard let child = members.first(where: { $0.key == head }) else { return nil }
        return child.value.value(at: String(path[path.index(after: dot)...]))
    }
}

/// The batch engine's strict JSON reading, for a caller that decodes JSON itself (the service):
/// the same refusals as a JSONL record gets.
public enum StrictJSON {
    /// Why `bytes` is not one JSON object whose objects each name a key once: the damage, or nil.
    ///
    /// - Parameter maxDepth: the deepest nesting read; deeper is damage.
    public static func damage(inObject bytes: UnsafeRawBufferPointer, maxDepth: Int = JSONParser.defaultMaxDepth) -> InputDamage? {
        if case .failure(let damage) = JSONParser.parseObject(bytes, maxDepth: maxDepth) { return damage }
        return nil
    }
}

/// Parses one JSON document from `bytes`; numbers, booleans and null are validated but not kept.
public struct JSONParser {
    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private let maxDepth: Int

    /// The deepest nesting a JSONL record may have.
    public static let defaultMaxDepth = 64

    /// Parses a whole record, which must be one JSON object nested at most `maxDepth` levels.
    static func parseObject(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = defaultMaxDepth) -> Result<JSONValue, InputDamage> {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        do throws(InputDamage) {
            parser.skipSpace()
            guard parser.peek == UInt8(ascii: "{") else { throw parser.error("the record does not start with `{`") }
            let value = try parser.parseValue(depth: 0)
            parser.skipSpace()
            guard parser.index == bytes.count else { throw parser.error("unexpected text after the object") }
            return .success(value)
        } catch {
            return .failure(error)
        }
    }

    private init(bytes: UnsafeRawBufferPointer, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private func error(_ what: String) -> InputDamage {
        .malformedJSON("\(what) at offset \(index)")
    }

    private mutating func skipSpace() {
        while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    private mutating func expect(_ literal: String) throws(InputDamage) {
        for byte in literal.utf8 {
            guard peek == byte else { throw error("invalid literal") }
            index += 1
        }
    }

    private mutating func parseValue(depth: Int) throws(InputDamage) -> JSONValue {
        guard depth < maxDepth else { throw error("nesting deeper than \(maxDepth) levels") }
        skipSpace()
        guard let byte = peek else { throw error("unexpected end of the record") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObjectBody(depth: depth)
        case UInt8(ascii: "["): return try parseArrayBody(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool
        case UInt8(ascii: "f"): try expect("false"); return .bool
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try parseNumber(); return .number
        default: throw error("unexpected character")
        }
    }

    private mutating func parseObjectBody(depth: Int) throws(InputDamage) -> JSONValue {
        index += 1
        var members: [(key: [UInt8], value: JSONValue)] = []
        // Past a few members, keys are checked for repeats through a set, not one by one.
        var keys: Set<[UInt8]> = []
        skipSpace()
        if peek == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipSpace()
            guard peek == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let keyOffset = index
            let key = try parseString()
            skipSpace()
            guard peek == UInt8(ascii: ":") else { throw error("expected `:`") }
            index += 1
            let value = try parseValue(depth: depth + 1)
            // A repeated key is refused: parsers disagree on which value wins (RFC 8259 section
            // 4), so accepting one would let a value checked here differ from the one stored.
            if members.count < Self.membersComparedOneByOne ? members.contains(where: { $0.key == key }) : !keys.insert(key).inserted {
                throw InputDamage.duplicateKey("`\(Self.printable(key))` appears twice in one object (at offset \(keyOffset))")
            }
            if members.count + 1 == Self.membersComparedOneByOne { keys = Set(members.map(\.key) + [key]) }
            members.append((key, value))
            skipSpace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(members)
            default: throw error("expected `,` or `}`")
            }
        }
    }

    private mutating func parseArrayBody(depth: Int) throws(InputDamage) -> JSONValue {
        index += 1
        skipSpace()
        var elements: [JSONValue] = []
        if peek == UInt8(ascii: "]") { index += 1; return .array(elements) }
        while true {
            elements.append(try parseValue(depth: depth + 1))
            skipSpace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(elements)
            default: throw error("expected `,` or `]`")
            }
        }
    }

    private mutating func parseNumber() throws(InputDamage) {
        if peek == UInt8(ascii: "-") { index += 1 }
        guard let first = peek, isDigit(first) else { throw error("invalid number") }
        index += 1
        if first != UInt8(ascii: "0") { while let d = peek, isDigit(d) { index += 1 } }
        if peek == UInt8(ascii: ".") {
            index += 1
            guard let d = peek, isDigit(d) else { throw error("invalid number") }
            while let d = peek, isDigit(d) { index += 1 }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard let d = peek, isDigit(d) else { throw error("invalid number") }
            while let d = peek, isDigit(d) { index += 1 }
        }
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// Objects with fewer members compare a new key with each; larger ones use a set.
    static let membersComparedOneByOne = 16

    /// A key for a message: at most 64 bytes, control characters and invalid UTF-8 escaped.
    static func printable(_ key: [UInt8]) -> String {
        let text = String(decoding: key.prefix(64), as: UTF8.self)
        let escaped = text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined()
        return key.count > 64 ? escaped + "…" : escaped
    }

    private mutating func parseString() throws(InputDamage) -> [UInt8] {
        index += 1
        var out: [UInt8] = []
        while let byte = peek {
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return out
            case UInt8(ascii: "\\"): try parseEscape(into: &out)
            case 0..<0x20: index -= 1; throw error("unescaped control character in a string")
            default: out.append(byte)
            }
        }
        throw error("unterminated string")
    }

    private mutating func parseEscape(into out: inout [UInt8]) throws(InputDamage) {
        guard let byte = peek else { throw error("unterminated escape") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(byte)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800...0xDBFF).contains(scalar) {
                guard peek == UInt8(ascii: "\\") else { throw error("unpaired surrogate escape") }
                index += 1
                guard peek == UInt8(ascii: "u") else { throw error("unpaired surrogate escape") }
                index += 1
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw error("unpaired surrogate escape")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid escape") }
            out.append(contentsOf: String(Character(unicode)).utf8)
        default: throw error("invalid escape")
        }
    }

    private mutating func parseHex4() throws(InputDamage) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = peek, let digit = hexValue(byte) else { throw error("invalid `\\u` escape") }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case 0x30...0x39: UInt32(byte - 0x30)
        case 0x41...0x46: UInt32(byte - 0x41 + 10)
        case 0x61...0x66: UInt32(byte - 0x61 + 10)
        default: nil
        }
    }
}
