import DatabaseRules
import Diagnostics
import Foundation
import RulesPatterns

/// Locates files in the repository from a test.
enum RepositoryFiles {
    /// The package root (the directory holding Package.swift).
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while url.path != "/" && !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
            url.deleteLastPathComponent()
        }
        return url
    }()
}

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

/// Source text with position markers (`1️⃣`, `2️⃣`, …) removed, and the UTF-8 offset of each.
struct MarkedSource {
    let text: String
    let offsets: [String: Int]

    static let markers = ["1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣"]

    init(_ marked: String) {
        var text = ""
        var offsets: [String: Int] = [:]
        var rest = Substring(marked)
        outer: while !rest.isEmpty {
            for marker in MarkedSource.markers where rest.hasPrefix(marker) {
                offsets[marker] = text.utf8.count
                rest = rest.dropFirst(marker.count)
                continue outer
            }
            text.append(rest.removeFirst())
        }
        self.text = text
        self.offsets = offsets
    }
}
