import DatabaseRules
import Diagnostics
import PropertyBased
import Synchronization
import Testing

/// Draws choices from a list of generated integers (wrapping around when it runs out).
struct Picks {
    let values: [Int]
    var index = 0
    init(_ values: [Int]) { self.values = values.isEmpty ? [0] : values }
    mutating func next(_ bound: Int) -> Int {
        defer { index += 1 }
        return abs(values[index % values.count] &+ index &* 7919) % max(1, bound)
    }
}

/// Counts inputs a property really checked (asserted after the run).
final class Counter: Sendable {
    private let value = Mutex(0)
    func add() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

// MARK: - parse(print(rules)) == rules

/// Generates well-typed rules text, fully parenthesized (so printing must choose parentheses).
struct RulesGenerator {
    var picks: Picks

    mutating func number(_ depth: Int) -> String {
        switch picks.next(depth > 2 ? 3 : 7) {
        case 0: return String(picks.next(100))
        case 1: return ["2.5", "0.125", "1e3", "7"][picks.next(4)]
        case 2: return "data.val()"
        case 3: return "(\(number(depth + 1)) + \(number(depth + 1)))"
        case 4: return "(\(number(depth + 1)) * \(number(depth + 1)))"
        case 5: return "(-\(number(depth + 1)))"
        default: return "(\(number(depth + 1)) % \(number(depth + 1)))"
        }
    }

    mutating func string(hasWildcard: Bool) -> String {
        let options = ["'a'", "\"b\\\"q\"", "'it\\'s'", "auth.uid", "data.child('k').val()", "('x' + 'y')", "'ü\\n'"] + (hasWildcard ? ["$w"] : [])
        return options[picks.next(options.count)]
    }

    mutating func condition(_ depth: Int, kind: RuleKind, hasWildcard: Bool) -> String {
        let leaf = depth > 3 || picks.next(3) == 0
        if leaf {
            var options = ["true", "false", "auth != null", "data.exists()", "root.hasChildren(['a', 'b'])", "data.hasChildren()",
                           "(\(number(depth)) > \(number(depth)))", "(\(number(depth)) === \(number(depth)))",
                           "data.child('k').val().matches(/^a[0-9]{2}(x|y)*$/i)", "now >= 1000", "auth.token.admin == true",
                           "auth.token['firebase'].sign_in_provider != 'anonymous'", "data.getPriority() == null"]
            if hasWildcard { options += ["auth.uid == $w", "$w.beginsWith('u')", "$w.length < 5"] }
            if kind != .read { options += ["newData.isString()", "newData.child('a/b').exists()", "newData.val().toLowerCase().contains('q')"] }
            else { options += ["query.orderByChild == 'owner'", "query.limitToFirst <= 10"] }
            let pick = options[picks.next(options.count)]
            return "(" + pick + ")"
        }
        switch picks.next(5) {
        case 0: return "(!\(condition(depth + 1, kind: kind, hasWildcard: hasWildcard)))"
        case 1: return "(\(condition(depth + 1, kind: kind, hasWildcard: hasWildcard)) && \(condition(depth + 1, kind: kind, hasWildcard: hasWildcard)))"
        case 2: return "(\(condition(depth + 1, kind: kind, hasWildcard: hasWildcard)) || \(condition(depth + 1, kind: kind, hasWildcard: hasWildcard)))"
        case 3: return "(\(condition(depth + 1, kind: kind, hasWildcard: hasWildcard)) ? \(condition(depth + 1, kind: kind, hasWildcard: hasWildcard)) : \(condition(depth + 1, kind: kind, hasWildcard: hasWildcard)))"
        default: return "(\(string(hasWildcard: hasWildcard)) == \(string(hasWildcard: hasWildcard)))"
        }
    }

    mutating func node(_ depth: Int, hasWildcard: Bool) -> String {
        var members: [String] = []
        for kind in RuleKind.allCases where picks.next(2) == 0 {
            if picks.next(5) == 0 {
                members.append("\"\(kind.rawValue)\": \(picks.next(2) == 0)")
            } else {
                let text = condition(0, kind: kind, hasWildcard: hasWildcard)
                members.append("\"\(kind.rawValue)\": " + jsonString(text))
            }
        }
        if picks.next(4) == 0 { members.append("\".indexOn\": [\"a\", \"b/c\"]") }
        if depth < 3 {
            for key in ["a", "b-c", "ü"] where picks.next(3) == 0 { members.append("\"\(key)\": " + node(depth + 1, hasWildcard: hasWildcard)) }
            if !hasWildcard, picks.next(2) == 0 { members.append("\"$w\": " + node(depth + 1, hasWildcard: true)) }
        }
        return "{" + members.joined(separator: ", ") + "}"
    }
}

@Suite struct PrinterPropertyTests {
    @Test func parsePrintIsIdentityOnGeneratedRules() async {
        let checked = Counter()
        await propertyCheck(count: 300, input: Gen.int(in: 0...1000).array(of: 10...60)) { values in
            var generator = RulesGenerator(picks: Picks(values))
            let text = "{\"rules\": " + generator.node(0, hasWildcard: false) + "}"
            let first = compile(text)
            guard let program = first.program else {
                Issue.record("generated rules do not compile: \(first.diagnostics.map(\.message)) in \(text)")
                return
            }
            let printed = DatabaseRulesPrinter.print(program.root)
            let second = compile(printed)
            guard let reparsed = second.program else {
                Issue.record("printed rules do not compile: \(second.diagnostics.map(\.message)) in \(printed)")
                return
            }
            #expect(program.root.sameRules(as: reparsed.root), "\(text)\nprinted as\n\(printed)")
            #expect(DatabaseRulesPrinter.print(reparsed.root) == printed)
            checked.add()
        }
        #expect(checked.count == 300)
    }

    @Test func printerChoosesParentheses() throws {
        let program = try #require(compile(#"{"rules": {".read": "((1 + 2) * 3 == 9) && !(true || false) && (true ? false : true) == false && - -1 == 1"}}"#).program)
        guard case .expression(let expr)? = program.root.read?.body else {
            Issue.record("expected an expression")
            return
        }
        #expect(DatabaseRulesPrinter.print(expr) == "(1 + 2) * 3 == 9 && !(true || false) && (true ? false : true) == false && - -1 == 1")
    }
}

// MARK: - Differential: the engine against a naive evaluator

/// A naive model of rules and data that shares no code with the engine: rules are a tree of
/// condition ids, data a tree of small values, semantics written from reference §6 directly.
enum Naive {
    indirect enum Data: Equatable {
        case int(Int)
        case branch([String: Data])
    }

    final class Node {
        var read: Int?
        var write: Int?
        var validate: Int?
        var children: [String: Node] = [:]
        var wildcard: Node?
    }

    /// Condition vocabulary: id → (engine text, naive meaning).
    static func text(_ id: Int, scope: Bool, read: Bool) -> String {
        switch id {
        case 0: "true"
        case 1: "false"
        case 2: "auth != null"
        case 3: scope ? "auth.uid == $w" : "auth.uid == 'u1'"
        case 4: "data.exists()"
        case 5: read ? "data.val() == 1" : "newData.val() == 1"
        case 6: read ? "!data.exists()" : "newData.exists()"
        default: read ? "root.child('a').exists()" : "newData.parent().exists()"
        }
    }

    struct Context {
        var auth: String?
        var old: Data?
        var new: Data?
        var location: [String]
        var bound: String?
    }

    static func holds(_ id: Int, _ c: Context, read: Bool) -> Bool {
        switch id {
        case 0: return true
        case 1: return false
        case 2: return c.auth != nil
        case 3: return c.bound != nil ? c.auth == c.bound : c.auth == "u1"
        case 4: return get(c.old, c.location) != nil
        case 5: return (read ? get(c.old, c.location) : get(c.new, c.location)) == .int(1)
        case 6: return read ? get(c.old, c.location) == nil : get(c.new, c.location) != nil
        default:
            if read { return get(c.old, ["a"]) != nil }
            // `parent()` of the root is an error, so the rule is false there.
            return !c.location.isEmpty && get(c.new, Array(c.location.dropLast())) != nil
        }
    }

    static func get(_ root: Data?, _ path: [String]) -> Data? {
        var node = root
        for key in path {
            guard case .branch(let children)? = node else { return nil }
            node = children[key]
        }
        return node
    }

    static func set(_ root: Data?, _ path: ArraySlice<String>, _ value: Data?) -> Data? {
        guard let key = path.first else { return value }
        var children: [String: Data] = [:]
        if case .branch(let existing)? = root { children = existing }
        children[key] = set(children[key], path.dropFirst(), value)
        return children.isEmpty ? nil : .branch(children)
    }

    /// The walk: (node, depth, bound) for depth 0… while nodes exist.
    static func walk(_ rules: Node, _ path: [String]) -> [(Node, Int, String?)] {
        var out: [(Node, Int, String?)] = [(rules, 0, nil)]
        var node = rules
        var bound: String?
        for (i, key) in path.enumerated() {
            if let literal = node.children[key] { node = literal } else if let w = node.wildcard { node = w; bound = key } else { break }
            out.append((node, i + 1, bound))
        }
        return out
    }

    static func decide(rules: Node, old: Data?, auth: String?, path: [String], write: [( [String], Data?)]?) -> Bool {
        guard let write else {
            return walk(rules, path).contains { node, depth, bound in
                node.read.map { holds($0, Context(auth: auth, old: old, new: old, location: Array(path.prefix(depth)), bound: bound), read: true) } ?? false
            }
        }
        var new = old
        for (location, value) in write { new = set(new, location[...], value) }
        for (location, _) in write {
            let granted = walk(rules, location).contains { node, depth, bound in
                node.write.map { holds($0, Context(auth: auth, old: old, new: new, location: Array(location.prefix(depth)), bound: bound), read: false) } ?? false
            }
            if !granted { return false }
        }
        var toCheck: [[String]] = []
        for (location, _) in write {
            for depth in 0...location.count { toCheck.append(Array(location.prefix(depth))) }
            var stack = [location]
            while let p = stack.popLast() {
                if case .branch(let children)? = get(new, p) { for k in children.keys { let q = p + [k]; toCheck.append(q); stack.append(q) } }
            }
        }
        for x in toCheck where get(new, x) != nil {
            let walked = walk(rules, x)
            guard let (node, depth, bound) = walked.last, depth == x.count, let v = node.validate else { continue }
            if !holds(v, Context(auth: auth, old: old, new: new, location: x, bound: bound), read: false) { return false }
        }
        return true
    }

    static func json(_ node: Node, scope: Bool) -> String {
        var members: [String] = []
        if let r = node.read { members.append("\".read\": \"\(text(r, scope: scope, read: true))\"") }
        if let w = node.write { members.append("\".write\": \"\(text(w, scope: scope, read: false))\"") }
        if let v = node.validate { members.append("\".validate\": \"\(text(v, scope: scope, read: false))\"") }
        for (k, child) in node.children.sorted(by: { $0.key < $1.key }) { members.append("\"\(k)\": " + json(child, scope: scope)) }
        if let w = node.wildcard { members.append("\"$w\": " + json(w, scope: true)) }
        return "{" + members.joined(separator: ", ") + "}"
    }

    static func json(_ data: Data?) -> String {
        switch data {
        case nil: "null"
        case .int(let n)?: String(n)
        case .branch(let children)?: "{" + children.sorted { $0.key < $1.key }.map { "\"\($0.key)\": " + json($0.value) }.joined(separator: ", ") + "}"
        }
    }
}

struct NaiveGenerator {
    var picks: Picks
    let keys = ["a", "b", "u1"]

    mutating func rule() -> Int? { picks.next(3) == 0 ? nil : picks.next(8) }

    mutating func node(_ depth: Int, wildcardAbove: Bool) -> Naive.Node {
        let node = Naive.Node()
        node.read = rule()
        node.write = rule()
        node.validate = picks.next(2) == 0 ? nil : picks.next(8)
        guard depth < 3 else { return node }
        for key in keys where picks.next(3) == 0 { node.children[key] = self.node(depth + 1, wildcardAbove: wildcardAbove) }
        if !wildcardAbove, picks.next(2) == 0 { node.wildcard = self.node(depth + 1, wildcardAbove: true) }
        return node
    }

    mutating func data(_ depth: Int) -> Naive.Data? {
        if depth >= 3 || picks.next(3) == 0 { return picks.next(4) == 0 ? nil : .int(1 + picks.next(2)) }
        var children: [String: Naive.Data] = [:]
        for key in keys where picks.next(2) == 0 { children[key] = data(depth + 1) }
        return children.isEmpty ? nil : .branch(children)
    }

    mutating func path() -> [String] { (0..<picks.next(4)).map { _ in keys[picks.next(keys.count)] } }
}

@Suite struct DifferentialTests {
    @Test func engineAgreesWithTheNaiveEvaluator() async {
        let checked = Counter()
        let allowed = Counter()
        await propertyCheck(count: 800, input: Gen.int(in: 0...10_000).array(of: 20...80)) { values in
            var g = NaiveGenerator(picks: Picks(values))
            let rules = g.node(0, wildcardAbove: false)
            let old = g.data(0)
            let auth: String? = [nil, "u1", "b"][g.picks.next(3)]
            let path = g.path()
            var write: [([String], Naive.Data?)]?
            let operation: DatabaseRequest.Operation
            switch g.picks.next(3) {
            case 0: operation = .read(DatabaseQuery())
            case 1:
                let value = g.data(1)
                write = [(path, value)]
                operation = .set(json(Naive.json(value)))
            default:
                var updates: [String: JSONValue] = [:]
                var locations: [([String], Naive.Data?)] = []
                for key in ["a", "b"] where g.picks.next(2) == 0 {
                    let value = g.data(2)
                    updates[key] = json(Naive.json(value))
                    locations.append((path + [key], value))
                }
                if updates.isEmpty { updates["u1"] = .null; locations.append((path + ["u1"], nil)) }
                write = locations
                operation = .update(updates)
            }
            let text = "{\"rules\": " + Naive.json(rules, scope: false) + "}"
            guard let program = compile(text).program else {
                Issue.record("does not compile: \(text)")
                return
            }
            let request = DatabaseRequest(path: "/" + path.joined(separator: "/"), operation: operation,
                                          auth: auth.map { .object(["uid": .string($0)]) }, now: 1)
            let decision = program.evaluate(request, data: tree(Naive.json(old)))
            let expected = Naive.decide(rules: rules, old: old, auth: auth, path: path, write: write)
            let described = "rules \(text)\ndata \(Naive.json(old))\nauth \(auth ?? "null") path /\(path.joined(separator: "/")) \(operation)"
            #expect(decision.allowed == expected, "\(described)")
            // The verdict-only path decides the same without recording.
            #expect(program.isAllowed(request, data: tree(Naive.json(old))) == expected, "isAllowed: \(described)")
            checked.add()
            if expected { allowed.add() }
        }
        #expect(checked.count == 800)
        // Both outcomes are exercised, so agreement is not trivial.
        #expect(allowed.count > 80 && allowed.count < 720)
    }
}
