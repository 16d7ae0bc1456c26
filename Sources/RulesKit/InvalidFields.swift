import Foundation

/// One field of a decoded document that failed validation.
public struct InvalidField: Sendable, Hashable {
    /// Where the field is, as an RFC 6901 JSON Pointer built from the coding path (`/email`,
    /// `/members/2/displayName`; `""` for the whole document).
    public var pointer: String
    /// Why it was refused: every violation of the field's value.
    public var error: InvalidFieldValue

    /// Creates an entry.
    public init(pointer: String, error: InvalidFieldValue) {
        self.pointer = pointer
        self.error = error
    }
}

/// Every field of a decoded document that failed validation, in the order they were decoded.
///
/// Thrown by `JSONDecoder.decodeCollectingInvalidFields(_:from:)`; an app can also build one
/// itself after checks that span fields (a password against the username) so that one answer
/// lists everything.
public struct InvalidFields: Error, Sendable, Hashable, CustomStringConvertible {
    /// The refused fields (never empty when thrown).
    public var fields: [InvalidField]

    /// Creates the error.
    public init(_ fields: [InvalidField]) {
        self.fields = fields
    }

    /// `2 invalid fields: /email: invalid email address: EM101 …; /displayName: …`.
    public var description: String {
        let count = fields.count == 1 ? "1 invalid field" : "\(fields.count) invalid fields"
        return count + ": " + fields.map { "\($0.pointer.isEmpty ? "(document)" : $0.pointer): \($0.error)" }.joined(separator: "; ")
    }
}

extension JSONDecoder {
    /// Decodes `type` like `decode(_:from:)`, but reports every invalid ``DisplayName`` and
    /// ``EmailAddress`` in the document at once instead of stopping at the first.
    ///
    /// Decoding goes on past a refused value, so a type's own `init(from:)` may briefly see a
    /// value that did not pass; the result is never returned when one did not.
    ///
    /// This decoder is not changed: a copy with its strategies and `userInfo` decodes.
    /// Pointers are built from coding keys, so with `keyDecodingStrategy` other than
    /// `.useDefaultKeys` they name the Swift keys, not the document's.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - data: The JSON document.
    /// - Returns: The value, when every field passed.
    /// - Throws: ``InvalidFields`` listing every refused field when the document has the right
    ///   shape; `DecodingError` when it does not (not JSON, a missing member, a wrong type).
    public func decodeCollectingInvalidFields<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        let collector = InvalidFieldCollector()
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = dateDecodingStrategy
        decoder.dataDecodingStrategy = dataDecodingStrategy
        decoder.nonConformingFloatDecodingStrategy = nonConformingFloatDecodingStrategy
        decoder.keyDecodingStrategy = keyDecodingStrategy
        decoder.allowsJSON5 = allowsJSON5
        decoder.assumesTopLevelDictionary = assumesTopLevelDictionary
        decoder.userInfo = userInfo
        decoder.userInfo[.ruleKitInvalidFieldCollector] = collector
        let value = try decoder.decode(type, from: data)
        let fields = collector.fields
        guard fields.isEmpty else { throw InvalidFields(fields) }
        return value
    }
}

/// Collects refused fields during one decode (shared by every nested decoder through `userInfo`).
final class InvalidFieldCollector: @unchecked Sendable {
    // INVARIANT: `collected` is only touched under `lock`.
    private let lock = NSLock()
    private var collected: [InvalidField] = []

    func record(_ field: InvalidField) {
        lock.withLock { collected.append(field) }
    }

    var fields: [InvalidField] { lock.withLock { collected } }
}

/// RFC 6901 JSON Pointers from coding paths.
package enum JSONPointer {
    /// `/a/0/b` for the path `a`, index 0, `b`; `~` and `/` in keys escaped as `~0` and `~1`.
    package static func of(_ codingPath: [any CodingKey]) -> String {
        codingPath.map { key in
            // Array elements are keys whose string is "Index N" (Foundation's decoders).
            if let index = key.intValue, key.stringValue == "Index \(index)" || key.stringValue == String(index) {
                return "/\(index)"
            }
            return "/" + key.stringValue.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
        }.joined()
    }
}
