// Compiler: rules file text → checked rule tree (`DatabaseProgram`), collecting every diagnostic
// (reference §1.2 and §2.4, with production's wording kept in `help` where it differs).
import Diagnostics

/// The outcome of compiling a rules file: a program when there are no errors, and every
/// diagnostic found (warnings included).
public struct DatabaseCompileResult: Sendable {
    /// The program, nil when any diagnostic is an error.
    public var program: DatabaseProgram?
    /// Every problem found, in file order; at most `maxDiagnostics`, then a note.
    public var diagnostics: [Diagnostic]
    /// Whether any diagnostic is an error.
    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }
}

/// Compiles Realtime Database rules files.
public enum DatabaseRulesCompiler {
    /// Most diagnostics reported for one file; the rest are counted in a note.
    public static let maxDiagnostics = 100

    /// Parses and checks a rules file.
    ///
    /// - Parameters:
    ///   - source: the file (`{"rules": {...}}` in lenient JSON).
    ///   - limits: size and nesting bounds.
    ///   - regexEngine: the engine `matches()` will use.
    /// - Returns: the program (nil on errors) and all diagnostics.
    public static func compile(_ source: SourceFile, limits: DatabaseLimits = .default,
                               regexEngine: any DatabaseRegexEngine = UnavailableDatabaseRegexEngine()) -> DatabaseCompileResult {
        var diagnostics: [Diagnostic] = []
        if source.bytes.count > limits.maxSourceBytes {
            return DatabaseCompileResult(program: nil, diagnostics: [Diagnostic(
                code: DatabaseCode.rulesTooLarge, message: "rules file is \(source.bytes.count) bytes, more than the limit of \(limits.maxSourceBytes)",
                help: "split expressions or raise `maxSourceBytes`")])
        }
        if source.bytes.count > limits.documentedSourceBytes {
            diagnostics.append(Diagnostic(
                code: DatabaseCode.rulesAboveDocumentedSize, severity: .warning,
                message: "rules file is \(source.bytes.count) bytes, more than the documented limit of \(limits.documentedSourceBytes)",
                help: "production accepted larger rules in a dry run, but the documented limit is 256 KiB"))
        }
        let json: JSONNode
        do {
            json = try LenientJSONReader.parse(source, maxDepth: limits.maxNestingDepth)
        } catch {
            return DatabaseCompileResult(program: nil, diagnostics: diagnostics + [error.diagnostic])
        }
        var builder = TreeBuilder(limits: limits, regexEngine: regexEngine)
        let root = builder.top(json)
        diagnostics += builder.diagnostics
        diagnostics.sort { ($0.span?.start ?? -1) < ($1.span?.start ?? -1) }
        if diagnostics.count > maxDiagnostics {
            let extra = diagnostics.count - maxDiagnostics
            diagnostics = Array(diagnostics.prefix(maxDiagnostics))
            diagnostics.append(Diagnostic(code: DatabaseCode.jsonSyntax, severity: .note, message: "\(extra) more diagnostics were truncated"))
        }
        let hasErrors = diagnostics.contains { $0.severity == .error }
        guard !hasErrors, let root else { return DatabaseCompileResult(program: nil, diagnostics: diagnostics) }
        return DatabaseCompileResult(program: DatabaseProgram(root: root, source: source, limits: limits, regexEngine: regexEngine),
                                     diagnostics: diagnostics)
    }

    /// Parses and checks one expression as a rule of `kind` with the given `$` variables in
    /// scope (for tools and tests).
    ///
    /// - Throws: ``ExpressionProblem`` with spans in `text`.
    public static func checkExpression(_ text: String, kind: RuleKind, variables: Set<String> = [],
                                       limits: DatabaseLimits = .default) throws(ExpressionProblem) -> DatabaseExpression {
        // INVARIANT: the parser rejects trees deeper than `maxExpressionDepth`, which bounds the
        // recursion of the checker, the evaluator, the explainer and the printer.
        guard !text.trimmingWhitespace.isEmpty else {
            throw ExpressionProblem(code: DatabaseCode.emptyExpression, message: "empty rule expression",
                                    span: SourceSpan(start: 0, end: max(1, text.utf8.count)), help: "write `true`, `false` or a condition")
        }
        guard text.utf8.count <= limits.maxExpressionBytes else {
            throw ExpressionProblem(code: DatabaseCode.expressionTooLong,
                                    message: "expression is \(text.utf8.count) bytes, more than the limit of \(limits.maxExpressionBytes)",
                                    span: SourceSpan(start: 0, end: 1), help: "split the rule or raise `maxExpressionBytes`")
        }
        let expr = try ExpressionParser.parse(text, maxDepth: limits.maxExpressionDepth)
        let type = try TypeChecker(kind: kind, variables: variables).check(expr)
        guard type == .boolean else {
            throw ExpressionProblem(code: DatabaseCode.notBoolean, message: "expression must evaluate to a boolean", span: expr.span,
                                    help: type.isDynamic ? "a value from `val()` or `auth` is not known to be a boolean; compare it, e.g. `newData.val() == true`" : nil)
        }
        return expr
    }
}

extension String {
    var trimmingWhitespace: Substring {
        var s = self[...]
        while let c = s.first, c.isWhitespace { s = s.dropFirst() }
        while let c = s.last, c.isWhitespace { s = s.dropLast() }
        return s
    }
}

/// Characters a child key may not hold (reference §1.2; `$` only leading).
func invalidKeyCharacter(_ key: String, allowLeadingDollar: Bool) -> Character? {
    // Fast path: no forbidden byte at all (every forbidden character is ASCII).
    var clean = true
    for (offset, byte) in key.utf8.enumerated() {
        switch byte {
        case UInt8(ascii: "$") where offset == 0 && allowLeadingDollar: continue
        case UInt8(ascii: "."), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "/"), UInt8(ascii: "["), UInt8(ascii: "]"), 0x00...0x1F, 0x7F:
            clean = false
        default: continue
        }
        if !clean { break }
    }
    if clean { return nil }
    for (offset, character) in key.enumerated() {
        if character == "$" && offset == 0 && allowLeadingDollar { continue }
        if [".", "#", "$", "/", "[", "]"].contains(character) { return character }
        if let scalar = character.unicodeScalars.first, scalar.value < 0x20 || scalar.value == 0x7F { return character }
    }
    return nil
}

/// Names a character for a message: printable ones in backticks, others as `U+XXXX`.
func describeCharacter(_ character: Character) -> String {
    if let scalar = character.unicodeScalars.first, scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x20 {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return scalar.value == 0x20 ? "SPACE" : "U+" + String(repeating: "0", count: 4 - hex.count) + hex
    }
    return "`\(character)`"
}

private struct TreeBuilder {
    let limits: DatabaseLimits
    let regexEngine: any DatabaseRegexEngine
    var diagnostics: [Diagnostic] = []

    init(limits: DatabaseLimits, regexEngine: any DatabaseRegexEngine) {
        self.limits = limits
        self.regexEngine = regexEngine
    }

    mutating func error(_ code: String, _ message: String, _ span: SourceSpan?, help: String? = nil) {
        diagnostics.append(Diagnostic(code: code, severity: .error, message: message, span: span, help: help))
    }

    mutating func top(_ json: JSONNode) -> RuleNode? {
        guard case .object(let members) = json.value else {
            error(DatabaseCode.missingRules, "expected an object with a `rules` member", json.span,
                  help: "a rules file looks like `{\"rules\": {\".read\": false}}`")
            return nil
        }
        var root: RuleNode?
        for member in members {
            if member.key.text == "rules" {
                guard case .object = member.value.value else {
                    error(DatabaseCode.rulesNotObject, "`rules` must be an object, found \(member.value.kindDescription)", member.value.span)
                    continue
                }
                root = node(member.value, path: [], keySpan: member.key.span, variables: [])
            } else {
                error(DatabaseCode.unexpectedTopLevel, "unexpected top-level member `\(member.key.text)`", member.key.span,
                      help: "a rules file holds exactly one member, `rules`")
            }
        }
        if root == nil && !members.contains(where: { $0.key.text == "rules" }) {
            error(DatabaseCode.missingRules, "expected `rules` property", SourceSpan(start: json.span.start, end: json.span.start + 1),
                  help: "wrap the rule tree in `{\"rules\": …}`")
        }
        return root
    }

    /// Builds one node; recursion is bounded because the JSON reader bounds nesting.
    mutating func node(_ json: JSONNode, path: [String], keySpan: SourceSpan, variables: [String]) -> RuleNode? {
        guard case .object(let members) = json.value else { return nil }
        var rules: [RuleKind: Rule] = [:]
        var indexOn: [String]?
        var children: [String: RuleNode] = [:]
        var order: [String] = []
        var wildcard: (name: String, node: RuleNode)?
        var wildcardKey: JSONString?
        let nodePath = "/" + path.joined(separator: "/")
        for member in members {
            let key = member.key.text
            if let kind = RuleKind(rawValue: key) {
                rules[kind] = rule(kind, member, nodePath: nodePath, variables: variables)
                continue
            }
            if key == ".indexOn" {
                indexOn = self.indexOn(member.value)
                continue
            }
            guard case .object = member.value.value else {
                error(DatabaseCode.expectedObject,
                      key.hasPrefix(".") ? "unknown rule `\(key)`" : "child `\(key)` must be an object, found \(member.value.kindDescription)",
                      key.hasPrefix(".") ? member.key.span : member.value.span,
                      help: key.hasPrefix(".")
                        ? suggestion(for: key).map { "did you mean `\($0)`? (production: \"Expected '{'.\")" } ?? "rules are `.read`, `.write`, `.validate` and `.indexOn` (production: \"Expected '{'.\")"
                        : "a child is a rule node: `{\".read\": …}`")
                continue
            }
            if key.isEmpty {
                error(DatabaseCode.invalidChildKey, "empty child key", member.key.span)
                continue
            }
            if let bad = invalidKeyCharacter(key, allowLeadingDollar: true) {
                error(DatabaseCode.invalidChildKey, "child key `\(key)` contains \(describeCharacter(bad))", member.key.span,
                      help: key.hasPrefix(".") ? "rules are `.read`, `.write`, `.validate` and `.indexOn`"
                        : "keys can't contain \".\", \"#\", \"$\" (except leading), \"/\", \"[\", \"]\" or control characters")
                continue
            }
            if key.utf8.count > DatabaseLimits.maxKeyBytes {
                error(DatabaseCode.invalidChildKey, "child key is \(key.utf8.count) bytes, more than the limit of \(DatabaseLimits.maxKeyBytes)", member.key.span)
                continue
            }
            if key.hasPrefix("$") {
                if let existing = wildcardKey {
                    error(DatabaseCode.multipleWildcards, "cannot have multiple default rules (`\(existing.text)` and `\(key)`)", member.key.span,
                          help: "a node has at most one `$wildcard` child")
                    continue
                }
                wildcardKey = member.key
                if variables.contains(key) {
                    error(DatabaseCode.reusedWildcard, "wildcard `\(key)` reuses the name of an enclosing wildcard", member.key.span,
                          help: "give each wildcard on a path its own name")
                    continue
                }
                if let child = node(member.value, path: path + [key], keySpan: member.key.span, variables: variables + [key]) {
                    wildcard = (key, child)
                }
            } else if let child = node(member.value, path: path + [key], keySpan: member.key.span, variables: variables) {
                children[key] = child
                order.append(key)
            }
        }
        return RuleNode(read: rules[.read], write: rules[.write], validate: rules[.validate], indexOn: indexOn, children: children,
                        childOrder: order, wildcard: wildcard, path: nodePath, span: json.span, keySpan: keySpan)
    }

    func suggestion(for key: String) -> String? {
        let known = [".read", ".write", ".validate", ".indexOn"]
        return known.min { editDistance(key, $0) < editDistance(key, $1) }.flatMap { editDistance(key, $0) <= 3 ? $0 : nil }
    }

    mutating func indexOn(_ json: JSONNode) -> [String]? {
        switch json.value {
        case .string(let s): return [s.text]
        case .array(let items):
            var out: [String] = []
            for item in items {
                guard case .string(let s) = item.value else {
                    error(DatabaseCode.invalidIndexOn, "`.indexOn` entries must be strings, found \(item.kindDescription)", item.span,
                          help: "invalid indexOn expression: must be either a string or an array of strings")
                    return nil
                }
                out.append(s.text)
            }
            return out
        default:
            error(DatabaseCode.invalidIndexOn, "`.indexOn` must be a string or an array of strings, found \(json.kindDescription)", json.span)
            return nil
        }
    }

    mutating func rule(_ kind: RuleKind, _ member: JSONMember, nodePath: String, variables: [String]) -> Rule? {
        let rulePath = "/rules" + (nodePath == "/" ? "" : nodePath) + "/" + kind.rawValue
        switch member.value.value {
        case .bool(let value):
            return Rule(kind: kind, body: .constant(value), text: value ? "true" : "false", rulePath: rulePath, span: member.value.span, offsets: [],
                        regexEngine: regexEngine)
        case .string(let string):
            do {
                let expr = try DatabaseRulesCompiler.checkExpression(string.text, kind: kind, variables: Set(variables), limits: limits)
                return Rule(kind: kind, body: .expression(expr), text: string.text, rulePath: rulePath, span: member.value.span,
                            offsets: string.offsets, regexEngine: regexEngine)
            } catch {
                let span = error.code == DatabaseCode.emptyExpression ? string.span : string.sourceSpan(of: error.span.start, error.span.end)
                diagnostics.append(Diagnostic(code: error.code, severity: .error, message: error.message + " in `\(rulePath)`",
                                              span: span, help: error.help))
                return nil
            }
        default:
            error(DatabaseCode.invalidRuleValue, "`\(kind.rawValue)` must be `true`, `false` or an expression string, found \(member.value.kindDescription)",
                  member.value.span, help: "quote the condition: `\"\(kind.rawValue)\": \"auth != null\"`")
            return nil
        }
    }
}

/// Levenshtein distance, for "did you mean" (inputs are short rule names).
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a.prefix(64)), b = Array(b.prefix(64))
    var previous = Array(0...b.count)
    for (i, ca) in a.enumerated() {
        var current = [i + 1]
        for (j, cb) in b.enumerated() {
            current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca == cb ? 0 : 1)))
        }
        previous = current
    }
    return previous[b.count]
}
