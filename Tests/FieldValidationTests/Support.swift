import Foundation
import RulesTestSupport


/// Reads a repository file as UTF-8 text.
func repoText(_ relativePath: String) throws -> String {
    try String(contentsOf: packageRoot.appendingPathComponent(relativePath), encoding: .utf8)
}
