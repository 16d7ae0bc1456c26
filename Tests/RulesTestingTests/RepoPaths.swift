import Foundation
import RulesTestSupport
import RulesTesting

/// Paths inside the repository.
enum RepoPaths {
    static let root = packageRoot

    static func path(_ relative: String) -> String {
        root.appendingPathComponent(relative).path
    }

    /// The app's Firestore and Storage case files (`rules/tests/*.cases.{json,yaml}`), sorted.
    /// Database case files (`"service": "database"`) are tested in DatabaseRulesTests.
    static var appCaseFiles: [String] {
        caseFiles(in: "rules/tests").filter { !DatabaseCaseFileLoader.isDatabaseCaseFile(path($0)) }
    }

    /// The case files (`*.cases.*`) in a repository directory, sorted, as repository paths.
    static func caseFiles(in directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path(directory))) ?? []
        return names.filter { $0.contains(".cases.") }.sorted().map { directory + "/" + $0 }
    }
}
