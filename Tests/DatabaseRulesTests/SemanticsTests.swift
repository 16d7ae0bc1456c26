import DatabaseRules
import Diagnostics
import Testing

/// Read/write/validate semantics (reference §6), each pinned by a production observation.
@Suite struct SemanticsTests {
    static func program(_ rules: String) -> DatabaseProgram? {
        compile("{\"rules\": \(rules)}").program
    }

    static func decide(_ rules: String, _ path: String, _ operation: DatabaseRequest.Operation, auth: String? = nil,
                       data: String = "null", now: Double = 1000) -> DatabaseDecision? {
        guard let program = program(rules) else { return nil }
        let request = DatabaseRequest(path: path, operation: operation, auth: auth.map(json), now: now)
        let decision = program.evaluate(request, data: tree(data))
        // The verdict-only path decides the same without recording.
        #expect(program.isAllowed(request, data: tree(data)) == decision.allowed)
        return decision
    }

    @Test func readsCascadeAndDeeperRulesCannotRevoke() throws {
        let rules = #"{"a": {".read": true, "b": {".read": false}}}"#
        let decision = try #require(Self.decide(rules, "/a/b/c", .read(DatabaseQuery())))
        #expect(decision.allowed)
        #expect(decision.grants.first?.rule.rulePath == "/rules/a/.read")
        #expect(decision.grants.first?.location == "/a")
    }

    @Test func readOfAParentIsNotGrantedByChildRules() throws {
        // "Rules are not filters" [D2].
        let decision = try #require(Self.decide(#"{"a": {"b": {".read": true}}}"#, "/a", .read(DatabaseQuery())))
        #expect(!decision.allowed)
        #expect(decision.deniedLocations == ["/a"])
    }

    @Test func literalShadowsWildcard() throws {
        // [P:r19]: literal-wins, not AND.
        let rules = #"{"x": {"$k": {".read": false}, "open": {".read": true}}}"#
        #expect(try #require(Self.decide(rules, "/x/open", .read(DatabaseQuery()))).allowed)
        #expect(try !#require(Self.decide(rules, "/x/other", .read(DatabaseQuery()))).allowed)
    }

    @Test func wildcardBindingsAreVisibleBelow() throws {
        let rules = #"{"u": {"$a": {"$b": {".read": "$a == 'p' && $b == 'q'"}}}}"#
        #expect(try #require(Self.decide(rules, "/u/p/q", .read(DatabaseQuery()))).allowed)
        #expect(try !#require(Self.decide(rules, "/u/p/r", .read(DatabaseQuery()))).allowed)
    }

    @Test func anErroringAncestorDoesNotBlockADescendantGrant() throws {
        // [P:r26]
        let rules = #"{".read": "root.child('x').val().length > 0", "a": {".read": true}}"#
        let decision = try #require(Self.decide(rules, "/a", .read(DatabaseQuery())))
        #expect(decision.allowed)
        guard case .error(let code, _) = decision.evaluations.first?.outcome else {
            Issue.record("the root rule should have errored")
            return
        }
        #expect(code == DatabaseCode.nullOperand)
    }

    @Test func writeRulesBelowTheLocationAreNotConsulted() throws {
        // [P:r24]: a set of /rooms is denied by rules at /rooms/$room, an update of its children allowed [P:r23].
        let rules = #"{"rooms": {"$room": {".write": true}}}"#
        #expect(try !#require(Self.decide(rules, "/rooms", .set(json(#"{"r1": {"t": 1}}"#)))).allowed)
        #expect(try #require(Self.decide(rules, "/rooms", .update(["r1/t": .number(1), "r2/t": .number(2)]))).allowed)
    }

    @Test func validateRunsOnAncestorsAgainstTheMergedTree() throws {
        // [P:r15]: writing /p1/sub/k1 under a /p1 whose .validate requires `x` is denied unless x exists.
        let rules = #"{".write": true, "p1": {".validate": "newData.hasChild('x')"}}"#
        #expect(try !#require(Self.decide(rules, "/p1/sub/k1", .set(.number(1)))).allowed)
        #expect(try #require(Self.decide(rules, "/p1/sub/k1", .set(.number(1)), data: #"{"p1": {"x": 1}}"#)).allowed)
    }

    @Test func unwrittenSiblingsAreNotValidatedButCarriedNodesAre() throws {
        // [P:r23]
        let rules = #"{".write": true, "rooms": {"$r": {"title": {".validate": "newData.isString()"}, "count": {".validate": "newData.isNumber()"}}}}"#
        let data = #"{"rooms": {"r1": {"title": "t", "count": "bad"}}}"#
        #expect(try #require(Self.decide(rules, "/rooms/r1/title", .set(.string("new")), data: data)).allowed)
        let whole = try #require(Self.decide(rules, "/rooms/r1", .set(json(#"{"title": "x", "count": "bad"}"#)), data: data))
        #expect(!whole.allowed)
        #expect(whole.failedValidations.map(\.location) == ["/rooms/r1/count"])
    }

    @Test func nullIsNeverValidated() throws {
        // [P:r21]: deleting a node with required children is allowed; deleting one required child of a remaining node is not.
        let rules = #"{".write": true, "p": {".validate": "newData.hasChildren(['a', 'b'])", "a": {".validate": false}}}"#
        let data = #"{"p": {"a": 1, "b": 2}}"#
        #expect(try #require(Self.decide(rules, "/p", .set(.null), data: data)).allowed)
        #expect(try !#require(Self.decide(rules, "/p/b", .set(.null), data: data)).allowed)
        // `a` is deleted: its `.validate: false` does not run; `p` still holds `b`... and fails hasChildren.
        let deleteA = try #require(Self.decide(rules, "/p/a", .set(.null), data: data))
        #expect(!deleteA.allowed)
        #expect(deleteA.failedValidations.map(\.location) == ["/p"])
    }

    @Test func deletingTheLastChildRemovesTheParent() throws {
        let rules = #"{".write": true, "p": {".validate": "newData.hasChildren(['a'])"}}"#
        #expect(try #require(Self.decide(rules, "/p/a", .set(.null), data: #"{"p": {"a": 1}}"#)).allowed)
    }

    @Test func multiLocationUpdatesAreAtomic() throws {
        let rules = #"{"a": {".write": true}, "b": {".write": false}}"#
        let decision = try #require(Self.decide(rules, "/", .update(["a/x": .number(1), "b/x": .number(1)])))
        #expect(!decision.allowed)
        #expect(decision.deniedLocations == ["/b/x"])
    }

    @Test func newDataSeesEveryLocationOfAnUpdate() throws {
        // [P:r28-stdlib]: a post is valid only if the same update stamps lastPost with the server time.
        let rules = #"{".write": true, "posts": {"$p": {".validate": "newData.parent().parent().child('lastPost').val() == now"}}}"#
        let ts = JSONValue.object([".sv": .string("timestamp")])
        #expect(try #require(Self.decide(rules, "/", .update(["posts/p1": .string("hi"), "lastPost": ts]), now: 5)).allowed)
        #expect(try !#require(Self.decide(rules, "/", .update(["posts/p1": .string("hi")]), now: 5)).allowed)
    }

    @Test func serverTimestampResolvesToNow() throws {
        let rules = #"{".write": true, "t": {".validate": "newData.val() == now"}}"#
        let ts = JSONValue.object([".sv": .string("timestamp")])
        #expect(try #require(Self.decide(rules, "/t", .set(ts), now: 42)).allowed)
        #expect(try !#require(Self.decide(rules, "/t", .set(.number(41)), now: 42)).allowed)
    }

    @Test func incrementAddsToTheStoredNumber() throws {
        let rules = #"{".write": true, "n": {".validate": "newData.val() == data.val() + 1"}}"#
        let inc = JSONValue.object([".sv": .object(["increment": .number(1)])])
        #expect(try #require(Self.decide(rules, "/n", .set(inc), data: #"{"n": 4}"#)).allowed)
    }

    @Test func aNonBooleanOrErroringRuleIsFalse() throws {
        let rules = #"{".write": "newData.val().length > 2"}"#
        let decision = try #require(Self.decide(rules, "/", .set(.number(5))))
        #expect(!decision.allowed)
        guard case .error(let code, _) = decision.evaluations.first?.outcome else {
            Issue.record("expected an evaluation error")
            return
        }
        #expect(code == DatabaseCode.typeError)
    }

    @Test(arguments: [
        ("/a.b", DatabaseCode.invalidPathKey), ("/a#", DatabaseCode.invalidPathKey), ("/$a", DatabaseCode.invalidPathKey),
        ("/a[0]", DatabaseCode.invalidPathKey), ("/" + Array(repeating: "k", count: 32).joined(separator: "/"), DatabaseCode.pathTooDeep),
    ])
    func invalidPathsAreRefused(path: String, code: String) throws {
        let decision = try #require(Self.decide(#"{".read": true, ".write": true}"#, path, .read(DatabaseQuery())))
        #expect(!decision.allowed)
        #expect(decision.refusal?.code == code)
    }

    @Test(arguments: [
        (#"{"a.b": 1}"#, DatabaseCode.invalidWrittenKey), (#"{"a$": 1}"#, DatabaseCode.invalidWrittenKey),
        (#"{"a": {".sv": "nope"}}"#, DatabaseCode.invalidServerValue), (#"{".value": 1, "x": 2}"#, DatabaseCode.invalidPriority),
        (#"{"a": {".priority": true, "b": 1}}"#, DatabaseCode.invalidPriority),
    ])
    func invalidWrittenDataIsRefused(value: String, code: String) throws {
        let decision = try #require(Self.decide(#"{".write": true}"#, "/x", .set(json(value))))
        #expect(!decision.allowed)
        #expect(decision.refusal?.code == code)
    }

    @Test func overlappingUpdatePathsAreRefused() throws {
        let decision = try #require(Self.decide(#"{".write": true}"#, "/", .update(["a": .number(1), "a/b": .number(2)])))
        #expect(decision.refusal?.code == DatabaseCode.invalidUpdate)
        #expect(decision.refusal?.message == "update path `/a` is an ancestor of `/a/b`")
    }

    @Test func theStepLimitMakesTheRuleFalse() throws {
        let long = Array(repeating: "data.child('a').exists()", count: 40).joined(separator: " || ")
        let source = SourceFile(name: "r.json", text: "{\"rules\": {\".read\": \"\(long)\"}}")
        let program = try #require(DatabaseRulesCompiler.compile(source, limits: DatabaseLimits(evaluationStepLimit: 50)).program)
        let decision = program.evaluate(DatabaseRequest(path: "/", operation: .read(DatabaseQuery()), now: 0), data: nil)
        #expect(!decision.allowed)
        #expect(decision.evaluations.first?.outcome == .error(code: DatabaseCode.stepLimit, message: "rule took more than 50 evaluation steps"))
    }
}

/// Explanations: which ancestor granted; for a denial every candidate with its first failing
/// sub-expression and values, and which `.validate` failed on which node.
@Suite struct ExplanationTests {
    static let rules = """
        {"rules": {"users": {"$uid": {
          ".write": "auth != null && auth.uid == $uid",
          "age": {".validate": "newData.isNumber() && newData.val() >= 18"}
        }}}}
        """

    @Test func grantNamesTheAncestor() throws {
        let program = try #require(compile(Self.rules, name: "r.json").program)
        let decision = program.evaluate(DatabaseRequest(path: "/users/al/age", operation: .set(.number(20)), auth: json(#"{"uid": "al"}"#), now: 0), data: nil)
        #expect(decision.allowed)
        #expect(decision.explanation(in: program.source) == """
            allowed by `.write` at r.json:2:13 (/rules/users/$uid/.write) on /users/al with $uid = 'al'
            1 `.validate` rule passed
            """)
    }

    @Test func denialListsTheFailingSubExpressionWithValues() throws {
        let program = try #require(compile(Self.rules, name: "r.json").program)
        let decision = program.evaluate(DatabaseRequest(path: "/users/al", operation: .set(.number(1)), auth: json(#"{"uid": "bob"}"#), now: 0), data: nil)
        #expect(!decision.allowed)
        #expect(decision.explanation(in: program.source) == """
            denied: no `.write` rule granted the write of /users/al
              `.write` at r.json:2:13 (/rules/users/$uid/.write) on /users/al with $uid = 'al': false
                first failing: `auth.uid == $uid` at r.json:2:30
                  auth.uid = 'bob'
                  $uid = 'al'
            """)
    }

    @Test func validationFailureNamesTheNode() throws {
        let program = try #require(compile(Self.rules, name: "r.json").program)
        let decision = program.evaluate(DatabaseRequest(path: "/users/al", operation: .set(json(#"{"age": 12}"#)), auth: json(#"{"uid": "al"}"#), now: 0), data: nil)
        #expect(!decision.allowed)
        #expect(decision.explanation(in: program.source) == """
            denied: 1 `.validate` rule rejected the new data
              `.validate` at r.json:3:24 (/rules/users/$uid/age/.validate) on /users/al/age with $uid = 'al': false
                first failing: `newData.val() >= 18` at r.json:3:47
                  newData.val() = 12
            """)
    }

    @Test func noRuleOnThePathIsDefaultDeny() throws {
        let program = try #require(compile(Self.rules, name: "r.json").program)
        let decision = program.evaluate(DatabaseRequest(path: "/other", operation: .read(DatabaseQuery()), now: 0), data: nil)
        #expect(decision.explanation(in: program.source) == """
            denied: no `.read` rule granted the read of /other
              no `.read` rule applies on the path (default deny)
            """)
    }
}
