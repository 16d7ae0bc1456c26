// DatabasePropertyFile: property files with `"service": "database"` (docs/VERIFICATION.md,
// "Realtime Database"): paths such as `/userPresence/$uid`, methods `read` and `write`, and
// conditions in the Realtime Database rules language.
import DatabaseRules
import Diagnostics
import Foundation
import RulesCases
import RulesLanguage
import RulesLoading

/// The operations a database property quantifies over.
public enum DatabaseMethod: String, Sendable, CaseIterable {
    /// A read of the path.
    case read
    /// A `set` of any value (null deletes) at the path.
    case write
}

/// One database property.
public struct DatabaseProperty: Sendable {
    public var name: String
    /// The path as written, e.g. `/userPresence/$uid`.
    public var pathText: String
    /// Its segments: literal keys and `$name` variables.
    public var segments: [String]
    public var methods: [DatabaseMethod]
    public var kind: PropertyKind
    /// The condition, checked as a rule of the strictest method given (`write` when present).
    public var condition: DatabaseExpression?
    /// `file:line:column` of the condition's text (or of the property), for reasons.
    public var conditionLocation: String
    public var expect: Verdict?
    public var location = SourceLocation(line: 1, column: 1)

    /// The stand-in ``RulesProperty`` the reports show.
    var reported: RulesProperty {
        RulesProperty(name: name, pathText: pathText, path: [], rest: nil, methods: [], kind: kind, condition: nil,
                      conditionSource: SourceFile(name: conditionLocation, text: ""), expect: expect, location: location)
    }
}

/// A loaded database property file.
public struct DatabasePropertyFile: Sendable {
    public var path: String
    /// The `database.rules.json` file, resolved against the property file's directory.
    public var rulesPath: String
    public var properties: [DatabaseProperty]
}

/// Reads database property files.
public enum DatabasePropertyFileLoader {
    /// Whether the property file at `path` says `"service": "database"` (false when unreadable:
    /// the general loader reports that).
    public static func isDatabase(path: String) -> Bool {
        guard let text = try? PropertyFileLoader.readText(path), let tree = try? PropertyFileLoader.parse(text, path: path),
              case .string(let service)? = tree["service"] else { return false }
        return service == "database"
    }

    /// Reads and checks a database property file.
    ///
    /// - Throws: ``PropertyFileError`` at the first problem.
    public static func load(path: String) throws(PropertyFileError) -> DatabasePropertyFile {
        try decode(try PropertyFileLoader.readText(path), path: path)
    }

    /// Decodes database property-file text.
    public static func decode(_ text: String, path: String) throws(PropertyFileError) -> DatabasePropertyFile {
        let tree = try PropertyFileLoader.parse(text, path: path)
        let file = SourceFile(name: path, text: text)
        func fail(_ message: String, near needle: String? = nil) -> PropertyFileError {
            PropertyFileError(code: VerificationCodes.propertyFileFormat.id, location: PropertyFileLoader.locate(needle, in: file), message: message)
        }
        guard case .string(let rules)? = tree["rules"], !rules.isEmpty else { throw fail("missing key `rules` (the path of database.rules.json)") }
        guard case .list(let items)? = tree["properties"] else { throw fail("missing key `properties` (a list)") }
        var properties: [DatabaseProperty] = []
        var searchFrom = 0
        for (index, item) in items.enumerated() {
            guard case .string(let name)? = item["name"], !name.isEmpty else { throw fail("property #\(index + 1): missing `name`") }
            let anchor = PropertyFileLoader.locateOffset(PropertyFileLoader.jsonQuoted(name), in: file, from: searchFrom) ?? searchFrom
            searchFrom = anchor
            func located(_ needle: String?) -> String {
                let offset = needle.flatMap { PropertyFileLoader.locateOffset($0, in: file, from: anchor) } ?? anchor
                let l = file.location(of: offset)
                return "\(path):\(l.line):\(l.column)"
            }
            func failHere(_ message: String, _ needle: String? = nil) -> PropertyFileError {
                PropertyFileError(code: VerificationCodes.propertyFileFormat.id, location: located(needle), message: "property `\(name)`: \(message)")
            }
            guard case .string(let pathText)? = item["path"], pathText.hasPrefix("/") else {
                throw failHere("`path` must be a string starting with `/`", "\"path\"")
            }
            var segments: [String] = []
            for part in pathText.split(separator: "/", omittingEmptySubsequences: true) {
                var segment = String(part)
                if segment.hasPrefix("{") && segment.hasSuffix("}") { segment = "$" + segment.dropFirst().dropLast() }
                if segment.hasPrefix("$") {
                    guard segment.count > 1, !segments.contains(segment) else { throw failHere("`path` segment `\(part)` is not a new `$name` variable", "\"path\"") }
                } else {
                    guard DatabaseSymbolicTree.isValidKey(segment) else { throw failHere("`path` segment `\(part)` is not a valid key", "\"path\"") }
                }
                segments.append(segment)
            }
            let (methods, kind, expect): ([DatabaseMethod], PropertyKind, Verdict?) = try PropertyFileLoader.methodsKindExpect(
                item, names: "read, write", fail: failHere)
            var condition: DatabaseExpression?
            var conditionLocation = located(nil)
            if let conditionTree = item["condition"], conditionTree != .null {
                guard case .string(let conditionText) = conditionTree, !conditionText.isEmpty else {
                    throw failHere("`condition` must be a non-empty rules expression", "\"condition\"")
                }
                guard kind != .never else { throw failHere("a `never` property has no `condition`", "\"condition\"") }
                conditionLocation = located("\"condition\"")
                let variables = Set(segments.filter { $0.hasPrefix("$") })
                do {
                    for method in methods where method == .read {
                        _ = try DatabaseRulesCompiler.checkExpression(conditionText, kind: .read, variables: variables)
                    }
                    condition = try DatabaseRulesCompiler.checkExpression(conditionText, kind: methods.contains(.write) ? .write : .read,
                                                                          variables: variables)
                } catch {
                    throw PropertyFileError(code: VerificationCodes.propertyCondition.id, location: conditionLocation,
                                            message: "property `\(name)`: condition: \(error.message) [\(error.code)]")
                }
            } else if kind == .onlyIf {
                throw failHere("an `only-if` property needs a `condition`")
            }
            properties.append(DatabaseProperty(name: name, pathText: pathText, segments: segments, methods: methods, kind: kind,
                                               condition: condition, conditionLocation: conditionLocation, expect: expect,
                                               location: file.location(of: anchor)))
        }
        var names = Set<String>()
        for property in properties where !names.insert(property.name).inserted {
            throw fail("two properties are named `\(property.name)`", near: PropertyFileLoader.jsonQuoted(property.name))
        }
        return DatabasePropertyFile(path: path, rulesPath: resolvePath(rules, relativeTo: path), properties: properties)
    }
}
