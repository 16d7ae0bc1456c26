import DatabaseRules
import Diagnostics
import Foundation
import RulesPatterns

/// The production regex engine, shared.
let pcre2 = PCRE2DatabaseRegexEngine()

/// Compiles rules text; nil with the diagnostics when it does not compile.
func compile(_ text: String, name: String = "database.rules.json") -> DatabaseCompileResult {
    DatabaseRulesCompiler.compile(SourceFile(name: name, text: text), regexEngine: pcre2)
}

/// Parses JSON test data (strict enough for tests; traps on malformed test input are test bugs).
func json(_ text: String) -> JSONValue {
    guard let node = try? LenientJSONReader.parse(bytes: Array(text.utf8)) else { return .string("<bad test JSON: \(text)>") }
    return JSONValue(node)
}

/// A data tree from JSON text.
func tree(_ text: String) -> DataNode? {
    var budget = 100_000
    return try? DataTree.node(from: json(text), existing: nil, now: 0, path: "/", budget: &budget)
}
