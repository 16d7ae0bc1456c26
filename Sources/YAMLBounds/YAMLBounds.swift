// YAMLBounds: bounds a YAML document before Yams composes it. Yams has no event API and, while
// composing, hashes every mapping key whole and recurses once per nesting level; an alias bomb
// (ten levels of ten-way anchors, a few hundred bytes) or a collection used as a key would take
// exponential time there, and deep nesting would exhaust the stack. So the document's events
// are read once with libyaml (the C library Yams wraps; this module is its only other reader) and
// counted: nesting depth and the values aliases add. Bounding the values aliases add also
// bounds Yams' hashing of keys: a key is as large as its text plus what its aliases repeat.
import CYaml

/// A YAML document over a bound: what is wrong and where (libyaml's line and column: lines from
/// 1, columns in Unicode scalars from 1, a new line also at CR, NEL, LS and PS).
public struct YAMLBoundsError: Error, Sendable, Equatable {
    /// What is wrong, terse and lowercase.
    public var message: String
    /// 1-based line, as libyaml counts.
    public var line: Int
    /// 1-based column, as libyaml counts.
    public var column: Int

    /// Creates an error.
    public init(message: String, line: Int, column: Int) {
        self.message = message
        self.line = line
        self.column = column
    }
}

/// One linear pass over the events of a YAML text's first document, for any reader that then
/// composes it with Yams (case, request and property files; rule packs could use it too).
public enum YAMLBounds {
    /// What an anchored node contributes when an alias repeats it.
    private struct Anchored {
        /// Values in the node, aliases expanded (a scalar is 1).
        var values: Int
        /// How much deeper than the node its deepest value is (a scalar or an empty list is 0).
        var height: Int
        var isCollection: Bool
    }

    /// An open list or map.
    private struct Open {
        var anchor: String?
        var isMapping: Bool
        /// Values so far, this node included.
        var values = 1
        /// How much deeper than this node its deepest value is so far.
        var height = 0
    }

    /// Checks the nesting depth and the values aliases add.
    ///
    /// A syntax error ends the scan silently: Yams reports it when it composes the same text.
    ///
    /// - Parameters:
    ///   - text: the YAML text.
    ///   - maxDepth: deepest nesting of lists and maps, aliases expanded.
    ///   - maxAliasedValues: most values aliases may add to the document.
    /// - Throws: ``YAMLBoundsError`` at the first node over a limit.
    public static func check(_ text: String, maxDepth: Int, maxAliasedValues: Int) throws(YAMLBoundsError) {
        var bytes = Array(text.utf8)
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { return }
        defer { yaml_parser_delete(&parser) }
        let count = bytes.count
        let problem: YAMLBoundsError? = bytes.withUnsafeMutableBufferPointer { buffer in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, count)
            yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
            return scan(&parser, maxDepth: maxDepth, maxAliasedValues: maxAliasedValues)
        }
        if let problem { throw problem }
    }

    private static func scan(_ parser: inout yaml_parser_t, maxDepth: Int, maxAliasedValues: Int) -> YAMLBoundsError? {
        var anchors: [String: Anchored] = [:]
        var stack: [Open] = []
        var aliased = 0
        while true {
            var event = yaml_event_t()
            guard yaml_parser_parse(&parser, &event) == 1 else { return nil }
            defer { yaml_event_delete(&event) }
            let line = Int(event.start_mark.line) + 1
            let column = Int(event.start_mark.column) + 1
            func fail(_ message: String) -> YAMLBoundsError {
                YAMLBoundsError(message: message, line: line, column: column)
            }
            switch event.type {
            case YAML_STREAM_END_EVENT, YAML_DOCUMENT_END_EVENT:
                // Yams reads the first document only (a second one is an error it reports).
                return nil
            case YAML_SCALAR_EVENT:
                if stack.count >= maxDepth { return fail(deepMessage(maxDepth)) }
                let node = Anchored(values: 1, height: 0, isCollection: false)
                if let anchor = name(event.data.scalar.anchor) { anchors[anchor] = node }
                add(node, to: &stack)
            case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                if stack.count >= maxDepth { return fail(deepMessage(maxDepth)) }
                let isMapping = event.type == YAML_MAPPING_START_EVENT
                let anchor = name(isMapping ? event.data.mapping_start.anchor : event.data.sequence_start.anchor)
                stack.append(Open(anchor: anchor, isMapping: isMapping))
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                guard let closed = stack.popLast() else { return nil }
                let node = Anchored(values: closed.values, height: closed.height, isCollection: true)
                if let anchor = closed.anchor { anchors[anchor] = node }
                add(node, to: &stack)
            case YAML_ALIAS_EVENT:
                // An undefined alias is Yams' error to report.
                guard let anchor = name(event.data.alias.anchor), let node = anchors[anchor] else { return nil }
                if stack.count + node.height >= maxDepth {
                    return fail(deepMessage(maxDepth))
                }
                // The alias stands for the anchored node once more; the first copy was counted.
                aliased += node.values
                if aliased > maxAliasedValues {
                    return fail("YAML aliases repeat more than \(maxAliasedValues) values (an alias bomb?); write the values out")
                }
                add(node, to: &stack)
            default:
                continue
            }
        }
    }

    private static func add(_ node: Anchored, to stack: inout [Open]) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].values += node.values
        stack[stack.count - 1].height = max(stack[stack.count - 1].height, node.height + 1)
    }

    /// The message for nesting past `maxDepth`.
    public static func deepMessage(_ maxDepth: Int) -> String {
        "lists and maps are nested more than \(maxDepth) levels deep"
    }

    private static func name(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        guard let pointer else { return nil }
        return String(cString: pointer)
    }
}
