import BreachedPasswords
@testable import FieldValidation
import Foundation
import Testing

/// The `breached` rule kind, `key: domain-suffix`, `allow-file`, `enabled: false`, and the
/// validators' switches for the rules shipped off.
@Suite struct SignUpRuleTests {
    func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("signup-rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url.appendingPathComponent("lists"), withIntermediateDirectories: true)
        return url
    }

    /// A store holding SHA-1 of "password" (count 3) and of "hunter2" (count 1).
    func writeStore(to url: URL) throws {
        let bytes = BreachedStore.bytes(of: [
            .init(hash: PasswordHash.sha1("password"), count: 3), .init(hash: PasswordHash.sha1("hunter2"), count: 1),
        ])
        try Data(bytes).write(to: url)
    }

    func error(_ body: () throws -> Void) -> RulePackError? {
        do { try body() } catch let error as RulePackError { return error } catch { return nil }
        return nil
    }

    @Test func shippedOffUntilAStoreIsGiven() throws {
        let off = try PasswordValidator()
        #expect(!off.validate("password1234567").codes.contains("PW109"))
        #expect(!off.plan.description.contains("password.breached"))
        let dir = try directory()
        try writeStore(to: dir.appendingPathComponent("pwned.store"))
        let store = try BreachedStore(path: dir.appendingPathComponent("pwned.store").path)
        let on = try PasswordValidator(breached: store)
        let result = on.validate("password")
        #expect(result.codes.contains("PW109"))
        let violation = try #require(result.violations.first { $0.code == "PW109" })
        #expect(violation.rule == "password.breached")
        #expect(violation.message == "This password has appeared in a data breach, so attackers try it first. Please choose a different password.")
        #expect(violation.parameters.isEmpty, "no count and no hash")
        #expect(!on.validate("Password").codes.contains("PW109"), "SHA-1 of the password as typed")
        #expect(on.validate("hunter2").codes.contains("PW109"))
        #expect(on.plan.description.contains("password.breached"))
    }

    @Test func aPackSwitchesItOnWithAStoreRelativeToThePackAndAMinimumCount() throws {
        let dir = try directory()
        try writeStore(to: dir.appendingPathComponent("lists/pwned.store"))
        try """
        pack: mine
        field: password
        rules:
          - id: password.breached
            override: true
            enabled: true
            file: lists/pwned.store
            min-count: 2
        """.write(to: dir.appendingPathComponent("mine.yaml"), atomically: true, encoding: .utf8)
        let validator = try PasswordValidator(packs: try RulePackSet.load(directory: dir.path))
        #expect(validator.validate("password").codes.contains("PW109"), "count 3 ≥ 2")
        #expect(!validator.validate("hunter2").codes.contains("PW109"), "count 1 < 2")
        #expect(!validator.validate("not-in-the-store-123").codes.contains("PW109"))
    }

    @Test func aBreachedRuleOfItsOwnAndItsErrors() throws {
        let dir = try directory()
        try writeStore(to: dir.appendingPathComponent("pwned.store"))
        try "not a store".write(to: dir.appendingPathComponent("text.txt"), atomically: true, encoding: .utf8)
        func pack(_ rule: String) -> String {
            """
            pack: mine
            field: password
            rules:
              - id: mine.breached
                code: APP9
                kind: breached
                message: "Breached."
            \(rule)
            """
        }
        let good = try RulePackSet.parse(pack("    file: pwned.store"), name: "mine.yaml", baseDirectory: dir.path)
        #expect(try PasswordValidator(packs: RulePackSet.shipped.adding(good)).validate("hunter2").codes.contains("APP9"))
        let cases: [(String, String, String)] = [
            ("    file: missing.store", "RP1007", "cannot read breached-password store"),
            ("    file: text.txt", "RP1009", "not a breached-password store"),
            ("    file: pwned.store\n    min-count: 0", "RP2005", "min-count"),
            ("    min-count: 2", "RP2005", "missing `file`"),
            ("    file: pwned.store\n    key: canonical", "RP2007", "key"),
        ]
        for (rule, code, words) in cases {
            let failure = try #require(error {
                let parsed = try RulePackSet.parse(pack(rule), name: "mine.yaml", baseDirectory: dir.path)
                _ = try PasswordValidator(packs: RulePackSet.shipped.adding(parsed))
            }, "\(code)")
            #expect(failure.diagnostics.map(\.code) == [code])
            #expect(failure.description.contains(words), "\(failure.description)")
            #expect(failure.description.contains("mine.yaml:"), "located in the pack")
        }
    }

    @Test func domainSuffixListsADomainAndEveryParent() throws {
        let list = KeyList(kind: .domainSuffix, entries: ["mailinator.com", "Example.ORG", "co"])
        #expect(list.contains("mailinator.com"))
        #expect(list.contains("a.b.MAILINATOR.com"))
        #expect(!list.contains("notmailinator.com.evil"))
        #expect(!list.contains("xmailinator.com"))
        #expect(list.contains("sub.example.org"))
        #expect(list.contains("x.co"))
        #expect(!list.contains("com"))
        #expect(!list.contains(""))
        #expect(!list.contains(String(repeating: "a.", count: 100_000) + "mailinator.com"), "over the length bound: not looked up")
    }

    @Test func disposableIsOffByDefaultAndTheAllowListWins() throws {
        let off = try EmailValidator()
        #expect(off.validate("jane@mailinator.com").isValid)
        let on = try EmailValidator(rejectDisposable: true)
        for address in ["jane@mailinator.com", "jane@sub.mailinator.com", "jane@MAILINATOR.COM"] {
            let result = on.validate(address)
            #expect(result.codes == ["EM132"], "\(address)")
            #expect(result.violations.first?.rule == "email.disposable-domain")
        }
        #expect(on.validate("jane@example.com").isValid)
        #expect(on.validate("jane@gmail.com").isValid)
        let allowed = try EmailValidator(rejectDisposable: true, allowDomains: ["mailinator.com"])
        #expect(allowed.validate("jane@mailinator.com").isValid)
        #expect(allowed.validate("jane@sub.mailinator.com").isValid)
        #expect(allowed.validate("jane@yopmail.com").codes == ["EM132"])
    }

    @Test func aPackSwitchesDisposableOnWithAnAllowFile() throws {
        let dir = try directory()
        try "# ours\nyopmail.com\r\n".write(to: dir.appendingPathComponent("lists/allow.txt"), atomically: true, encoding: .utf8)
        try """
        pack: mine
        field: email
        rules:
          - id: email.disposable-domain
            override: true
            enabled: true
            allow-file: lists/allow.txt
        """.write(to: dir.appendingPathComponent("mine.yaml"), atomically: true, encoding: .utf8)
        let validator = try EmailValidator(packs: try RulePackSet.load(directory: dir.path))
        #expect(validator.validate("jane@mailinator.com").codes == ["EM132"])
        #expect(validator.validate("jane@yopmail.com").isValid)
        #expect(validator.validate("jane@x.yopmail.com").isValid)
    }

    @Test func enabledFalseKeepsARuleOutAndAnUnlessNamingItIsMoot() throws {
        let pack = try RulePackSet.parse("""
        pack: mine
        field: display-name
        rules:
          - id: mine.off
            code: APP7
            kind: must-not-match
            pattern: zz
            message: "No zz."
            enabled: false
          - id: mine.on
            code: APP8
            kind: must-not-match
            pattern: qq
            message: "No qq."
            unless: mine.off
        """, name: "mine.yaml")
        let validator = try DisplayNameValidator(packs: RulePackSet.shipped.adding(pack))
        #expect(validator.validate("abzzab").isValid)
        #expect(validator.validate("abqqab").codes == ["APP8"])
    }
}

/// `mailboxKey`: one key per mailbox, the normalized address untouched.
@Suite struct MailboxKeyTests {
    @Test func theShippedProvidersFileParses() throws {
        let text = try #require(EmbeddedRulePacks.files["lists/email-providers.yaml"])
        let parsed = try MailboxProviders.parse(text)
        #expect(parsed.providers.count >= 5)
        #expect(parsed.providers.map(\.name) == MailboxProviders.shipped.providers.map(\.name))
        #expect(parsed.providers.first { $0.name == "Gmail" }?.keyDomain == "gmail.com")
    }

    @Test(arguments: [
        ("Jane.Doe+promo@gmail.com", "Jane.Doe+promo@gmail.com", "janedoe@gmail.com"),
        ("janedoe@googlemail.com", "janedoe@googlemail.com", "janedoe@gmail.com"),
        ("J.A.N.E.D.O.E@GoogleMail.com", "J.A.N.E.D.O.E@googlemail.com", "janedoe@gmail.com"),
        ("jane+x@outlook.com", "jane+x@outlook.com", "jane@outlook.com"),
        ("jane.doe+x@hotmail.com", "jane.doe+x@hotmail.com", "jane.doe@hotmail.com"),
        ("Jane+tag@iCloud.com", "Jane+tag@icloud.com", "jane@icloud.com"),
        ("jane+a+b@fastmail.com", "jane+a+b@fastmail.com", "jane@fastmail.com"),
        ("+only@gmail.com", "+only@gmail.com", "+only@gmail.com"),
        ("Jane.Doe+promo@example.com", "Jane.Doe+promo@example.com", "Jane.Doe+promo@example.com"),
        ("jane@sub.gmail.com", "jane@sub.gmail.com", "jane@sub.gmail.com"),
    ])
    func keys(_ address: String, _ normalized: String, _ key: String) throws {
        let result = try EmailValidator().validate(address)
        #expect(result.isValid)
        #expect(result.normalized == normalized, "the normalized address is never rewritten")
        #expect(result.mailboxKey == key)
    }

    @Test func sameMailboxSameKeyOnEveryPath() throws {
        let validator = try EmailValidator()
        let addresses = ["Jane.Doe+promo@gmail.com", "janedoe@googlemail.com", "j.a.n.e.d.o.e@gmail.com", "JANEDOE+x+y@GMAIL.COM"]
        let keys = Set(addresses.map { validator.validate($0).mailboxKey })
        #expect(keys == ["janedoe@gmail.com"])
        for address in addresses {
            var copy = address
            let viaBytes = copy.withUTF8 { validator.validate(utf8: UnsafeRawBufferPointer($0)) }
            #expect(viaBytes.mailboxKey == "janedoe@gmail.com")
        }
        #expect(validator.validate("not an address").mailboxKey == nil)
    }

    /// The batch engine's entry point builds the key only when the output shows it; the rest of
    /// the result is the same either way, on the engine and rule by rule (`bücher`: IDNA).
    @Test(arguments: ["Jane.Doe+promo@gmail.com", "user@BÜCHER.example", "a@xn--bcher-kva.example", "jane..doe@gmail.com"])
    func mailboxKeyOnlyWhenAsked(_ address: String) throws {
        let validator = try EmailValidator()
        var copy = address
        let (keyed, unkeyed) = copy.withUTF8 { bytes in
            (validator.validate(utf8: UnsafeRawBufferPointer(bytes), mailboxKey: true),
             validator.validate(utf8: UnsafeRawBufferPointer(bytes), mailboxKey: false))
        }
        #expect(keyed == unkeyed && keyed == validator.validate(address))
        #expect(keyed.mailboxKey == validator.validate(address).mailboxKey)
        #expect(unkeyed.mailboxKey == nil)
        #expect((keyed.mailboxKey != nil) == keyed.isValid)
    }

    @Test func providersFileErrors() {
        for (text, words) in [
            ("providers: 3", "providers"),
            ("providers:\n  - name: X\n", "domains"),
            ("providers:\n  - name: X\n    domains: [x.com]\n    tag: '+'\n", "unknown key `tag`"),
            ("providers:\n  - name: X\n    domains: [x.com]\n    tag-separator: '++'\n", "one character"),
            ("[", "malformed yaml"),
        ] {
            do {
                _ = try MailboxProviders.parse(text)
                Issue.record("parsed: \(text)")
            } catch {
                #expect(error.description.contains(words), "\(error.description)")
            }
        }
    }
}
