// FunctionCall: calling one user function of a ruleset directly, with argument values and no
// request path (`validate rules agree` compares a function with a rule pack this way).
import Diagnostics

extension Program {
    /// Every function declaration, in source order.
    public var functionDeclarations: [FunctionDecl] {
        functions.map(\.declaration).sorted { $0.span.start < $1.span.start }
    }

    /// The declarations named `name`, wherever they are declared (top level, service or a
    /// `match` block), in source order.
    public func functions(named name: String) -> [FunctionDecl] {
        functionDeclarations.filter { $0.name == name }
    }

    /// Calls the function declared by `declaration` with `arguments`, as a call from a rule
    /// would, except that no path was matched: the wildcards of the `match` blocks around the
    /// declaration are unbound, so a body that reads one errors.
    ///
    /// - Parameters:
    ///   - declaration: one of ``functions(named:)``.
    ///   - arguments: the parameters' values.
    ///   - request: supplies `request` and `resource` (an empty `get` by default).
    ///   - lookup: documents for `get()`/`exists()`.
    /// - Returns: the value, or the evaluation error (a wrong argument count is one).
    public func call(_ declaration: FunctionDecl, arguments: [Value], request: RulesRequest? = nil,
                     lookup: any DocumentLookup = EmptyDatabase()) -> Result<Value, EvaluationError> {
        guard let function = functions.first(where: { $0.declaration == declaration }) else {
            return .failure(EvaluationError(code: RulesLanguageCodes.functionNotFound.id,
                                            message: "`\(declaration.name)` is not declared in these rules", span: declaration.nameSpan))
        }
        let request = request ?? RulesRequest(service: service, path: service == .storage ? "/b/bucket/o/x" : "/databases/(default)/documents/x/y",
                                              method: .get)
        let evaluator = Evaluator(program: self, request: request, lookup: lookup, coverage: nil)
        do throws(EvaluationError) {
            return .success(try evaluator.callUser(function, values: arguments, declaration.nameSpan))
        } catch {
            return .failure(error)
        }
    }
}

extension Evaluator {
    /// Calls `function` with argument values already computed (see ``callUser(_:_:_:)``).
    func callUser(_ function: CompiledFunction, values args: [Value], _ span: SourceSpan) throws(EvaluationError) -> Value {
        let declaration = function.declaration
        guard args.count == declaration.parameters.count else {
            throw EvaluationError(code: RulesLanguageCodes.argumentCount.id,
                                  message: "`\(declaration.name)` takes \(declaration.parameters.count) arguments, got \(args.count)", span: span)
        }
        callDepth += 1
        defer { callDepth -= 1 }
        frame = Array(zip(declaration.parameters, args))
        scope = function.scope
        bindings = []
        for binding in declaration.lets {
            frame.append((binding.name, try eval(binding.value)))
        }
        return try eval(declaration.body)
    }
}
