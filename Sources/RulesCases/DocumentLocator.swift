// DocumentLocator: where a value of a case file is, as `line:column`, for problems found after
// the file was read (the document tree itself carries no positions).

/// One step into a document: a map key or a list index.
enum DocumentStep: Hashable, Sendable {
    case key(String)
    case index(Int)
}

/// Finds the line and column of a value by reading the text again.
enum DocumentLocator {
    /// The 1-based line and column of the value at `path` (of its key, for a map entry), or nil.
    static func location(of path: [DocumentStep], in text: String, yaml: Bool) -> (line: Int, column: Int)? {
        yaml ? YAMLReader.location(of: path, in: text) : JSONReader.location(of: path, in: text)
    }
}
