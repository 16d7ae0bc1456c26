/// One claim of a verified ID token, as JSON gave it: what Firebase rules see in
/// `request.auth.token`.
public indirect enum ClaimValue: Sendable, Hashable, Decodable {
    case null
    case bool(Bool)
    /// A JSON number without fraction that fits 64 bits.
    case int(Int64)
    case double(Double)
    case string(String)
    case list([ClaimValue])
    case map([String: ClaimValue])

    /// Claims nest at most this deep (the payload is signed, but the decoder is recursive).
    static let maximumDepth = 32

    /// Decodes any JSON value.
    ///
    /// - Throws: `DecodingError.dataCorrupted` at the value's coding path, saying
    ///   ``nestedTooDeep`` or ``numberOutOfRange``, when an array or object nests deeper than
    ///   ``maximumDepth`` or a number does not fit a `Double` (`1e400`).
    public init(from decoder: any Decoder) throws {
        guard decoder.codingPath.count <= Self.maximumDepth else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: Self.nestedTooDeep))
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try Self.decode([ClaimValue].self, from: container, at: decoder.codingPath) {
            self = .list(value)
        } else if let value = try Self.decode([String: ClaimValue].self, from: container, at: decoder.codingPath) {
            self = .map(value)
        } else {
            // JSON has no other kind of value: a number that is none of the above is out of range.
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: Self.numberOutOfRange))
        }
    }

    /// Why a value is refused when it nests too deep.
    static let nestedTooDeep = "claims nest deeper than \(maximumDepth) levels"
    /// Why a number is refused.
    static let numberOutOfRange = "a number is out of range"

    /// The array or object in `container`, or nil when the value there is of another type. An
    /// error inside it (too deep, a number out of range) is thrown, not taken for "another type".
    private static func decode<T: Decodable>(_ type: T.Type, from container: any SingleValueDecodingContainer,
                                             at path: [any CodingKey]) throws -> T? {
        do {
            return try container.decode(type)
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.count <= path.count {
            return nil
        }
    }

    /// The string, when this is one.
    public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The Boolean, when this is one.
    public var boolValue: Bool? {
        if case .bool(let value) = self { value } else { nil }
    }

    /// The number as seconds, when this is a number.
    public var numberValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The member `key`, when this is a map that has it.
    public subscript(key: String) -> ClaimValue? {
        if case .map(let members) = self { members[key] } else { nil }
    }

    /// The JSON type name, for error messages.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a Boolean"
        case .int, .double: "a number"
        case .string: "a string"
        case .list: "an array"
        case .map: "an object"
        }
    }
}
