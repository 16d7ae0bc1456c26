// Explainer: why a condition did not grant — the first false or erroring sub-expression, with the
// values of its operands (part of the Evaluator; re-evaluates with debug output and coverage muted).

import Diagnostics

extension Evaluator {
    func result(_ expr: Expr) -> Result<Value, EvaluationError> {
        do { return .success(try eval(expr)) } catch { return .failure(error) }
    }

    func text(_ expr: Expr) -> String {
        let bytes = program.source.bytes
        guard expr.span.start >= 0, expr.span.end <= bytes.count, expr.span.start < expr.span.end else { return RulesPrinter.print(expr) }
        return String(decoding: bytes[expr.span.start..<expr.span.end], as: UTF8.self)
    }

    func blame(for error: EvaluationError, at expr: Expr) -> Blame {
        let span = error.span ?? expr.span
        let bytes = program.source.bytes
        let expression = span.start >= 0 && span.start < span.end && span.end <= bytes.count
            ? String(decoding: bytes[span.start..<span.end], as: UTF8.self) : text(expr)
        return Blame(span: span, expression: expression, message: error.message, error: error, values: [])
    }

    static func shorten(_ text: String) -> String {
        text.count > 200 ? String(text.prefix(197)) + "…" : text
    }

    /// Finds the first false or erroring sub-expression of a condition that did not grant.
    func explain(_ expr: Expr) -> Blame {
        // Explanations recurse like evaluation does, so they share its depth bound.
        guard evaluationDepth < program.limits.maxEvaluationDepth else { return describe(expr) }
        evaluationDepth += 1
        defer { evaluationDepth -= 1 }
        switch expr.kind {
        case .binary(.and, let lhs, let rhs):
            switch result(lhs) {
            case .success(.bool(true)): return explain(rhs)
            case .success(.bool(false)): return explain(lhs)
            default:
                if case .success(.bool(false)) = result(rhs) { return explain(rhs) }
                return explain(lhs)
            }
        case .binary(.or, let lhs, let rhs):
            // Both sides failed (else the `||` would have granted): blame the left, and list
            // the right as an alternative that failed too (`a || b || c` lists b and c).
            var blame = explain(lhs)
            blame.alternatives.append(explain(rhs))
            return blame
        case .ternary(let condition, let then, let otherwise):
            switch result(condition) {
            case .success(.bool(let b)): return explain(b ? then : otherwise)
            default: return explain(condition)
            }
        case .call(nil, let name, let arguments) where program.scopes[scope][name] != nil:
            for argument in arguments {
                if case .failure = result(argument) { return explain(argument) }
            }
            guard let index = program.scopes[scope][name], callDepth < program.limits.maxCallDepth else { return describe(expr) }
            let function = program.functions[index]
            let declaration = function.declaration
            var args: [Value] = []
            for argument in arguments {
                guard case .success(let value) = result(argument) else { return describe(expr) }
                args.append(value)
            }
            let savedFrame = frame, savedScope = scope, savedBindings = bindings
            callDepth += 1
            defer { frame = savedFrame; scope = savedScope; bindings = savedBindings; callDepth -= 1 }
            frame = Array(zip(declaration.parameters, args))
            scope = function.scope
            bindings = lexicalBindings(function)
            for binding in declaration.lets {
                switch result(binding.value) {
                case .success(let value): frame.append((binding.name, value))
                case .failure: return explain(binding.value)
                }
            }
            return explain(declaration.body)
        default:
            let skipReceiver = namespace(of: { if case .call(let r, _, _) = expr.kind { r } else { nil } }()) != nil
            for (offset, child) in expr.children.enumerated() where !(skipReceiver && offset == 0) {
                if case .failure = result(child) { return explain(child) }
            }
            return describe(expr)
        }
    }

    /// Blames `expr` itself, listing the values of its operands.
    func describe(_ expr: Expr) -> Blame {
        let source = text(expr)
        var operands: [Blame.Operand] = []
        let skipReceiver = namespace(of: { if case .call(let r, _, _) = expr.kind { r } else { nil } }()) != nil
        for (offset, child) in expr.children.enumerated() where !(skipReceiver && offset == 0) {
            // Literals show their own value: listing them adds nothing.
            switch child.kind {
            case .null, .bool, .int, .float, .string, .bytes: continue
            default: break
            }
            if case .success(let value) = result(child) {
                operands.append(Blame.Operand(label: text(child), value: Evaluator.shorten(value.boundedDescription(maxBytes: Value.renderedBytesLimit))))
            }
        }
        switch result(expr) {
        case .failure(let error):
            return Blame(span: error.span ?? expr.span, expression: source, message: error.message, error: error, values: operands)
        case .success(let value):
            let message: String
            if case .bool(false) = value {
                message = "`\(Evaluator.shorten(source))` is false"
            } else {
                message = "`\(Evaluator.shorten(source))` is \(value.typeName) `\(Evaluator.shorten(value.boundedDescription(maxBytes: Value.renderedBytesLimit)))`, not bool"
            }
            return Blame(span: expr.span, expression: source, message: message, error: nil, values: operands)
        }
    }
}
