@testable import FieldValidation
import Foundation
import RulesTestSupport
import Testing

@Suite struct EmbeddedRulePacksTests {
    /// Fails when `rules/` changed and `scripts/embed-rule-packs` was not re-run.
    @Test func generatedFileMatchesRulesDirectory() throws {
        let rules = packageRoot.appendingPathComponent("rules")
        let enumerator = FileManager.default.enumerator(atPath: rules.path)
        var onDisk: [String: String] = [:]
        while let path = enumerator?.nextObject() as? String {
            let isPack = path.hasSuffix(".yaml") && !path.contains("/")
            // Lists, and data files beside them (lists/email-providers.yaml).
            let isList = path.hasPrefix("lists/") && !path.dropFirst(6).contains("/") && (path.hasSuffix(".txt") || path.hasSuffix(".yaml"))
            guard isPack || isList else { continue }
            var text = try String(contentsOf: rules.appendingPathComponent(path), encoding: .utf8)
            if !text.hasSuffix("\n") { text += "\n" }
            onDisk[path] = text
        }
        #expect(!onDisk.isEmpty)
        #expect(Set(onDisk.keys) == Set(EmbeddedRulePacks.files.keys), "run scripts/embed-rule-packs")
        for (path, text) in onDisk {
            let upToDate = EmbeddedRulePacks.files[path] == text
            #expect(upToDate, "rules/\(path) changed: run scripts/embed-rule-packs")
        }
    }

    @Test func generatedFileSaysItIsGenerated() throws {
        let text = try repoText("Sources/FieldValidation/Generated/EmbeddedRulePacks.swift")
        #expect(text.hasPrefix("// GENERATED FILE"))
    }
}
