import DatabaseRules
import Diagnostics
import RulesTestSupport
import Testing

@Suite struct LintTests {
    static func lint(_ marked: String) -> (MarkedSource, [Diagnostic]) {
        let source = MarkedSource(marked)
        guard let program = compile(source.text).program else { return (source, []) }
        return (source, DatabaseRulesLinter.lint(program))
    }

    @Test func openAccessAtTheRootAndOnWildcards() {
        let (source, found) = Self.lint("{\"rules\": {\".read\": 1️⃣true, \"a\": {\".validate\": \"newData.isString()\", \"$k\": {\".write\": 2️⃣\"true\"}}}}")
        let open = found.filter { $0.code == DatabaseLintCode.openAccess }
        #expect(open.map(\.span?.start) == [source.offsets["1️⃣"], source.offsets["2️⃣"]])
        #expect(open.first?.message == "`.read: true` at the root grants reads of everything below it to everyone")
    }

    @Test func ownershipHole() {
        let (source, found) = Self.lint("{\"rules\": {\"users\": {1️⃣\"$uid\": {\".write\": \"auth != null\", \".validate\": \"newData.hasChildren()\"}}}}")
        let holes = found.filter { $0.code == DatabaseLintCode.ownershipHole }
        #expect(holes.count == 1)
        #expect(holes.first?.span?.start == source.offsets["1️⃣"])
        #expect(holes.first?.message == "writes under `/users/$uid` never compare `auth.uid` with `$uid`")
        let (_, fine) = Self.lint("{\"rules\": {\"users\": {\"$uid\": {\".write\": \"auth.uid === $uid\", \".validate\": \"newData.hasChildren()\"}}}}")
        #expect(!fine.contains { $0.code == DatabaseLintCode.ownershipHole })
    }

    @Test func cascadeTrap() {
        let (source, found) = Self.lint("{\"rules\": {\"a\": {\".write\": \"auth != null\", \".validate\": \"true\", \"b\": {\".write\": 1️⃣false}}, \"c\": {\".read\": \"true\", \"d\": {\".read\": 2️⃣\"auth != null\"}}}}")
        let traps = found.filter { $0.code == DatabaseLintCode.cascadeTrap }
        #expect(traps.map(\.span?.start) == [source.offsets["1️⃣"], source.offsets["2️⃣"]])
        #expect(traps.first?.message == "`.write: false` at `/a/b` cannot revoke what `.write` at `/a` grants")
        #expect(traps.last?.message == "`.read` at `/c/d` never takes effect: `.read` at `/c` already grants everything below it")
    }

    @Test func unvalidatedWriteAndUnreachableValidate() {
        let (source, found) = Self.lint("{\"rules\": {\"a\": {\".write\": 1️⃣\"auth != null\"}, \"b\": {\".validate\": 2️⃣\"newData.isString()\"}}}")
        #expect(found.filter { $0.code == DatabaseLintCode.unvalidatedWrite }.map(\.span?.start) == [source.offsets["1️⃣"]])
        #expect(found.filter { $0.code == DatabaseLintCode.unreachableValidate }.map(\.span?.start) == [source.offsets["2️⃣"]])
    }

    @Test func wildcardNameThatExpressionsCannotSpell() {
        let (source, found) = Self.lint("{\"rules\": {\"a\": {1️⃣\"$user-id\": {\".read\": \"auth != null\"}}}}")
        #expect(found.filter { $0.code == DatabaseLintCode.wildcardName }.map(\.span?.start) == [source.offsets["1️⃣"]])
    }

    @Test func thePresenceRulesAreClean() throws {
        let text = try String(contentsOf: RepositoryFiles.root.appendingPathComponent("rules/database.rules.json"), encoding: .utf8)
        let result = compile(text)
        let program = try #require(result.program)
        #expect(result.diagnostics.isEmpty)
        #expect(DatabaseRulesLinter.lint(program).isEmpty)
    }
}
