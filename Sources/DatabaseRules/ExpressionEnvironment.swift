// ExpressionEnvironment: one expression evaluated on its own, outside a rules file (tools and
// tests), with the request it sees given outright.

/// What a single expression sees when evaluated outside a rules file (tools and tests).
public struct ExpressionEnvironment: Sendable {
    /// `auth`: nil or `.null` when signed out.
    public var auth: JSONValue?
    /// The root before the operation (`root`, `data`).
    public var oldRoot: DataNode?
    /// The root after the operation (`newData`).
    public var newRoot: DataNode?
    /// Where the rule sits: `data` and `newData` point here.
    public var location: [String]
    /// `$` bindings, by name with `$`.
    public var bindings: [String: String]
    /// `now`, in milliseconds.
    public var now: Double
    /// `query`.
    public var query: DatabaseQuery

    /// Creates an environment.
    public init(auth: JSONValue? = nil, oldRoot: DataNode? = nil, newRoot: DataNode? = nil, location: [String] = [],
                bindings: [String: String] = [:], now: Double = 0, query: DatabaseQuery = DatabaseQuery()) {
        self.auth = auth
        self.oldRoot = oldRoot
        self.newRoot = newRoot
        self.location = location
        self.bindings = bindings
        self.now = now
        self.query = query
    }
}

extension DatabaseRulesCompiler {
    /// Evaluates a checked expression (from ``checkExpression(_:kind:variables:limits:)``) as a
    /// rule: a boolean, or an error with its code and message.
    public static func evaluate(_ expression: DatabaseExpression, in environment: ExpressionEnvironment,
                                regexEngine: any DatabaseRegexEngine = UnavailableDatabaseRegexEngine(),
                                limits: DatabaseLimits = .default) -> RuleOutcome {
        let compiled = CompiledExpression(expression, regexEngine: regexEngine)
        let state = RequestState(auth: environment.auth.map(RValue.init(json:)) ?? .null, oldRoot: environment.oldRoot,
                                 newData: DataOverlay(environment.newRoot), now: environment.now, query: environment.query,
                                 givenBindings: environment.bindings)
        let context = RuleContext(state: state, location: environment.location)
        var evaluator = Evaluator(limits: limits, context: context, coverage: nil)
        do {
            return .value(try evaluator.boolean(compiled))
        } catch {
            return .error(code: error.code, message: error.message)
        }
    }
}
