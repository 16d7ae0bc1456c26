/// A JSON or YAML document as read from a case file, before `__type__` wrappers are decoded.
///
/// Numbers keep the distinction the case-file format needs: a JSON number without a fraction or
/// exponent (a plain YAML integer) is `.int`, any other number `.float`. Map keys keep their
/// order; duplicate keys are rejected by the readers.
public indirect enum DocumentTree: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Double)
    case string(String)
    case list([DocumentTree])
    case map([(key: String, value: DocumentTree)])

    /// Structural equality; map entries compare in order, and NaN equals NaN.
    public static func == (lhs: DocumentTree, rhs: DocumentTree) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.float(let a), .float(let b)): a == b || (a.isNaN && b.isNaN)
        case (.string(let a), .string(let b)): a == b
        case (.list(let a), .list(let b)): a == b
        case (.map(let a), .map(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    /// The value stored under `key` when this is a map.
    public subscript(key: String) -> DocumentTree? {
        guard case .map(let entries) = self else { return nil }
        return entries.first { $0.key == key }?.value
    }

    /// Whether this is a map containing `key` (even with a `null` value).
    public func contains(key: String) -> Bool {
        guard case .map(let entries) = self else { return false }
        return entries.contains { $0.key == key }
    }

    /// A short name of the kind of value, for error messages (`a string`, `a map`).
    public var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .int: "an integer"
        case .float: "a float"
        case .string: "a string"
        case .list: "a list"
        case .map: "a map"
        }
    }
}
