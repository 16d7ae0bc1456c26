// DatabaseRuleEncoding: whether one rules file allows the symbolic operation — `.read`/`.write`
// cascade along the path (any ancestor's grant grants), and for a write every `.validate` on
// the path's ancestors and on every node of the written value, skipping null nodes.
import DatabaseRules
import Diagnostics

/// A file's decision as terms: the grant and each validation (the decision is their conjunction).
struct DatabaseDecisionTerms {
    var grant: String
    var validations: [String]

    var allowed: String { SMT.and([grant] + validations) }
}

/// One rules file's decision over a symbolic tree.
struct DatabaseRuleEncoding {
    let program: DatabaseProgram
    let encoder: DatabaseExpressionEncoder
    /// The file's name in reasons (OLD and NEW may share one).
    var tree: DatabaseSymbolicTree { encoder.tree }

    /// The rule nodes along the target path: index `i` is the node at depth `i` (nil once the
    /// rule tree ends).
    func pathNodes() -> [RuleNode?] {
        var nodes: [RuleNode?] = [program.root]
        for key in tree.target {
            nodes.append(nodes.last!.flatMap { Self.child($0, key) })
        }
        return nodes
    }

    /// The rule node a data key leads to: its literal child, else the wildcard.
    static func child(_ node: RuleNode, _ key: DBKey) -> RuleNode? {
        if case .literal(let text) = key, let literal = node.children[text] { return literal }
        return node.wildcard?.node
    }

    /// `rule` evaluated at `location`: a Bool term.
    func passes(_ rule: Rule, at location: [DBKey], isRead: Bool) -> String {
        switch rule.body {
        case .constant(let value): return value ? "true" : "false"
        case .expression(let expr):
            let segments = rule.rulePath.split(separator: "/").dropFirst().dropLast()
            var bindings: [String: DBKey] = [:]
            for (depth, key) in segments.enumerated() where key.hasPrefix("$") && depth < location.count {
                bindings[String(key)] = location[depth]
            }
            let source = program.source
            let scope = DBScope(location: location, bindings: bindings, locate: { span in
                let l = source.location(of: rule.fileSpan(span).start)
                return "\(source.name):\(l.line):\(l.column)"
            }, isRead: isRead)
            return encoder.passes(expr, scope: scope)
        }
    }

    /// Whether the file allows the operation: some `.read`/`.write` on the path grants, and (for
    /// a write) every `.validate` it runs passes.
    func decision() -> DatabaseDecisionTerms {
        let nodes = pathNodes()
        let kind: RuleKind = tree.isWrite ? .write : .read
        var grants: [String] = []
        for (depth, node) in nodes.enumerated() {
            guard let node, let rule = node.rule(kind) else { continue }
            grants.append(passes(rule, at: Array(tree.target.prefix(depth)), isRead: !tree.isWrite))
        }
        return DatabaseDecisionTerms(grant: SMT.or(grants), validations: tree.isWrite ? validations(nodes) : [])
    }

    /// Every `.validate` the write runs, each guarded by its node existing after the write.
    private func validations(_ nodes: [RuleNode?]) -> [String] {
        var out: [String] = []
        for depth in 0..<tree.target.count {
            guard let node = nodes[depth], let rule = node.validate else { continue }
            let location = Array(tree.target.prefix(depth))
            guard case .ancestor(let exists) = tree.resolve(.new, location) else { continue }
            out.append(SMT.implies(exists, passes(rule, at: location, isRead: false)))
        }
        guard let start = nodes[tree.target.count] else { return out }
        var ruleNodes: [[DBKey]: RuleNode] = [[]: start]
        for relative in tree.writtenOrder {
            guard let ruleNode = ruleNodes[relative], let slot = tree.written[relative] else { continue }
            for child in tree.writtenChildren(of: relative) {
                if let next = Self.child(ruleNode, child.last!) { ruleNodes[child] = next }
            }
            if let rule = ruleNode.validate {
                out.append(SMT.implies(slot.exists, passes(rule, at: tree.target + relative, isRead: false)))
            }
            if relative.count == tree.depthBound, Self.validatesBelow(ruleNode) {
                // Below the bound: the children's `.validate` rules are not encoded.
                let unknown = tree.fresh("deep", sort: "Bool")
                let rulePath = ruleNode.path
                let position = program.source.location(of: ruleNode.keySpan.start)
                encoder.abstractions.append(Abstraction(construct: "a written value deeper than the depth bound (\(tree.depthBound)) under `\(rulePath)`",
                                                        location: "\(program.source.name):\(position.line):\(position.column)"))
                out.append(SMT.implies(SMT.and([slot.exists, "(= \(slot.type) 4)"]), unknown))
            }
        }
        return out
    }

    /// Whether any node below `node` has a `.validate`.
    static func validatesBelow(_ node: RuleNode) -> Bool {
        node.allNodes.dropFirst().contains { $0.validate != nil }
    }
}
