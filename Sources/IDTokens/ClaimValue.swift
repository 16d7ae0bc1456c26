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

    public init(from decoder: any Decoder) throws {
        guard decoder.codingPath.count <= Self.maximumDepth else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath,
                debugDescription: "claims nest deeper than \(Self.maximumDepth) levels"))
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
        } else if let value = try? container.decode([ClaimValue].self) {
            self = .list(value)
        } else {
            self = .map(try container.decode([String: ClaimValue].self))
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
