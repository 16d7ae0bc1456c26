// RuleTree: the checked rule tree of a `database.rules.json` file.
import Diagnostics

/// Which rule a value is.
public enum RuleKind: String, Sendable, Hashable, CaseIterable {
    case read = ".read", write = ".write", validate = ".validate"
}

/// One `.read`, `.write` or `.validate` value: a constant or a checked expression. Immutable (a
/// class so decisions that record it share one copy).
public final class Rule: Sendable {
    /// The parsed value.
    public enum Body: Sendable, Hashable {
        /// `true` or `false` written as a JSON boolean.
        case constant(Bool)
        /// An expression string (`"true"` is an expression too).
        case expression(DatabaseExpression)
    }

    /// Which rule.
    public let kind: RuleKind
    /// The value.
    public let body: Body
    /// The expression text as the rule sees it (JSON escapes applied), or `true`/`false`.
    public let text: String
    /// Where it is: `/rules/users/$uid/.write`.
    public let rulePath: String
    /// The JSON value's span in the file.
    public let span: SourceSpan
    /// Source offset of each decoded byte of `text` (empty for constants).
    let offsets: [Int]
    /// The expression as the evaluator runs it (nil for constants).
    let compiled: CompiledExpression?
    /// The value of a constant rule (nil for expressions), read without copying ``body``.
    let constant: Bool?
    /// The `$` wildcards on the rule's path with their depth: the key at that index of the data
    /// path the rule is evaluated at is the wildcard's value.
    let wildcards: [(name: String, depth: Int)]

    /// - Parameter regexEngine: prepares the expression's regular-expression literals.
    init(kind: RuleKind, body: Body, text: String, rulePath: String, span: SourceSpan, offsets: [Int], regexEngine: any DatabaseRegexEngine) {
        self.kind = kind
        self.body = body
        self.text = text
        self.rulePath = rulePath
        self.span = span
        self.offsets = offsets
        // `/rules/a/$b/.read`: the node's keys sit between `rules` and the rule name.
        let segments = rulePath.split(separator: "/").dropFirst().dropLast()
        wildcards = segments.enumerated().compactMap { depth, key in key.hasPrefix("$") ? (String(key), depth) : nil }
        switch body {
        case .expression(let expr):
            compiled = CompiledExpression(expr, regexEngine: regexEngine)
            constant = nil
        case .constant(let value):
            compiled = nil
            constant = value
        }
    }

    /// The file span of an expression span (bytes of ``text``).
    public func fileSpan(_ span: SourceSpan) -> SourceSpan {
        guard !offsets.isEmpty else { return self.span }
        let s = offsets[min(max(0, span.start), offsets.count - 1)]
        let e = span.end > span.start ? offsets[min(span.end - 1, offsets.count - 1)] + 1 : s
        return SourceSpan(start: s, end: e)
    }

    /// The text of an expression span.
    public func text(of span: SourceSpan) -> String {
        let bytes = Array(text.utf8)
        guard span.start >= 0, span.end <= bytes.count, span.start < span.end else { return text }
        return String(decoding: bytes[span.start..<span.end], as: UTF8.self)
    }
}

/// One node of the rule tree (an object under `"rules"`). Immutable.
public final class RuleNode: Sendable {
    /// `.read`, if present.
    public let read: Rule?
    /// `.write`, if present.
    public let write: Rule?
    /// `.validate`, if present.
    public let validate: Rule?
    /// `.indexOn` entries (a single string becomes one entry).
    public let indexOn: [String]?
    /// Literal children by key.
    public let children: [String: RuleNode]
    /// Literal child keys in file order.
    public let childOrder: [String]
    /// The `$wildcard` child: its name (with `$`) and node.
    public let wildcard: (name: String, node: RuleNode)?
    /// The node's path under `rules`, e.g. `/users/$uid` (`/` for the root).
    public let path: String
    /// The JSON object's span.
    public let span: SourceSpan
    /// The key's span (the `"rules"` key for the root).
    public let keySpan: SourceSpan

    /// Creates a node.
    public init(read: Rule?, write: Rule?, validate: Rule?, indexOn: [String]?, children: [String: RuleNode], childOrder: [String],
                wildcard: (name: String, node: RuleNode)?, path: String, span: SourceSpan, keySpan: SourceSpan) {
        self.read = read
        self.write = write
        self.validate = validate
        self.indexOn = indexOn
        self.children = children
        self.childOrder = childOrder
        self.wildcard = wildcard
        self.path = path
        self.span = span
        self.keySpan = keySpan
    }

    /// The rule of `kind`, if present.
    public func rule(_ kind: RuleKind) -> Rule? {
        switch kind {
        case .read: read
        case .write: write
        case .validate: validate
        }
    }

    /// The child for a data key: the literal child, else the wildcard (reference §1.3).
    public func child(for key: String) -> (node: RuleNode, binding: (String, String)?)? {
        if let literal = children.lookUp(key) { return (literal, nil) }
        if let wildcard { return (wildcard.node, (wildcard.name, key)) }
        return nil
    }

    /// The node ``child(for:)`` finds, without the binding.
    func childNode(for key: String) -> RuleNode? {
        children.lookUp(key) ?? wildcard?.node
    }

    /// Whether two trees have the same keys, rules (compared as syntax trees, ignoring spans and
    /// spelling) and `.indexOn` values.
    public func sameRules(as other: RuleNode) -> Bool {
        var stack = [(self, other)]
        while let (a, b) = stack.popLast() {
            for kind in RuleKind.allCases {
                guard a.rule(kind)?.body == b.rule(kind)?.body else { return false }
            }
            guard a.indexOn == b.indexOn, Set(a.children.keys) == Set(b.children.keys), a.wildcard?.name == b.wildcard?.name else { return false }
            for (key, child) in a.children {
                guard let other = b.children[key] else { return false }
                stack.append((child, other))
            }
            if let wa = a.wildcard, let wb = b.wildcard { stack.append((wa.node, wb.node)) }
        }
        return true
    }

    /// Every node of the tree, parents first (iteratively).
    public var allNodes: [RuleNode] {
        var out: [RuleNode] = []
        var stack = [self]
        while let node = stack.popLast() {
            out.append(node)
            if let wildcard = node.wildcard { stack.append(wildcard.node) }
            stack += node.childOrder.reversed().compactMap { node.children[$0] }
        }
        return out
    }
}
