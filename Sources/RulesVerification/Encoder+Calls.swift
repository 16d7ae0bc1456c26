// Encoder+Calls: global and namespaced functions, and user functions inlined at each distinct
// call (memoized by a signature of their arguments); the scopes functions resolve names in.
import Diagnostics
import RulesLanguage

extension Encoder {
    // MARK: - Calls

    func call(_ receiver: Expr?, _ name: String, _ arguments: [Expr], _ span: SourceSpan) -> SymValue {
        if let receiver, case .identifier(let ns) = receiver.kind, !isBound(ns) {
            switch ns {
            case "math", "hashing", "latlng":
                return anyValue("`\(ns).\(name)()`", span)
            case "timestamp":
                return timestampFunction(name, arguments.map(encode), span)
            case "duration":
                return durationFunction(name, arguments.map(encode), span)
            case "firestore" where service == .storage:
                let args = arguments.map(encode)
                // Any other `firestore.` function is not found: an error, as in the evaluator.
                guard args.count == 1, name == "get" || name == "exists" else { return .error }
                return lookup(name, args[0], span, storage: true)
            default: break
            }
        }
        if let receiver {
            let value = encode(receiver)
            let args = arguments.map(encode)
            return method(value, name, args, span)
        }
        if let function = scope.functions[name] {
            return callUser(function, arguments, span)
        }
        let args = arguments.map(encode)
        if name == "debug", args.count == 1 { return args[0] }
        if ["get", "exists", "getAfter", "existsAfter"].contains(name), service == .firestore {
            guard args.count == 1 else { return .error }
            return lookup(name, args[0], span, storage: false)
        }
        switch name {
        case "path" where args.count == 1:
            // `path('/b/x/o/a')` splits a literal exactly, as the evaluator does; only strings convert.
            return map(args[0]) { p in
                guard case .string(let text) = p else { return .error }
                guard let concrete = SMT.concreteString(text) else { return anyValue("`path()` of a computed string", span) }
                return SymValue(.path(PathValue(concrete).segments.map(SMT.string)))
            }
        case "string", "int", "float", "path":
            return anyValue("`\(name)()`", span)
        default:
            return .error
        }
    }

    private func isBound(_ name: String) -> Bool {
        frame.contains { $0.0 == name } || bindings.contains { $0.0 == name }
    }

    private func callUser(_ function: FunctionEntry, _ arguments: [Expr], _ span: SourceSpan) -> SymValue {
        let declaration = function.declaration
        guard arguments.count == declaration.parameters.count else { return .error }
        let args = arguments.map(encode)
        guard callDepth < program.limits.maxCallDepth else {
            abstract("a call deeper than \(program.limits.maxCallDepth) (`\(declaration.name)`)", span)
            return .error
        }
        // The same function with the same arguments, wildcards and call depth encodes to the
        // same value (evaluation is deterministic): each distinct call is inlined once, so nine
        // functions that each call the next ten times cost nine bodies, not a billion.
        var key = "\(declaration.nameSpan.start)|\(callDepth)"
        for arg in args { key += "|"; Self.signature(arg, into: &key) }
        for (name, value) in bindings.prefix(function.visibleBindings) { key += "|" + name + "="; Self.signature(value, into: &key) }
        if let known = callMemo[key] { return known }
        let result = inline(function, args)
        if stopped == nil { callMemo[key] = result }
        return result
    }


    func inline(_ function: FunctionEntry, _ args: [SymValue]) -> SymValue {
        let declaration = function.declaration
        let savedFrame = frame, savedScope = scope, savedBindings = bindings
        callDepth += 1
        defer {
            frame = savedFrame
            scope = savedScope
            bindings = savedBindings
            callDepth -= 1
        }
        // Arguments are evaluated before the call: an error in one is the call's error.
        let argErr = SMT.or(args.map(\.err))
        frame = Array(zip(declaration.parameters, args.map { SymValue(err: "false", alts: $0.alts) }))
        scope = function.scope
        bindings = Array(bindings.prefix(function.visibleBindings))
        var letErr: [String] = []
        for binding in declaration.lets {
            let v = encode(binding.value)
            letErr.append(v.err)
            frame.append((binding.name, SymValue(err: "false", alts: v.alts)))
        }
        let body = encode(declaration.body)
        let err = SMT.or([argErr] + letErr + [body.err])
        return SymValue(err: err, alts: body.alts.map { .init(guard_: SMT.and([SMT.not(err), $0.guard_]), payload: $0.payload, unmodelled: $0.unmodelled) })
    }

    /// A text that is equal for equal symbolic values: their terms, and the identity of the
    /// input maps they read.
    static func signature(_ value: SymValue, into out: inout String) {
        out += value.err
        for alt in value.alts {
            out += "?" + alt.guard_ + ":"
            signature(alt.payload, into: &out)
        }
    }

    private static func signature(_ payload: Payload, into out: inout String) {
        func map(_ m: SymMap) { out += "#\(UInt(bitPattern: ObjectIdentifier(m).hashValue))" }
        switch payload {
        case .null: out += "n"
        case .bool(let t): out += "b(" + t + ")"
        case .int(let t): out += "i(" + t + ")"
        case .float(let t): out += "f(" + t + ")"
        case .string(let t): out += "s(" + t + ")"
        case .timestamp(let t): out += "t(" + t + ")"
        case .duration(let t): out += "d(" + t + ")"
        case .map(.symbolic(let m)): out += "m"; map(m)
        case .map(.literal(let fields)):
            out += "{"
            for (key, field) in fields { out += SMT.string(key) + "="; signature(field, into: &out); out += "," }
            out += "}"
        case .map(.storage(let m, let name, let bucket)): out += "o"; map(m); out += "(" + (name ?? "-") + "," + (bucket ?? "-") + ")"
        case .list(let items):
            out += "["
            for item in items { signature(item, into: &out); out += "," }
            out += "]"
        case .keySet(let set):
            switch set.source {
            case .keys(let m): out += "k"; map(m)
            case .diff(let kind, let a, let b): out += "k" + kind; map(a); map(b)
            case .literal(let keys): out += "kl(" + keys.map(SMT.string).joined(separator: ",") + ")"
            }
        case .path(let segments): out += "p(" + segments.joined(separator: ",") + ")"
        case .mapDiff(let a, let b): out += "D"; map(a); map(b)
        case .opaque(let type, let id): out += "O" + type + "(" + id + ")"
        }
    }
}

/// Functions visible in one scope, with the scope their bodies resolve names in.
final class FunctionScope {
    var functions: [String: FunctionEntry] = [:]

    static func service(of file: RulesFile) -> FunctionScope {
        let global = FunctionScope()
        global.add(file.functions, wildcards: 0)
        let service = global.child(file.services.first?.functions ?? [], wildcards: 0)
        return service
    }

    func child(_ declarations: [FunctionDecl], wildcards: Int) -> FunctionScope {
        let scope = FunctionScope()
        scope.functions = functions
        scope.add(declarations, wildcards: wildcards)
        return scope
    }

    private func add(_ declarations: [FunctionDecl], wildcards: Int) {
        for declaration in declarations {
            functions[declaration.name] = FunctionEntry(declaration: declaration, scope: self, visibleBindings: wildcards)
        }
    }
}

/// A user function and where its body resolves names.
struct FunctionEntry {
    let declaration: FunctionDecl
    let scope: FunctionScope
    let visibleBindings: Int
}
