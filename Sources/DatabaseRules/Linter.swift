// Linter: warnings about database rules that are valid but probably wrong (reference §7's traps).
import Diagnostics

/// Lint codes (warnings).
public enum DatabaseLintCode {
    /// `.read: true` or `.write: true` at the root or on a `$wildcard`.
    public static let openAccess = "RD8001"
    /// A `$uid`-style wildcard whose writes never compare `auth.uid` with it.
    public static let ownershipHole = "RD8002"
    /// A deeper `.read`/`.write` that cannot take effect because an ancestor grants (cascade).
    public static let cascadeTrap = "RD8003"
    /// A write grant with no `.validate` at or below it.
    public static let unvalidatedWrite = "RD8004"
    /// A `.validate` no write can reach.
    public static let unreachableValidate = "RD8005"
    /// A wildcard name that expressions cannot spell (`$user-id`).
    public static let wildcardName = "RD8006"
}

/// Lints a compiled program.
public enum DatabaseRulesLinter {
    /// Every warning for `program`, in file order.
    public static func lint(_ program: DatabaseProgram) -> [Diagnostic] {
        var out: [Diagnostic] = []
        // Ancestors' rules, carried down an explicit stack (no unbounded recursion).
        struct Frame {
            var node: RuleNode
            var ancestors: [RuleNode]
            var isWildcard: Bool
        }
        var stack = [Frame(node: program.root, ancestors: [], isWildcard: false)]
        while let frame = stack.popLast() {
            let node = frame.node
            let atRootOrWildcard = frame.ancestors.isEmpty || frame.isWildcard
            for kind in [RuleKind.read, .write] {
                guard let rule = node.rule(kind) else { continue }
                if atRootOrWildcard, isAlwaysTrue(rule) {
                    out.append(Diagnostic(code: DatabaseLintCode.openAccess, severity: .warning,
                                          message: "`\(kind.rawValue): true` \(frame.ancestors.isEmpty ? "at the root" : "on wildcard `\(node.path.split(separator: "/").last ?? "")`") grants \(kind == .read ? "reads" : "writes") of everything below it to everyone",
                                          span: rule.span, help: "require a signed-in owner, e.g. `auth != null && auth.uid == $uid`"))
                }
                if let granting = frame.ancestors.last(where: { $0.rule(kind).map(isAlwaysTrue) ?? false }), let ancestorRule = granting.rule(kind) {
                    out.append(Diagnostic(code: DatabaseLintCode.cascadeTrap, severity: .warning,
                                          message: "`\(kind.rawValue)` at `\(node.path)` never takes effect: `\(kind.rawValue)` at `\(granting.path)` already grants everything below it",
                                          span: rule.span, help: "rules cascade; move the condition up to \(ancestorRule.rulePath) or remove it"))
                } else if isAlwaysFalse(rule), let ancestor = frame.ancestors.last(where: { $0.rule(kind) != nil }), let ancestorRule = ancestor.rule(kind) {
                    out.append(Diagnostic(code: DatabaseLintCode.cascadeTrap, severity: .warning,
                                          message: "`\(kind.rawValue): false` at `\(node.path)` cannot revoke what `\(kind.rawValue)` at `\(ancestor.path)` grants",
                                          span: rule.span, help: "rules cascade: when \(ancestorRule.rulePath) is true, this location is \(kind == .read ? "readable" : "writable") regardless"))
                }
            }
            if let write = node.write, !isAlwaysFalse(write), !node.allNodes.contains(where: { $0.validate != nil }) {
                out.append(Diagnostic(code: DatabaseLintCode.unvalidatedWrite, severity: .warning,
                                      message: "write grant at `\(node.path)` has no `.validate` at or below it",
                                      span: write.span, help: "constrain the written data with `.validate` rules (types, required children, `$other: {\".validate\": false}`)"))
            }
            if let validate = node.validate {
                let above = (frame.ancestors + [node]).contains { $0.write.map { !isAlwaysFalse($0) } ?? false }
                let below = node.allNodes.contains { $0.write.map { !isAlwaysFalse($0) } ?? false }
                if !above && !below {
                    out.append(Diagnostic(code: DatabaseLintCode.unreachableValidate, severity: .warning,
                                          message: "`.validate` at `\(node.path)` never runs: no `.write` at, above or below it can grant",
                                          span: validate.span, help: "validation only runs for granted writes"))
                }
            }
            if let wildcard = node.wildcard {
                let name = wildcard.name
                let isIdentifier = name.dropFirst().allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "$") }
                    && !(name.dropFirst().first?.isNumber ?? true)
                if !isIdentifier {
                    out.append(Diagnostic(code: DatabaseLintCode.wildcardName, severity: .warning,
                                          message: "wildcard `\(name)` cannot be used in expressions",
                                          span: wildcard.node.keySpan, help: "name it like an identifier, e.g. `$userId`"))
                }
                let lowered = name.lowercased()
                if isIdentifier, lowered.contains("uid") || lowered.contains("user") {
                    let writes = ([node] + frame.ancestors).compactMap(\.write) + wildcard.node.allNodes.compactMap(\.write)
                    let relevant = writes.filter { !isAlwaysFalse($0) }
                    if !relevant.isEmpty, !relevant.contains(where: { compares(authUidWith: name, in: $0) }) {
                        out.append(Diagnostic(code: DatabaseLintCode.ownershipHole, severity: .warning,
                                              message: "writes under `\(node.path == "/" ? "" : node.path)/\(name)` never compare `auth.uid` with `\(name)`",
                                              span: wildcard.node.keySpan, help: "add `auth.uid == \(name)` to the `.write` rule"))
                    }
                }
                stack.append(Frame(node: wildcard.node, ancestors: frame.ancestors + [node], isWildcard: true))
            }
            for key in node.childOrder.reversed() {
                if let child = node.children[key] { stack.append(Frame(node: child, ancestors: frame.ancestors + [node], isWildcard: false)) }
            }
        }
        return out.sorted { ($0.span?.start ?? 0, $0.code) < ($1.span?.start ?? 0, $1.code) }
    }

    static func isAlwaysTrue(_ rule: Rule) -> Bool {
        switch rule.body {
        case .constant(let b): b
        case .expression(let e): e.kind == .bool(true)
        }
    }

    static func isAlwaysFalse(_ rule: Rule) -> Bool {
        switch rule.body {
        case .constant(let b): !b
        case .expression(let e): e.kind == .bool(false)
        }
    }

    static func compares(authUidWith name: String, in rule: Rule) -> Bool {
        guard case .expression(let expr) = rule.body else { return false }
        var found = false
        let authUid = DatabaseExpression(.member(DatabaseExpression(.variable("auth")), "uid"))
        let variable = DatabaseExpression(.variable(name))
        expr.forEachNode { node in
            if case .binary(let op, let l, let r) = node.kind, [.equal, .strictEqual].contains(op),
               (l == authUid && r == variable) || (l == variable && r == authUid) {
                found = true
            }
        }
        return found
    }
}
