import DatabaseRules
import RulesTesting
import RulesVerification

/// The readers of `validate rules test`, `rules eval` and `rules verify` on alias-heavy YAML
/// and deeply nested JSON: case files, request files (Firestore and Storage), property files and
/// database request files.
///
/// Input layout: the first byte picks the reader (bits 0–1: case file, request file, property
/// file, database request file) and the format (bit 2: YAML, else JSON; database files are JSON),
/// and whether the rest is the file as it is (bit 3 clear) or a recipe for a generated one (bit 3
/// set): YAML whose anchors repeat earlier anchors up to ten times over, levels deep, under an
/// ignored key, a known key or as a map key; or JSON nested up to 300 levels around a valid
/// file, with long strings.
///
/// Checks: reading never traps and is deterministic; an error has a message and is located
/// inside the text (`file:line:column`); the document a YAML text reads to has at most as many
/// values as the text has bytes plus what aliases may repeat (``YAMLReader/maxAliasedValues``),
/// so no alias bomb is expanded; a database request's data converts or is refused with a code.
public enum DocumentReadersHarness {
    @Sendable public static func run(_ input: UnsafeRawBufferPointer) -> [FuzzFinding] {
        guard let selector = input.first else { return [] }
        var reader = ByteReader(UnsafeRawBufferPointer(rebasing: input.dropFirst()))
        let target = Int(selector & 3)
        let yaml = selector & 4 != 0 && target != 3
        let text = selector & 8 != 0
            ? (yaml ? Generator.yaml(&reader, target: target) : Generator.json(&reader, target: target))
            : String(decoding: input.dropFirst(), as: UTF8.self)
        let ext = yaml ? "yaml" : "json"
        var findings: [FuzzFinding] = []
        if yaml { findings += checkExpansion(text) }
        switch target {
        case 0:
            let path = "fuzz.cases.\(ext)"
            findings += compare(path, text) { () throws(CaseFileError) in try CaseFileLoader.decode(text, path: path).cases.count }
        case 1:
            let path = "fuzz.request.\(ext)"
            findings += compare(path, text) { () throws(CaseFileError) in
                try CaseFileLoader.decodeRequest(text, path: path, service: .firestore).testCase.name
            }
        case 2:
            let path = "fuzz.props.\(ext)"
            let first = Result { () throws(PropertyFileError) in try PropertyFileLoader.decode(text, path: path).properties.count }
            let second = Result { () throws(PropertyFileError) in try PropertyFileLoader.decode(text, path: path).properties.count }
            switch (first, second) {
            case (.success(let a), .success(let b)) where a == b: break
            case (.failure(let a), .failure(let b)) where a.description == b.description:
                findings += located(a.location, code: a.code, message: a.message, path: path, text: text)
            default: findings.append(FuzzFinding("property file read twice with different outcomes"))
            }
        default:
            let path = "fuzz.request.json"
            let first = Result { () throws(CaseFileError) in try DatabaseCaseFileLoader.decodeRequest(text, path: path) }
            let second = Result { () throws(CaseFileError) in try DatabaseCaseFileLoader.decodeRequest(text, path: path) }
            switch (first, second) {
            case (.success(let request), .success):
                do {
                    _ = try DatabaseTestRunner.root(request.data ?? .null, time: request.time)
                } catch {
                    if !error.code.hasPrefix("RD") { findings.append(FuzzFinding("data refused without an RD code: \(error)")) }
                }
            case (.failure(let a), .failure(let b)):
                if a != b { findings.append(FuzzFinding("database request read twice with different errors: \(a) / \(b)")) }
                findings += CaseInputChecks.check(a, path: path, text: text)
            default: findings.append(FuzzFinding("database request read twice with different outcomes"))
            }
        }
        return findings
    }

    /// Reads twice; the same outcome both times, and a located error.
    private static func compare<T: Equatable>(_ path: String, _ text: String, _ body: () throws(CaseFileError) -> T) -> [FuzzFinding] {
        let first = Result(catching: body)
        let second = Result(catching: body)
        switch (first, second) {
        case (.success(let a), .success(let b)):
            return a == b ? [] : [FuzzFinding("read twice into different results")]
        case (.failure(let a), .failure(let b)):
            if a != b { return [FuzzFinding("read twice with different errors: \(a) / \(b)")] }
            return CaseInputChecks.check(a, path: path, text: text)
        default:
            return [FuzzFinding("read twice with different outcomes")]
        }
    }

    /// A property-file error names the file, at a line and column inside the text when it has one.
    private static func located(_ location: String, code: String, message: String, path: String, text: String) -> [FuzzFinding] {
        var findings: [FuzzFinding] = []
        if !code.hasPrefix("VF") || message.isEmpty { findings.append(FuzzFinding("property file error without a code or message: \(location) \(code) \(message)")) }
        guard location != path else { return findings }
        // A condition's own source is named `path (condition of …)`.
        guard !location.hasPrefix(path + " (condition of") else { return findings }
        let parts = location.dropFirst(path.count).split(separator: ":", omittingEmptySubsequences: false)
        let breaks = text.unicodeScalars.filter { $0 == "\n" || $0 == "\r" }.count
        guard location.hasPrefix(path), parts.count == 3, parts[0].isEmpty, let line = Int(parts[1]), let column = Int(parts[2]),
              (1...breaks + 2).contains(line), (1...text.count + 1).contains(column)
        else { return findings + [FuzzFinding("property file error located outside the text: \(location): \(message)")] }
        return findings
    }

    /// The values a YAML text reads to stay within its bytes plus what aliases may repeat.
    private static func checkExpansion(_ text: String) -> [FuzzFinding] {
        guard let tree = try? YAMLReader.read(text) else { return [] }
        var values = 0
        var stack = [tree]
        while let next = stack.popLast() {
            values += 1
            switch next {
            case .list(let items): stack += items
            case .map(let entries): stack += entries.map(\.value); values += entries.count
            default: break
            }
        }
        let bound = text.utf8.count + YAMLReader.maxAliasedValues + 1
        return values <= bound ? [] : [FuzzFinding("a \(text.utf8.count)-byte YAML text read to \(values) values, more than \(bound)")]
    }

    /// Builds texts from recipes.
    enum Generator {
        static let skeletons = [
            "rules: r.rules\nservice: firestore\ncases:\n  - {name: a, path: /databases/(default)/documents/users/alice, method: get, expect: deny}\n",
            "path: /databases/(default)/documents/users/alice\nmethod: get\n",
            "rules: r.rules\nservice: firestore\nproperties:\n  - {name: p, path: /databases/{d}/documents/users/{u}, methods: [get], kind: never}\n",
            "",
        ]

        /// Anchors that repeat earlier anchors, placed where the recipe says.
        static func yaml(_ reader: inout ByteReader, target: Int) -> String {
            var lines: [String] = []
            let levels = 1 + reader.choose(12)
            let width = 1 + reader.choose(12)
            let place = reader.choose(4)
            let indent = "  "
            lines.append(["note:", "x-anchors:", "cases:", "extra:"][place])
            for level in 0..<levels {
                let items = (0..<width).map { _ in level == 0 || reader.choose(5) == 0 ? reader.pick(["x", "1", "'s'", "{}", "[]", "null"]) : "*a\(level - 1)" }
                let style = reader.choose(3)
                switch style {
                case 0: lines.append("\(indent)- &a\(level) [" + items.joined(separator: ", ") + "]")
                case 1: lines.append("\(indent)- &a\(level) {" + items.enumerated().map { "k\($0.offset): \($0.element)" }.joined(separator: ", ") + "}")
                default: lines.append("\(indent)- &a\(level) [" + items.map { "[\($0)]" }.joined(separator: ", ") + "]")
                }
            }
            switch reader.choose(4) {
            case 0: lines.append("key-alias:\n  *a\(levels - 1) : 1")
            case 1: lines.append("top: *a\(levels - 1)")
            case 2:
                let depth = reader.choose(200)
                lines.append("deep: " + String(repeating: "[", count: depth) + "*a\(levels - 1)" + String(repeating: "]", count: depth))
            default: break
            }
            var text = lines.joined(separator: "\n") + "\n"
            if place != 2 { text = skeletons[target] + text }
            return text
        }

        /// A valid file wrapped in deep nesting or given long strings.
        static func json(_ reader: inout ByteReader, target: Int) -> String {
            let depth = reader.choose(2) == 0 ? reader.choose(40) : 100 + Int(reader.byte())
            let open = (0..<depth).map { _ in reader.choose(2) == 0 ? "[" : "{\"k\": " }
            let nested = open.joined() + "1" + open.reversed().map { $0 == "[" ? "]" : "}" }.joined()
            let long = String(repeating: reader.pick(["a", "é", "\\u0000", "\\\""]), count: reader.choose(4) * 4096)
            switch target {
            case 0:
                return "{\"rules\": \"r.rules\", \"service\": \"firestore\", \"note\": \(nested), \"cases\": [{\"name\": \"\(long)a\", "
                    + "\"path\": \"/databases/(default)/documents/users/alice\", \"method\": \"update\", \"requestResource\": {\"d\": \(nested)}, \"expect\": \"deny\"}]}"
            case 1:
                return "{\"path\": \"/databases/(default)/documents/users/alice\", \"method\": \"create\", \"auth\": {\"uid\": \"\(long)u\"}, "
                    + "\"requestResource\": {\"d\": \(nested)}}"
            case 2:
                return "{\"rules\": \"r.rules\", \"service\": \"firestore\", \"properties\": [{\"name\": \"p\", \"path\": \"/databases/{d}/documents/u/{x}\", "
                    + "\"methods\": [\"get\"], \"kind\": \"possible\", \"condition\": \"request.auth.uid == '\(long)'\", \"note\": \(nested)}]}"
            default:
                return "{\"path\": \"/userPresence/alice\", \"method\": \"set\", \"auth\": {\"uid\": \"alice\"}, \"value\": \(nested), "
                    + "\"data\": {\"userPresence\": {\"bob\": {\"displayName\": \"\(long)b\"}}}}"
            }
        }
    }
}
