import DatabaseRules
import Foundation
import RulesCases
@testable import RulesVerification
import Testing

/// Diffs two database rule texts and checks every witness replays through DatabaseProgram on
/// both files: a newly allowed case NEW allows and OLD denies, a newly denied one the reverse.
func databaseDiff(_ old: String, _ new: String, timeout: Double = 60) throws -> RulesDiff {
    let oldProgram = try databaseProgram(old)
    let newProgram = try databaseProgram(new)
    let diff = DatabaseDiffer(timeout: timeout).diff(old: oldProgram, new: newProgram)
    #expect(diff.serviceLabel == "database")
    for change in diff.changes {
        if let witness = change.newlyAllowed {
            #expect(try databaseReplayAllowed(witness, program: newProgram).allowed, "NEW must allow \(witness)")
            #expect(try !databaseReplayAllowed(witness, program: oldProgram).allowed, "OLD must deny \(witness)")
        }
        if let witness = change.newlyDenied {
            #expect(try databaseReplayAllowed(witness, program: oldProgram).allowed, "OLD must allow \(witness)")
            #expect(try !databaseReplayAllowed(witness, program: newProgram).allowed, "NEW must deny \(witness)")
        }
    }
    return diff
}

extension RulesDiff {
    func change(_ path: String, _ method: String) -> RulesChange? {
        compared.first { $0.path == path && $0.methodName == method }
    }
}

@Suite("rules diff: Realtime Database rules")
struct DatabaseDiffTests {
    struct Edit: Sendable, CustomTestStringConvertible {
        var name: String
        var replace: String
        var with: String
        var testDescription: String { name }
    }

    static let widenings: [Edit] = [
        Edit(name: "drop the uid check", replace: "\"auth != null && auth.uid == $uid\"", with: "\"auth != null\""),
        Edit(name: "a fourth status", replace: "newData.val() == 'away'", with: "newData.val() == 'away' || newData.val() == 'busy'"),
        Edit(name: "other children allowed", replace: "\"$other\": { \".validate\": false }", with: "\"$other\": { \".validate\": true }"),
        Edit(name: "lastSeen from the client's clock", replace: "newData.isNumber() && newData.val() == now", with: "newData.isNumber()"),
        Edit(name: "reads for everyone", replace: "\".read\": \"auth != null\"", with: "\".read\": true"),
    ]

    @Test("each planted widening of the app's rules is wider, with witnesses that replay", arguments: widenings)
    func widening(_ edit: Edit) throws {
        let rules = try repositoryRulesText("database.rules.json")
        #expect(rules.contains(edit.replace))
        let diff = try databaseDiff(rules, rules.replacingOccurrences(of: edit.replace, with: edit.with))
        #expect(diff.verdict == .wider, "\(diff.changes.map { "\($0.methodName) \($0.path) \($0.verdict) \($0.reason ?? "")" })")
        #expect(RulesDiff.exitStatus(diff.verdict) == 1)
        let wider = diff.changes.filter { $0.verdict == .wider }
        #expect(!wider.isEmpty)
        let located = wider.allSatisfy { $0.newlyAllowed != nil && $0.location?.file == "database.rules.json" }
        #expect(located)
    }

    static let refactorings: [Edit] = [
        Edit(name: "`auth != null && X` as `X && auth != null`", replace: "\"auth != null && auth.uid == $uid\"", with: "\"auth.uid == $uid && auth != null\""),
        Edit(name: "reordered status alternatives", replace: "(newData.val() == 'online' || newData.val() == 'offline' || newData.val() == 'away')",
             with: "(newData.val() == 'away' || newData.val() == 'online' || newData.val() == 'offline')"),
        Edit(name: "type test after the value test", replace: "newData.isNumber() && newData.val() == now", with: "newData.val() == now && newData.isNumber()"),
        Edit(name: "hasChildren as two hasChild", replace: "newData.hasChildren(['status', 'lastSeen'])",
             with: "newData.hasChild('lastSeen') && newData.hasChild('status')"),
    ]

    @Test("each refactoring of the app's rules is proved equivalent", arguments: refactorings)
    func refactoring(_ edit: Edit) throws {
        let rules = try repositoryRulesText("database.rules.json")
        #expect(rules.contains(edit.replace))
        let edited = rules.replacingOccurrences(of: edit.replace, with: edit.with)
        #expect(edited != rules)
        let diff = try databaseDiff(rules, edited)
        #expect(diff.verdict == .equivalent, "\(diff.changes.map { "\($0.methodName) \($0.path) \($0.verdict) \($0.reason ?? "")" })")
        #expect(diff.compared.count == 14)
    }

    @Test("a renamed wildcard is proved equivalent by the solver (the rule texts differ)")
    func renamedWildcard() throws {
        let rules = try repositoryRulesText("database.rules.json")
        let renamed = rules.replacingOccurrences(of: "$uid", with: "$user")
        let diff = try databaseDiff(rules, renamed)
        #expect(diff.verdict == .equivalent, "\(diff.changes.map { "\($0.methodName) \($0.path) \($0.verdict) \($0.reason ?? "")" })")
    }

    @Test("a narrowing is narrower, with a newly denied witness that replays")
    func narrowing() throws {
        let rules = try repositoryRulesText("database.rules.json")
        let narrowed = rules.replacingOccurrences(of: "\".read\": \"auth != null\"", with: "\".read\": \"auth != null && auth.uid == $uid\"")
        let diff = try databaseDiff(rules, narrowed)
        #expect(diff.verdict == .narrower)
        #expect(RulesDiff.exitStatus(diff.verdict) == 0)
        let change = try #require(diff.change("/userPresence/$uid", "read"))
        #expect(change.verdict == .narrower)
        #expect(change.newlyDenied != nil)
        #expect(diff.change("/userPresence/$uid", "write")?.verdict == .equivalent)
    }

    @Test("a change that both grants and revokes is incomparable")
    func incomparable() throws {
        let old = #"{"rules": {"a": {".read": "auth != null"}, "b": {"$x": {".write": "auth.uid == $x"}}}}"#
        let new = #"{"rules": {"a": {".read": "auth == null"}, "b": {"$x": {".write": "auth.uid == $x", ".validate": "newData.isString()"}}}}"#
        let diff = try databaseDiff(old, new)
        #expect(diff.change("/a", "read")?.verdict == .incomparable)
        #expect(diff.change("/b/$x", "write")?.verdict == .narrower)
        #expect(diff.verdict == .incomparable)
    }

    @Test("a rule that grants at an ancestor widens every path below it")
    func cascade() throws {
        let old = #"{"rules": {"a": {"b": {".write": "auth != null"}}}}"#
        let new = #"{"rules": {"a": {".write": "auth != null && auth.uid == 'admin'", "b": {".write": "auth != null"}}}}"#
        let diff = try databaseDiff(old, new)
        #expect(diff.change("/a", "write")?.verdict == .wider)
        // At `/a/b` the grant above adds nothing: `auth != null` already grants there.
        #expect(diff.change("/a/b", "write")?.verdict == .equivalent)
    }

    // Found by FuzzDatabaseDiff: a `$` segment's shapes include the literal keys at its level, but
    // the same-rules shortcut compared only the wildcard's rules there, so `read /c/$id/$k` was
    // `equivalent` while `read /c/u1/n` (one of its shapes) changed.
    @Test("a pattern's `$` segment covers its literal siblings: a rule changed on one is no shortcut to `equivalent`")
    func wildcardSegmentCoversLiteralSiblings() throws {
        let old = #"{"rules": {"c": {"$id": {"n": {".read": "auth != null", ".validate": "newData.isString()"}, "$k": {".read": false}}}}}"#
        let new = #"{"rules": {"c": {"$id": {"n": {".read": true, ".validate": "newData.isString()"}, "$k": {".read": false}}}}}"#
        let diff = try databaseDiff(old, new)
        #expect(diff.change("/c/$id/n", "read")?.verdict == .wider)
        let change = try #require(diff.change("/c/$id/$k", "read"))
        #expect(change.verdict == .wider, "\(change.reason ?? "")")
        let witness = try #require(change.newlyAllowed)
        #expect(try databaseReplayAllowed(witness, program: try databaseProgram(new)).testCase.path.hasSuffix("/n"))
        // Writes are decided by the same rules in both files, literal sibling included.
        #expect(diff.change("/c/$id/$k", "write")?.verdict == .equivalent)
        #expect(diff.change("/c/$id", "write")?.verdict == .equivalent)
    }
}
