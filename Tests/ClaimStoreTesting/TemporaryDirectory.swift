import Foundation

/// A fresh directory under the system temporary directory, deleted by ``remove()``.
public struct TemporaryDirectory: Sendable {
    public let url: URL

    /// Creates the directory.
    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("ruleskit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A path inside the directory.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Deletes the directory and everything in it.
    public func remove() { try? FileManager.default.removeItem(at: url) }
}
