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

    /// Every file in `corpus/<directory>` with the extension, sorted by name.
    static func files(in directory: String, extension ext: String) -> [URL] {
        let dir = root.appendingPathComponent(directory)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { $0.hasSuffix("." + ext) }.sorted().map { dir.appendingPathComponent($0) }
    }
}
