import Diagnostics
import Yams

/// Parses rule-pack YAML into a ``RulePack``, reporting every problem with `file:line:column`.
///
/// Unknown keys, wrong types and unknown enum values are errors (`RP1xxx`). List files named by
/// `file:` are read through `readFile` with a path relative to the pack.
enum RulePackLoader {
    static let topLevelKeys: Set<String> = ["pack", "field", "description", "rules", "disable"]
    static let ruleKeys: Set<String> = [
        "id", "code", "kind", "message", "description", "source", "on", "pattern", "unit", "min", "max",
        "file", "key", "include-app-name", "name", "examples", "override", "unless",
        "enabled", "min-count", "min-score", "allow-file",
    ]

    /// - Parameters:
    ///   - readFile: the text of a list file, by its path as written.
    ///   - resolve: where a path as written is (for `breached` stores, opened when compiled).
    static func load(
        name: String, text: String, readFile: @escaping @Sendable (String) throws -> String,
        resolve: (String) -> String = { $0 }
    ) throws(RulePackError) -> RulePack {
        let file = SourceFile(name: name, text: text)
        var sink = DiagnosticSink()
        let root: Node
        do {
            // Every value is read as the text written, so no scalar needs an implicit type: the
            // basic resolver spares Yams a regular-expression match per scalar.
            guard let composed = try Yams.compose(yaml: text, .basic) else {
                throw RulePackError(code: RulePackCodes.malformedYAML.id, "rule pack is empty", file: file)
            }
            root = composed
        } catch let error as RulePackError {
            throw error
        } catch let error as YamlError {
            throw RulePackError(code: RulePackCodes.malformedYAML.id, "malformed yaml: \(yamlProblem(error))", file: file,
                                span: yamlMark(error).map { span(file, $0) } ?? readerSpan(error, file)
                                    ?? SourceSpan(start: 0, end: min(1, file.bytes.count)))
        } catch {
            throw RulePackError(code: RulePackCodes.malformedYAML.id, "malformed yaml: \(error)", file: file)
        }
        var reader = NodeReader(file: file, sink: sink)
        guard let top = reader.mapping(root, what: "rule pack", allowed: topLevelKeys) else {
            try reader.sink.check()
            throw RulePackError(code: RulePackCodes.wrongType.id, "rule pack must be a mapping", file: file)
        }
        let packName = reader.string(top["pack"], key: "pack", in: root, required: true) ?? ""
        let fieldText = reader.string(top["field"], key: "field", in: root, required: true)
        let field = fieldText.flatMap { text -> Field? in
            reader.enumValue(text, Field.self, key: "field", node: top["field"])
        }
        let description = reader.string(top["description"], key: "description", in: root)
        var rules: [RuleDefinition] = []
        if let list = top["rules"] {
            for node in reader.sequence(list, key: "rules") {
                if let rule = reader.rule(node, readFile: readFile, resolve: resolve) { rules.append(rule) }
            }
        }
        var disabled: [(id: String, span: SourceSpan)] = []
        if let list = top["disable"] {
            for node in reader.sequence(list, key: "disable") {
                if let id = reader.string(node, key: "disable") { disabled.append((id, reader.span(node))) }
            }
        }
        sink = reader.sink
        try sink.check()
        guard let field else { throw RulePackError(code: RulePackCodes.missingKey.id, "missing key `field`", file: file) }
        return RulePack(name: packName, field: field, description: description, rules: rules,
                        disabled: disabled, file: file)
    }

    /// See ``RulePackSet/listEntries(_:)``.
    static func parseListText(_ text: String) -> [String] { NodeReader.parseList(text) }

    /// What Yams names a duplicated key that is not a scalar.
    private static let unconvertibleKey = "<uncovertable>"

    private static func yamlMark(_ error: YamlError) -> Mark? {
        switch error {
        case let .scanner(_, _, mark, _), let .parser(_, _, mark, _), let .composer(_, _, mark, _): mark
        case let .duplicatedKeysInMapping(duplicates, context):
            // Yams reports the first duplicate in its own order, which is arbitrary when two
            // keys sort alike (a list or map as a key, or equal text with different tags).
            Set(duplicates).count == duplicates.count && !duplicates.contains(unconvertibleKey)
                ? context.mark : nil
        default: nil
        }
    }

    /// Where a reader error (bad character or encoding) is: the first character YAML does not
    /// allow (YAML 1.1 section 5.1, as libyaml checks it), else the character offset Yams gives.
    private static func readerSpan(_ error: YamlError, _ file: SourceFile) -> SourceSpan? {
        guard case let .reader(_, offset, _, _) = error else { return nil }
        var position = 0
        for scalar in file.text.unicodeScalars {
            let value = scalar.value
            let printable = value == 0x09 || value == 0x0A || value == 0x0D || (value >= 0x20 && value <= 0x7E)
                || value == 0x85 || (value >= 0xA0 && value <= 0xD7FF) || (value >= 0xE000 && value <= 0xFFFD)
                || value >= 0x10000
            if !printable || (value == 0xFEFF && position > 0) {
                return SourceSpan(start: position, end: position + scalar.utf8.count)
            }
            position += scalar.utf8.count
        }
        guard let offset, let index = file.text.index(file.text.startIndex, offsetBy: offset, limitedBy: file.text.endIndex) else { return nil }
        let start = file.text.utf8.distance(from: file.text.startIndex, to: index)
        return SourceSpan(start: start, end: min(start + 1, file.bytes.count))
    }

    private static func yamlProblem(_ error: YamlError) -> String {
        switch error {
        case let .scanner(context, problem, _, _), let .parser(context, problem, _, _),
             let .composer(context, problem, _, _):
            context.map { "\(problem) (\($0.text))" } ?? problem
        case let .duplicatedKeysInMapping(duplicates, _):
            "duplicate key " + duplicates.sorted().map { $0 == unconvertibleKey ? "(a list or map)" : "`\($0)`" }
                .joined(separator: ", ")
        default: "\(error)"
        }
    }

    /// The byte span of one character at a Yams mark (line and column are 1-based, columns in scalars).
    static func span(_ file: SourceFile, _ mark: Mark) -> SourceSpan {
        var offset = file.offset(ofLine: mark.line)
        var column = 1
        while column < mark.column, offset < file.bytes.count, file.bytes[offset] != UInt8(ascii: "\n") {
            offset += 1
            while offset < file.bytes.count, file.bytes[offset] & 0xC0 == 0x80 { offset += 1 }
            column += 1
        }
        // A mark at the very end of the text (an unexpected end of input) gets an empty span.
        return SourceSpan(start: offset, end: min(offset + 1, file.bytes.count))
    }
}

/// Reads typed values out of Yams nodes, recording a diagnostic for each problem.
private struct NodeReader {
    let file: SourceFile
    var sink: DiagnosticSink

    func span(_ node: Node?) -> SourceSpan {
        guard let mark = node?.mark else { return SourceSpan(start: 0, end: 0) }
        var span = RulePackLoader.span(file, mark)
        if case let .scalar(scalar) = node {
            // The decoded value can be longer than its source text (escapes, folding): stay inside the file.
            span.end = min(span.start + max(1, scalar.string.utf8.count), file.bytes.count)
        }
        return span
    }

    mutating func error(_ code: String, _ message: String, at node: Node?, help: String? = nil) {
        sink.error(code, message, file: file, span: node.map { span($0) }, help: help)
    }

    /// A mapping's entries by key; unknown keys and non-string keys are reported.
    mutating func mapping(_ node: Node, what: String, allowed: Set<String>) -> [String: Node]? {
        guard case let .mapping(mapping) = node else {
            error(RulePackCodes.wrongType.id, "\(what) must be a mapping", at: node)
            return nil
        }
        var result: [String: Node] = [:]
        for (keyNode, value) in mapping {
            guard case let .scalar(key) = keyNode else {
                error(RulePackCodes.wrongType.id, "keys must be strings", at: keyNode)
                continue
            }
            guard allowed.contains(key.string) else {
                error(RulePackCodes.unknownKey.id, "unknown key `\(key.string)` in \(what)", at: keyNode,
                      help: suggestion(for: key.string, in: allowed))
                continue
            }
            if result[key.string] != nil {
                error(RulePackCodes.duplicateKey.id, "duplicate key `\(key.string)`", at: keyNode)
            }
            result[key.string] = value
        }
        return result
    }

    mutating func sequence(_ node: Node, key: String) -> [Node] {
        guard case let .sequence(sequence) = node else {
            error(RulePackCodes.wrongType.id, "`\(key)` must be a list", at: node)
            return []
        }
        return Array(sequence)
    }

    mutating func string(_ node: Node?, key: String, in parent: Node? = nil, required: Bool = false) -> String? {
        guard let node else {
            if required { error(RulePackCodes.missingKey.id, "missing key `\(key)`", at: parent) }
            return nil
        }
        guard case let .scalar(scalar) = node else {
            error(RulePackCodes.wrongType.id, "`\(key)` must be a string", at: node)
            return nil
        }
        return scalar.string
    }

    mutating func int(_ node: Node?, key: String) -> Int? {
        guard let text = string(node, key: key) else { return nil }
        guard let value = Int(text), value >= 0 else {
            error(RulePackCodes.wrongType.id, "`\(key)` must be a non-negative integer, not `\(text)`", at: node)
            return nil
        }
        return value
    }

    mutating func bool(_ node: Node?, key: String) -> Bool? {
        guard let text = string(node, key: key) else { return nil }
        switch text {
        case "true": return true
        case "false": return false
        default:
            error(RulePackCodes.wrongType.id, "`\(key)` must be `true` or `false`, not `\(text)`", at: node)
            return nil
        }
    }

    mutating func enumValue<E: RawRepresentable & CaseIterable>(
        _ text: String, _ type: E.Type, key: String, node: Node?
    ) -> E? where E.RawValue == String {
        if let value = E(rawValue: text) { return value }
        let names = E.allCases.map { "`\($0.rawValue)`" }.joined(separator: ", ")
        error(RulePackCodes.unknownValue.id, "unknown \(key) `\(text)`", at: node, help: "use one of \(names)")
        return nil
    }

    mutating func strings(_ node: Node?, key: String) -> [String]? {
        guard let node else { return nil }
        return sequence(node, key: key).compactMap { string($0, key: key) }
    }

    mutating func rule(_ node: Node, readFile: @escaping @Sendable (String) throws -> String,
                       resolve: (String) -> String) -> RuleDefinition? {
        guard let keys = mapping(node, what: "rule", allowed: RulePackLoader.ruleKeys) else { return nil }
        guard let id = string(keys["id"], key: "id", in: node, required: true) else { return nil }
        var spans: [String: SourceSpan] = [:]
        for (key, value) in keys { spans[key] = span(value) }
        var rule = RuleDefinition(
            id: id, isOverride: false,
            location: RuleLocation(file: file, span: span(node), keySpans: spans))
        rule.code = string(keys["code"], key: "code")
        rule.kind = string(keys["kind"], key: "kind").flatMap { enumValue($0, RuleKind.self, key: "kind", node: keys["kind"]) }
        rule.message = string(keys["message"], key: "message")
        rule.description = string(keys["description"], key: "description")
        rule.source = string(keys["source"], key: "source")
        rule.target = string(keys["on"], key: "on")
        rule.pattern = string(keys["pattern"], key: "pattern")
        rule.unit = string(keys["unit"], key: "unit").flatMap { enumValue($0, LengthUnit.self, key: "unit", node: keys["unit"]) }
        rule.min = int(keys["min"], key: "min")
        rule.max = int(keys["max"], key: "max")
        rule.listKey = string(keys["key"], key: "key").flatMap { enumValue($0, ListKey.self, key: "key", node: keys["key"]) }
        rule.includeAppName = bool(keys["include-app-name"], key: "include-app-name")
        rule.swiftName = string(keys["name"], key: "name")
        rule.isOverride = bool(keys["override"], key: "override") ?? false
        rule.enabled = bool(keys["enabled"], key: "enabled")
        rule.minCount = int(keys["min-count"], key: "min-count")
        rule.minScore = int(keys["min-score"], key: "min-score")
        if let node = keys["unless"] {
            if case .sequence = node { rule.unless = strings(node, key: "unless") } else { rule.unless = string(node, key: "unless").map { [$0] } }
        }
        if let path = string(keys["file"], key: "file") {
            rule.listFile = path
            rule.filePath = resolve(path)
            switch rule.kind {
            case .list?:
                do {
                    rule.listEntries = Self.parseList(try readFile(path))
                } catch {
                    self.error(RulePackCodes.unreadableListFile.id, "cannot read list file `\(path)`: \(error)", at: keys["file"])
                }
            case nil:
                // An override entry: a list is read once the merged rule's kind is known (a
                // `breached` store is never read as text).
                rule.deferredList = { try Self.parseList(readFile(path)) }
            default:
                break
            }
        }
        if let path = string(keys["allow-file"], key: "allow-file") {
            rule.allowFile = path
            do {
                rule.allowEntries = Self.parseList(try readFile(path))
            } catch {
                self.error(RulePackCodes.unreadableListFile.id, "cannot read list file `\(path)`: \(error)", at: keys["allow-file"])
            }
        }
        if let examples = keys["examples"],
           let map = mapping(examples, what: "examples", allowed: ["valid", "invalid"]) {
            rule.validExamples = strings(map["valid"], key: "valid")
            rule.invalidExamples = strings(map["invalid"], key: "invalid")
        }
        return rule
    }

    /// One entry per line; blank lines and lines starting with `#` are skipped; entries are
    /// taken as written (no trimming), except for a trailing `\r`.
    static func parseList(_ text: String) -> [String] {
        // Split on bytes: a `Character` split would keep "\r\n" (one grapheme) unsplit, and
        // lists run to tens of thousands of lines.
        var text = text
        return text.withUTF8 { bytes in
            var entries: [String] = []
            var start = 0
            while start < bytes.count {
                let lineFeed = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
                var end = lineFeed
                if end > start, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                if end > start, bytes[start] != UInt8(ascii: "#") {
                    entries.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
                }
                start = lineFeed + 1
            }
            return entries
        }
    }
}

/// "did you mean `x`?" for a misspelt key, when one is close.
func suggestion(for word: String, in candidates: Set<String>) -> String? {
    let best = candidates.map { ($0, editDistance(word, $0)) }.min { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }
    guard let best, best.1 <= max(1, word.count / 3) else { return nil }
    return "did you mean `\(best.0)`?"
}

func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
    var previous = Array(0...b.count)
    for i in 1...max(1, a.count) where !a.isEmpty {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...max(1, b.count) where !b.isEmpty {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return a.isEmpty ? b.count : previous[b.count]
}
