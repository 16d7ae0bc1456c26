import Diagnostics
import RulesLanguage
import RulesTestSupport
import Testing

/// Wraps match blocks in a Firestore ruleset (v2 unless `version` says otherwise).
func firestoreRules(_ body: String, version: String? = "2", functions: String = "") -> String {
    (version.map { "rules_version = '\($0)';\n" } ?? "") + """
    service cloud.firestore {
      \(functions)
      match /databases/{database}/documents {
        \(body)
      }
    }
    """
}

/// A lookup that fails for unlisted paths, like the runner's mocks-only mode.
struct MocksOnly: DocumentLookup {
    let documents: [String: [String: Value]]
    func lookup(path: String, afterWrite: Bool) -> LookupResult {
        documents[path].map { .document($0) } ?? .failure("`\(path)` is not mocked")
    }
}

@Suite struct MatchingTests {
    @Test func defaultDenyWithoutMatchingRule() throws {
        let program = try #require(compileOrFail(firestoreRules("match /posts/{id} { allow read: if true; }")))
        let decision = program.evaluate(firestoreRequest("/users/a", .get))
        #expect(!decision.allowed)
        #expect(decision.candidates.isEmpty)
        #expect(decision.explanation(in: program.source) == "denied\n  no `match` block matches this path (default deny)")
        let wrongMethod = program.evaluate(firestoreRequest("/posts/a", .update))
        #expect(wrongMethod.completeMatches == [CompleteMatch(pattern: "/databases/{database}/documents/posts/{id}", methods: [.read])])
        #expect(wrongMethod.explanation(in: program.source) == """
        denied
          no `allow` covers this method (default deny); matching blocks:
            match /databases/{database}/documents/posts/{id}: allows read
        """)
    }

    @Test func outerRulesDoNotApplyToDeeperPaths() throws {
        let program = try #require(compileOrFail(firestoreRules("""
        match /users/{id} {
          allow read, write: if true;
          match /private/{doc} { allow read: if false; }
        }
        """)))
        #expect(program.evaluate(firestoreRequest("/users/a", .get)).allowed)
        #expect(!program.evaluate(firestoreRequest("/users/a/private/b", .get)).allowed)
        #expect(!program.evaluate(firestoreRequest("/users/a/private/b", .update)).allowed)
        #expect(!program.evaluate(firestoreRequest("/users", .list)).allowed)
    }

    @Test func anyCompletelyMatchingBlockCanGrant() throws {
        let program = try #require(compileOrFail(firestoreRules("""
        match /cities/{city} { allow read: if city == 'SF'; }
        match /cities/{document=**} { allow read: if request.auth != null; }
        """)))
        #expect(program.evaluate(firestoreRequest("/cities/SF", .get)).allowed)
        #expect(program.evaluate(firestoreRequest("/cities/LA", .get, uid: "u")).allowed)
        let denied = program.evaluate(firestoreRequest("/cities/LA", .get))
        #expect(!denied.allowed)
        #expect(denied.candidates.count == 2)
    }

    @Test(arguments: [
        (RuleMethod.read, [RequestMethod.get, .list]),
        (.write, [.create, .update, .delete]),
        (.get, [.get]), (.list, [.list]), (.create, [.create]), (.update, [.update]), (.delete, [.delete]),
    ])
    func methodUmbrellas(rule: RuleMethod, granted: [RequestMethod]) throws {
        let program = try #require(compileOrFail(firestoreRules("match /a/{id} { allow \(rule.rawValue); }")))
        for method in RequestMethod.allCases {
            #expect(program.evaluate(firestoreRequest("/a/b", method)).allowed == granted.contains(method), "\(rule) vs \(method)")
        }
    }

    @Test func recursiveWildcardVersions() throws {
        let body = "match /cities/{city}/{rest=**} { allow read: if rest is path; }"
        let v1 = try #require(compileOrFail(firestoreRules(body, version: nil)))
        let v2 = try #require(compileOrFail(firestoreRules(body)))
        // v1: one or more segments; v2: zero or more.
        #expect(!v1.evaluate(firestoreRequest("/cities/SF", .get)).allowed)
        #expect(v2.evaluate(firestoreRequest("/cities/SF", .get)).allowed)
        #expect(v1.evaluate(firestoreRequest("/cities/SF/landmarks/coit", .get)).allowed)
        #expect(v2.evaluate(firestoreRequest("/cities/SF/landmarks/coit", .get)).allowed)
    }

    @Test func recursiveWildcardBindsAPath() throws {
        let program = try #require(compileOrFail(firestoreRules("""
        match /{path=**}/posts/{post} {
          allow read: if path == path('users/alice') && path[1] == 'alice' && post == 'p1';
        }
        """)))
        #expect(program.evaluate(firestoreRequest("/users/alice/posts/p1", .get)).allowed)
        #expect(!program.evaluate(firestoreRequest("/users/bob/posts/p1", .get)).allowed)
    }

    @Test func wildcardsAreStrings() throws {
        let program = try #require(compileOrFail(firestoreRules("match /n/{id} { allow read: if id is string && !(id is int); }")))
        #expect(program.evaluate(firestoreRequest("/n/42", .get)).allowed)
    }
}

@Suite struct FunctionTests {
    @Test func scopesAndLets() throws {
        let program = try #require(compileOrFail(firestoreRules("""
        match /users/{userId} {
          function isOwner() {
            let uid = request.auth.uid;
            return uid == userId;
          }
          allow write: if signedIn() && isOwner() && double(2) == 4;
        }
        """, functions: "function signedIn() { return request.auth != null; }\nfunction double(x) { return x * 2; }")))
        #expect(program.evaluate(firestoreRequest("/users/a", .update, uid: "a")).allowed)
        #expect(!program.evaluate(firestoreRequest("/users/a", .update, uid: "b")).allowed)
    }

    @Test func namesResolveLexically() throws {
        // `outer()` calls the service-level `pick()`, not the inner block's shadowing one.
        let program = try #require(compileOrFail(firestoreRules("""
        match /a/{id} {
          function pick() { return false; }
          allow read: if outer() && !pick();
        }
        """, functions: "function pick() { return true; }\nfunction outer() { return pick(); }")))
        #expect(program.evaluate(firestoreRequest("/a/b", .get)).allowed)
    }

    @Test func wildcardNamesResolveLexicallyInFunctions() throws {
        // Found by the generated-rules differential (FuzzRulesEval): a service-level function
        // read the caller's wildcard `resource` (the string `b`) instead of the global `resource`.
        // `inner()` is declared inside `/a/{id}`, so it sees `id`; `outer()` does not see `{resource}`.
        let program = try #require(compileOrFail(firestoreRules("""
        match /a/{id} {
          function inner() { return id == 'x'; }
          match /{resource} {
            allow read: if outer() && inner() && resource == 'b';
          }
        }
        """, functions: "function outer() { return resource.data.name == 'n'; }")))
        let decision = program.evaluate(firestoreRequest("/a/x/b", .get, resource: ["name": .string("n")]))
        #expect(decision.allowed, "\(decision.explanation(in: program.source))")
    }

    @Test func globalScopeFunctions() throws {
        let source = "rules_version = '2';\nfunction yes() { return true; }\n" + firestoreRules("match /a/{id} { allow read: if yes(); }", version: nil)
        let program = try #require(compileOrFail(source))
        #expect(program.evaluate(firestoreRequest("/a/b", .get)).allowed)
    }

    @Test func callDepthLimitDeniesTheRequest() throws {
        let chain = (0..<21).map { "function f\($0)() { return f\($0 + 1)(); }" }.joined(separator: "\n") + "\nfunction f21() { return true; }"
        let program = try #require(compileOrFail(firestoreRules("match /a/{id} { allow read: if f0() || true; }", functions: chain)))
        let decision = program.evaluate(firestoreRequest("/a/b", .get))
        #expect(!decision.allowed)
        #expect(decision.requestError?.code == "RL3010")
        let shallow = try #require(compileOrFail(firestoreRules("match /a/{id} { allow read: if f2(); }", functions: chain)))
        #expect(shallow.evaluate(firestoreRequest("/a/b", .get)).allowed)
    }
}

@Suite struct ErrorSemanticsTests {
    @Test(arguments: [
        ("resource.data.missing == 'x' || true", true),
        ("resource.data.missing == 'x'", false),
        ("!(resource.data.missing == 'x')", false),
        ("resource.data.missing == 'x' && false", false),
        ("(resource.data.missing && false) || true", true),
        ("resource.data.get('missing', null) == null", true),
        ("!('missing' in resource.data)", true),
        ("1", false),
        ("'true'", false),
        ("request.auth.uid == 'a'", false),
        ("request.query.limit < 10", false),
        ("10 / 0 == 0 || true", true),
    ])
    func errorsDenyButAreAbsorbed(condition: String, allowed: Bool) throws {
        let program = try #require(compileOrFail(firestoreRules("match /a/{id} { allow read: if \(condition); }")))
        let decision = program.evaluate(firestoreRequest("/a/b", .get, resource: ["present": .int(1)]))
        #expect(decision.allowed == allowed, "\(condition)")
        #expect(decision.requestError == nil)
    }

    @Test func missingDocumentIsNull() throws {
        let program = try #require(compileOrFail(firestoreRules("match /a/{id} { allow read: if resource == null; allow update: if resource.data.x == 1; }")))
        #expect(program.evaluate(firestoreRequest("/a/b", .get)).allowed)
        let decision = program.evaluate(firestoreRequest("/a/b", .update))
        guard case .denied(let blame)? = decision.candidates.first?.verdict else {
            Issue.record("expected a denied candidate")
            return
        }
        #expect(blame.error?.code == "RL3002")
    }

    @Test func serviceMismatchDenies() throws {
        let program = try #require(compileOrFail(firestoreRules("match /{doc=**} { allow read; }")))
        let request = RulesRequest(service: .storage, path: "/b/x/o/a", method: .get)
        #expect(program.evaluate(request).requestError?.code == "RL3015")
    }

    @Test func stepLimitDeniesTheRequest() throws {
        let big = "[" + Array(repeating: "1", count: 1200).joined(separator: ", ") + "]"
        let program = try #require(compileOrFail(firestoreRules("match /a/{id} { allow read: if \(big).size() > 0 || true; }")))
        let decision = program.evaluate(firestoreRequest("/a/b", .get))
        #expect(!decision.allowed)
        #expect(decision.requestError?.code == "RL3012")
    }
}

@Suite struct LookupTests {
    let path = "/databases/$(database)/documents"

    @Test func lookupBudgetIsNotAbsorbable() throws {
        let checks = (0..<11).map { "exists(\(path)/c/d\($0))" }.joined(separator: " || ")
        let program = try #require(compileOrFail(firestoreRules("""
        match /a/{id} { allow read: if \(checks) || true; }
        match /a/{other} { allow read: if true; }
        """)))
        let single = program.evaluate(firestoreRequest("/a/b", .get))
        #expect(!single.allowed)
        #expect(single.requestError?.code == "RL3011")
        #expect(single.lookupCount == 10)
        guard case .denied(let blame)? = single.candidates.first?.verdict else {
            Issue.record("expected the first candidate to carry the limit error")
            return
        }
        #expect(blame.expression == "exists(\(path)/c/d10)")
        // Batched writes may make 20 lookups.
        #expect(program.evaluate(firestoreRequest("/a/b", .get, batched: true)).allowed)
    }

    @Test func repeatedLookupsCountOnce() throws {
        let same = Array(repeating: "!exists(\(path)/c/same)", count: 15).joined(separator: " && ")
        let program = try #require(compileOrFail(firestoreRules("match /a/{id} { allow read: if \(same); }")))
        let decision = program.evaluate(firestoreRequest("/a/b", .get))
        #expect(decision.allowed)
        #expect(decision.lookupCount == 1)
    }

    @Test func getReturnsDocumentOrNull() throws {
        let program = try #require(compileOrFail(firestoreRules("""
        match /posts/{id} {
          allow read: if get(\(path)/users/$(request.auth.uid)).data.role == 'admin';
          allow delete: if get(\(path)/users/$(request.auth.uid)) == null;
        }
        """)))
        let db = InMemoryDatabase(documents: [firestorePrefix + "/users/ann": ["role": .string("admin")]])
        #expect(program.evaluate(firestoreRequest("/posts/p", .get, uid: "ann"), lookup: db).allowed)
        #expect(!program.evaluate(firestoreRequest("/posts/p", .get, uid: "bob"), lookup: db).allowed)
        #expect(program.evaluate(firestoreRequest("/posts/p", .delete, uid: "bob"), lookup: db).allowed)
    }

    @Test func getAfterSeesTheRequestsOwnWrite() throws {
        let program = try #require(compileOrFail(firestoreRules("""
        match /posts/{id} {
          allow create: if getAfter(request.path).data == request.resource.data && existsAfter(request.path);
          allow delete: if !existsAfter(request.path) && exists(request.path);
        }
        """)))
        let db = InMemoryDatabase(documents: [firestorePrefix + "/posts/p": ["t": .int(1)]])
        #expect(program.evaluate(firestoreRequest("/posts/p", .create, requestResource: ["t": .int(2)])).allowed)
        #expect(program.evaluate(firestoreRequest("/posts/p", .delete), lookup: db).allowed)
    }

    @Test func mocksOnlyFailureIsAnAbsorbableError() throws {
        let program = try #require(compileOrFail(firestoreRules("""
        match /a/{id} { allow read: if exists(\(path)/x/y); allow write: if exists(\(path)/x/y) || true; }
        """)))
        let read = program.evaluate(firestoreRequest("/a/b", .get), lookup: MocksOnly(documents: [:]))
        #expect(!read.allowed)
        guard case .denied(let blame)? = read.candidates.first?.verdict else {
            Issue.record("expected a denial")
            return
        }
        #expect(blame.error?.code == "RL3013")
        #expect(program.evaluate(firestoreRequest("/a/b", .update), lookup: MocksOnly(documents: [:])).allowed)
    }

    @Test func badLookupPathIsAnError() throws {
        let program = try #require(compileOrFail(firestoreRules("match /a/{id} { allow read: if exists(/users/alice); }")))
        let decision = program.evaluate(firestoreRequest("/a/b", .get))
        guard case .denied(let blame)? = decision.candidates.first?.verdict else {
            Issue.record("expected a denial")
            return
        }
        #expect(blame.error?.code == "RL3008")
    }
}

@Suite struct StorageTests {
    static let rules = """
    rules_version = '2';
    service firebase.storage {
      match /b/{bucket}/o {
        match /profile_pictures/{userId}/{fileName} {
          allow read: if request.auth != null;
          allow create, update: if request.auth.uid == userId
            && request.resource.size < 5 * 1024 * 1024
            && request.resource.contentType.matches('image/.*')
            && resource == null || resource.name == 'profile_pictures/' + userId + '/' + fileName;
          allow delete: if request.auth.uid == userId && firestore.exists(/databases/(default)/documents/users/$(userId));
        }
      }
    }
    """

    func request(_ method: RequestMethod, uid: String?, size: Int64 = 1000, type: String = "image/png", existing: Bool = false) -> RulesRequest {
        let metadata: Value = .map(["size": .int(size), "contentType": .string(type), "metadata": .map([:])])
        return RulesRequest(
            service: .storage, path: "/b/bucket/o/profile_pictures/alice/me.png", method: method, auth: uid.map { Auth(uid: $0) },
            resource: existing ? .map(["size": .int(10), "contentType": .string("image/png")]) : nil,
            requestResource: method == .create || method == .update ? metadata : nil)
    }

    @Test func profilePictures() throws {
        let program = try #require(compileOrFail(Self.rules))
        #expect(program.evaluate(request(.get, uid: "bob", existing: true)).allowed)
        #expect(!program.evaluate(request(.get, uid: nil, existing: true)).allowed)
        #expect(program.evaluate(request(.create, uid: "alice")).allowed)
        #expect(!program.evaluate(request(.create, uid: "bob")).allowed)
        #expect(!program.evaluate(request(.create, uid: "alice", size: 5 * 1024 * 1024)).allowed)
        #expect(!program.evaluate(request(.create, uid: "alice", type: "text/plain")).allowed)
        // The existing object's `name` is read as given: absent, reading it is an error that denies.
        #expect(!program.evaluate(request(.update, uid: "alice", existing: true)).allowed)
        var named = request(.update, uid: "alice", existing: true)
        named.resource = .map(["name": .string("profile_pictures/alice/me.png"), "size": .int(10)])
        #expect(program.evaluate(named).allowed)
        let users = InMemoryDatabase(documents: ["/databases/(default)/documents/users/alice": [:]])
        #expect(program.evaluate(request(.delete, uid: "alice", existing: true), lookup: users).allowed)
        #expect(!program.evaluate(request(.delete, uid: "alice", existing: true)).allowed)
    }

    @Test func listNeedsVersion2() throws {
        let program = try #require(compileOrFail("service firebase.storage { match /b/{bucket}/o/{all=**} { allow read; } }"))
        let decision = program.evaluate(RulesRequest(service: .storage, path: "/b/x/o/a", method: .list))
        #expect(decision.requestError?.code == "RL3016")
        #expect(program.evaluate(RulesRequest(service: .storage, path: "/b/x/o/a", method: .get)).allowed)
    }
}

@Suite struct ExplanationTests {
    @Test func denialBlamesTheFirstFailingSubExpression() throws {
        let marked = MarkedSource(firestoreRules("""
        match /users/{userId} {
          function isOwner() { return 1️⃣request.auth.uid == userId2️⃣; }
          allow update: if request.auth != null && isOwner();
        }
        """))
        let program = try #require(compileOrFail(marked.text))
        let decision = program.evaluate(firestoreRequest("/users/alice", .update, uid: "bob"))
        guard case .denied(let blame)? = decision.candidates.first?.verdict else {
            Issue.record("expected a denied candidate")
            return
        }
        #expect(blame.span == SourceSpan(start: marked.offsets["1️⃣"] ?? -1, end: marked.offsets["2️⃣"] ?? -1))
        #expect(blame.message == "`request.auth.uid == userId` is false")
        #expect(blame.values == [.init(label: "request.auth.uid", value: "'bob'"), .init(label: "userId", value: "'alice'")])
    }

    @Test func errorsAreBlamedWhereTheyArise() throws {
        let marked = MarkedSource(firestoreRules("match /a/{id} { allow read: if 1️⃣resource.data.age2️⃣ > 18; }"))
        let program = try #require(compileOrFail(marked.text))
        let decision = program.evaluate(firestoreRequest("/a/b", .get, resource: ["name": .string("x")]))
        guard case .denied(let blame)? = decision.candidates.first?.verdict else {
            Issue.record("expected a denied candidate")
            return
        }
        #expect(blame.error?.code == "RL3001")
        #expect(blame.message == "property `age` is undefined on object")
        #expect(blame.span == SourceSpan(start: marked.offsets["1️⃣"] ?? -1, end: marked.offsets["2️⃣"] ?? -1))
    }

    @Test func grantNamesTheRule() throws {
        let program = try #require(compileOrFail(firestoreRules("match /a/{id} { allow read: if false || id == 'b'; allow get; }")))
        let decision = program.evaluate(firestoreRequest("/a/b", .get))
        #expect(decision.allowed)
        #expect(decision.grantedBy?.methods == [.read])
        #expect(decision.grantedBy?.matchPattern == "/databases/{database}/documents/a/{id}")
        #expect(decision.candidates.map(\.verdict) == [.granted, .notEvaluated])
        #expect(decision.explanation(in: program.source).hasPrefix("allowed by `allow read` at test.rules:5:21"))
    }

    @Test func debugOutputIsReturned() throws {
        let program = try #require(compileOrFail(firestoreRules("match /a/{id} { allow read: if debug(id) == 'x' || debug(request.method) == 'get'; }")))
        let decision = program.evaluate(firestoreRequest("/a/b", .get))
        #expect(decision.allowed)
        #expect(decision.debugOutput.map(\.value) == [.string("b"), .string("get")])
    }
}

@Suite struct CoverageTests {
    @Test func countsOutcomesAndListsNeverEvaluated() throws {
        let program = try #require(compileOrFail(firestoreRules("""
        match /a/{id} {
          allow read: if id == 'x' || id == 'y';
          allow write: if false && id == 'never';
        }
        """)))
        let coverage = CoverageCollector(program: program)
        for id in ["x", "y", "z"] { _ = program.evaluate(firestoreRequest("/a/\(id)", .get), coverage: coverage) }
        _ = program.evaluate(firestoreRequest("/a/q", .update), coverage: coverage)
        #expect(coverage.requestCount == 4)
        let byText = Dictionary(coverage.trackedExpressions.map { (program.source.text.utf8Slice($0.span), coverage.counts[$0.span] ?? .init()) },
                                uniquingKeysWith: { a, _ in a })
        #expect(byText["id == 'x'"]?.trueCount == 1)
        #expect(byText["id == 'x'"]?.falseCount == 2)
        #expect(byText["id == 'y'"]?.trueCount == 1)
        #expect(byText["id == 'y'"]?.falseCount == 1)
        #expect(byText["id == 'never'"]?.total == 0)
        let json = coverage.json()
        #expect(json.contains("\"neverEvaluated\": [\n  {\"line\": 7, \"column\": 28, \"endLine\": 7, \"endColumn\": 41, \"expression\": \"id == 'never'\"}"))
        #expect(json.contains("\"granted\": 2, \"denied\": 1, \"notEvaluated\": 0"))
    }
}

@Suite struct ConcurrencyTests {
    @Test func programIsSharedAcrossTasks() async throws {
        let program = try #require(compileOrFail(firestoreRules("match /users/{u} { allow read: if request.auth.uid == u; }")))
        let results = await withTaskGroup(of: Bool.self) { group in
            for i in 0..<64 {
                group.addTask { program.evaluate(firestoreRequest("/users/u\(i)", .get, uid: i.isMultiple(of: 2) ? "u\(i)" : "other")).allowed }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.filter { $0 }.count == 32)
    }
}

extension String {
    func utf8Slice(_ span: SourceSpan) -> String {
        let bytes = Array(utf8)
        return String(decoding: bytes[span.start..<span.end], as: UTF8.self)
    }
}

@Suite struct DecisionJSONTests {
    @Test func deniedDecisionAsJSON() throws {
        let program = try #require(compileOrFail(firestoreRules("match /users/{userId} { allow update: if request.auth.uid == userId; }")))
        let decision = program.evaluate(firestoreRequest("/users/alice", .update, uid: "bob"))
        #expect(decision.json(in: program.source) == """
        {"allowed": false, "grantedBy": null, "candidates": [{"line": 5, "column": 29, "methods": ["update"], \
        "match": "/databases/{database}/documents/users/{userId}", "verdict": "denied", "blame": {"line": 5, "column": 46, \
        "expression": "request.auth.uid == userId", "message": "`request.auth.uid == userId` is false", "values": \
        [{"label": "request.auth.uid", "value": "'bob'"}, {"label": "userId", "value": "'alice'"}]}}], "debug": [], \
        "requestError": null, "lookups": 0, "completeMatches": []}
        """)
    }
}

/// The evaluator's shortcuts for `request.x`, `request.auth.uid` and `request.auth != null` are
/// off while collecting coverage; both ways must decide and explain identically.
@Suite struct FastPathEquivalenceTests {
    @Test(arguments: [
        "request.auth != null", "request.auth == null", "request.auth.uid == id", "request.auth.uid != null",
        "request.method == 'get'", "request.resource.data.x == 1", "request.query.limit < 5", "request.nope == 1",
        "request.auth.token.sub == request.auth.uid", "request.time > timestamp.value(0)",
    ])
    func shortcutsMatchTheGeneralPath(condition: String) throws {
        let program = try #require(compileOrFail(firestoreRules("match /a/{id} { allow read, write: if \(condition); }")))
        let shadowed = try #require(compileOrFail(firestoreRules("match /{request}/{id} { allow read, write: if \(condition); }")))
        for uid in [nil, "b", "c"] as [String?] {
            for method in [RequestMethod.get, .create] {
                let request = firestoreRequest("/a/b", method, uid: uid, requestResource: method == .create ? ["x": .int(1)] : nil)
                for rules in [program, shadowed] {
                    let fast = rules.evaluate(request)
                    let general = rules.evaluate(request, coverage: CoverageCollector(program: rules))
                    #expect(fast.allowed == general.allowed, "\(condition) uid=\(uid ?? "nil") \(method)")
                    #expect(fast.candidates == general.candidates, "\(condition) uid=\(uid ?? "nil") \(method)")
                }
            }
        }
    }
}

@Suite struct ProgramCacheTests {
    @Test func compilesEachSourceOnceAcrossThreads() async throws {
        let cache = ProgramCache(capacity: 4, regexEngine: TestRegexEngine())
        let source = SourceFile(name: "c.rules", text: firestoreRules("match /a/{id} { allow read: if id == 'x'; }"))
        await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<16 {
                group.addTask { cache.compile(source).program?.evaluate(firestoreRequest("/a/x", .get)).allowed ?? false }
            }
            for await allowed in group { #expect(allowed) }
        }
        // Racing first uses may compile more than once, but never more than once per task.
        let first = cache.compilations
        #expect(first >= 1 && first <= 16)
        _ = cache.compile(source)
        #expect(cache.compilations == first)
        let other = SourceFile(name: "c.rules", text: source.text + "\n")
        _ = cache.compile(other)
        #expect(cache.compilations == first + 1)
    }
}

@Suite struct AlternativeBlameTests {
    @Test func everyFailedAlternativeIsExplained() throws {
        let program = try #require(compileOrFail(firestoreRules("""
        match /docs/{id} {
          function isOwner() { return request.auth.uid == resource.data.owner; }
          function isAdmin() { return request.auth.token.admin == true; }
          allow update: if isOwner() || isAdmin() || id == 'public';
        }
        """)))
        let request = RulesRequest(service: .firestore, path: firestorePrefix + "/docs/d1", method: .update,
                                   auth: Auth(uid: "bob", token: ["admin": .bool(false)]), resource: .map(["owner": .string("ann")]),
                                   requestResource: .map([:]))
        let decision = program.evaluate(request)
        #expect(decision.explanation(in: program.source) == """
        denied
          `allow update` at test.rules:8:3 (match /databases/{database}/documents/docs/{id}):
            test.rules:6:31: `request.auth.uid == resource.data.owner` is false
              request.auth.uid = 'bob'
              resource.data.owner = 'ann'
            or test.rules:7:31: `request.auth.token.admin == true` is false
              request.auth.token.admin = false
            or test.rules:8:46: `id == 'public'` is false
              id = 'd1'
        """)
        guard case .denied(let blame)? = decision.candidates.first?.verdict else {
            Issue.record("expected a denial")
            return
        }
        #expect(blame.alternatives.count == 2)
        #expect(decision.json(in: program.source).contains("\"alternatives\": [{\"line\": 7, \"column\": 31"))
    }
}
