@testable import FieldValidation
import Diagnostics
import Foundation
import Testing

@Suite struct RulePackTests {
    func parse(_ text: String) throws(RulePackError) -> RulePack {
        try RulePackSet.parse(text, name: "test.yaml")
    }

    func error(_ body: () throws -> Void) -> RulePackError? {
        do { try body() } catch let error as RulePackError { return error } catch { return nil }
        return nil
    }

    @Test func unknownKeysAreErrorsWithLineAndColumnAndSuggestion() throws {
        let text = """
        pack: mine
        field: display-name
        rules:
          - id: mine.rule
            code: X1
            kind: must-match
            patern: 'a+'
            message: m
        """
        let failure = try #require(error { _ = try parse(text) })
        let rendered = failure.description
        #expect(failure.diagnostics.map(\.code) == ["RP1002"])
        #expect(rendered.hasPrefix("test.yaml:7:5: error[RP1002]: unknown key `patern` in rule"))
        #expect(rendered.contains("did you mean `pattern`?"))
    }

    @Test func malformedYamlReportsLocation() throws {
        let failure = try #require(error { _ = try parse("pack: x\nfield: [unclosed\n") })
        #expect(failure.diagnostics.map(\.code) == ["RP1001"])
        #expect(failure.description.hasPrefix("test.yaml:3:"))
    }

    /// Yams names the first duplicate in an arbitrary order when keys sort alike (a map as a
    /// key); the error is the same on every load, at the start of the file.
    @Test func duplicatedMapKeysAreReportedTheSameWayEveryTime() throws {
        var seen = Set<String>()
        for _ in 0..<20 {
            let failure = try #require(error { _ = try parse("pack: x\n{k: v}: 1\nfield: a\n{k: v}: 2\nfield: b\n") })
            seen.insert(failure.description)
        }
        #expect(seen.count == 1)
        #expect(seen.first?.hasPrefix("test.yaml:1:1: error[RP1001]: malformed yaml: duplicate key (a list or map), `field`") == true,
                "\(seen)")
    }

    @Test func wrongTypesAndUnknownValuesAreReported() throws {
        let text = """
        pack: mine
        field: username
        rules:
          - id: mine.len
            kind: length
            unit: bytes
            min: three
        """
        let failure = try #require(error { _ = try parse(text) })
        #expect(failure.diagnostics.map(\.code) == ["RP1006", "RP1006", "RP1004"])
        #expect(failure.description.contains("test.yaml:2:8: error[RP1006]: unknown field `username`"))
        #expect(failure.description.contains("use one of `code-points`, `utf8-octets`"))
    }

    @Test func badPatternReportsPCRE2MessageAndOffset() throws {
        let pack = try parse("""
        pack: mine
        field: display-name
        rules:
          - id: mine.bad
            code: X1
            kind: must-match
            pattern: ab(c
            message: m
        """)
        let failure = try #require(error { _ = try DisplayNameValidator(packs: RulePackSet(packs: [pack])) })
        #expect(failure.diagnostics.map(\.code) == ["RP2004"])
        #expect(failure.description.contains("does not compile at offset 4: missing closing parenthesis"))
        #expect(failure.description.hasPrefix("test.yaml:7:18: error[RP2004]"))
        let quoted = try parse("pack: q\nfield: email\nrules:\n  - {id: q, code: Q1, kind: must-not-match, pattern: 'a[', message: m}\n")
        let quotedFailure = try #require(error { _ = try EmailValidator(packs: RulePackSet(packs: [quoted])) })
        #expect(quotedFailure.description.hasPrefix("test.yaml:4:57: error[RP2004]"), "points at the offset inside quotes")
    }

    @Test func duplicateIdsFailWhenTheRegistryIsBuilt() throws {
        let pack = try parse("""
        pack: mine
        field: display-name
        rules:
          - id: display-name.min-length
            code: X1
            kind: length
            unit: code-points
            min: 5
            message: m
        """)
        let failure = try #require(error { _ = try DisplayNameValidator(packs: RulePackSet.shipped.adding(pack)) })
        #expect(failure.diagnostics.map(\.code) == ["RP2001"])
        #expect(failure.description.contains("first defined at rules/display-name.yaml:"))
    }

    @Test func overrideAndDisableByID() throws {
        let pack = try parse("""
        pack: mine
        field: display-name
        rules:
          - id: display-name.max-length
            override: true
            max: 10
            message: "Max {max}!"
        disable: [display-name.reserved-lookalike]
        """)
        let validator = try DisplayNameValidator(packs: RulePackSet.shipped.adding(pack))
        let result = validator.validate("abcdefghijk")
        #expect(result.codes == ["DN102"])
        #expect(result.violations.first?.message == "Max 10!")
        #expect(validator.validate("adm1n").isValid)
        #expect(validator.validate("admin").codes == ["DN107"])
    }

    @Test func overrideOrDisableOfUnknownIDsAreErrors() throws {
        let pack = try parse("""
        pack: mine
        field: display-name
        rules:
          - id: display-name.max-lenght
            override: true
            max: 10
        disable: [display-name.nope]
        """)
        let failure = try #require(error { _ = try DisplayNameValidator(packs: RulePackSet.shipped.adding(pack)) })
        #expect(failure.diagnostics.map(\.code) == ["RP2002", "RP2003"])
        #expect(failure.description.contains("did you mean `display-name.max-length`?"))
    }

    @Test func appsRegisterSwiftRules() throws {
        let pack = try parse("""
        pack: mine
        field: display-name
        rules:
          - id: mine.no-digits-only
            code: APP1
            kind: swift
            name: mine.digits
            message: "Username cannot be only numbers."
        """)
        let rule = ClosureFieldRule(name: "mine.digits") { input in
            input.raw.allSatisfy(\.isNumber) ? [:] : nil
        }
        let validator = try DisplayNameValidator(packs: RulePackSet.shipped.adding(pack), rules: [rule])
        #expect(validator.validate("12345").codes == ["APP1"])
        #expect(validator.validate("a2345").isValid)
        let missing = try #require(error { _ = try DisplayNameValidator(packs: RulePackSet.shipped.adding(pack)) })
        #expect(missing.diagnostics.map(\.code) == ["RP2006"])
    }

    @Test func loadsPacksAndListsFromADirectory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rulepacks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("lists"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "# team names\nacme\n".write(to: directory.appendingPathComponent("lists/brands.txt"), atomically: true, encoding: .utf8)
        try """
        pack: brands
        field: display-name
        rules:
          - id: brands.reserved
            code: APP2
            kind: list
            file: lists/brands.txt
            key: canonical
            message: "That name belongs to a brand."
        """.write(to: directory.appendingPathComponent("brands.yaml"), atomically: true, encoding: .utf8)
        let set = try RulePackSet.load(directory: directory.path)
        let validator = try DisplayNameValidator(packs: set)
        #expect(validator.validate("ACME").codes == ["APP2"])
        #expect(validator.engine != nil, "list rules keep the fast path")
        let missing = try #require(error { _ = try RulePackSet.load(directory: directory.path + "/nope") })
        #expect(missing.diagnostics.map(\.code) == ["RP1008"])
    }

    @Test func aCustomPatternRuleJoinsTheFastPathsAutomaton() throws {
        let pack = try parse("""
        pack: mine
        field: display-name
        rules:
          - id: mine.no-x
            code: APP3
            kind: must-not-match
            pattern: x
            message: "No x."
        """)
        let validator = try DisplayNameValidator(packs: RulePackSet.shipped.adding(pack))
        #expect(validator.engine != nil, "the pack's patterns compile into one automaton")
        #expect(validator.validate("xavier").codes == ["APP3"])
        var name = "maxine"
        #expect(name.withUTF8 { validator.violatedRules(utf8: UnsafeRawBufferPointer($0)) } == 1 << 8, "decided by the automaton, worded alone")
    }
}

@Suite struct RulePackCompileErrorTests {
    func failure(_ yaml: String) throws -> RulePackError? {
        let pack = try RulePackSet.parse(yaml, name: "bad.yaml")
        do {
            _ = try EmailValidator(packs: RulePackSet.shipped.adding(pack))
            return nil
        } catch {
            return error
        }
    }

    @Test func inapplicableKeysUnknownSubjectsAndBadUnless() throws {
        let error = try #require(try failure("""
        pack: bad
        field: email
        rules:
          - id: bad.one
            code: BAD1
            kind: length
            unit: code-points
            max: 3
            pattern: x
            on: whole
            message: m
          - id: bad.two
            code: BAD2
            kind: must-not-match
            pattern: x
            unless: bad.nope
            message: m
        """))
        #expect(error.diagnostics.map(\.code) == ["RP2007", "RP2008", "RP2011"])
        #expect(error.description.contains("bad.yaml:9:14: error[RP2007]: `pattern` does not apply to a `length` rule"))
        #expect(error.description.contains("use one of `address`, `local-part`, `domain`, `ascii-domain`, `ascii-address`"))
    }

    @Test func duplicateCodesAreRejected() throws {
        let error = try #require(try failure("""
        pack: bad
        field: email
        rules:
          - id: bad.one
            code: EM101
            kind: must-not-match
            pattern: x
            message: m
        """))
        #expect(error.diagnostics.map(\.code) == ["RP2009"])
        #expect(error.description.contains("code `EM101` is used by both `email.unsafe-characters` and `bad.one`"))
    }

    @Test func missingKeysAreReported() throws {
        let error = try #require(try failure("""
        pack: bad
        field: email
        rules:
          - id: bad.one
            code: BAD1
            kind: length
            unit: utf8-octets
            message: m
          - id: bad.two
            code: BAD2
            kind: list
            message: m
        """))
        #expect(error.diagnostics.map(\.code) == ["RP2005", "RP2005"])
    }
}

@Suite struct ConcurrencyTests {
    /// Validators are shared across tasks: results under concurrency equal serial results.
    @Test func validatorsGiveTheSameAnswersConcurrently() async throws {
        let names = (0..<400).map { index in
            ["john.doe", "admin", "adm1n", "jo..hn", "ab", "jöhn", "user_\(index)", "Rn0d", "\(index).x."][index % 9]
        }
        let validator = try DisplayNameValidator(appName: "RulesKit")
        let emails = try EmailValidator()
        let serial = names.map { validator.validate($0).codes + emails.validate($0 + "@bücher.example").codes }
        let concurrent = await withTaskGroup(of: (Int, [String]).self) { group in
            for (index, name) in names.enumerated() {
                group.addTask { (index, validator.validate(name).codes + emails.validate(name + "@bücher.example").codes) }
            }
            var results = Array(repeating: [String](), count: names.count)
            for await (index, codes) in group { results[index] = codes }
            return results
        }
        #expect(concurrent == serial)
    }
}
