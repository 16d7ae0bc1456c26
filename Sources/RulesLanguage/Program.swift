// Program: a checked ruleset, immutable and Sendable, ready to evaluate requests. Compile once,
// cache, and share across threads.
import Diagnostics

/// The result of compiling rules source: the program when there were no errors, and every
/// diagnostic (errors and warnings) from parsing and checking.
public struct CompileResult: Sendable {
    /// nil when any diagnostic is an error.
    public var program: Program?
    /// The syntax tree (partial when parsing failed).
    public var tree: RulesFile
    /// Parse (`RL1xxx`) and check (`RL2xxx`) diagnostics in source order, capped.
    public var diagnostics: [Diagnostic]

    /// True when some diagnostic is an error.
    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }
}

/// Compiles rules source text: parse, check, build a ``Program``.
public enum RulesCompiler {
    /// Most diagnostics reported for one source; the rest are summarized by one `RL1000` note.
    public static let diagnosticCap = 100

    /// Parses and checks `source`.
    ///
    /// - Parameters:
    ///   - source: the rules text and its display name.
    ///   - limits: static limits (source size, nesting, match depth, function size).
    ///   - regexEngine: the engine behind `matches`/`replace`/`split`; literal patterns are
    ///     validated with it at check time.
    /// - Returns: the program (nil on errors) and all diagnostics.
    public static func compile(
        _ source: SourceFile, limits: RulesLimits = .default, regexEngine: any RegexEngine = UnavailableRegexEngine()
    ) -> CompileResult {
        let parsed = RulesParser.parse(source, limits: limits)
        var diagnostics = parsed.diagnostics
        let parseFailed = diagnostics.contains { $0.severity == .error }
        // Checking a partial tree would report names from dropped statements; check clean trees only.
        if !parseFailed {
            var checker = Checker(file: parsed.file, limits: limits, regexEngine: regexEngine, reportMissingService: true)
            checker.check()
            diagnostics += checker.diagnostics
        }
        diagnostics.sort { ($0.span?.start ?? -1, $0.code) < ($1.span?.start ?? -1, $1.code) }
        if diagnostics.count > diagnosticCap {
            let dropped = diagnostics.count - diagnosticCap
            diagnostics = Array(diagnostics.prefix(diagnosticCap))
            diagnostics.append(Diagnostic(code: RulesLanguageCodes.diagnosticsTruncated.id, severity: .note, message: "\(dropped) more diagnostics were truncated"))
        }
        let hasErrors = diagnostics.contains { $0.severity == .error }
        guard !hasErrors, let service = parsed.file.services.first else {
            return CompileResult(program: nil, tree: parsed.file, diagnostics: diagnostics)
        }
        let program = Program(source: source, file: parsed.file, service: service, limits: limits, regex: regexEngine)
        return CompileResult(program: program, tree: parsed.file, diagnostics: diagnostics)
    }

    /// Compiles source text given as a string.
    public static func compile(
        _ text: String, name: String = "rules", limits: RulesLimits = .default, regexEngine: any RegexEngine = UnavailableRegexEngine()
    ) -> CompileResult {
        compile(SourceFile(name: name, text: text), limits: limits, regexEngine: regexEngine)
    }
}

/// A `match` block prepared for evaluation.
final class CompiledBlock: Sendable {
    let pattern: [PatternSegment]
    let allows: [AllowRule]
    let children: [CompiledBlock]
    /// Index into ``Program/scopes`` for functions visible here.
    let scope: Int
    /// The full pattern from the service root.
    let fullPattern: String
    /// True when the pattern has a `{name=**}` segment (matching may then split several ways).
    let hasRecursiveSegment: Bool

    init(pattern: [PatternSegment], allows: [AllowRule], children: [CompiledBlock], scope: Int, fullPattern: String) {
        self.pattern = pattern
        self.allows = allows
        self.children = children
        self.scope = scope
        self.fullPattern = fullPattern
        self.hasRecursiveSegment = pattern.contains { if case .recursive = $0 { true } else { false } }
    }
}

/// A function and the scope its body resolves names in.
struct CompiledFunction: Sendable {
    let declaration: FunctionDecl
    let scope: Int
    /// How many wildcard bindings its body sees: those of the blocks enclosing its declaration
    /// (outermost first, a prefix of the caller's bindings). Names resolve lexically, so a
    /// function never sees the wildcards of the block it is called from.
    let visibleBindings: Int
}

/// The shared, immutable contents of a ``Program`` (one reference to retain per copy).
final class ProgramCore: Sendable {
    let source: SourceFile
    let file: RulesFile
    let service: ServiceKind
    let limits: RulesLimits
    let regex: any RegexEngine
    let roots: [CompiledBlock]
    let functions: [CompiledFunction]
    /// Scope index → visible function name → index into `functions` (inner names shadow outer).
    let scopes: [[String: Int]]

    init(source: SourceFile, file: RulesFile, service: ServiceDecl, limits: RulesLimits, regex: any RegexEngine) {
        self.source = source
        self.file = file
        self.service = service.kind
        self.limits = limits
        self.regex = regex
        var functions: [CompiledFunction] = []
        var scopes: [[String: Int]] = []
        func makeScope(parent: Int?, declarations: [FunctionDecl], wildcards: Int) -> Int {
            var visible = parent.map { scopes[$0] } ?? [:]
            let index = scopes.count
            for declaration in declarations {
                visible[declaration.name] = functions.count
                functions.append(CompiledFunction(declaration: declaration, scope: index, visibleBindings: wildcards))
            }
            scopes.append(visible)
            return index
        }
        let global = makeScope(parent: nil, declarations: file.functions, wildcards: 0)
        let serviceScope = makeScope(parent: global, declarations: service.functions, wildcards: 0)
        func build(_ block: MatchBlock, parentScope: Int, prefix: String, outerWildcards: Int) -> CompiledBlock {
            // Matching pushes one binding per wildcard segment, outermost block first.
            let wildcards = outerWildcards + block.pattern.filter { if case .literal = $0 { false } else { true } }.count
            let scope = makeScope(parent: parentScope, declarations: block.functions, wildcards: wildcards)
            let full = prefix + block.patternText
            let children = block.matches.map { build($0, parentScope: scope, prefix: full, outerWildcards: wildcards) }
            return CompiledBlock(pattern: block.pattern, allows: block.allows, children: children, scope: scope, fullPattern: full)
        }
        self.roots = service.matches.map { build($0, parentScope: serviceScope, prefix: "", outerWildcards: 0) }
        self.functions = functions
        self.scopes = scopes
    }
}

/// A checked, immutable ruleset. Thread-safe; evaluate any number of requests concurrently.
public struct Program: Sendable {
    let core: ProgramCore

    /// The source, for locations in explanations.
    public var source: SourceFile { core.source }
    /// The syntax tree.
    public var file: RulesFile { core.file }
    /// The service the rules guard.
    public var service: ServiceKind { core.service }
    /// The limits evaluation runs under.
    public var limits: RulesLimits { core.limits }
    var regex: any RegexEngine { core.regex }
    var roots: [CompiledBlock] { core.roots }
    var functions: [CompiledFunction] { core.functions }
    var scopes: [[String: Int]] { core.scopes }

    init(source: SourceFile, file: RulesFile, service: ServiceDecl, limits: RulesLimits, regex: any RegexEngine) {
        self.core = ProgramCore(source: source, file: file, service: service, limits: limits, regex: regex)
    }

    /// Decides one request.
    ///
    /// - Parameters:
    ///   - request: what is being asked.
    ///   - lookup: documents for `get`/`exists`/`getAfter`/`existsAfter`/`firestore.*`.
    ///   - coverage: when given, records the outcome of every evaluated sub-expression.
    /// - Returns: the decision with its explanation; never throws.
    public func evaluate(_ request: RulesRequest, lookup: any DocumentLookup = EmptyDatabase(), coverage: CoverageCollector? = nil) -> Decision {
        let evaluator = Evaluator(program: self, request: request, lookup: lookup, coverage: coverage)
        return evaluator.decide()
    }

    /// Evaluates a standalone expression (no request) — for expression tests and `eval` tools.
    ///
    /// - Parameters:
    ///   - expression: parsed with ``RulesParser/parseExpression(_:limits:)``.
    ///   - request: supplies `request`/`resource`; defaults to an empty Firestore `get`.
    ///   - variables: extra names in scope.
    public static func evaluateExpression(
        _ expression: Expr, request: RulesRequest? = nil, variables: [String: Value] = [:],
        lookup: any DocumentLookup = EmptyDatabase(), regexEngine: any RegexEngine = UnavailableRegexEngine(),
        limits: RulesLimits = .default
    ) -> (Result<Value, EvaluationError>, [DebugEntry]) {
        let service = ServiceDecl(kind: request?.service ?? .firestore, name: (request?.service ?? .firestore).rawValue,
                                  span: SourceSpan(start: 0, end: 0))
        let program = Program(source: SourceFile(name: "expression", text: ""), file: RulesFile(services: [service]),
                              service: service, limits: limits, regex: regexEngine)
        let request = request ?? RulesRequest(service: service.kind, path: "/databases/(default)/documents/x/y", method: .get)
        let evaluator = Evaluator(program: program, request: request, lookup: lookup, coverage: nil)
        evaluator.bindings = variables.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        do {
            let value = try evaluator.eval(expression)
            return (.success(value), evaluator.debugOutput)
        } catch {
            return (.failure(error), evaluator.debugOutput)
        }
    }
}

extension RulesCompiler {
    /// Checks a standalone expression (unknown names, arity, methods, types, regex literals).
    ///
    /// - Parameters:
    ///   - expression: a parsed expression.
    ///   - service: decides whether `get()`/`exists()` or `firestore.get()` are available.
    ///   - variables: names in scope besides `request` and `resource`.
    /// - Returns: check diagnostics (`RL2xxx`).
    public static func checkExpression(
        _ expression: Expr, service: ServiceKind = .firestore, variables: Set<String> = [],
        regexEngine: any RegexEngine = UnavailableRegexEngine()
    ) -> [Diagnostic] {
        let file = RulesFile(version: "2", services: [ServiceDecl(kind: service, name: service.rawValue, span: SourceSpan(start: 0, end: 0))])
        var checker = Checker(file: file, limits: .default, regexEngine: regexEngine, reportMissingService: false)
        checker.service = service
        checker.checkExpr(expression, scope: [:], variables: variables)
        return checker.diagnostics
    }
}
