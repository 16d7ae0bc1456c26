// Evaluator: runs one rule expression (reference §3–§6.1). Any error makes the rule false; `&&`,
// `||` and `?:` short-circuit; there is no error absorption. Recursion is bounded by the
// parser's expression depth and work by `evaluationStepLimit`. What it evaluates to is in
// EvaluationValues.swift, what a rule sees in EvaluationContext.swift.
import Diagnostics

/// Evaluates compiled expressions of one program.
struct Evaluator {
    let stepLimit: Int
    var steps = 0
    /// Units of string work so far, for the whole request (``DatabaseLimits/evaluationWorkLimit``).
    var work = 0
    let workLimit: Int
    let maxStringBytes: Int
    var context: RuleContext
    var coverage: DatabaseCoverage?
    var rulePath = ""

    init(limits: DatabaseLimits, context: consuming RuleContext, coverage: DatabaseCoverage?) {
        self.stepLimit = limits.evaluationStepLimit
        self.workLimit = limits.evaluationWorkLimit
        self.maxStringBytes = limits.maxStringBytes
        self.context = context
        self.coverage = coverage
    }

    /// Spends `units` of string work; throws `RD5009` once the request's budget is exceeded.
    mutating func charge(_ units: Int, _ span: SourceSpan) throws(EvalError) {
        work += max(0, units)
        guard work <= workLimit else {
            throw EvalError(code: DatabaseCode.workLimit,
                            message: "the request's string operations did more than \(workLimit) units of work", span: span)
        }
    }

    /// Throws `RD5008` when `operation` would build a string of `bytes` UTF-8 bytes, more than
    /// the limit; otherwise charges the building.
    mutating func build(_ bytes: Int, by operation: String, _ span: SourceSpan) throws(EvalError) {
        guard bytes <= maxStringBytes else {
            throw EvalError(code: DatabaseCode.stringTooLong,
                            message: "\(operation) would build a string of \(bytes) bytes, more than the limit of \(maxStringBytes)", span: span)
        }
        try charge(bytes, span)
    }

    /// Points the evaluator at `rule` evaluated at `location`: a fresh step count and node
    /// caches, the rule's wildcards, and the new node there when the caller has it.
    mutating func begin(_ rule: Rule, location: [String], newNode: DataNode??) {
        steps = 0
        context.location = location
        context.wildcards = rule.wildcards
        context.oldNode = nil
        context.oldNodeKnown = false
        context.newNode = newNode ?? nil
        context.newNodeKnown = newNode != nil
    }

    /// Lets go of the rule's location and nodes, so a caller that reuses its path buffer for the
    /// next rule changes it in place instead of copying it.
    mutating func end() {
        context.location = []
        context.oldNode = nil
        context.oldNodeKnown = false
        context.newNode = nil
        context.newNodeKnown = false
    }

    mutating func boolean(_ expr: CompiledExpression) throws(EvalError) -> Bool {
        let value = try eval(expr)
        guard case .bool(let b) = value else {
            throw EvalError(code: DatabaseCode.resultNotBoolean, message: "expected a boolean, found \(value.typeName)", span: expr.span)
        }
        return b
    }

    /// A rule's result: its boolean, or the error that made it false.
    mutating func outcome(_ expr: CompiledExpression) -> RuleOutcome {
        do {
            return .value(try recordedBoolean(expr))
        } catch {
            return .error(code: error.code, message: error.message)
        }
    }

    /// `boolean(expr)`, counted in the coverage when there is one.
    mutating func recordedBoolean(_ expr: CompiledExpression) throws(EvalError) -> Bool {
        guard let coverage else { return try boolean(expr) }
        do {
            let result = try boolean(expr)
            coverage.record(rulePath: rulePath, span: expr.span, outcome: result ? .true : .false)
            return result
        } catch {
            coverage.record(rulePath: rulePath, span: expr.span, outcome: .error)
            throw error
        }
    }

    mutating func eval(_ expr: CompiledExpression) throws(EvalError) -> RValue {
        steps += 1
        guard steps <= stepLimit else {
            throw EvalError(code: DatabaseCode.stepLimit, message: "rule took more than \(stepLimit) evaluation steps", span: expr.span)
        }
        // The common operations, from stored operands (see `CompiledExpression.Common`); each
        // does what its case below does.
        switch expr.common {
        case .literal: return expr.literal
        case .auth: return context.auth
        case .now: return .number(context.now)
        case .and:
            guard let lhs = expr.first, let rhs = expr.second else { break }
            guard try recordedBoolean(lhs) else { return .bool(false) }
            return .bool(try recordedBoolean(rhs))
        case .or:
            guard let lhs = expr.first, let rhs = expr.second else { break }
            if try recordedBoolean(lhs) { return .bool(true) }
            return .bool(try recordedBoolean(rhs))
        case .not:
            guard let operand = expr.first else { break }
            return .bool(!(try recordedBoolean(operand)))
        case .binary:
            guard let lhsExpr = expr.first, let rhsExpr = expr.second else { break }
            let lhs = try eval(lhsExpr)
            let rhs = try eval(rhsExpr)
            return try binary(expr.binaryOperator, lhs, rhs, expr.span)
        case .nodeRead:
            guard let read = expr.read else { break }
            return try nodeRead(read)
        case .other: break
        }
        switch expr.op {
        case .literal(let value): return value
        case .regex(let regex): return .regex(regex)
        case .array(let items):
            var out: [RValue] = []
            out.reserveCapacity(items.count)
            for item in items { out.append(try eval(item)) }
            return .array(out)
        case .variable(let variable):
            switch variable {
            case .auth: return context.auth
            case .root: return .snapshot(Snapshot(tree: DataOverlay(context.oldRoot), keys: [], node: context.oldRoot))
            case .data: return .snapshot(Snapshot(tree: DataOverlay(context.oldRoot), keys: context.location, node: baseNode(.data)))
            case .newData: return .snapshot(Snapshot(tree: context.newData, keys: context.location, node: baseNode(.newData)))
            case .now: return .number(context.now)
            case .query: return .query
            case .binding(let name):
                guard let bound = context.binding(name) else {
                    throw EvalError(code: DatabaseCode.internalError, message: "internal error: `\(name)` is not bound; please report the rules", span: expr.span)
                }
                return .string(bound)
            }
        case .member(let objectExpr, let name):
            let object = try eval(objectExpr)
            switch object {
            case .null: return .null
            case .json(.object(let members)): return members.lookUp(name).map(RValue.init(json:)) ?? .null
            case .json: return .null
            case .string(let s) where name == "length":
                try charge(s.utf8.count, expr.span)
                return .number(Double(s.utf16.count))
            case .query: return queryField(name)
            default:
                throw EvalError(code: DatabaseCode.typeError, message: "`\(name)` of \(object.typeName)", span: expr.span)
            }
        case .index(let objectExpr, let indexExpr):
            let object = try eval(objectExpr)
            let index = try eval(indexExpr)
            switch (object, index) {
            case (.null, _): return .null
            case (.json(.object(let members)), .string(let key)):
                try charge(key.utf8.count, expr.span)
                return members[key].map(RValue.init(json:)) ?? .null
            case (.json(.array(let items)), .number(let n)):
                guard n >= 0, n == n.rounded(), n < Double(items.count) else { return .null }
                return RValue(json: items[Int(n)])
            case (.json, .string), (.json, .number): return .null
            default:
                throw EvalError(code: DatabaseCode.typeError, message: "cannot subscript \(object.typeName) with \(index.typeName)", span: expr.span)
            }
        case .matches(let receiverExpr, let argument):
            let receiver = try eval(receiverExpr)
            guard case .string(let subject) = receiver else {
                let code = { if case .null = receiver { DatabaseCode.nullOperand } else { DatabaseCode.typeError } }()
                throw EvalError(code: code, message: "`matches()` called on \(receiver.typeName)", span: expr.span)
            }
            guard let argument, case .regex(let regex) = try eval(argument) else {
                throw EvalError(code: DatabaseCode.internalError, message: "internal error: `matches()` without a pattern", span: expr.span)
            }
            try charge(subject.utf8.count, expr.span)
            do {
                return .bool(try regex.matcher.search(subject))
            } catch {
                throw EvalError(code: DatabaseCode.regexFailure, message: "regular expression failed: \(error.message)", span: expr.span)
            }
        case .nodeRead(let read):
            return try nodeRead(read)
        case .call(let receiverExpr, let call, let argumentExprs):
            let receiver = try eval(receiverExpr)
            var arguments: [RValue] = []
            arguments.reserveCapacity(argumentExprs.count)
            for a in argumentExprs { arguments.append(try eval(a)) }
            if case .snapshot(let snapshot) = receiver { return try snapshotMethod(snapshot, call, arguments, expr) }
            return try stringMethod(receiver, call, arguments, expr)
        case .not(let operand):
            return .bool(!(try recordedBoolean(operand)))
        case .negate(let operandExpr):
            let operand = try eval(operandExpr)
            switch operand {
            case .number(let n): return .number(-n)
            case .null: throw EvalError(code: DatabaseCode.nullOperand, message: "null operand of unary `-`", span: expr.span)
            default: throw EvalError(code: DatabaseCode.typeError, message: "unary `-` of \(operand.typeName)", span: expr.span)
            }
        case .and(let lhs, let rhs):
            guard try recordedBoolean(lhs) else { return .bool(false) }
            return .bool(try recordedBoolean(rhs))
        case .or(let lhs, let rhs):
            if try recordedBoolean(lhs) { return .bool(true) }
            return .bool(try recordedBoolean(rhs))
        case .binary(let op, let lhsExpr, let rhsExpr):
            let lhs = try eval(lhsExpr)
            let rhs = try eval(rhsExpr)
            return try binary(op, lhs, rhs, expr.span)
        case .ternary(let condition, let then, let otherwise):
            return try boolean(condition) ? try eval(then) : try eval(otherwise)
        }
    }

    /// A fused node read (its node was counted as one step already).
    mutating func nodeRead(_ read: CompiledExpression.NodeRead) throws(EvalError) -> RValue {
        guard steps - 1 + read.steps <= stepLimit else {
            steps -= 1
            return try eval(read.unfused)
        }
        steps += read.steps - 1
        // The rule's own new node, the most common read in `.validate`, is read where it is cached.
        if read.keys.isEmpty, case .newData = read.base, context.newNodeKnown {
            return Self.read(read.call, of: context.newNode)
        }
        let base = baseNode(read.base)
        return Self.read(read.call, of: read.keys.isEmpty ? base : DataTree.node(base, at: read.keys))
    }

    /// The node `root`, `data` or `newData` points at (the last two resolved once per rule).
    mutating func baseNode(_ base: CompiledExpression.Variable) -> DataNode? {
        switch base {
        case .data:
            if !context.oldNodeKnown {
                context.oldNode = DataTree.node(context.oldRoot, at: context.location)
                context.oldNodeKnown = true
            }
            return context.oldNode
        case .newData:
            if !context.newNodeKnown {
                context.newNode = context.newData.node(at: context.location)
                context.newNodeKnown = true
            }
            return context.newNode
        default:
            return context.oldRoot
        }
    }

    /// A snapshot method that only reads the node (`val`, `exists`, `getPriority`, `isNumber`,
    /// `isString`, `isBoolean`, and `hasChild`/`hasChildren` with literal keys).
    static func read(_ call: CompiledExpression.Call, of node: DataNode?) -> RValue {
        switch call.method {
        case .val:
            switch node {
            case nil: return .null
            case .leaf(let v, _)?: return RValue(v)
            case .branch?: return .sentinel
            }
        case .exists: return .bool(node != nil)
        case .getPriority: return RValue(node?.priority)
        case .isNumber, .isString, .isBoolean:
            guard case .leaf(let v, _)? = node else { return .bool(false) }
            switch (call.method, v) {
            case (.isNumber, .number), (.isString, .string), (.isBoolean, .bool): return .bool(true)
            default: return .bool(false)
            }
        case .hasChild:
            return .bool(DataTree.node(node, at: call.literalKeys?.first ?? []) != nil)
        case .hasChildren:
            guard let items = call.literalKeys else {
                if case .branch? = node { return .bool(true) }
                return .bool(false)
            }
            // `hasChildren([])` is true even on a leaf [P:r32]; on a missing node too (inferred).
            return .bool(items.allSatisfy { !$0.isEmpty && DataTree.node(node, at: $0) != nil })
        default:
            return .null
        }
    }

    func queryField(_ name: String) -> RValue {
        let q = context.query
        switch name {
        case "orderByKey": return .bool(q.orderByKey)
        case "orderByValue": return .bool(q.orderByValue)
        case "orderByPriority": return .bool(q.orderByPriority)
        case "orderByChild": return q.orderByChild.map(RValue.string) ?? .null
        case "startAt": return RValue(q.startAt)
        case "endAt": return RValue(q.endAt)
        case "equalTo": return RValue(q.equalTo)
        case "limitToFirst": return q.limitToFirst.map(RValue.number) ?? .null
        case "limitToLast": return q.limitToLast.map(RValue.number) ?? .null
        default: return .null
        }
    }

    static func strictEqual(_ a: RValue, _ b: RValue) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.bool(let x), .bool(let y)): x == y
        case (.number(let x), .number(let y)): x == y
        case (.string(let x), .string(let y)): sameCodeUnits(x, y)
        case (.json(let x), .json(let y)): x == y
        default: false
        }
    }

    /// ``strictEqual(_:_:)``, charged: the shorter string's bytes, or the values of the smaller
    /// `auth` object or array compared.
    mutating func chargedEqual(_ a: RValue, _ b: RValue, _ span: SourceSpan) throws(EvalError) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)): try charge(min(x.utf8.count, y.utf8.count), span)
        case (.json(let x), .json(let y)): try charge(min(Self.size(x), Self.size(y)), span)
        default: break
        }
        return Self.strictEqual(a, b)
    }

    /// Values in a JSON value, with its strings' bytes.
    static func size(_ value: JSONValue) -> Int {
        var total = 0
        var stack = [value]
        while let next = stack.popLast() {
            total += 1
            switch next {
            case .string(let s): total += s.utf8.count
            case .array(let items): stack += items
            case .object(let members): for (key, member) in members { total += key.utf8.count; stack.append(member) }
            default: break
            }
        }
        return total
    }

    mutating func binary(_ op: BinaryOperator, _ lhs: RValue, _ rhs: RValue, _ span: SourceSpan) throws(EvalError) -> RValue {
        switch op {
        case .equal, .strictEqual: return .bool(try chargedEqual(lhs, rhs, span))
        case .notEqual, .strictNotEqual: return .bool(!(try chargedEqual(lhs, rhs, span)))
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            let order: Int
            switch (lhs, rhs) {
            case (.number(let x), .number(let y)):
                if x.isNaN || y.isNaN { return .bool(false) }
                order = x < y ? -1 : x > y ? 1 : 0
            case (.string(let x), .string(let y)):
                try charge(min(x.utf8.count, y.utf8.count), span)
                order = x.utf16.lexicographicallyPrecedes(y.utf16) ? -1 : x.utf16.elementsEqual(y.utf16) ? 0 : 1
            case (.null, _), (_, .null):
                throw EvalError(code: DatabaseCode.nullOperand, message: "null operand of `\(op.rawValue)`", span: span)
            default:
                throw EvalError(code: DatabaseCode.typeError, message: "cannot order \(lhs.typeName) against \(rhs.typeName)", span: span)
            }
            switch op {
            case .less: return .bool(order < 0)
            case .lessOrEqual: return .bool(order <= 0)
            case .greater: return .bool(order > 0)
            default: return .bool(order >= 0)
            }
        case .add:
            switch (lhs, rhs) {
            case (.number(let x), .number(let y)): return .number(x + y)
            case (.string(let x), .string(let y)):
                try build(x.utf8.count + y.utf8.count, by: "`+`", span)
                return .string(x + y)
            case (.string(let x), .number(let y)):
                let text = formatNumber(y)
                try build(x.utf8.count + text.utf8.count, by: "`+`", span)
                return .string(x + text)
            case (.number(let x), .string(let y)):
                let text = formatNumber(x)
                try build(text.utf8.count + y.utf8.count, by: "`+`", span)
                return .string(text + y)
            case (.null, _), (_, .null): throw EvalError(code: DatabaseCode.nullOperand, message: "null operand of `+`", span: span)
            default: throw EvalError(code: DatabaseCode.typeError, message: "cannot add \(lhs.typeName) and \(rhs.typeName)", span: span)
            }
        case .subtract, .multiply, .divide, .remainder:
            guard case .number(let x) = lhs, case .number(let y) = rhs else {
                if case .null = lhs { throw EvalError(code: DatabaseCode.nullOperand, message: "null operand of `\(op.rawValue)`", span: span) }
                if case .null = rhs { throw EvalError(code: DatabaseCode.nullOperand, message: "null operand of `\(op.rawValue)`", span: span) }
                throw EvalError(code: DatabaseCode.typeError, message: "`\(op.rawValue)` of \(lhs.typeName) and \(rhs.typeName)", span: span)
            }
            switch op {
            case .subtract: return .number(x - y)
            case .multiply: return .number(x * y)
            case .divide: return .number(x / y)
            default: return .number(x.truncatingRemainder(dividingBy: y))
            }
        case .and, .or:
            throw EvalError(code: DatabaseCode.internalError, message: "internal error: logical operator evaluated eagerly; please report the rules", span: span)
        }
    }

    func stringArgument(_ value: RValue, _ method: String, _ span: SourceSpan) throws(EvalError) -> String {
        guard case .string(let s) = value else {
            throw EvalError(code: DatabaseCode.argumentNotString, message: "`\(method)()` argument is \(value.typeName), not a string", span: span)
        }
        return s
    }

    /// The keys of `child(path)`/`hasChild(path)`: empty segments are skipped; `child('')` is an
    /// empty snapshot (both inferred, §8.12): the empty key never exists, because no stored key is empty.
    static func childKeys(_ path: String) -> [String] {
        let keys = path.utf8.contains(UInt8(ascii: "/")) ? path.split(separator: "/", omittingEmptySubsequences: true).map(String.init) : [path]
        return keys.isEmpty ? [""] : keys
    }

    /// The keys of one `hasChildren` name; none when it names no child.
    static func hasChildrenKeys(_ key: String) -> [String] {
        key.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    mutating func snapshotMethod(_ snapshot: Snapshot, _ call: CompiledExpression.Call, _ arguments: [RValue],
                                 _ expr: CompiledExpression) throws(EvalError) -> RValue {
        steps += 1
        let name = call.name
        switch call.method {
        case .val, .exists, .getPriority, .isNumber, .isString, .isBoolean:
            return Self.read(call, of: snapshot.node)
        case .child, .hasChild:
            let path = try stringArgument(arguments.first ?? .null, name, expr.span)
            if call.literalKeys == nil { try charge(path.utf8.count, expr.span) }
            let keys = call.literalKeys?.first ?? Self.childKeys(path)
            let node = DataTree.node(snapshot.node, at: keys)
            steps += keys.count
            return call.method == .child ? .snapshot(Snapshot(tree: snapshot.tree, keys: snapshot.keys + keys, node: node)) : .bool(node != nil)
        case .parent:
            guard !snapshot.keys.isEmpty else {
                throw EvalError(code: DatabaseCode.parentOfRoot, message: "`parent()` of the root", span: expr.span)
            }
            return .snapshot(Snapshot(tree: snapshot.tree, keys: Array(snapshot.keys.dropLast())))
        case .hasChildren:
            let node = snapshot.node
            guard case .array(let items)? = arguments.first else {
                if case .branch? = node { return .bool(true) }
                return .bool(false)
            }
            // `hasChildren([])` is true even on a leaf [P:r32]; on a missing node too (inferred).
            var all = true
            for (offset, item) in items.enumerated() {
                let key = try stringArgument(item, name, expr.span)
                if call.literalKeys == nil { try charge(1 + key.utf8.count, expr.span) }
                let keys = call.literalKeys?[offset] ?? Self.hasChildrenKeys(key)
                if keys.isEmpty || DataTree.node(node, at: keys) == nil { all = false }
            }
            return .bool(all)
        default:
            throw EvalError(code: DatabaseCode.internalError, message: "internal error: unknown snapshot method `\(name)`; please report the rules", span: expr.span)
        }
    }

    mutating func stringMethod(_ receiver: RValue, _ call: CompiledExpression.Call, _ arguments: [RValue],
                               _ expr: CompiledExpression) throws(EvalError) -> RValue {
        let name = call.name
        guard case .string(let s) = receiver else {
            let code = { if case .null = receiver { DatabaseCode.nullOperand } else { DatabaseCode.typeError } }()
            throw EvalError(code: code, message: "`\(name)()` called on \(receiver.typeName)", span: expr.span)
        }
        // Every string method reads the whole receiver (as UTF-16 code units) at least once.
        try charge(s.utf8.count, expr.span)
        switch call.method {
        case .contains, .beginsWith, .endsWith:
            let needleText = try stringArgument(arguments.first ?? .null, name, expr.span)
            try charge(needleText.utf8.count, expr.span)
            let needle = Array(needleText.utf16)
            let hay = Array(s.utf16)
            switch call.method {
            case .beginsWith: return .bool(hay.starts(with: needle))
            case .endsWith: return .bool(hay.count >= needle.count && Array(hay[(hay.count - needle.count)...]) == needle)
            default: return .bool(SubstringSearch(needle).firstIndex(in: hay, from: 0) != nil)
            }
        case .replace:
            let subText = try stringArgument(arguments.first ?? .null, name, expr.span)
            let replacementText = try stringArgument(arguments.count > 1 ? arguments[1] : .null, name, expr.span)
            try charge(subText.utf8.count + replacementText.utf8.count, expr.span)
            let sub = Array(subText.utf16)
            let replacement = Array(replacementText.utf16)
            let hay = Array(s.utf16)
            // The result's length is known before it is built: a replacement of `''` inserts
            // `replacement` hay.count + 1 times, so `s.replace('', s)` is quadratic in `s`.
            let search = SubstringSearch(sub)
            var matches = 0
            if sub.isEmpty {
                matches = hay.count + 1
            } else {
                var i = 0
                while let at = search.firstIndex(in: hay, from: i) {
                    matches += 1
                    i = at + sub.count
                }
            }
            let (added, overflow) = matches.multipliedReportingOverflow(by: replacementText.utf8.count)
            let bytes = overflow ? Int.max : s.utf8.count - (sub.isEmpty ? 0 : matches * subText.utf8.count) + added
            try build(bytes, by: "`replace()`", expr.span)
            var out: [UInt16] = []
            out.reserveCapacity(hay.count + matches * replacement.count)
            if sub.isEmpty {
                // JVM `String.replace("", r)`: `r` before every code unit and at the end (inferred).
                for unit in hay { out += replacement; out.append(unit) }
                out += replacement
            } else {
                var i = 0
                while let at = search.firstIndex(in: hay, from: i) {
                    out += hay[i..<at]
                    out += replacement
                    i = at + sub.count
                }
                out += hay[i...]
            }
            return .string(String(decoding: out, as: UTF16.self))
        case .toLowerCase, .toUpperCase:
            let mapped = call.method == .toLowerCase ? s.lowercased() : s.uppercased()
            try build(mapped.utf8.count, by: "`\(name)()`", expr.span)
            return .string(mapped)
        default:
            throw EvalError(code: DatabaseCode.typeError, message: "no method `\(name)` on a string", span: expr.span)
        }
    }
}

/// Finds a needle in UTF-16 code units in time linear in both (Knuth–Morris–Pratt): a naive
/// search is quadratic on `aaa…ab` in `aaa…a`.
struct SubstringSearch {
    let needle: [UInt16]
    /// `failure[i]`: the length of the longest proper prefix of `needle[...i]` that is also its suffix.
    private let failure: [Int]

    init(_ needle: [UInt16]) {
        self.needle = needle
        var failure = [Int](repeating: 0, count: needle.count)
        var k = 0
        for i in needle.indices.dropFirst() {
            while k > 0, needle[i] != needle[k] { k = failure[k - 1] }
            if needle[i] == needle[k] { k += 1 }
            failure[i] = k
        }
        self.failure = failure
    }

    /// The first index at or after `start` where `needle` occurs in `hay`.
    func firstIndex(in hay: [UInt16], from start: Int) -> Int? {
        if needle.isEmpty { return start <= hay.count ? start : nil }
        var k = 0
        var i = start
        while i < hay.count {
            while k > 0, hay[i] != needle[k] { k = failure[k - 1] }
            if hay[i] == needle[k] { k += 1 }
            if k == needle.count { return i - needle.count + 1 }
            i += 1
        }
        return nil
    }
}
