// Checker: static checks on a syntax tree before evaluation (RL2xxx): unknown variables and
// functions, wrong arity, unknown methods and types, recursion, static limits, bad regex
// literals, and rules that can never apply. Walks are bounded by the parser's nesting limit.
import Diagnostics

struct Checker {
    let file: RulesFile
    let limits: RulesLimits
    let regexEngine: any RegexEngine
    let reportMissingService: Bool
    var diagnostics: [Diagnostic] = []

    var service: ServiceKind = .firestore
    /// Every function declaration, indexed by id.
    var declarations: [FunctionDecl] = []
    /// Call graph: function id → ids it calls.
    var edges: [Int: Set<Int>] = [:]
    /// The function whose body is being checked.
    var currentFunction: Int?

    init(file: RulesFile, limits: RulesLimits, regexEngine: any RegexEngine, reportMissingService: Bool) {
        self.file = file
        self.limits = limits
        self.regexEngine = regexEngine
        self.reportMissingService = reportMissingService
    }

    mutating func report(_ code: String, _ severity: Severity, _ message: String, _ span: SourceSpan?, help: String? = nil) {
        diagnostics.append(Diagnostic(code: code, severity: severity, message: message, span: span, help: help))
    }

    mutating func report(_ code: String, _ message: String, _ span: SourceSpan?, help: String? = nil) {
        report(code, .error, message, span, help: help)
    }

    // MARK: - Structure

    mutating func check() {
        if file.services.isEmpty {
            if reportMissingService {
                report(RulesLanguageCodes.noService.id, "no `service` block", SourceSpan(start: 0, end: 0),
                       help: "add `service cloud.firestore { … }` or `service firebase.storage { … }`")
            }
        }
        for extra in file.services.dropFirst() {
            report(RulesLanguageCodes.multipleServices.id, "only one `service` block is allowed per file", extra.span,
                   help: "put Firestore and Storage rules in separate files")
        }
        service = file.services.first?.kind ?? .firestore
        let globalScope = declare(file.functions, in: [:])
        checkFunctions(file.functions, scope: globalScope, variables: [])
        if let decl = file.services.first {
            let serviceScope = declare(decl.functions, in: globalScope)
            checkFunctions(decl.functions, scope: serviceScope, variables: [])
            for block in decl.matches {
                checkMatch(block, scope: serviceScope, variables: [], depth: 1, topLevel: true, underFinalRecursive: false, prefix: [])
            }
        }
        checkRecursion()
    }

    /// Adds declarations to a scope, reporting duplicates in the same scope.
    mutating func declare(_ functions: [FunctionDecl], in parent: [String: Int]) -> [String: Int] {
        var scope = parent
        var local: Set<String> = []
        for function in functions {
            if !local.insert(function.name).inserted {
                report(RulesLanguageCodes.duplicateFunction.id, "function `\(function.name)` is declared twice in the same scope", function.nameSpan,
                       help: "rename or remove one of them")
                continue
            }
            scope[function.name] = declarations.count
            declarations.append(function)
        }
        return scope
    }

    mutating func checkFunctions(_ functions: [FunctionDecl], scope: [String: Int], variables: Set<String>) {
        for function in functions {
            guard let id = scope[function.name], declarations[id].span == function.span else { continue }
            checkFunction(function, id: id, scope: scope, variables: variables)
        }
    }

    mutating func checkFunction(_ function: FunctionDecl, id: Int, scope: [String: Int], variables: Set<String>) {
        if function.parameters.count > limits.maxFunctionArguments {
            report(RulesLanguageCodes.tooManyParameters.id, "function `\(function.name)` has \(function.parameters.count) parameters (limit \(limits.maxFunctionArguments))",
                   function.nameSpan, help: "pass a map instead of many arguments")
        }
        if function.lets.count > limits.maxLetBindings {
            report(RulesLanguageCodes.tooManyLets.id, "function `\(function.name)` has \(function.lets.count) `let` bindings (limit \(limits.maxLetBindings))",
                   function.nameSpan, help: "split the function")
        }
        var locals = variables
        var seen: Set<String> = []
        for parameter in function.parameters where !seen.insert(parameter).inserted {
            report(RulesLanguageCodes.duplicateName.id, "parameter `\(parameter)` is declared twice", function.nameSpan)
        }
        locals.formUnion(function.parameters)
        currentFunction = id
        defer { currentFunction = nil }
        for binding in function.lets {
            if !file.isVersion2 {
                report(RulesLanguageCodes.letNeedsVersion2.id, "`let` requires `rules_version = '2'`", binding.span, help: "add `rules_version = '2';` at the top of the file")
            }
            checkExpr(binding.value, scope: scope, variables: locals)
            if !seen.insert(binding.name).inserted {
                report(RulesLanguageCodes.duplicateName.id, "`\(binding.name)` is already defined in this function", binding.span)
            }
            locals.insert(binding.name)
        }
        checkExpr(function.body, scope: scope, variables: locals)
    }

    mutating func checkMatch(
        _ block: MatchBlock, scope parent: [String: Int], variables: Set<String>, depth: Int, topLevel: Bool,
        underFinalRecursive: Bool, prefix: [PatternSegment]
    ) {
        let full = prefix + block.pattern
        if !block.allows.isEmpty { checkDocumentPath(block, full) }
        if depth > limits.maxMatchDepth {
            report(RulesLanguageCodes.matchTooDeep.id, "`match` blocks nest \(depth) deep (limit \(limits.maxMatchDepth))", block.patternSpan)
        }
        let recursiveIndexes = block.pattern.indices.filter { if case .recursive = block.pattern[$0] { true } else { false } }
        if recursiveIndexes.count > 1 {
            report(RulesLanguageCodes.twoRecursiveWildcards.id, "a `match` pattern may contain at most one `=**` wildcard", block.patternSpan)
        }
        if !file.isVersion2, let first = recursiveIndexes.first, first != block.pattern.count - 1 {
            report(RulesLanguageCodes.recursiveWildcardNotLast.id, "`=**` must be the last segment with rules_version 1", block.patternSpan,
                   help: "add `rules_version = '2';` to use `=**` in the middle of a path")
        }
        if underFinalRecursive {
            report(RulesLanguageCodes.unreachableUnderRecursiveWildcard.id, .warning, "unreachable: with rules_version 1 nothing can follow a `=**` wildcard", block.patternSpan,
                   help: "move this block out of the recursive match or use rules_version 2")
        }
        if topLevel { checkRoot(block) }
        var names = variables
        for segment in block.pattern {
            guard let name = segment.variable else { continue }
            if names.contains(name) {
                report(RulesLanguageCodes.shadowingWildcard.id, .warning, "wildcard `\(name)` shadows an outer wildcard", block.patternSpan, help: "rename one of them")
            } else if BuiltinCatalogue.globalVariables.contains(name) {
                report(RulesLanguageCodes.shadowingWildcard.id, .warning, "wildcard `\(name)` shadows the global `\(name)`", block.patternSpan,
                       help: "rename the wildcard, e.g. `{\(name)Id}`")
            }
            names.insert(name)
        }
        let scope = declare(block.functions, in: parent)
        checkFunctions(block.functions, scope: scope, variables: names)
        for allow in block.allows { checkAllow(allow, scope: scope, variables: names) }
        let endsRecursive = !file.isVersion2 && { if case .recursive = block.pattern.last { true } else { false } }()
        for child in block.matches {
            checkMatch(child, scope: scope, variables: names, depth: depth + 1, topLevel: false,
                       underFinalRecursive: endsRecursive || underFinalRecursive, prefix: full)
        }
    }

    /// Firestore rules only apply to documents: a full pattern (without `=**`) that ends on a
    /// collection, or on the documents root, never completely matches a request.
    mutating func checkDocumentPath(_ block: MatchBlock, _ full: [PatternSegment]) {
        guard service == .firestore, full.count >= 3, full[0] == .literal("databases"), full[2] == .literal("documents"),
              !full.contains(where: { if case .recursive = $0 { true } else { false } }) else { return }
        let relative = full.count - 3
        guard relative == 0 || relative % 2 == 1 else { return }
        report(RulesLanguageCodes.collectionPattern.id, .warning, "unreachable: this pattern matches a \(relative == 0 ? "database root" : "collection"), not a document",
               block.patternSpan, help: "rules apply to documents: add a `/{docId}` segment")
    }

    /// A top-level match whose leading literals cannot match the service's paths is unreachable.
    mutating func checkRoot(_ block: MatchBlock) {
        let expected: [String?] = service == .firestore ? ["databases", nil, "documents"] : ["b", nil, "o"]
        for (segment, want) in zip(block.pattern, expected) {
            if case .recursive = segment { return }
            if case .literal(let text) = segment, let want, text != want {
                let root = service == .firestore ? "/databases/{database}/documents" : "/b/{bucket}/o"
                report(RulesLanguageCodes.unreachableRoot.id, .warning, "unreachable: \(service == .firestore ? "Firestore" : "Storage") paths start with `\(root)`",
                       block.patternSpan, help: "nest this block inside `match \(root)`")
                return
            }
        }
    }

    mutating func checkAllow(_ allow: AllowRule, scope: [String: Int], variables: Set<String>) {
        if service == .storage && !file.isVersion2 && allow.methods.contains(.list) {
            report(RulesLanguageCodes.storageListNeedsVersion2.id, .warning, "`list` is always denied with rules_version 1 in Storage", allow.span,
                   help: "add `rules_version = '2';`")
        }
        guard let condition = allow.condition else { return }
        switch condition.kind {
        case .bool(false):
            report(RulesLanguageCodes.neverGrants.id, .warning, "unreachable: this rule never grants (`if false`)", condition.span, help: "remove the rule")
        case .null, .int, .float, .string, .bytes, .list, .map, .path:
            report(RulesLanguageCodes.nonBoolLiteralCondition.id, .warning, "condition is not a bool, so this rule never grants", condition.span)
        default: break
        }
        checkExpr(condition, scope: scope, variables: variables)
    }

    // MARK: - Expressions

    func isNamespace(_ expr: Expr?, variables: Set<String>) -> String? {
        guard let expr, case .identifier(let name) = expr.kind, !variables.contains(name) else { return nil }
        if BuiltinCatalogue.namespaces[name] != nil { return name }
        if name == "firestore" && service == .storage { return name }
        return nil
    }

    mutating func checkArity(_ name: String, _ count: Int, _ arity: ClosedRange<Int>, _ span: SourceSpan) {
        guard !arity.contains(count) else { return }
        let expected = arity.lowerBound == arity.upperBound ? "\(arity.lowerBound)" : "\(arity.lowerBound) to \(arity.upperBound)"
        report(RulesLanguageCodes.wrongArity.id, "`\(name)` takes \(expected) argument\(arity.upperBound == 1 ? "" : "s") but \(count) \(count == 1 ? "was" : "were") given", span)
    }

    /// Unknown functions (`RL2002`) are warnings: production compiles such a ruleset, and only the
    /// requests that reach the call fail (function not found, `RL3006`), so they are denied.
    mutating func checkExpr(_ expr: Expr, scope: [String: Int], variables: Set<String>) {
        switch expr.kind {
        case .identifier(let name):
            if variables.contains(name) || BuiltinCatalogue.globalVariables.contains(name) { return }
            if isNamespace(expr, variables: variables) != nil {
                report(RulesLanguageCodes.namespaceAsValue.id, "`\(name)` is a namespace, not a value", expr.span,
                       help: "call one of its functions, e.g. `\(name).\(BuiltinCatalogue.namespaces[name]?.keys.sorted().first ?? "get")(…)`")
                return
            }
            let candidates = variables.union(BuiltinCatalogue.globalVariables)
            report(RulesLanguageCodes.unknownVariable.id, "unknown variable `\(name)`", expr.span, help: Suggestions.help(for: name, in: candidates.sorted()))
        case .call(nil, let name, let arguments):
            if let id = scope[name] {
                checkArity(name, arguments.count, declarations[id].parameters.count...declarations[id].parameters.count, expr.span)
                if let caller = currentFunction { edges[caller, default: []].insert(id) }
            } else if let arity = BuiltinCatalogue.globalFunctions[name] {
                checkArity(name, arguments.count, arity, expr.span)
            } else if let arity = BuiltinCatalogue.firestoreFunctions[name] {
                if service == .storage {
                    report(RulesLanguageCodes.unknownFunction.id, .warning, "`\(name)()` is not available in Storage rules", expr.span,
                           help: "use `firestore.\(name == "exists" ? "exists" : "get")(…)`")
                } else {
                    checkArity(name, arguments.count, arity, expr.span)
                }
            } else {
                var help = Suggestions.help(for: name, in: Array(scope.keys) + Array(BuiltinCatalogue.globalFunctions.keys)
                                            + (service == .firestore ? Array(BuiltinCatalogue.firestoreFunctions.keys) : []))
                if name == "bool" { help = "`bool()` is documented but not available in production; compare with `== 'true'`" }
                if name == "size" { help = "use the method form: `x.size()`" }
                if name == "has" { help = "test presence with `'key' in map`" }
                report(RulesLanguageCodes.unknownFunction.id, .warning, "unknown function `\(name)`", expr.span, help: help)
            }
            for argument in arguments { checkExpr(argument, scope: scope, variables: variables) }
        case .call(let receiver?, let name, let arguments):
            if let namespace = isNamespace(receiver, variables: variables) {
                let functions = BuiltinCatalogue.namespaces[namespace] ?? BuiltinCatalogue.storageNamespaces[namespace] ?? [:]
                if let arity = functions[name] {
                    checkArity("\(namespace).\(name)", arguments.count, arity, expr.span)
                } else {
                    var help = Suggestions.closest(to: name, in: functions.keys.sorted()).map { "did you mean `\(namespace).\($0)`?" }
                    if namespace == "math" && name == "isInfinite" { help = "`math.isInfinite` is documented but not available in production" }
                    report(RulesLanguageCodes.unknownFunction.id, .warning, "unknown function `\(namespace).\(name)`", expr.span, help: help)
                }
            } else {
                checkExpr(receiver, scope: scope, variables: variables)
                if let arity = BuiltinCatalogue.methods[name] {
                    checkArity(name, arguments.count, arity, expr.span)
                    checkRegexLiteral(name, arguments)
                } else {
                    var help = Suggestions.help(for: name, in: BuiltinCatalogue.methods.keys.sorted())
                    if ["contains", "startsWith", "endsWith", "indexOf"].contains(name) { help = "use `matches()` with a regular expression" }
                    report(RulesLanguageCodes.unknownMethod.id, "unknown method `\(name)`", expr.span, help: help)
                }
            }
            for argument in arguments { checkExpr(argument, scope: scope, variables: variables) }
        case .member(let base, _):
            checkExpr(base, scope: scope, variables: variables)
        case .isType(let value, let typeName):
            checkExpr(value, scope: scope, variables: variables)
            if !BuiltinCatalogue.typeNames.contains(typeName) {
                // The type name is the last token of the `is` expression.
                let typeSpan = SourceSpan(start: expr.span.end - typeName.utf8.count, end: expr.span.end)
                report(RulesLanguageCodes.unknownType.id, "unknown type `\(typeName)`", typeSpan,
                       help: Suggestions.help(for: typeName, in: BuiltinCatalogue.typeNames.sorted()))
            }
        default:
            for child in expr.children { checkExpr(child, scope: scope, variables: variables) }
        }
    }

    mutating func checkRegexLiteral(_ method: String, _ arguments: [Expr]) {
        guard ["matches", "replace", "split"].contains(method), let first = arguments.first,
              case .string(let pattern) = first.kind, let problem = regexEngine.validate(pattern: pattern) else { return }
        report(RulesLanguageCodes.invalidRegexLiteral.id, "invalid regular expression: \(problem.message)", first.span,
               help: "patterns use RE2 syntax: no lookaround, backreferences, atomic groups or possessive quantifiers")
    }

    // MARK: - Recursion

    /// Reports every function that can reach itself through calls (recursion is not allowed).
    mutating func checkRecursion() {
        var reported: Set<Int> = []
        for start in declarations.indices {
            // Iterative DFS: can `start` reach itself?
            var stack = Array(edges[start] ?? [])
            var visited: Set<Int> = []
            var cyclic = false
            while let next = stack.popLast() {
                if next == start { cyclic = true; break }
                guard visited.insert(next).inserted else { continue }
                stack += edges[next] ?? []
            }
            if cyclic && reported.insert(start).inserted {
                let function = declarations[start]
                report(RulesLanguageCodes.recursion.id, "function `\(function.name)` calls itself (directly or through other functions)", function.nameSpan,
                       help: "recursion is not allowed in rules; unroll the logic")
            }
        }
    }
}
