import Foundation
import RulesLoading

/// The rules files the service decides requests with, compiled once, by ruleset name: the
/// file's stem (`firestore.rules` → `firestore`, `database.rules.json` → `database`).
public struct RuleSets: Sendable {
    /// A compiled rules file: `.security(Program)` (Firestore or Storage) or
    /// `.database(DatabaseProgram)`.
    public typealias Rules = LoadedRules

    /// The rulesets by name.
    public private(set) var byName: [String: Rules] = [:]

    /// No rulesets.
    public init() {}

    /// Loads `files` and every `*.rules` and `*.rules.json` file in `directory`.
    ///
    /// - Throws: ``RuleSetError`` naming the first file that cannot be read or compiled, or a
    ///   ruleset name given twice.
    public static func load(files: [String], directory: String?) throws(RuleSetError) -> RuleSets {
        var paths = files
        if let directory {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
                throw RuleSetError(message: "\(directory): cannot read the directory")
            }
            let rulesFiles = names.filter { $0.hasSuffix(".rules") || $0.hasSuffix(".rules.json") }.sorted()
            paths += rulesFiles.map { (directory as NSString).appendingPathComponent($0) }
        }
        var sets = RuleSets()
        for path in paths {
            let name = stem(of: path)
            guard sets.byName[name] == nil else { throw RuleSetError(message: "\(path): a ruleset named `\(name)` is already loaded") }
            do {
                sets.byName[name] = try RulesLoader.load(path: path)
            } catch {
                throw RuleSetError(message: error.description)
            }
        }
        return sets
    }

    /// The ruleset name of a rules file: its file name without `.rules.json`, `.rules` or
    /// another extension.
    public static func stem(of path: String) -> String {
        let file = (path as NSString).lastPathComponent
        for suffix in [".rules.json", ".rules"] where file.hasSuffix(suffix) && file.count > suffix.count {
            return String(file.dropLast(suffix.count))
        }
        return (file as NSString).deletingPathExtension
    }
}

/// A rules file the service cannot use.
public struct RuleSetError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, starting with the file.
    public var message: String

    public var description: String { message }
}
