// DatabaseWitness: a solver model of the symbolic database turned into a database case object
// (the case-file format of rules/tests/database.cases.json, the stored tree under `data`), and
// the replay of such a case through the real evaluator (DatabaseProgram).
import DatabaseRules
import Diagnostics
import Foundation
import RulesCases

/// A database case built from a model: its JSON text and its parts.
struct DatabaseWitness {
    var json: String
    /// The request's path keys.
    var keys: [String]
    /// A compact one-line form for people.
    var compact: String
}

/// Turns a model into a case.
struct DatabaseWitnessBuilder {
    let tree: DatabaseSymbolicTree
    let encoder: DatabaseExpressionEncoder
    let model: Model
    /// Why the last build failed.
    private(set) var problem = ""

    init(tree: DatabaseSymbolicTree, encoder: DatabaseExpressionEncoder, model: Model) {
        self.tree = tree
        self.encoder = encoder
        self.model = model
    }

    private func key(_ key: DBKey) -> String? {
        switch key {
        case .literal(let text): text
        case .symbol(let name): model.string(name)
        }
    }

    private func primitive(type: Int64, _ node: DBNodeSymbols) -> JSONValue? {
        switch type {
        case 1: return model.bool(node.bool).map(JSONValue.bool)
        case 2: return model.real(node.number).map(JSONValue.number)
        case 3: return model.string(node.string).map(JSONValue.string)
        default: return nil
        }
    }

    /// A key that names no modelled node, for an object whose modelled children are all absent.
    private func fillerKey(_ taken: Set<String>) -> String {
        let symbolic = Set(tree.keySymbols.compactMap { model.string($0.name) })
        var index = 0
        while true {
            let candidate = index == 0 ? "filler" : "filler\(index)"
            if !taken.contains(candidate), !tree.mentioned.contains(candidate), !symbolic.contains(candidate) { return candidate }
            index += 1
        }
    }

    /// The JSON of the nodes in `nodes` (by path) at and below `path`.
    private func json(_ nodes: [[DBKey]: DBNodeSymbols], at path: [DBKey]) -> JSONValue? {
        guard let node = nodes[path], model.bool(node.exists) == true, let type = model.int(node.type) else { return nil }
        guard type == 4 else { return primitive(type: type, node) }
        var members: [String: JSONValue] = [:]
        for (childPath, _) in nodes where childPath.count == path.count + 1 && Array(childPath.prefix(path.count)) == path {
            guard let name = key(childPath.last!), let value = json(nodes, at: childPath) else { continue }
            members[name] = value
        }
        if members.isEmpty { members[fillerKey(Set(members.keys))] = .bool(true) }
        return .object(members)
    }

    /// The case, or nil (see ``problem``).
    mutating func build(name: String, expectAllow: Bool) -> DatabaseWitness? {
        var keys: [String] = []
        for k in tree.target {
            guard let text = key(k) else { problem = "no value for a path key"; return nil }
            keys.append(text)
        }
        guard let nowValue = model.real(encoder.now) else { problem = "no value for `now`"; return nil }
        var auth: JSONValue = .null
        if model.bool(encoder.authPresent) == true {
            var object: JSONValue = .object([:])
            for (chain, value) in encoder.authChains.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
                guard let tag = model.int(value.tag) else { continue }
                let leaf: JSONValue? = switch tag {
                case 1: model.bool(value.bool).map(JSONValue.bool)
                case 2: model.real(value.number).map(JSONValue.number)
                case 3: model.string(value.string).map(JSONValue.string)
                case 5: .object([:])
                default: nil
                }
                if let leaf { object = Self.setting(object, chain[...], leaf) }
            }
            auth = object
        }
        var old: [[DBKey]: DBNodeSymbols] = [:]
        for (path, node) in tree.oldNodes { old[path] = node }
        let data = json(old, at: []) ?? .null
        var fields: [(String, String)] = [
            ("name", jsonString(name)),
            ("path", jsonString("/" + keys.joined(separator: "/"))),
            ("method", jsonString(tree.isWrite ? "set" : "read")),
            ("auth", Self.render(auth)),
            ("data", Self.render(data)),
        ]
        var compactValue = ""
        if tree.isWrite {
            let value = json(tree.written, at: []) ?? .null
            fields.append(("value", Self.render(value)))
            compactValue = " value=\(Self.render(value))"
        }
        fields.append(("time", Self.render(.number(nowValue.rounded()))))
        fields.append(("expect", jsonString(expectAllow ? "allow" : "deny")))
        let json = "{" + fields.map { "\(jsonString($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
        let compact = "\(tree.isWrite ? "set" : "read") /\(keys.joined(separator: "/"))\(compactValue) auth=\(Self.render(auth)) "
            + "data=\(Self.render(data)) time=\(Self.render(.number(nowValue.rounded())))"
        return DatabaseWitness(json: json, keys: keys, compact: compact)
    }

    static func setting(_ object: JSONValue, _ chain: ArraySlice<String>, _ value: JSONValue) -> JSONValue {
        guard let first = chain.first else { return value }
        var members: [String: JSONValue] = [:]
        if case .object(let existing) = object { members = existing }
        members[first] = setting(members[first] ?? .object([:]), chain.dropFirst(), value)
        return .object(members)
    }

    /// JSON text with keys sorted.
    static func render(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let n):
            if n == n.rounded(), abs(n) < 1e15 { return String(Int64(n)) }
            return "\(n)"
        case .string(let s): return jsonString(s)
        case .array(let items): return "[" + items.map(render).joined(separator: ", ") + "]"
        case .object(let members):
            return "{" + members.keys.sorted().map { "\(jsonString($0)): \(render(members[$0]!))" }.joined(separator: ", ") + "}"
        }
    }
}

/// Replays database cases through the evaluator.
enum DatabaseReplay {
    /// The decoded case, its stored root, the root after the operation, and the decision.
    struct Outcome {
        var testCase: DatabaseTestCase
        var root: DataNode?
        var newRoot: DataNode?
        var allowed: Bool
        var explanation: String
        /// The spans of the rules that granted it (`.read`/`.write`), in path order.
        var grants: [SourceSpan]
    }

    /// Decodes `json` as `validate rules eval` reads a request and decides it with `program`.
    static func run(_ json: String, program: DatabaseProgram) -> Result<Outcome, ReplayFailure> {
        let testCase: DatabaseTestCase
        do {
            testCase = try DatabaseCaseFileLoader.decodeRequest(json, path: "witness.json")
        } catch {
            return .failure(ReplayFailure(message: "the case does not load: \(error.message)"))
        }
        let root: DataNode?
        do {
            root = try DatabaseTestCase.root(testCase.data ?? .null, time: testCase.time)
        } catch {
            return .failure(ReplayFailure(message: "the case's data is not a database: \(error.message)"))
        }
        var newRoot = root
        if testCase.method == .set, let keys = try? DataTree.keys(of: testCase.path) {
            var budget = 1_000_000
            if let node = try? DataTree.node(from: testCase.value ?? .null, existing: nil, now: testCase.time, path: testCase.path, budget: &budget) {
                newRoot = DataTree.setting(root, at: keys[...], to: node)
            } else if testCase.value == .null {
                newRoot = DataTree.setting(root, at: keys[...], to: nil)
            }
        }
        let decision = program.evaluate(testCase.request, data: root)
        return .success(Outcome(testCase: testCase, root: root, newRoot: newRoot, allowed: decision.allowed,
                                explanation: decision.explanation(in: program.source), grants: decision.grants.map(\.rule.span)))
    }

    struct ReplayFailure: Error { var message: String }
}
