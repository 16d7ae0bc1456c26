// DatabaseExpressionEncoder+Calls: snapshot methods (`child`, `parent`, `val`, `exists`, `isString`,
// `hasChild`, `hasChildren`, …) and string methods (`contains`, `beginsWith`, `endsWith`,
// `matches`) over the symbolic tree.
import DatabaseRules
import Diagnostics

extension DatabaseExpressionEncoder {
    func call(_ receiverExpr: DatabaseExpression, _ name: String, _ arguments: [DatabaseExpression], expr: DatabaseExpression,
              scope: DBScope) -> DBTerm {
        let receiver = encode(receiverExpr, scope: scope)
        if case .snapshot(let kind, let path) = receiver {
            return snapshotMethod(kind, path, name, arguments, expr: expr, scope: scope)
        }
        guard case .value(let subject) = receiver else { return .value(Self.failure) }
        return .value(stringMethod(subject, name, arguments, expr: expr, scope: scope))
    }

    /// The literal text of a string-literal argument.
    private func literalText(_ expr: DatabaseExpression?) -> String? {
        if case .string(let text)? = expr?.kind { return text }
        return nil
    }

    /// The observations rules make of one node.
    private struct NodeView {
        var exists: String
        var type: String
        var bool: String
        var number: String
        var string: String
    }

    private func view(_ kind: DBTreeKind, _ path: [DBKey]?, expr: DatabaseExpression, scope: DBScope) -> NodeView {
        let resolved: DatabaseSymbolicTree.Resolved = path.map { tree.resolve(kind, $0) } ?? .unmodelled
        switch resolved {
        case .node(let node):
            return NodeView(exists: node.exists, type: node.type, bool: node.bool, number: node.number, string: node.string)
        case .ancestor(let exists):
            return NodeView(exists: exists, type: "4", bool: "false", number: "0.0", string: "\"\"")
        case .unmodelled:
            let why = path == nil ? "a child under a computed key" : "a node below the written value's depth bound (\(tree.depthBound))"
            let h = havoc(why, at: scope.locate(expr.span))
            let exists = tree.fresh("hx", sort: "Bool")
            tree.assert("(and (>= \(h.tag) 1) (<= \(h.tag) 4))")
            return NodeView(exists: exists, type: h.tag, bool: h.bool, number: h.number, string: h.string)
        }
    }

    private func snapshotMethod(_ kind: DBTreeKind, _ path: [DBKey]?, _ name: String, _ arguments: [DatabaseExpression],
                                expr: DatabaseExpression, scope: DBScope) -> DBTerm {
        let here = scope.locate(expr.span)
        switch name {
        case "child":
            guard let text = literalText(arguments.first) else {
                // The argument's own errors are not modelled: the lookup is unconstrained.
                abstractions.append(Abstraction(construct: "`child()` with a computed key", location: here))
                return .snapshot(kind, nil)
            }
            return .snapshot(kind, path.map { $0 + Self.childKeys(text).map(DBKey.literal) })
        case "parent":
            guard let path else { return .snapshot(kind, nil) }
            guard !path.isEmpty else { return .value(Self.failure) }
            return .snapshot(kind, Array(path.dropLast()))
        case "val":
            let v = view(kind, path, expr: expr, scope: scope)
            return .value(DBValue(error: "false", tag: SMT.ite(v.exists, v.type, "0"), bool: v.bool, number: v.number, string: v.string))
        case "exists":
            return .value(.bool(view(kind, path, expr: expr, scope: scope).exists))
        case "isString", "isNumber", "isBoolean":
            let type = name == "isString" ? "3" : name == "isNumber" ? "2" : "1"
            let v = view(kind, path, expr: expr, scope: scope)
            return .value(.bool(SMT.and([v.exists, SMT.eq(v.type, type)])))
        case "hasChild":
            guard let text = literalText(arguments.first) else { return .value(havoc("`hasChild()` with a computed key", at: here)) }
            let keys = Self.childKeys(text).map(DBKey.literal)
            return .value(.bool(view(kind, path.map { $0 + keys }, expr: expr, scope: scope).exists))
        case "hasChildren":
            guard let first = arguments.first else {
                let v = view(kind, path, expr: expr, scope: scope)
                return .value(.bool(SMT.and([v.exists, SMT.eq(v.type, "4")])))
            }
            guard case .array(let items) = first.kind else { return .value(havoc("`hasChildren()` of a computed list", at: here)) }
            var all: [String] = []
            for item in items {
                guard let text = literalText(item) else { return .value(havoc("`hasChildren()` with a computed key", at: here)) }
                let keys = Self.hasChildrenKeys(text)
                if keys.isEmpty { all.append("false"); continue }
                all.append(view(kind, path.map { $0 + keys.map(DBKey.literal) }, expr: expr, scope: scope).exists)
            }
            return .value(.bool(SMT.and(all)))
        default:
            return .value(havoc("`\(name)()`", at: here))
        }
    }

    private func stringMethod(_ subject: DBValue, _ name: String, _ arguments: [DatabaseExpression], expr: DatabaseExpression,
                              scope: DBScope) -> DBValue {
        let here = scope.locate(expr.span)
        let notString = SMT.or([subject.error, SMT.not(subject.has(3))])
        switch name {
        case "contains", "beginsWith", "endsWith":
            guard let argument = arguments.first else { return Self.failure }
            let needle = value(argument, scope: scope)
            let term: String
            if SMT.concreteString(needle.string) != nil {
                // A literal needle as a regex: Z3 decides it with the subject's other regexes.
                let any = "(re.* re.allchar)", literal = "(str.to_re \(needle.string))"
                let regex = switch name {
                case "contains": "(re.++ \(any) \(literal) \(any))"
                case "beginsWith": "(re.++ \(literal) \(any))"
                default: "(re.++ \(any) \(literal))"
                }
                term = tree.membership(subject.string, regex)
            } else {
                term = switch name {
                case "contains": "(str.contains \(subject.string) \(needle.string))"
                case "beginsWith": "(str.prefixof \(needle.string) \(subject.string))"
                default: "(str.suffixof \(needle.string) \(subject.string))"
                }
            }
            return .bool(term, error: SMT.or([notString, needle.error, SMT.not(needle.has(3))]))
        case "matches":
            guard let argument = arguments.first, case .regex(let pattern, let flags) = encode(argument, scope: scope) else {
                return Self.failure
            }
            guard let regex = Self.searchRegex(pattern, flags: flags) else {
                let h = havoc("`matches(/\(pattern)/\(flags))`", at: here)
                return .bool(h.bool, error: SMT.or([notString, h.error]))
            }
            return .bool(tree.membership(subject.string, regex), error: notString)
        default:
            let h = havoc("`\(name)()`", at: here)
            return DBValue(error: SMT.or([notString, h.error]), tag: h.tag, bool: h.bool, number: h.number, string: h.string)
        }
    }

    /// The keys of `child(path)`/`hasChild(path)`, as the evaluator splits them.
    static func childKeys(_ path: String) -> [String] {
        let keys = path.contains("/") ? path.split(separator: "/", omittingEmptySubsequences: true).map(String.init) : [path]
        return keys.isEmpty ? [""] : keys
    }

    /// The keys of one `hasChildren` name.
    static func hasChildrenKeys(_ key: String) -> [String] {
        key.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    /// A search in the database dialect (DatabaseRegex: `/re/` matches anywhere unless anchored,
    /// `^` only first means the start and `$` only last the very end) as one SMT regex, for the
    /// patterns the regex translator reads the same way: no flags, no top-level `|`, no unescaped
    /// `.` (any character, line feeds included, in the dialect), no `\s \S \b \B`. Nil otherwise.
    static func searchRegex(_ pattern: String, flags: String) -> String? {
        guard flags.isEmpty else { return nil }
        var body = Array(pattern.unicodeScalars)
        let anchoredStart = body.first == "^"
        if anchoredStart { body.removeFirst() }
        var anchoredEnd = false
        if body.last == "$" {
            var backslashes = 0
            var i = body.count - 2
            while i >= 0, body[i] == "\\" { backslashes += 1; i -= 1 }
            if backslashes % 2 == 0 { anchoredEnd = true; body.removeLast() }
        }
        var depth = 0, inClass = false, i = 0
        while i < body.count {
            let c = body[i]
            if c == "\\" {
                guard i + 1 < body.count else { return nil }
                if "sSbB".unicodeScalars.contains(body[i + 1]) { return nil }
                i += 2
                continue
            }
            if inClass {
                if c == "]" { inClass = false }
            } else {
                switch c {
                case "[": inClass = true
                case "(": depth += 1
                case ")": depth -= 1
                case "|" where depth == 0, ".", "^", "$": return nil
                default: break
                }
            }
            i += 1
        }
        var text = ""
        text.unicodeScalars.append(contentsOf: body)
        guard case .success(let translation) = RegexTranslator.translateMembership(text), !translation.forbidsNewline else { return nil }
        let any = "(re.* re.allchar)"
        let parts = (anchoredStart ? [] : [any]) + [translation.regex] + (anchoredEnd ? [] : [any])
        return parts.count == 1 ? parts[0] : "(re.++ \(parts.joined(separator: " ")))"
    }
}
