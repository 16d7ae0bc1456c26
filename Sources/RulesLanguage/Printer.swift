// Printer: syntax tree → canonical source text. `parse(print(tree)) == tree` for any tree the
// parser can produce (parentheses are added only where precedence needs them).

/// Prints syntax trees as rules source.
public enum RulesPrinter {
    /// Prints a whole file with two-space indentation.
    public static func print(_ file: RulesFile) -> String {
        var out = ""
        if let version = file.version { out += "rules_version = '\(version)';\n" }
        for function in file.functions { out += print(function, indent: "") }
        for service in file.services {
            out += "service \(service.name) {\n"
            for function in service.functions { out += print(function, indent: "  ") }
            for block in service.matches { out += print(block, indent: "  ") }
            out += "}\n"
        }
        return out
    }

    static func print(_ function: FunctionDecl, indent: String) -> String {
        var out = "\(indent)function \(function.name)(\(function.parameters.joined(separator: ", "))) {\n"
        for binding in function.lets {
            out += "\(indent)  let \(binding.name) = \(print(binding.value));\n"
        }
        out += "\(indent)  return \(print(function.body));\n\(indent)}\n"
        return out
    }

    static func print(_ block: MatchBlock, indent: String) -> String {
        var out = "\(indent)match \(block.patternText) {\n"
        let inner = indent + "  "
        for function in block.functions { out += print(function, indent: inner) }
        for allow in block.allows {
            out += "\(inner)allow \(allow.methods.map(\.rawValue).joined(separator: ", "))"
            if let condition = allow.condition { out += ": if \(print(condition))" }
            out += ";\n"
        }
        for child in block.matches { out += print(child, indent: inner) }
        return out + "\(indent)}\n"
    }

    /// Prints one expression.
    public static func print(_ expr: Expr) -> String {
        switch expr.kind {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .int(let value): return value < 0 ? "(\(value))" : "\(value)"
        case .float(let value): return formatFloat(value)
        case .string(let value): return quote(value)
        case .bytes(let value): return "b'" + value.map { "\\x" + hex($0) }.joined() + "'"
        case .list(let items): return "[" + items.map(print).joined(separator: ", ") + "]"
        case .map(let entries): return "{" + entries.map { "\(quote($0.key)): \(print($0.value))" }.joined(separator: ", ") + "}"
        case .path(let segments):
            return segments.map { segment -> String in
                switch segment {
                case .literal(let text): "/" + text
                case .interpolation(let inner): "/$(" + print(inner) + ")"
                case .placeholder(let name): "/{\(name)}"
                }
            }.joined()
        case .identifier(let name): return name
        case .member(let base, let name): return postfixBase(base) + "." + name
        case .index(let base, let index): return postfixBase(base) + "[" + print(index) + "]"
        case .range(let base, let from, let to): return postfixBase(base) + "[" + print(from) + ":" + print(to) + "]"
        case .call(let receiver, let name, let arguments):
            let args = "(" + arguments.map(print).joined(separator: ", ") + ")"
            return (receiver.map { postfixBase($0) + "." } ?? "") + name + args
        case .unary(let op, let operand):
            let inner = print(operand)
            return op.rawValue + (level(operand) < 10 ? "(\(inner))" : inner)
        case .binary(let op, let lhs, let rhs):
            let left = level(lhs) < op.precedence ? "(\(print(lhs)))" : print(lhs)
            let right = level(rhs) <= op.precedence ? "(\(print(rhs)))" : print(rhs)
            return "\(left) \(op.rawValue) \(right)"
        case .isType(let value, let typeName):
            let inner = level(value) < 5 ? "(\(print(value)))" : print(value)
            return "\(inner) is \(typeName)"
        case .ternary(let condition, let then, let otherwise):
            let c = level(condition) < 1 ? "(\(print(condition)))" : print(condition)
            return "\(c) ? \(print(then)) : \(print(otherwise))"
        }
    }

    /// Binding level of a node: 0 ternary, 1–8 binary (4 = `is`), 10 unary, 11 postfix/primary.
    static func level(_ expr: Expr) -> Int {
        switch expr.kind {
        case .ternary: 0
        case .binary(let op, _, _): op.precedence
        case .isType: 4
        case .unary: 10
        case .int(let value) where value < 0: 11
        default: 11
        }
    }

    static func postfixBase(_ expr: Expr) -> String {
        switch expr.kind {
        case .path: "(\(print(expr)))"
        default: level(expr) < 11 ? "(\(print(expr)))" : print(expr)
        }
    }

    /// Quotes a string with `'`, escaping so the lexer reads back the same text.
    public static func quote(_ text: String) -> String {
        var out = "'"
        for scalar in text.unicodeScalars {
            switch scalar {
            case "'": out += "\\'"
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += "\\x" + hex(UInt8(scalar.value))
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "'"
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }

    /// A float in plain decimal with a `.` (the language has no exponent syntax).
    static func formatFloat(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "(0.0 / 0.0)" : (value < 0 ? "(-1.0 / 0.0)" : "(1.0 / 0.0)") }
        if value < 0 { return "(-" + formatFloat(-value) + ")" }
        let text = "\(value)"
        guard let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) else {
            return text.contains(".") ? text : text + ".0"
        }
        let mantissa = String(text[..<e])
        let exponent = Int(text[text.index(after: e)...]) ?? 0
        let parts = mantissa.split(separator: ".", omittingEmptySubsequences: false)
        let whole = parts.first.map(String.init) ?? "0"
        let fraction = parts.count > 1 ? String(parts[1]) : ""
        var digits = whole + fraction
        var point = whole.count + exponent
        if point <= 0 {
            digits = String(repeating: "0", count: 1 - point) + digits
            point = 1
        }
        if point >= digits.count { digits += String(repeating: "0", count: point - digits.count + 1) }
        let intPart = digits.prefix(point)
        var fracPart = String(digits.dropFirst(point))
        while fracPart.count > 1 && fracPart.hasSuffix("0") { fracPart.removeLast() }
        return intPart + "." + (fracPart.isEmpty ? "0" : fracPart)
    }
}
