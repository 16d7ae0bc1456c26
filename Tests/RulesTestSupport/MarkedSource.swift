// RulesTestSupport: helpers the test targets share (not a product): source
// text with position markers and the repository's files.
import Foundation

/// Source text with position markers (`1️⃣`, `2️⃣`, …) removed, and the UTF-8 offset of each.
public struct MarkedSource {
    /// The text without markers.
    public let text: String
    /// The UTF-8 offset in ``text`` where each marker stood.
    public let offsets: [String: Int]

    /// The markers, in order.
    public static let markers = ["1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣"]

    /// Removes the markers from `marked`, recording where each stood.
    public init(_ marked: String) {
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

/// Locates files in the repository from a test.
public enum RepositoryFiles {
    /// The package root (the directory holding Package.swift).
    public static let root: URL = {
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while url.path != "/" && !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
            url.deleteLastPathComponent()
        }
        return url
    }()
}
