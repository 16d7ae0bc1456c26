import Diagnostics
import Foundation

/// An ordered list of rule packs: the shipped ones first, then any loaded from directories.
///
/// Later packs may `override: true` a rule of an earlier pack by id (keys they leave out are
/// inherited) or `disable:` it; defining an id twice without `override` is an error.
public struct RulePackSet: Sendable {
    /// The packs, in load order.
    public private(set) var packs: [RulePack]
    /// Problems met while loading (only the embedded set can carry them, since its loading
    /// cannot throw); validators refuse to build from a set with errors, so they fail closed.
    public private(set) var loadError: RulePackError?

    /// Creates a set from packs.
    public init(packs: [RulePack] = []) {
        self.packs = packs
    }

    /// The packs compiled into the library from `rules/` (see `scripts/embed-rule-packs`).
    public static let shipped: RulePackSet = {
        var set = RulePackSet()
        do {
            for (path, text) in EmbeddedRulePacks.files.sorted(by: { $0.key < $1.key })
            where path.hasSuffix(".yaml") && !path.contains("/") {
                let pack = try RulePackLoader.load(name: "rules/" + path, text: text) { relative in
                    guard let contents = EmbeddedRulePacks.files[normalize(relative)] else {
                        throw CocoaError(.fileNoSuchFile)
                    }
                    return contents
                }
                set.packs.append(pack)
            }
        } catch let error as RulePackError {
            set.loadError = error
        } catch {
            set.loadError = RulePackError(code: RulePackCodes.unreadablePack.id, "cannot load the embedded rule packs: \(error)", file: nil)
        }
        return set
    }()

    /// Parses one pack from text; `baseDirectory` resolves its list files.
    ///
    /// - Throws: ``RulePackError`` with every problem found, located by line and column.
    public static func parse(_ text: String, name: String, baseDirectory: String? = nil) throws(RulePackError) -> RulePack {
        try RulePackLoader.load(name: name, text: text, readFile: { relative in
            guard let baseDirectory else { throw CocoaError(.fileNoSuchFile) }
            return try String(contentsOfFile: resolve(relative, in: baseDirectory), encoding: .utf8)
        }, resolve: { relative in baseDirectory.map { resolve(relative, in: $0) } ?? relative })
    }

    /// The entries of a list file's text: one per line; blank lines and lines starting with `#`
    /// are skipped; a trailing `\r` is dropped; nothing else is trimmed.
    public static func listEntries(_ text: String) -> [String] {
        RulePackLoader.parseListText(text)
    }

    /// This set followed by the packs in `pack`.
    public func adding(_ pack: RulePack) -> RulePackSet {
        var copy = self
        copy.packs.append(pack)
        return copy
    }

    /// `base` (the shipped packs by default) followed by every `*.yaml` / `*.yml` file in
    /// `directory`, in file-name order.
    ///
    /// - Throws: ``RulePackError``: `RP1008` when the directory cannot be read, and every
    ///   problem in every file otherwise.
    public static func load(directory: String, base: RulePackSet = .shipped) throws(RulePackError) -> RulePackSet {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw RulePackError(code: RulePackCodes.unreadablePack.id, "cannot read rule pack directory `\(directory)`: \(error.localizedDescription)", file: nil)
        }
        var set = base
        var sink = DiagnosticSink()
        for name in names.sorted() where name.hasSuffix(".yaml") || name.hasSuffix(".yml") {
            let path = directory + "/" + name
            do {
                let text = try String(contentsOfFile: path, encoding: .utf8)
                set.packs.append(try parse(text, name: path, baseDirectory: directory))
            } catch let error as RulePackError {
                sink.append(error)
            } catch {
                sink.error(RulePackCodes.unreadablePack.id, "cannot read rule pack `\(path)`: \(error.localizedDescription)", file: nil)
            }
        }
        try sink.check()
        return set
    }

    /// The effective rules for `field`, in pack order, after overrides and disables.
    ///
    /// - Throws: ``RulePackError``: `RP2001` duplicate id, `RP2002` override of an unknown id,
    ///   `RP2003` disable of an unknown id, `RP2009` duplicate code.
    public func rules(for field: Field) throws(RulePackError) -> [RuleDefinition] {
        if let loadError { throw loadError }
        var sink = DiagnosticSink()
        var rules: [RuleDefinition] = []
        var index: [String: Int] = [:]
        for pack in packs where pack.field == field {
            for rule in pack.rules {
                if let existing = index[rule.id] {
                    if rule.isOverride {
                        rules[existing] = rules[existing].overridden(by: rule)
                    } else {
                        let previous = rules[existing].location
                        sink.error(RulePackCodes.duplicateRuleID.id, "duplicate rule id `\(rule.id)`", file: rule.location.file,
                                   span: rule.location.span(of: "id"),
                                   help: "first defined at \(previous.file.name):\(previous.file.location(of: previous.span.start)); add `override: true` to replace it")
                    }
                } else if rule.isOverride {
                    sink.error(RulePackCodes.overrideOfUnknownRule.id, "`override` of unknown rule `\(rule.id)`", file: rule.location.file,
                               span: rule.location.span(of: "id"), help: idHelp(rule.id, rules))
                } else {
                    index[rule.id] = rules.count
                    rules.append(rule)
                }
            }
            for (id, span) in pack.disabled {
                guard let position = index.removeValue(forKey: id) else {
                    sink.error(RulePackCodes.disableOfUnknownRule.id, "`disable` of unknown rule `\(id)`", file: pack.file, span: span, help: idHelp(id, rules))
                    continue
                }
                rules.remove(at: position)
                index = Dictionary(uniqueKeysWithValues: rules.enumerated().map { ($1.id, $0) })
            }
        }
        var codes: [String: RuleDefinition] = [:]
        for rule in rules {
            guard let code = rule.code else { continue }
            if let other = codes[code] {
                sink.error(RulePackCodes.duplicateCode.id, "code `\(code)` is used by both `\(other.id)` and `\(rule.id)`",
                           file: rule.location.file, span: rule.location.span(of: "code"))
            }
            codes[code] = rule
        }
        try sink.check()
        return rules
    }

    private func idHelp(_ id: String, _ rules: [RuleDefinition]) -> String? {
        suggestion(for: id, in: Set(rules.map(\.id)))
    }
}

/// A pack's file path: absolute as written, else relative to the pack's directory.
private func resolve(_ path: String, in directory: String) -> String {
    path.hasPrefix("/") ? path : directory + "/" + path
}

/// `./lists/x.txt` → `lists/x.txt`.
private func normalize(_ path: String) -> String {
    path.hasPrefix("./") ? String(path.dropFirst(2)) : path
}

extension RuleDefinition {
    /// This rule with every key `other` sets replacing its own.
    func overridden(by other: RuleDefinition) -> RuleDefinition {
        var merged = self
        merged.code = other.code ?? code
        merged.kind = other.kind ?? kind
        merged.message = other.message ?? message
        merged.description = other.description ?? description
        merged.source = other.source ?? source
        merged.target = other.target ?? target
        merged.pattern = other.pattern ?? pattern
        merged.unit = other.unit ?? unit
        merged.min = other.min ?? min
        merged.max = other.max ?? max
        merged.listFile = other.listFile ?? listFile
        merged.listEntries = other.listFile != nil ? other.listEntries : listEntries
        merged.deferredList = other.listFile != nil ? other.deferredList : deferredList
        merged.filePath = other.filePath ?? filePath
        merged.allowFile = other.allowFile ?? allowFile
        merged.allowEntries = other.allowEntries ?? allowEntries
        merged.minCount = other.minCount ?? minCount
        merged.minScore = other.minScore ?? minScore
        merged.enabled = other.enabled ?? enabled
        merged.breachedStore = other.breachedStore ?? breachedStore
        merged.strengthEstimator = other.strengthEstimator ?? strengthEstimator
        merged.listKey = other.listKey ?? listKey
        merged.includeAppName = other.includeAppName ?? includeAppName
        merged.swiftName = other.swiftName ?? swiftName
        merged.unless = other.unless ?? unless
        merged.validExamples = other.validExamples ?? validExamples
        merged.invalidExamples = other.invalidExamples ?? invalidExamples
        // Diagnostics about the merged rule point at the overriding entry.
        merged.location = other.location
        return merged
    }
}
