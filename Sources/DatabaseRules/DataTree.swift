// DataTree: the database contents an operation reads and produces (reference §6.3): nodes with
// optional priorities, `set` with pruning of emptied parents, server values, arrays as objects.
import Diagnostics

/// A plain JSON value (auth objects, written values, stored data before conversion).
public indirect enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Converts a parsed node (spans dropped).
    public init(_ node: JSONNode) {
        switch node.value {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .number(let n): self = .number(n)
        case .string(let s): self = .string(s.text)
        case .array(let items): self = .array(items.map(JSONValue.init))
        case .object(let members):
            var out: [String: JSONValue] = [:]
            for m in members { out[m.key.text] = JSONValue(m.value) }
            self = .object(out)
        }
    }
}

/// A leaf value or a priority.
public enum DataPrimitive: Sendable, Hashable {
    case bool(Bool)
    case number(Double)
    case string(String)
}

/// A node of the data tree. A missing node is `nil`, never an empty branch.
public indirect enum DataNode: Sendable, Hashable {
    /// A primitive value and its priority.
    case leaf(DataPrimitive, priority: DataPrimitive?)
    /// Children (never empty) and the node's priority.
    case branch([String: DataNode], priority: DataPrimitive?)

    /// The node's priority.
    public var priority: DataPrimitive? {
        switch self {
        case .leaf(_, let p), .branch(_, let p): p
        }
    }

    /// The child named `key`.
    public func child(_ key: String) -> DataNode? {
        guard case .branch(let children, _) = self else { return nil }
        return children.lookUp(key)
    }
}

extension Dictionary where Key == String {
    /// Most entries a lookup compares key by key instead of hashing.
    static var maxComparedKeys: Int { 8 }

    /// The value for `key`, as `self[key]`: in a small dictionary (at most ``maxComparedKeys``
    /// entries) found by comparing keys, which is cheaper than hashing the key looked up.
    func lookUp(_ key: String) -> Value? {
        guard count <= Self.maxComparedKeys else { return self[key] }
        // Keys only: a value is copied out when its key matches.
        var index = startIndex
        while index != endIndex {
            if keys[index] == key { return values[index] }
            formIndex(after: &index)
        }
        return nil
    }
}

/// Why data could not be turned into a tree, or why a request is invalid.
public struct DataError: Error, Sendable, Hashable {
    /// `RD6xxx` or `RD5007`.
    public var code: String
    /// Terse message naming the path.
    public var message: String

    /// The problem as a diagnostic without a span.
    public var diagnostic: Diagnostic { Diagnostic(code: code, severity: .error, message: message) }
}

/// Data helpers: conversion from JSON, lookups and `set`.
public enum DataTree {
    /// Splits `/a/b/c` into keys; empty segments are skipped, `/` is the root.
    ///
    /// - Throws: ``DataError`` for an invalid key (`RD6001`) or a path of 32 levels or more (`RD6002`).
    public static func keys(of path: String) throws(DataError) -> [String] {
        // `/` is ASCII, so splitting the UTF-8 bytes at it keeps every key valid UTF-8.
        var keys: [String] = []
        keys.reserveCapacity(4)
        var text = path
        // Whether some key may be invalid: a byte keys may not hold, or a key that is too long.
        var suspect = false
        text.withUTF8 { bytes in
            var start = 0
            for index in 0...bytes.count {
                if index < bytes.count {
                    switch bytes[index] {
                    case UInt8(ascii: "/"): break
                    case UInt8(ascii: "."), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "["), UInt8(ascii: "]"), 0x00...0x1F, 0x7F:
                        suspect = true; continue
                    default: continue
                    }
                }
                if index > start {
                    suspect = suspect || index - start > DatabaseLimits.maxKeyBytes
                    keys.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
                }
                start = index + 1
            }
        }
        guard keys.count < DatabaseLimits.maxPathDepth else {
            throw DataError(code: DatabaseCode.pathTooDeep, message: "path `\(path)` has \(keys.count) levels; paths must be shallower than \(DatabaseLimits.maxPathDepth)")
        }
        for key in keys where suspect {
            if let bad = invalidKeyCharacter(key, allowLeadingDollar: false) {
                throw DataError(code: DatabaseCode.invalidPathKey, message: "path `\(path)` has key `\(key)` containing \(describeCharacter(bad))")
            }
            if key.utf8.count > DatabaseLimits.maxKeyBytes {
                throw DataError(code: DatabaseCode.invalidPathKey, message: "path `\(path)` has a key of \(key.utf8.count) bytes, more than \(DatabaseLimits.maxKeyBytes)")
            }
        }
        return keys
    }

    /// The node at `keys` below `root`.
    public static func node(_ root: DataNode?, at keys: some Collection<String>) -> DataNode? {
        var node = root
        for key in keys {
            guard let current = node else { return nil }
            node = current.child(key)
        }
        return node
    }

    /// `root` with the node at `keys` replaced by `value` (nil deletes); parents left empty are
    /// removed, missing parents are created.
    public static func setting(_ root: DataNode?, at keys: ArraySlice<String>, to value: DataNode?) -> DataNode? {
        guard let key = keys.first else { return value }
        var children: [String: DataNode] = [:]
        var priority: DataPrimitive?
        if case .branch(let existing, let p)? = root {
            children = existing
            priority = p
        }
        children[key] = setting(children[key], at: keys.dropFirst(), to: value)
        if children.isEmpty { return nil }
        return .branch(children, priority: priority)
    }

    /// Converts written or stored JSON into a node.
    ///
    /// The work is linear in the size of `json`: the path of a node is kept as a stack of keys
    /// and turned into text only for a message, and the stored node is looked up only for an
    /// `increment`.
    ///
    /// - Parameters:
    ///   - json: the value; `{".sv": "timestamp"}` becomes `now`, `{".sv": {"increment": n}}`
    ///     the stored number plus `n`; `.value`/`.priority` set value and priority; arrays
    ///     become objects keyed `0`, `1`, …; `null` and `{}` mean no node.
    ///   - existing: the stored node at the same place (for `increment`; looked up only then).
    ///   - now: the operation's time in milliseconds.
    ///   - path: where the value goes, for messages.
    ///   - budget: nodes still allowed (``DatabaseLimits/maxWrittenNodes``).
    ///   - depth: levels still allowed (``DatabaseLimits/maxNestingDepth``).
    /// - Throws: ``DataError`` for invalid keys, server values or priorities, or a limit.
    public static func node(from json: JSONValue, existing: @autoclosure () -> DataNode?, now: Double, path: @autoclosure () -> String,
                            budget: inout Int, depth: Int = 64) throws(DataError) -> DataNode? {
        var conversion = Conversion(now: now, budget: budget)
        defer { budget = conversion.budget }
        return try conversion.node(from: json, existingRoot: existing, basePath: path, depth: depth)
    }

    /// One conversion: the time, the nodes still allowed, and the keys from the value's root to
    /// the node being converted.
    private struct Conversion {
        let now: Double
        var budget: Int
        var keys: [String] = []

        init(now: Double, budget: Int) {
            self.now = now
            self.budget = budget
        }

        /// The path of the node being converted, for a message.
        func path(_ basePath: () -> String) -> String {
            let base = basePath()
            guard !keys.isEmpty else { return base }
            return (base == "/" ? "" : base) + "/" + keys.joined(separator: "/")
        }

        /// The stored node at the node being converted.
        func existing(_ existingRoot: () -> DataNode?) -> DataNode? {
            DataTree.node(existingRoot(), at: keys)
        }

        func tooLarge(_ basePath: () -> String) -> DataError {
            DataError(code: DatabaseCode.dataTooLarge, message: "the data at `\(path(basePath))` is too large or too deeply nested")
        }

        mutating func node(from json: JSONValue, existingRoot: () -> DataNode?, basePath: () -> String, depth: Int) throws(DataError) -> DataNode? {
            budget -= 1
            guard budget >= 0, depth > 0 else { throw tooLarge(basePath) }
            switch json {
            case .null: return nil
            case .bool(let b): return .leaf(.bool(b), priority: nil)
            case .number(let n): return .leaf(.number(n), priority: nil)
            case .string(let s): return .leaf(.string(s), priority: nil)
            case .array(let items):
                var object: [String: JSONValue] = [:]
                for (index, item) in items.enumerated() { object[String(index)] = item }
                return try node(from: .object(object), existingRoot: existingRoot, basePath: basePath, depth: depth)
            case .object(let members):
                // Only keys starting with `.` have a meaning of their own: skip the lookups without one.
                let hasDotKey = members.keys.contains { $0.utf8.first == UInt8(ascii: ".") }
                if hasDotKey, let server = members[".sv"] {
                    guard members.count == 1 else {
                        throw DataError(code: DatabaseCode.invalidServerValue, message: "a server value at `\(path(basePath))` must be the only member of its object")
                    }
                    return .leaf(try DataTree.serverValue(server, existing: existing(existingRoot), now: now, path: path(basePath)), priority: nil)
                }
                var priority: DataPrimitive?
                if hasDotKey, let p = members[".priority"] {
                    switch p {
                    case .null: priority = nil
                    case .number(let n): priority = .number(n)
                    case .string(let s): priority = .string(s)
                    default: throw DataError(code: DatabaseCode.invalidPriority, message: "the priority at `\(path(basePath))` must be a number, a string or null")
                    }
                }
                if hasDotKey, let value = members[".value"] {
                    guard members.count == (members[".priority"] == nil ? 1 : 2) else {
                        throw DataError(code: DatabaseCode.invalidPriority, message: "`.value` at `\(path(basePath))` cannot have sibling children")
                    }
                    switch value {
                    case .object, .array:
                        throw DataError(code: DatabaseCode.invalidPriority, message: "`.value` at `\(path(basePath))` must be a primitive")
                    default:
                        guard let leaf = try node(from: value, existingRoot: existingRoot, basePath: basePath, depth: depth - 1) else { return nil }
                        if case .leaf(let v, _) = leaf { return .leaf(v, priority: priority) }
                        return leaf
                    }
                }
                if !hasDotKey, let flat = DataTree.flatChildren(members, now: now, budget: &budget, depth: depth) {
                    return .branch(flat, priority: nil)
                }
                var children: [String: DataNode] = [:]
                children.reserveCapacity(members.count)
                for (key, child) in members where !hasDotKey || key != ".priority" {
                    let bad = invalidKeyCharacter(key, allowLeadingDollar: false)
                    if key.isEmpty || bad != nil || key.utf8.count > DatabaseLimits.maxKeyBytes {
                        let what = key.isEmpty ? "an empty key" : bad.map { "key `\(key)` containing \(describeCharacter($0))" }
                            ?? "a key longer than \(DatabaseLimits.maxKeyBytes) bytes"
                        throw DataError(code: DatabaseCode.invalidWrittenKey, message: "the data at `\(path(basePath))` has \(what)")
                    }
                    switch child {
                    case .bool(let b): children[key] = .leaf(.bool(b), priority: nil); budget -= 1
                    case .number(let n): children[key] = .leaf(.number(n), priority: nil); budget -= 1
                    case .string(let text): children[key] = .leaf(.string(text), priority: nil); budget -= 1
                    case .null: continue
                    default:
                        keys.append(key)
                        let converted = try node(from: child, existingRoot: existingRoot, basePath: basePath, depth: depth - 1)
                        keys.removeLast()
                        if let converted { children[key] = converted }
                    }
                }
                guard budget >= 0 else { throw tooLarge(basePath) }
                if children.isEmpty { return nil }
                return .branch(children, priority: priority)
            }
        }
    }

    /// The children of an object whose members are all primitives or server timestamps under
    /// valid keys, built with `mapValues` (which keeps the members' hash table instead of hashing
    /// every key again); nil when any member needs the general conversion (null, nested data,
    /// another server value, an invalid key, a limit), which also reports its errors.
    private static func flatChildren(_ members: [String: JSONValue], now: Double, budget: inout Int, depth: Int) -> [String: DataNode]? {
        guard !members.isEmpty, members.count <= budget else { return nil }
        for (key, value) in members {
            guard !key.isEmpty, key.utf8.count <= DatabaseLimits.maxKeyBytes, invalidKeyCharacter(key, allowLeadingDollar: false) == nil else { return nil }
            switch value {
            case .bool, .number, .string: continue
            case .object(let server) where depth > 1 && isServerTimestamp(server): continue
            default: return nil
            }
        }
        // Each member is one node, as in the general conversion.
        budget -= members.count
        return members.mapValues { value in
            switch value {
            case .bool(let b): .leaf(.bool(b), priority: nil)
            case .number(let n): .leaf(.number(n), priority: nil)
            case .string(let s): .leaf(.string(s), priority: nil)
            // INVARIANT: the only other members left are server timestamps.
            default: .leaf(.number(now), priority: nil)
            }
        }
    }

    /// Whether an object is exactly `{".sv": "timestamp"}`.
    private static func isServerTimestamp(_ object: [String: JSONValue]) -> Bool {
        guard object.count == 1, let (key, value) = object.first else { return false }
        return key == ".sv" && value == .string("timestamp")
    }

    static func serverValue(_ value: JSONValue, existing: @autoclosure () -> DataNode?, now: Double, path: @autoclosure () -> String) throws(DataError) -> DataPrimitive {
        switch value {
        case .string("timestamp"): return .number(now)
        case .object(let op) where op.count == 1:
            if case .number(let delta)? = op["increment"] {
                if case .leaf(.number(let stored), _)? = existing() { return .number(stored + delta) }
                return .number(delta)
            }
        default: break
        }
        throw DataError(code: DatabaseCode.invalidServerValue,
                        message: "unknown server value at `\(path())`; expected `{\".sv\": \"timestamp\"}` or `{\".sv\": {\"increment\": n}}`")
    }
}
