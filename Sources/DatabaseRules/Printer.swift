// Printer: rule trees and expressions back to text, such that parsing the output gives an equal
// tree (`parse(print(rules)) == rules`, tested on generated rules).
import Diagnostics

/// Prints rules files and expressions.
public enum DatabaseRulesPrinter {
    /// The rules file for a tree: `{"rules": …}` with two-space indentation; rules first, then
    /// literal children in file order, then the wildcard.
    public static func print(_ root: RuleNode) -> String {
        var out = "{\n  \"rules\": "
        write(root, indent: 1, into: &out)
        return out + "\n}\n"
    }

    /// Writes one node; depth is bounded by the tree, which the reader bounded.
    private static func write(_ node: RuleNode, indent: Int, into out: inout String) {
        let pad = String(repeating: "  ", count: indent + 1)
        var members: [String] = []
        for kind in RuleKind.allCases {
            guard let rule = node.rule(kind) else { continue }
            switch rule.body {
            case .constant(let b): members.append("\(pad)\(jsonString(kind.rawValue)): \(b)")
            case .expression(let e): members.append("\(pad)\(jsonString(kind.rawValue)): \(jsonString(print(e)))")
            }
        }
        if let indexOn = node.indexOn {
            members.append("\(pad)\".indexOn\": [" + indexOn.map(jsonString).joined(separator: ", ") + "]")
        }
        var children = node.childOrder.compactMap { key in node.children[key].map { (key, $0) } }
        if let wildcard = node.wildcard { children.append((wildcard.name, wildcard.node)) }
        for (key, child) in children {
            var text = "\(pad)\(jsonString(key)): "
            write(child, indent: indent + 1, into: &text)
            members.append(text)
        }
        if members.isEmpty {
            out += "{}"
            return
        }
        out += "{\n" + members.joined(separator: ",\n") + "\n" + String(repeating: "  ", count: indent) + "}"
    }

    /// An expression with the parentheses its structure needs.
    public static func print(_ expr: DatabaseExpression) -> String {
        print(expr, minimum: 0)
    }

    private static func precedence(_ expr: DatabaseExpression) -> Int {
        switch expr.kind {
        case .ternary: 0
        case .binary(let op, _, _): op.precedence
        case .unary: 7
        default: 8
        }
    }

    private static func print(_ expr: DatabaseExpression, minimum: Int) -> String {
        let text: String
        switch expr.kind {
        case .null: text = "null"
        case .bool(let b): text = b ? "true" : "false"
        case .number(let n): text = formatNumber(n)
        case .string(let s): text = renderString(s)
        case .regex(let pattern, let flags): text = "/\(pattern)/\(flags)"
        case .array(let items): text = "[" + items.map { print($0, minimum: 0) }.joined(separator: ", ") + "]"
        case .variable(let name): text = name
        case .member(let object, let name): text = print(object, minimum: 8) + "." + name
        case .index(let object, let index): text = print(object, minimum: 8) + "[" + print(index, minimum: 0) + "]"
        case .call(let receiver, let name, let arguments):
            text = print(receiver, minimum: 8) + "." + name + "(" + arguments.map { print($0, minimum: 0) }.joined(separator: ", ") + ")"
        case .unary(let op, let operand):
            let inner = print(operand, minimum: 7)
            // `- -x`, not `--x` (which would lex as the unsupported `--`).
            text = op.rawValue + (op == .negate && inner.hasPrefix("-") ? " " : "") + inner
        case .binary(let op, let lhs, let rhs):
            text = print(lhs, minimum: op.precedence) + " " + op.rawValue + " " + print(rhs, minimum: op.precedence + 1)
        case .ternary(let c, let a, let b):
            text = print(c, minimum: 1) + " ? " + print(a, minimum: 0) + " : " + print(b, minimum: 0)
        }
        return precedence(expr) < minimum ? "(" + text + ")" : text
    }
}
