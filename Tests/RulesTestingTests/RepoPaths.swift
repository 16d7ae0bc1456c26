import Foundation

/// Paths inside the repository, found by walking up from this file to `Package.swift`.
enum RepoPaths {
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while url.path != "/" {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
            url.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }()

    static func path(_ relative: String) -> String {
        root.appendingPathComponent(relative).path
    }

    /// The app's case files (`rules/tests/*.cases.{json,yaml}`), sorted.
    static var appCaseFiles: [String] {
        let directory = root.appendingPathComponent("rules/tests")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.contains(".cases.") }.sorted().map { "rules/tests/" + $0 }
    }
}
