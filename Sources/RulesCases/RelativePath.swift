import Foundation

/// A path named inside a file (a case file's `rules`, a property file's `rules`), resolved
/// against that file's directory with `.` and `..` folded away
/// (`rules/tests/../firestore.rules` → `rules/firestore.rules`). Absolute paths stay as they are.
public func resolvePath(_ path: String, relativeTo file: String) -> String {
    if path.hasPrefix("/") { return path }
    let directory = (file as NSString).deletingLastPathComponent
    let joined = directory.isEmpty ? path : directory + "/" + path
    var parts: [Substring] = []
    for part in joined.split(separator: "/", omittingEmptySubsequences: true) {
        switch part {
        case ".": continue
        case "..":
            if let last = parts.last, last != ".." { parts.removeLast() } else if !joined.hasPrefix("/") { parts.append(part) }
        default: parts.append(part)
        }
    }
    let folded = parts.joined(separator: "/")
    return joined.hasPrefix("/") ? "/" + folded : (folded.isEmpty ? "." : folded)
}
