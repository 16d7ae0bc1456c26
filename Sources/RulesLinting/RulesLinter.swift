// RulesLinting: the rules linter, what reviewers of Firestore and Storage rules tend to miss
// (`RL8xxx`, catalogued in RulesLanguage's `RulesLanguageCodes`), and the ownership holes
// (`RL8002`) the verifier decides. Works on the syntax tree only. Does not own the language
// (`RulesLanguage`), the proofs (`RulesVerification`'s `OwnershipProver`), nor the runner
// (`RulesTesting`). Realtime Database rules have their own linter (`DatabaseRules`).
import Diagnostics
import RulesLanguage

/// Finds what reviewers of security rules tend to miss, in a parsed ruleset that may be
/// syntactically fine: unconditional writes, ownership holes, deletes that can never succeed
/// and dead functions. Works on the syntax tree only; it never evaluates anything.
public enum RulesLinter {
    /// Lints a parsed rules file.
    ///
    /// - Parameter file: the syntax tree from `RulesParser.parse`.
    /// - Returns: warnings ordered by position, each with a stable `RL8xxx` code of ``RulesLanguageCodes``.
    public static func lint(_ file: RulesFile) -> [Diagnostic] {
        analyze(file).diagnostics
    }

    /// Lints with a smaller analysis budget than ``analysisWorkLimit`` (tests of `RL8005`).
    public static func lint(_ file: RulesFile, analysisWorkLimit limit: Int) -> [Diagnostic] {
        analyze(file, limit: limit).diagnostics
    }

    /// The ownership holes (`RL8002`) of a parsed rules file, with what a proof needs: the
    /// block's whole match pattern, the wildcard and the write methods of the `allow`.
    public static func ownershipHoles(_ file: RulesFile) -> [OwnershipHole] {
        analyze(file).holes
    }

    /// Units of analysis work for one file: one per expression visited, a function's body
    /// counted once for each distinct (function, argument kinds, call depth). RulesKit's own
    /// bound; past it calls are no longer followed and an `RL8005` note says so.
    public static let analysisWorkLimit = 1_000_000

    /// The work the analysis of `file` takes, in the units of ``analysisWorkLimit`` (a counter
    /// for tests: it grows with the text, never with the number of call paths).
    public static func analysisWork(_ file: RulesFile, limit: Int = analysisWorkLimit) -> Int {
        analyze(file, limit: limit).work
    }

    private static func analyze(_ file: RulesFile, limit: Int = analysisWorkLimit)
        -> (diagnostics: [Diagnostic], holes: [OwnershipHole], work: Int) {
        var collector = LintCollector()
        collector.collect(file)
        var diagnostics: [Diagnostic] = []
        var holes: [OwnershipHole] = []
        // One memo for the file: what a function's body does depends only on the function, the
        // kinds of its arguments and how deep the call is, never on the call path.
        let memo = AnalysisMemo(limit: limit)
        for site in collector.allows {
            var analysis = ConditionAnalysis(functions: collector.functions, memo: memo)
            if let condition = site.allow.condition {
                analysis.walk(condition, env: [:], scope: site.scope, depth: 0)
            }
            let found = findings(for: site, facts: analysis)
            diagnostics += found.diagnostics
            holes += found.holes
        }
        if let stop = memo.stoppedAt {
            diagnostics.append(Diagnostic(
                code: RulesLanguageCodes.analysisLimit.id, severity: .note,
                message: "calls were followed for \(limit) units of work and no further; findings may be incomplete",
                span: stop,
                help: "RL8002 may warn about comparisons made in calls it did not follow; split the rules or reduce the calls per function"))
        }
        let used = collector.calledFunctions()
        for function in collector.functions where !used.contains(function.id) {
            diagnostics.append(Diagnostic(
                code: RulesLanguageCodes.unusedFunction.id, severity: .warning,
                message: "function `\(function.decl.name)` is never called",
                span: function.decl.nameSpan,
                help: "remove it, or call it from an `allow` condition"))
        }
        return (diagnostics.sorted { ($0.span?.start ?? 0, $0.code) < ($1.span?.start ?? 0, $1.code) }, holes, memo.work)
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
                code: RulesLanguageCodes.unconditionalWrite.id, severity: .warning,
                message: "\(written): anyone can write here",
                span: allow.span,
                help: "require a signed-in owner, e.g. `if request.auth != null && request.auth.uid == userId`"))
        } else {
            for wildcard in site.ownerWildcards where !facts.comparedWithUID.contains(wildcard) {
                let diagnostic = Diagnostic(
                    code: RulesLanguageCodes.ownershipHole.id, severity: .warning,
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
                code: RulesLanguageCodes.deleteReadsRequestResource.id, severity: .warning,
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

    /// Every function an `allow` condition calls, directly or through other functions, at any
    /// depth: the call graph (each call resolved lexically where it is written) searched from
    /// the conditions, each function once.
    func calledFunctions() -> Set<Int> {
        var called = Set<Int>()
        var pending: [Int] = []
        func visit(_ expr: Expr, in scope: LintScope) {
            var stack = [expr]
            while let next = stack.popLast() {
                if case .call(nil, let name, _) = next.kind, let id = scope.resolve(name), called.insert(id).inserted {
                    pending.append(id)
                }
                stack += next.children
            }
        }
        for site in allows { if let condition = site.allow.condition { visit(condition, in: site.scope) } }
        while let id = pending.popLast() {
            let function = functions[id]
            for binding in function.decl.lets { visit(binding.value, in: function.scope) }
            visit(function.decl.body, in: function.scope)
        }
        return called
    }

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
enum ValueOrigin: Hashable {
    case wildcard(String)
    case request, auth, authUID, requestResource, requestMethod
    case other
}

/// What following one call found: the facts a condition collects.
struct CallFacts {
    var comparedWithUID: Set<String>
    var readsRequestResource: Bool
    var readsRequestMethod: Bool
}

/// The facts of each call already followed, and the work spent, shared by every condition of a
/// file. A class: conditions and the calls inside them add to the same memo.
final class AnalysisMemo {
    struct Key: Hashable {
        let function: Int
        let arguments: [ValueOrigin]
        let depth: Int
    }

    let limit: Int
    var facts: [Key: CallFacts] = [:]
    private(set) var work = 0
    /// Where the work limit was reached, when it was.
    private(set) var stoppedAt: SourceSpan?

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts one unit for `expr`; false once the limit is reached.
    func spend(_ expr: Expr) -> Bool {
        guard stoppedAt == nil else { return false }
        work += 1
        if work > limit { stoppedAt = expr.span }
        return stoppedAt == nil
    }
}

/// Follows a condition through the functions it calls (arguments bound to parameters, `let`s
/// to their values) and records what the lints need. Each distinct call is followed once per
/// file (``AnalysisMemo``), so the work is linear in the text even when every function calls
/// the next many times.
struct ConditionAnalysis {
    /// Calls deeper than this are not followed (the language allows 20; a deeper call is an
    /// evaluation error, `RL3010`, so what it would compare never grants).
    static let maxDepth = 24

    let functions: [LintFunction]
    let memo: AnalysisMemo
    /// Wildcards compared with `request.auth.uid` by `==` somewhere in the condition.
    private(set) var comparedWithUID = Set<String>()
    private(set) var readsRequestResource = false
    private(set) var readsRequestMethod = false
    private var callStack: [Int] = []

    init(functions: [LintFunction], memo: AnalysisMemo, callStack: [Int] = []) {
        self.functions = functions
        self.memo = memo
        self.callStack = callStack
    }

    var facts: CallFacts {
        CallFacts(comparedWithUID: comparedWithUID, readsRequestResource: readsRequestResource, readsRequestMethod: readsRequestMethod)
    }

    mutating func walk(_ expr: Expr, env: [String: ValueOrigin], scope: LintScope, depth: Int) {
        guard memo.spend(expr) else { return }
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
        guard depth < Self.maxDepth, !callStack.contains(id) else { return }
        let function = functions[id]
        var inner: [String: ValueOrigin] = [:]
        var kinds: [ValueOrigin] = []
        for (parameter, argument) in zip(function.decl.parameters, arguments) {
            let kind = origin(argument, env: env, scope: scope)
            inner[parameter] = kind
            kinds.append(kind)
        }
        let key = AnalysisMemo.Key(function: id, arguments: kinds, depth: depth)
        let found: CallFacts
        if let known = memo.facts[key] {
            found = known
        } else {
            var inside = ConditionAnalysis(functions: functions, memo: memo, callStack: callStack + [id])
            for binding in function.decl.lets {
                inside.walk(binding.value, env: inner, scope: function.scope, depth: depth + 1)
                inner[binding.name] = inside.origin(binding.value, env: inner, scope: function.scope)
            }
            inside.walk(function.decl.body, env: inner, scope: function.scope, depth: depth + 1)
            found = inside.facts
            // Facts cut short by the work limit are not reused as if complete.
            if memo.stoppedAt == nil { memo.facts[key] = found }
        }
        comparedWithUID.formUnion(found.comparedWithUID)
        readsRequestResource = readsRequestResource || found.readsRequestResource
        readsRequestMethod = readsRequestMethod || found.readsRequestMethod
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
