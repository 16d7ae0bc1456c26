// EvaluationValues: what rule expressions evaluate to (values, snapshots of the data trees), how
// values read in explanations, and the error an evaluation stops with.
import Diagnostics

/// A value during evaluation.
enum RValue: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case snapshot(Snapshot)
    /// `val()` of a node with children: non-null, equal to nothing, unusable otherwise.
    case sentinel
    /// `auth` data that is an object or array.
    case json(JSONValue)
    case regex(PreparedRegex)
    case array([RValue])
    case query

    init(_ primitive: DataPrimitive?) {
        switch primitive {
        case nil: self = .null
        case .bool(let b)?: self = .bool(b)
        case .number(let n)?: self = .number(n)
        case .string(let s)?: self = .string(s)
        }
    }

    init(json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .number(let n): self = .number(n)
        case .string(let s): self = .string(s)
        case .array, .object: self = .json(json)
        }
    }

    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .snapshot: "a snapshot"
        case .sentinel: "an object value"
        case .json(.array): "an array"
        case .json: "an object"
        case .regex: "a regular expression"
        case .array: "an array"
        case .query: "the query"
        }
    }

    /// How explanations show the value.
    var rendered: String {
        switch self {
        case .null: "null"
        case .bool(let b): b ? "true" : "false"
        case .number(let n): formatNumber(n)
        case .string(let s): renderString(s)
        case .snapshot(let s): "snapshot of /" + s.keys.joined(separator: "/")
        case .sentinel: "(object)"
        case .json(let j): renderJSON(j)
        case .regex(let r): "/\(r.pattern)/"
        case .array(let items): "[" + items.map(\.rendered).joined(separator: ", ") + "]"
        case .query: "query"
        }
    }
}

/// A location in one data tree (before or after the write), with the node there resolved once.
/// A class, so a value during evaluation (``RValue``) stays small enough to pass in registers.
final class Snapshot: Sendable {
    let tree: DataOverlay
    let keys: [String]
    let node: DataNode?

    init(tree: DataOverlay, keys: [String]) {
        self.tree = tree
        self.keys = keys
        self.node = tree.node(at: keys)
    }

    init(tree: DataOverlay, keys: [String], node: DataNode?) {
        self.tree = tree
        self.keys = keys
        self.node = node
    }
}

/// A number as `+` turns it into text and explanations show it: integers without a fraction
/// (inferred from the documented `newData.val() + ''` idiom), other values as Swift prints them.
public func formatNumber(_ n: Double) -> String {
    if n.isNaN { return "NaN" }
    if n.isInfinite { return n < 0 ? "-Infinity" : "Infinity" }
    if n == n.rounded(), abs(n) < 9.007_199_254_740_992e15 { return String(Int64(n)) }
    return "\(n)"
}

func renderString(_ s: String) -> String {
    var out = "'"
    for scalar in s.unicodeScalars {
        switch scalar {
        case "'": out += "\\'"
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        case "\r": out += "\\r"
        case _ where scalar.value < 0x20 || scalar.value == 0x7F:
            let hex = String(scalar.value, radix: 16)
            out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "'"
}

func renderJSON(_ value: JSONValue) -> String {
    switch value {
    case .null: "null"
    case .bool(let b): b ? "true" : "false"
    case .number(let n): formatNumber(n)
    case .string(let s): jsonString(s)
    case .array(let items): "[" + items.map(renderJSON).joined(separator: ",") + "]"
    case .object(let members): "{" + members.sorted { $0.key < $1.key }.map { jsonString($0.key) + ":" + renderJSON($0.value) }.joined(separator: ",") + "}"
    }
}

/// An evaluation error: code, message and the expression span where it happened.
struct EvalError: Error, Sendable {
    var code: String
    var message: String
    var span: SourceSpan
}
