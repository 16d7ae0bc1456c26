import Diagnostics
import RulesLanguage

/// Stable codes of the linter's warnings (area `RL8xxx`, lint). Wording may change; codes never do.
public enum LintCode {
    /// `allow write` (or create/update/delete) with no condition or `if true`.
    public static let unconditionalWrite = "RL8001"
    /// A write under a `{userId}`-style wildcard that never compares `request.auth.uid` with it.
    public static let ownershipHole = "RL8002"
    /// A rule covering `delete` that reads `request.resource`, which a delete does not have.
    public static let deleteReadsRequestResource = "RL8003"
    /// A function no `allow` condition ever calls, directly or through other functions.
    public static let unusedFunction = "RL8004"
}

/// Finds what reviewers of security rules tend to miss, in a parsed ruleset that may be
/// syntactically fine: unconditional writes, ownership holes, deletes that can never succeed
/// and dead functions. Works on the syntax tree only; it never evaluates anything.
public enum RulesLinter {
    /// Lints a parsed rules file.
    ///
    /// - Parameter file: the syntax tree from `RulesParser.parse`.
    /// - Returns: warnings ordered by position, each with a stable ``LintCode``.
    public static func lint(_ file: RulesFile) -> [Diagnostic] {
        analyze(file).diagnostics
    }

    /// The ownership holes (`RL8002`) of a parsed rules file, with what a proof needs: the
    /// block's whole match pattern, the wildcard and the write methods of the `allow`.
    public static func ownershipHoles(_ file: RulesFile) -> [OwnershipHole] {
        analyze(file).holes
    }

    private static func analyze(_ file: RulesFile) -> (diagnostics: [Diagnostic], holes: [OwnershipHole]) {
        var collector = LintCollector()
        collector.collect(file)
        var diagnostics: [Diagnostic] = []
        var holes: [OwnershipHole] = []
        var used = Set<Int>()
        for site in collector.allows {
            var analysis = ConditionAnalysis(functions: collector.functions)
            if let condition = site.allow.condition {
                analysis.walk(condition, env: [:], scope: site.scope, depth: 0)
            }
            used.formUnion(analysis.usedFunctions)
            let found = findings(for: site, facts: analysis)
            diagnostics += found.diagnostics
            holes += found.holes
        }
        for function in collector.functions where !used.contains(function.id) {
            diagnostics.append(Diagnostic(
                code: LintCode.unusedFunction, severity: .warning,
                message: "function `\(function.decl.name)` is never called",
                span: function.decl.nameSpan,
                help: "remove it, or call it from an `allow` condition"))
        }
        return (diagnostics.sorted { ($0.span?.start ?? 0, $0.code) < ($1.span?.start ?? 0, $1.code) }, holes)
    }

    private static let writeMethods: Set<RuleMethod> = [.write, .create, .update, .delete]

    private static func findings(for site: AllowSite, facts: ConditionAnalysis) -> (diagnostics: [Diagnostic], holes: [OwnershipHole]) {
        let allow = site.allow
        let methods = allow.methods.map(\.rawValue).joined(separator: ", ")
        guard allow.methods.contains(where: writeMethods.contains) else { return ([], []) }
        var result: [Diagnostic] = []
        var holes: [OwnershipHole] = []
        let unconditional: Bool
        if let condition = allow.condition, case .bool(true) = condition.kind { unconditional = true }
        else { unconditional = allow.condition == nil }
        if unconditional {
            let written = allow.condition == nil ? "`allow \(methods)` has no condition" : "`allow \(methods): if true`"
            result.append(Diagnostic(
                code: LintCode.unconditionalWrite, severity: .warning,
                message: "\(written): anyone can write here",
                span: allow.span,
                help: "require a signed-in owner, e.g. `if request.auth != null && request.auth.uid == userId`"))
        } else {
            for wildcard in site.ownerWildcards where !facts.comparedWithUID.contains(wildcard) {
                let diagnostic = Diagnostic(
                    code: LintCode.ownershipHole, severity: .warning,
                    message: "`allow \(methods)` under `{\(wildcard)}` never compares `request.auth.uid` with `\(wildcard)`",
                    span: allow.span,
                    help: "any signed-in user may write another user's data; add `request.auth.uid == \(wildcard)`")
                result.append(diagnostic)
                let written = [RequestMethod.create, .update, .delete].filter { m in allow.methods.contains { $0.covers(m) } }
                holes.append(OwnershipHole(diagnostic: diagnostic, wildcard: wildcard, path: site.path, methods: written))
            }
        }
        let coversDelete = allow.methods.contains(.write) || allow.methods.contains(.delete)
        if coversDelete, facts.readsRequestResource, !facts.readsRequestMethod {
            result.append(Diagnostic(
                code: LintCode.deleteReadsRequestResource, severity: .warning,
                message: "`allow \(methods)` reads `request.resource`, which a delete does not have",
                span: allow.span,
                help: "this rule can never allow a delete; give `delete` its own `allow` that does not read `request.resource`"))
        }
        return (result, holes)
    }

    /// Whether a wildcard name names a user (`{userId}`, `{uid}`, `{ownerId}`…).
    static func isUserStyle(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return lowered == "user" || lowered.hasSuffix("uid") || lowered.hasSuffix("userid")
            || ["owner", "ownerid", "authorid", "accountid", "memberid"].contains(lowered)
    }
}

// MARK: - Scopes

/// A lexical scope: the functions declared in it and the path variables bound by it and its
/// enclosing matches.
final class LintScope {
    let parent: LintScope?
    var functions: [String: Int] = [:]
    let variables: Set<String>

    init(parent: LintScope?, variables: Set<String>) {
        self.parent = parent
        self.variables = variables
    }

    /// The function a call of `name` made in this scope resolves to (innermost first).
    func resolve(_ name: String) -> Int? {
        functions[name] ?? parent?.resolve(name)
    }
}

struct LintFunction {
    let id: Int
    let decl: FunctionDecl
    let scope: LintScope
}

struct AllowSite {
    let allow: AllowRule
    let scope: LintScope
    /// `{userId}`-style single-segment wildcards of this block and enclosing blocks.
    let ownerWildcards: [String]
    /// The block's whole match pattern, from the service.
    let path: [PatternSegment]
}

/// A write under a `{userId}`-style wildcard that never compares `request.auth.uid` with it
/// (`RL8002`), with what a proof that it is (or is not) a hole needs.
public struct OwnershipHole: Sendable {
    /// The warning.
    public var diagnostic: Diagnostic
    /// The `{userId}`-style wildcard.
    public var wildcard: String
    /// The whole match pattern of the `allow`'s block, from the service.
    public var path: [PatternSegment]
    /// The write methods the `allow` covers (`create`, `update`, `delete`).
    public var methods: [RequestMethod]
}

/// Walks the tree once, building scopes and listing every function and `allow`.
struct LintCollector {
    var functions: [LintFunction] = []
    var allows: [AllowSite] = []

    mutating func collect(_ file: RulesFile) {
        let global = LintScope(parent: nil, variables: [])
        declare(file.functions, in: global)
        for service in file.services {
            let scope = LintScope(parent: global, variables: [])
            declare(service.functions, in: scope)
            for match in service.matches { visit(match, parent: scope, ownerWildcards: [], path: []) }
        }
    }

    private mutating func visit(_ match: MatchBlock, parent: LintScope, ownerWildcards: [String], path: [PatternSegment]) {
        let path = path + match.pattern
        var owners = ownerWildcards
        for case .single(let name) in match.pattern where RulesLinter.isUserStyle(name) { owners.append(name) }
        let scope = LintScope(parent: parent, variables: parent.variables.union(match.pattern.compactMap(\.variable)))
        declare(match.functions, in: scope)
        for allow in match.allows { allows.append(AllowSite(allow: allow, scope: scope, ownerWildcards: owners, path: path)) }
        for child in match.matches { visit(child, parent: scope, ownerWildcards: owners, path: path) }
    }

    private mutating func declare(_ declarations: [FunctionDecl], in scope: LintScope) {
        for decl in declarations {
            let function = LintFunction(id: functions.count, decl: decl, scope: scope)
            functions.append(function)
            scope.functions[decl.name] = function.id
        }
    }
}

// MARK: - Condition analysis

/// Where a value comes from, as far as the linter cares.
enum ValueOrigin: Equatable {
    case wildcard(String)
    case request, auth, authUID, requestResource, requestMethod
    case other
}

/// Follows a condition through the functions it calls (arguments bound to parameters, `let`s
/// to their values) and records what the lints need.
struct ConditionAnalysis {
    /// Calls deeper than this are not followed (the language allows 20).
    static let maxDepth = 24

    let functions: [LintFunction]
    private(set) var usedFunctions = Set<Int>()
    /// Wildcards compared with `request.auth.uid` by `==` somewhere in the condition.
    private(set) var comparedWithUID = Set<String>()
    private(set) var readsRequestResource = false
    private(set) var readsRequestMethod = false
    private var callStack: [Int] = []

    init(functions: [LintFunction]) {
        self.functions = functions
    }

    mutating func walk(_ expr: Expr, env: [String: ValueOrigin], scope: LintScope, depth: Int) {
        switch expr.kind {
        case .binary(.equal, let lhs, let rhs):
            let pair = (origin(lhs, env: env, scope: scope), origin(rhs, env: env, scope: scope))
            switch pair {
            case (.wildcard(let name), .authUID), (.authUID, .wildcard(let name)): comparedWithUID.insert(name)
            default: break
            }
        case .call(nil, let name, let arguments):
            if let id = scope.resolve(name) { enter(id, arguments: arguments, env: env, scope: scope, depth: depth) }
        default:
            break
        }
        _ = origin(expr, env: env, scope: scope)
        for child in expr.children { walk(child, env: env, scope: scope, depth: depth) }
    }

    private mutating func enter(_ id: Int, arguments: [Expr], env: [String: ValueOrigin], scope: LintScope, depth: Int) {
        usedFunctions.insert(id)
        guard depth < Self.maxDepth, !callStack.contains(id) else { return }
        let function = functions[id]
        var inner: [String: ValueOrigin] = [:]
        for (parameter, argument) in zip(function.decl.parameters, arguments) {
            inner[parameter] = origin(argument, env: env, scope: scope)
        }
        callStack.append(id)
        for binding in function.decl.lets {
            walk(binding.value, env: inner, scope: function.scope, depth: depth + 1)
            inner[binding.name] = origin(binding.value, env: inner, scope: function.scope)
        }
        walk(function.decl.body, env: inner, scope: function.scope, depth: depth + 1)
        callStack.removeLast()
    }

    /// Classifies an expression and notes reads of `request.resource` and `request.method`.
    mutating func origin(_ expr: Expr, env: [String: ValueOrigin], scope: LintScope) -> ValueOrigin {
        let result: ValueOrigin
        switch expr.kind {
        case .identifier(let name):
            if let bound = env[name] { result = bound }
            else if scope.variables.contains(name) { result = .wildcard(name) }
            else if name == "request" { result = .request }
            else { result = .other }
        case .member(let base, let field):
            result = Self.step(origin(base, env: env, scope: scope), field)
        case .index(let base, let index):
            if case .string(let field) = index.kind { result = Self.step(origin(base, env: env, scope: scope), field) }
            else { result = origin(base, env: env, scope: scope) == .requestResource ? .requestResource : .other }
        case .call(let receiver?, _, _):
            result = origin(receiver, env: env, scope: scope) == .requestResource ? .requestResource : .other
        default:
            result = .other
        }
        if result == .requestResource { readsRequestResource = true }
        if result == .requestMethod { readsRequestMethod = true }
        return result
    }

    private static func step(_ base: ValueOrigin, _ field: String) -> ValueOrigin {
        switch (base, field) {
        case (.request, "auth"): .auth
        case (.request, "resource"): .requestResource
        case (.request, "method"): .requestMethod
        case (.auth, "uid"): .authUID
        case (.requestResource, _): .requestResource
        default: .other
        }
    }
}
