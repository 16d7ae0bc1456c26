// PropertyFile: the property-file format (JSON or YAML) of `validate rules verify`, decoded and
// checked. See docs/VERIFICATION.md.
import Diagnostics
import Foundation
import RulesCases
import RulesLanguage
import RulesLoading

/// What a property claims about the requests the rules allow.
public enum PropertyKind: String, Sendable, CaseIterable {
    /// Every allowed request satisfies the condition.
    case onlyIf = "only-if"
    /// No request is allowed.
    case never
    /// Some allowed request satisfies the condition (or is allowed at all, without one).
    case possible
}

/// The answer for one property.
public enum Verdict: String, Sendable, CaseIterable {
    /// Proven: for `only-if`/`never` over every request; for `possible`, shown by a witness.
    case holds
    /// Refuted: by a witness for `only-if`/`never`; for `possible`, proven for every request.
    case violated
    /// Neither: a construct not modelled exactly, a witness the evaluator did not confirm, or a timeout.
    case unknown
}

/// One segment of a property's path pattern.
public enum PropertyPathSegment: Sendable, Equatable {
    /// Exactly this text.
    case literal(String)
    /// `{name}`: any one segment.
    case variable(String)
}

/// One property: a path pattern, methods, a kind, an optional condition and expectation.
public struct RulesProperty: Sendable {
    /// The name shown in reports.
    public var name: String
    /// The path pattern as written.
    public var pathText: String
    /// The parsed pattern's segments, without a final `{x=**}`.
    public var path: [PropertyPathSegment]
    /// The name of the final `{x=**}` variable (one or more segments, bound to a `path`), if any.
    public var rest: String?
    /// Request methods the property quantifies over.
    public var methods: [RequestMethod]
    /// The kind.
    public var kind: PropertyKind
    /// The condition (required for `only-if`, optional for `possible`, absent for `never`).
    public var condition: Expr?
    /// Where the condition's spans point.
    public var conditionSource: SourceFile
    /// The expected verdict; nil means `holds`.
    public var expect: Verdict?
    /// Where the property is in its file (its `name`), for reports that point at it.
    public var location = SourceLocation(line: 1, column: 1)
}

/// A loaded property file.
public struct PropertyFile: Sendable {
    /// The file's path as given.
    public var path: String
    /// The rules file, resolved against the property file's directory.
    public var rulesPath: String
    /// The service the rules guard.
    public var service: CaseService
    /// The properties, in file order.
    public var properties: [RulesProperty]
}

/// A property file that cannot be used: the file (with `line:column` when known) and why.
public struct PropertyFileError: Error, Sendable, CustomStringConvertible {
    /// Stable code: `VF1001` unreadable, `VF1002` syntax, `VF1003` format, `VF1004` condition.
    public var code: String
    /// `file` or `file:line:column`.
    public var location: String
    /// What is wrong, terse and lowercase.
    public var message: String

    /// `file:line:column: error[VF1003]: message`.
    public var description: String { "\(location): error[\(code)]: \(message)" }
}

/// Reads property files.
public enum PropertyFileLoader {
    /// Reads and checks the property file at `path`.
    ///
    /// - Throws: ``PropertyFileError`` at the first problem.
    public static func load(path: String) throws(PropertyFileError) -> PropertyFile {
        try decode(try readText(path), path: path)
    }

    /// The text of the property file at `path` (`VF1001` when it cannot be read).
    static func readText(_ path: String) throws(PropertyFileError) -> String {
        do {
            return try BoundedFile.text(path)
        } catch {
            throw PropertyFileError(code: VerificationCodes.unreadablePropertyFile.id, location: path + error.location, message: error.message)
        }
    }

    /// Property-file text as a tree: YAML for `.yaml`/`.yml` paths, JSON otherwise (`VF1002` on a syntax error).
    static func parse(_ text: String, path: String) throws(PropertyFileError) -> DocumentTree {
        let lowered = path.lowercased()
        do {
            return lowered.hasSuffix(".yaml") || lowered.hasSuffix(".yml") ? try YAMLReader.read(text) : try JSONReader.read(text)
        } catch {
            throw PropertyFileError(code: VerificationCodes.propertyFileSyntax.id, location: "\(path):\(error.line):\(error.column)", message: error.message)
        }
    }

    /// Decodes property-file text; `path` decides JSON or YAML and anchors `rules`.
    public static func decode(_ text: String, path: String) throws(PropertyFileError) -> PropertyFile {
        let tree = try parse(text, path: path)
        let file = SourceFile(name: path, text: text)
        func fail(_ message: String, near needle: String? = nil) -> PropertyFileError {
            PropertyFileError(code: VerificationCodes.propertyFileFormat.id, location: locate(needle, in: file), message: message)
        }
        guard case .map = tree else { throw fail("the file must hold a map with `rules`, `service` and `properties`") }
        guard case .string(let rules)? = tree["rules"], !rules.isEmpty else { throw fail("missing key `rules` (the path of the .rules file)") }
        guard case .string(let serviceText)? = tree["service"], let service = CaseService(rawValue: serviceText) else {
            throw fail("`service` must be `firestore`, `storage` or `database`", near: "\"service\"")
        }
        guard case .list(let items)? = tree["properties"] else { throw fail("missing key `properties` (a list)") }
        var properties: [RulesProperty] = []
        var searchFrom = 0
        for (index, item) in items.enumerated() {
            guard case .map = item else { throw fail("property #\(index + 1) must be a map") }
            guard case .string(let name)? = item["name"], !name.isEmpty else { throw fail("property #\(index + 1): missing `name`") }
            let anchor = locateOffset(jsonQuoted(name), in: file, from: searchFrom) ?? searchFrom
            searchFrom = anchor
            func failHere(_ message: String, _ needle: String? = nil) -> PropertyFileError {
                let offset = needle.flatMap { locateOffset($0, in: file, from: anchor) } ?? anchor
                let location = file.location(of: offset)
                return PropertyFileError(code: VerificationCodes.propertyFileFormat.id, location: "\(path):\(location.line):\(location.column)",
                                         message: "property `\(name)`: \(message)")
            }
            guard case .string(let pathText)? = item["path"], pathText.hasPrefix("/") else {
                throw failHere("`path` must be a string starting with `/`", "\"path\"")
            }
            let (segments, rest) = try parsePath(pathText, service: service) { failHere($0, "\"path\"") }
            let (methods, kind, expect): ([RequestMethod], PropertyKind, Verdict?) = try methodsKindExpect(
                item, names: "get, list, create, update, delete", fail: failHere)
            var condition: Expr?
            var conditionSource = file
            if let conditionTree = item["condition"], conditionTree != .null {
                guard case .string(let conditionText) = conditionTree, !conditionText.isEmpty else {
                    throw failHere("`condition` must be a non-empty rules expression", "\"condition\"")
                }
                guard kind != .never else { throw failHere("a `never` property has no `condition`", "\"condition\"") }
                // Parse the condition where it sits in the file, so spans give file:line:column.
                let parseText: String
                if let offset = locateOffset(conditionText, in: file, from: anchor) {
                    var padding = file.bytes[0..<offset].map { $0 == UInt8(ascii: "\n") ? $0 : UInt8(ascii: " ") }
                    padding += Array(conditionText.utf8)
                    parseText = String(decoding: padding, as: UTF8.self)
                } else {
                    conditionSource = SourceFile(name: "\(path) (condition of `\(name)`)", text: conditionText)
                    parseText = conditionText
                }
                let (expr, diagnostics) = RulesParser.parseExpression(parseText)
                if let problem = diagnostics.first(where: { $0.severity == .error }) {
                    let location = problem.span.map { conditionSource.location(of: $0.start) }
                    throw PropertyFileError(code: VerificationCodes.propertyCondition.id,
                                            location: location.map { "\(conditionSource.name):\($0.line):\($0.column)" } ?? path,
                                            message: "property `\(name)`: condition: \(problem.message) [\(problem.code)]")
                }
                condition = expr
            } else if kind == .onlyIf {
                throw failHere("an `only-if` property needs a `condition`")
            }
            properties.append(RulesProperty(name: name, pathText: pathText, path: segments, rest: rest, methods: methods, kind: kind,
                                            condition: condition, conditionSource: conditionSource, expect: expect,
                                            location: file.location(of: anchor)))
        }
        var names = Set<String>()
        for property in properties where !names.insert(property.name).inserted {
            throw fail("two properties are named `\(property.name)`", near: jsonQuoted(property.name))
        }
        return PropertyFile(path: path, rulesPath: resolvePath(rules, relativeTo: path), service: service, properties: properties)
    }

    /// Parses `/a/{b}/c` or `/a/{b}/{c=**}`: the segments before a final `{x=**}`, and its name.
    static func parsePath(_ text: String, service: CaseService, fail: (String) -> PropertyFileError) throws(PropertyFileError)
        -> ([PropertyPathSegment], rest: String?) {
        var segments: [PropertyPathSegment] = []
        var rest: String?
        var names = Set<String>()
        for part in text.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            guard !part.isEmpty else { throw fail("`path` has an empty segment") }
            guard rest == nil else { throw fail("`{x=**}` must be the last segment of `path`") }
            if part.hasPrefix("{") && part.hasSuffix("}") {
                let inner = part.dropFirst().dropLast()
                let name = inner.hasSuffix("=**") ? String(inner.dropLast(3)) : String(inner)
                guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                    throw fail("`path` segment `\(part)` is not a `{name}` or `{name=**}` variable")
                }
                guard names.insert(name).inserted else { throw fail("`path` uses the variable `\(name)` twice") }
                if inner.hasSuffix("=**") { rest = name } else { segments.append(.variable(name)) }
            } else {
                guard !part.contains("{"), !part.contains("}") else { throw fail("`path` segment `\(part)` is not a `{name}` variable") }
                segments.append(.literal(String(part)))
            }
        }
        let first = segments.first.flatMap { if case .literal(let t) = $0 { t } else { nil } }
        switch service {
        case .firestore where first != "databases" || segments.count < 3:
            throw fail("a Firestore `path` starts with `/databases/{database}/documents/`")
        case .storage where first != "b" || segments.count < 3:
            throw fail("a Storage `path` starts with `/b/{bucket}/o/`")
        default: break
        }
        return (segments, rest)
    }

    /// A property's `methods` (of `names`), `kind` and `expect`, or the first problem (`fail(message, needle)`).
    static func methodsKindExpect<Method: RawRepresentable & Equatable>(
        _ item: DocumentTree, names: String, fail: (String, String?) -> PropertyFileError
    ) throws(PropertyFileError) -> ([Method], PropertyKind, Verdict?) where Method.RawValue == String {
        guard case .list(let methodItems)? = item["methods"], !methodItems.isEmpty else {
            throw fail("`methods` must be a non-empty list of \(names)", "\"methods\"")
        }
        var methods: [Method] = []
        for methodItem in methodItems {
            guard case .string(let m) = methodItem, let method = Method(rawValue: m) else {
                throw fail("`methods` must be a non-empty list of \(names)", "\"methods\"")
            }
            if !methods.contains(method) { methods.append(method) }
        }
        guard case .string(let kindText)? = item["kind"], let kind = PropertyKind(rawValue: kindText) else {
            throw fail("`kind` must be `only-if`, `never` or `possible`", "\"kind\"")
        }
        var expect: Verdict?
        if let expectTree = item["expect"], expectTree != .null {
            guard case .string(let e) = expectTree, let verdict = Verdict(rawValue: e) else {
                throw fail("`expect` must be `holds`, `violated` or `unknown`", "\"expect\"")
            }
            expect = verdict
        }
        return (methods, kind, expect)
    }

    static func jsonQuoted(_ text: String) -> String { "\"" + text + "\"" }

    static func locateOffset(_ needle: String, in file: SourceFile, from start: Int) -> Int? {
        let n = Array(needle.utf8)
        guard !n.isEmpty, n.count <= file.bytes.count else { return nil }
        var i = max(0, start)
        while i + n.count <= file.bytes.count {
            if file.bytes[i] == n[0] && Array(file.bytes[i..<(i + n.count)]) == n { return i }
            i += 1
        }
        return nil
    }

    static func locate(_ needle: String?, in file: SourceFile) -> String {
        guard let needle, let offset = locateOffset(needle, in: file, from: 0) else { return file.name }
        let location = file.location(of: offset)
        return "\(file.name):\(location.line):\(location.column)"
    }
}
