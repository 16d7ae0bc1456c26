import Availability
import Foundation
import RulesKit
import RulesTestSupport
import Testing

/// The diagnostic codes spelled in the repository's Swift sources (`"AV1003"`, `"RD3001"`, …)
/// against the modules' catalogues and the docs pages that list them: a module with a catalogue
/// defines each of its codes once, there, and every call site names the catalogue's entry; no
/// code is spelled in two modules; every code is documented; a catalogue's docs page lists no
/// code the catalogue lacks.
@Suite struct CodeCatalogueTests {
    /// A module's catalogue: the files under `Sources/<module>/` that define its codes, the family
    /// prefix of those codes, the docs page that lists them and, where this target sees it, the
    /// catalogue's list of every entry (`…Codes.all`).
    struct Catalogue: Sendable, CustomTestStringConvertible {
        let module: String
        let prefix: String
        let files: [String]
        let docs: String
        var entries: [DiagnosticCode]? = nil
        var testDescription: String { module }
        /// The catalogue's files, relative to the repository.
        var paths: Set<String> { Set(files.map { "Sources/\(module)/\($0)" }) }
    }

    static let catalogues: [Catalogue] = [
        Catalogue(module: "Availability", prefix: "AV", files: ["AvailabilityCodes.swift"], docs: "docs/AVAILABILITY.md",
                  entries: AvailabilityCodes.all.map { DiagnosticCode(id: $0.id, summary: $0.summary, help: $0.help) }),
        Catalogue(module: "RulesService", prefix: "API", files: ["ServiceCodes.swift"], docs: "docs/SERVE.md"),
        Catalogue(module: "DatabaseRules", prefix: "RD", files: ["DatabaseRules.swift", "Linter.swift"], docs: "docs/DATABASE-RULES.md"),
        Catalogue(module: "IDTokens", prefix: "AUTH", files: ["IDTokenError.swift"], docs: "docs/ID-TOKENS.md"),
        Catalogue(module: "RulesVerification", prefix: "VF", files: ["Codes.swift"], docs: "docs/VERIFICATION.md"),
        Catalogue(module: "RulesLanguage", prefix: "RL", files: ["RulesLanguageCodes.swift"], docs: "docs/RULES-LANGUAGE.md",
                  entries: RulesLanguageCodes.all),
        Catalogue(module: "FieldValidation", prefix: "RP", files: ["Packs/RulePackCodes.swift"], docs: "docs/RULE-PACKS.md",
                  entries: RulePackCodes.all),
    ]

    /// Literals of a catalogued family that are still spelled outside the catalogue, with why.
    /// The test fails when an entry is no longer needed, so the list only shrinks.
    static let knownGaps: [String: String] = [:]

    /// One code literal: the code, the file it is in (relative to the repository) and its module.
    struct Occurrence: Hashable {
        let code: String
        let file: String
        let module: String
        var family: String { String(code.prefix { $0.isLetter }) }
    }

    /// Every `"XX1234"`-shaped literal in the Swift sources of the root package and of the
    /// Benchmarks/ and Fuzz/ packages; a module is the folder under their `Sources/`.
    static let occurrences: [Occurrence] = {
        var found: [Occurrence] = []
        for sources in ["Sources", "Benchmarks/Sources", "Fuzz/Sources"] {
            let root = packageRoot.appendingPathComponent(sources)
            guard let walker = FileManager.default.enumerator(atPath: root.path) else { continue }
            for case let path as String in walker where path.hasSuffix(".swift") {
                guard let module = path.split(separator: "/").first,
                      let text = try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8) else { continue }
                for match in text.matches(of: #/"([A-Z]{2,4}[0-9]{4})"/#) {
                    found.append(Occurrence(code: String(match.1), file: "\(sources)/\(path)", module: String(module)))
                }
            }
        }
        return found
    }()

    static func text(_ path: String) throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// The codes of a docs text with the given family prefix.
    static func codes(in text: String, prefix: String) -> Set<String> {
        Set(text.matches(of: #/\b([A-Z]{2,4}[0-9]{4})\b/#).map { String($0.1) }.filter { code in code.prefix { $0.isLetter } == prefix })
    }

    @Test func theSourcesSpellCodes() {
        // The scan itself: the sources hold a few hundred codes, in every catalogued module.
        #expect(Self.occurrences.count > 200, "\(Self.occurrences.count) code literals found")
        for catalogue in Self.catalogues {
            #expect(Self.occurrences.contains { $0.module == catalogue.module }, "no code literal in \(catalogue.module)")
        }
    }

    @Test(arguments: catalogues)
    func aCatalogueDefinesEachCodeOnce(_ catalogue: Catalogue) throws {
        let files = catalogue.paths
        let defined = Self.occurrences.filter { files.contains($0.file) }
        #expect(!defined.isEmpty, "\(catalogue.module): no code in \(files.sorted())")
        for (code, count) in Dictionary(grouping: defined, by: \.code).mapValues(\.count) where count > 1 {
            Issue.record("\(catalogue.module): \(code) is defined \(count) times")
        }
        for occurrence in defined where occurrence.family != catalogue.prefix {
            Issue.record("\(catalogue.module): \(occurrence.code) in its catalogue is not an \(catalogue.prefix) code")
        }
    }

    @Test(arguments: catalogues)
    func everyCallSiteNamesTheCatalogue(_ catalogue: Catalogue) {
        let files = catalogue.paths
        let outside = Self.occurrences.filter { $0.family == catalogue.prefix && !files.contains($0.file) }
        for occurrence in outside where Self.knownGaps[occurrence.file] == nil {
            Issue.record("\(occurrence.file) spells \(occurrence.code): name \(catalogue.module)'s catalogue entry instead")
        }
    }

    @Test func everyKnownGapIsStillThere() {
        for file in Self.knownGaps.keys.sorted() {
            #expect(Self.occurrences.contains { $0.file == file }, "\(file) spells no code any more: remove it from knownGaps")
        }
    }

    @Test func noCodeIsSpelledInTwoModules() {
        for (code, found) in Dictionary(grouping: Self.occurrences, by: \.code) {
            let modules = Set(found.map(\.module))
            #expect(modules.count == 1, "\(code) is spelled in \(modules.sorted().joined(separator: ", "))")
        }
    }

    @Test(arguments: catalogues)
    func aCatalogueMatchesItsDocsPage(_ catalogue: Catalogue) throws {
        let files = catalogue.paths
        let defined = Set(Self.occurrences.filter { files.contains($0.file) }.map(\.code))
        let documented = Self.codes(in: try Self.text(catalogue.docs), prefix: catalogue.prefix)
        for code in defined.subtracting(documented).sorted() {
            Issue.record("\(code) is not in \(catalogue.docs)")
        }
        for code in documented.subtracting(defined).sorted() {
            Issue.record("\(catalogue.docs) lists \(code), which \(catalogue.module)'s catalogue does not define")
        }
    }

    @Test func everyCodeIsDocumented() throws {
        let docs = try FileManager.default.contentsOfDirectory(atPath: packageRoot.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }
            .map { try Self.text("docs/\($0)") }
            .joined(separator: "\n")
        for code in Set(Self.occurrences.map(\.code)).sorted() where !docs.contains(code) {
            Issue.record("\(code) (\(Self.occurrences.first { $0.code == code }?.file ?? "")) is documented nowhere under docs/")
        }
    }

    @Test(arguments: catalogues.filter { $0.entries != nil })
    func aCatalogueListsEveryEntryOnce(_ catalogue: Catalogue) {
        let entries = catalogue.entries ?? []
        let ids = entries.map(\.id)
        #expect(Set(ids).count == ids.count, "an id is listed twice in \(catalogue.module)'s list of every code")
        let defined = Set(Self.occurrences.filter { catalogue.paths.contains($0.file) }.map(\.code))
        #expect(Set(ids) == defined, "\(catalogue.module)'s list of every code misses \(defined.subtracting(ids).sorted())")
        for code in entries {
            #expect(!code.summary.isEmpty && !code.help.isEmpty && !code.summary.contains("\n"), "\(code.id) needs a one-line summary and a help")
        }
    }
}
