import YAMLBounds
import Yams

/// Reads YAML into a ``DocumentTree`` through Yams' node API.
///
/// Scalars follow the YAML 1.2 core schema as Yams resolves it: a plain `2` is an int, `2.0` a
/// float, `true`/`null` what they say; a quoted scalar is always a string. Map keys must be
/// strings and unique. Anchors are resolved by Yams; explicit tags other than the core ones are
/// rejected. Before Yams composes the text, one pass over its events bounds it (``maxDepth``,
/// ``maxAliasedValues``), so the work is linear in the text.
public enum YAMLReader {
    /// Deepest nesting of lists and maps accepted, aliases expanded.
    public static let maxDepth = 128
    /// Most values (scalars, lists and maps) that aliases may repeat in one document, counted
    /// with the aliases inside what they repeat expanded. RulesKit's own bound: YAML has none,
    /// and ten levels of ten-way aliases in 600 bytes stand for ten billion values.
    public static let maxAliasedValues = 100_000

    /// Parses the first YAML document of `text`; an empty document reads as `null`.
    ///
    /// - Throws: ``DocumentSyntaxError`` at the first problem.
    public static func read(_ text: String) throws(DocumentSyntaxError) -> DocumentTree {
        var converted = 0
        return try read(text, converted: &converted)
    }

    /// ``read(_:)``, counting the nodes converted (a work counter for tests: a node reached again
    /// through an alias is not converted again).
    static func read(_ text: String, converted: inout Int) throws(DocumentSyntaxError) -> DocumentTree {
        do {
            return try compose(text, converted: &converted)
        } catch {
            var located = error
            (located.line, located.column) = location(yamlLine: error.line, yamlColumn: error.column, in: text)
            throw located
        }
    }

    /// Turns a position as libyaml counts it (a new line at LF, CR, CRLF, NEL, LS and PS; a
    /// column per Unicode scalar) into one as diagnostics count it (a new line at LF; a column
    /// per character), clamped to the end of the text.
    static func location(yamlLine: Int, yamlColumn: Int, in text: String) -> (line: Int, column: Int) {
        let scalars = text.unicodeScalars
        var index = scalars.startIndex
        var line = 1, column = 1
        while index < scalars.endIndex, (line, column) < (yamlLine, yamlColumn) {
            let scalar = scalars[index]
            index = scalars.index(after: index)
            switch scalar {
            case "\r":
                if index < scalars.endIndex, scalars[index] == "\n" { index = scalars.index(after: index) }
                line += 1
                column = 1
            case "\n", "\u{85}", "\u{2028}", "\u{2029}":
                line += 1
                column = 1
            default:
                column += 1
            }
        }
        let before = text.unicodeScalars[..<index]
        let lineStart = before.lastIndex(of: "\n").map { before.index(after: $0) } ?? before.startIndex
        let lineFeeds = before.reduce(0) { $0 + ($1 == "\n" ? 1 : 0) }
        return (lineFeeds + 1, String(text.unicodeScalars[lineStart..<index]).count + 1)
    }

    /// The 1-based line and column of the value at `path` (of its key, for a map entry), or nil.
    static func location(of path: [DocumentStep], in text: String) -> (line: Int, column: Int)? {
        guard var node = try? Yams.compose(yaml: text) else { return nil }
        var mark = node.mark
        for step in path {
            switch (step, node) {
            case (.key(let key), .mapping(let mapping)):
                guard let entry = mapping.first(where: { $0.key.string == key }) else { return nil }
                mark = entry.key.mark
                node = entry.value
            case (.index(let index), .sequence(let sequence)) where index < sequence.count:
                node = sequence[index]
                mark = node.mark
            default:
                return nil
            }
        }
        guard let mark else { return nil }
        return location(yamlLine: mark.line, yamlColumn: mark.column, in: text)
    }

    private static func compose(_ text: String, converted count: inout Int) throws(DocumentSyntaxError) -> DocumentTree {
        do {
            try YAMLBounds.check(text, maxDepth: maxDepth, maxAliasedValues: maxAliasedValues)
        } catch {
            throw DocumentSyntaxError(message: error.message, line: error.line, column: error.column)
        }
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw syntaxError(error)
        } catch {
            throw DocumentSyntaxError(message: "cannot read YAML: \(error)", line: 1, column: 1)
        }
        guard let root else { return .null }
        var converted: [ObjectIdentifier: DocumentTree] = [:]
        defer { count = converted.count }
        return try tree(root, depth: 0, converted: &converted)
    }

    /// Converts `node`. Yams gives an alias the very node its anchor names, down to the tag
    /// object each parsed node has of its own; a node seen again is the tree made the first
    /// time (shared, not rebuilt), so converting costs as many steps as the text has values.
    /// Its nesting was bounded with aliases expanded before composing (``YAMLBounds``).
    private static func tree(_ node: Node, depth: Int, converted: inout [ObjectIdentifier: DocumentTree]) throws(DocumentSyntaxError) -> DocumentTree {
        guard depth < maxDepth else {
            throw problem("lists and maps are nested more than \(maxDepth) levels deep", node)
        }
        let identity: ObjectIdentifier? = switch node {
        case .scalar(let scalar): ObjectIdentifier(scalar.tag)
        case .sequence(let sequence): ObjectIdentifier(sequence.tag)
        case .mapping(let mapping): ObjectIdentifier(mapping.tag)
        case .alias: nil
        }
        if let identity, let known = converted[identity] { return known }
        let result: DocumentTree
        switch node {
        case .scalar(let scalar):
            result = try value(of: scalar, node: node)
        case .sequence(let sequence):
            var items: [DocumentTree] = []
            for item in sequence { items.append(try tree(item, depth: depth + 1, converted: &converted)) }
            result = .list(items)
        case .mapping(let mapping):
            var entries: [(key: String, value: DocumentTree)] = []
            var keys = Set<String>()
            for (keyNode, valueNode) in mapping {
                guard case .scalar(let keyScalar) = keyNode else {
                    throw problem("map keys must be strings", keyNode)
                }
                let key = keyScalar.string
                guard keys.insert(key).inserted else { throw problem("duplicate key `\(key)`", keyNode) }
                entries.append((key, try tree(valueNode, depth: depth + 1, converted: &converted)))
            }
            result = .map(entries)
        case .alias:
            throw problem("YAML aliases are not supported in case files", node)
        }
        if let identity { converted[identity] = result }
        return result
    }

    private static func value(of scalar: Node.Scalar, node: Node) throws(DocumentSyntaxError) -> DocumentTree {
        if scalar.style != .plain && scalar.style != .any { return .string(scalar.string) }
        switch Tag.Name(rawValue: node.tag.rawValue) {
        case .null: return .null
        case .bool:
            guard let value = node.bool else { throw problem("`\(scalar.string)` is not a boolean", node) }
            return .bool(value)
        case .int:
            guard let value = integer(scalar, node) else {
                throw problem("integer `\(scalar.string)` does not fit in 64 bits", node)
            }
            return .int(Int64(value))
        case .float:
            guard let value = node.float, value.isFinite else {
                throw problem("`\(scalar.string)` is not a finite number", node)
            }
            return .float(value)
        case .str: return .string(scalar.string)
        default:
            // Timestamps, binary and custom tags are not part of the case-file format: use the
            // `__type__` wrappers instead. Plain scalars Yams resolves to them stay strings.
            let tag = node.tag.rawValue
            if tag == Tag.Name.timestamp.rawValue || tag == Tag.Name.binary.rawValue { return .string(scalar.string) }
            throw problem("unsupported YAML tag `\(tag)`", node)
        }
    }

    /// A plain scalar Yams tagged as an integer, as Yams reads it, except base 60 (`1:30`, YAML
    /// 1.1): Yams computes that without overflow checks and traps past 64 bits, so it is computed
    /// here, and a value that does not fit is nil.
    private static func integer(_ scalar: Node.Scalar, _ node: Node) -> Int? {
        let text = scalar.string.replacingOccurrences(of: "_", with: "")
        let unsigned = text.hasPrefix("-") || text.hasPrefix("+") ? text.dropFirst() : Substring(text)
        // Yams reads a radix prefix first, whatever follows it, with overflow checks.
        guard unsigned.contains(":"), !unsigned.hasPrefix("0") else { return node.int }
        var value = 0
        for component in unsigned.split(separator: ":", omittingEmptySubsequences: false) {
            guard let digit = Int(component) else { return nil }
            let (shifted, shiftOverflow) = value.multipliedReportingOverflow(by: 60)
            let (sum, sumOverflow) = shifted.addingReportingOverflow(digit)
            if shiftOverflow || sumOverflow { return nil }
            value = sum
        }
        return text.hasPrefix("-") ? -value : value
    }

    private static func problem(_ message: String, _ node: Node) -> DocumentSyntaxError {
        DocumentSyntaxError(message: message, line: node.mark?.line ?? 1, column: node.mark?.column ?? 1)
    }

    private static func syntaxError(_ error: YamlError) -> DocumentSyntaxError {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _):
            let text = [context?.text, problem].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ": ")
            return DocumentSyntaxError(message: text, line: mark.line, column: mark.column)
        case .duplicatedKeysInMapping(let duplicates, let context):
            // Yams reports the first duplicate in its own order, which is arbitrary when two
            // keys sort alike (a list or map as a key, or equal text with different tags).
            let unconvertible = "<uncovertable>"
            let stable = Set(duplicates).count == duplicates.count && !duplicates.contains(unconvertible)
            let names = duplicates.sorted().map { $0 == unconvertible ? "(a list or map)" : "`\($0)`" }
            return DocumentSyntaxError(message: "duplicate key " + names.joined(separator: ", "),
                                       line: stable ? context.mark.line : 1, column: stable ? context.mark.column : 1)
        default:
            return DocumentSyntaxError(message: "cannot read YAML: \(error)", line: 1, column: 1)
        }
    }
}
