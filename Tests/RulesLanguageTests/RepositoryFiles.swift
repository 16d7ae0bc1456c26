import Foundation

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
