import Diagnostics
import RulesLanguage
import RulesLoading
import Testing
@testable import RulesLinting

/// Source text with position markers (1️⃣ … 9️⃣) removed, remembering the byte offset of each.
struct MarkedSource {
    let text: String
    let markers: [String: Int]

    init(_ marked: String) {
        let names = ["1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣", "7️⃣", "8️⃣", "9️⃣"]
        var text = ""
        var markers: [String: Int] = [:]
        var rest = Substring(marked)
        while !rest.isEmpty {
            if let name = names.first(where: { rest.hasPrefix($0) }) {
                markers[name] = text.utf8.count
                rest = rest.dropFirst(name.count)
            } else {
                text.append(rest.removeFirst())
            }
        }
        self.text = text
        self.markers = markers
    }
}

@Suite("Rules linter")
struct LinterTests {
    /// Lints marked source and returns `"CODE marker"` for every finding, in order.
    private func findings(_ marked: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> [String] {
        let source = MarkedSource(marked)
        let compiled = RulesCompiler.compile(source.text, regexEngine: RulesLoader.defaultRegexEngine)
        #expect(!compiled.hasErrors, "fixture does not compile: \(compiled.diagnostics.map(\.message))", sourceLocation: sourceLocation)
        let byOffset = Dictionary(uniqueKeysWithValues: source.markers.map { ($1, $0) })
        return RulesLinter.lint(compiled.tree).map { diagnostic in
            diagnostic.code + " " + (diagnostic.span.flatMap { byOffset[$0.start] } ?? "unmarked@\(diagnostic.span?.start ?? -1)")
        }
    }

    @Test("unconditional writes: no condition and `if true`")
    func unconditionalWrites() {
        let result = findings("""
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                match /posts/{postId} {
                  1️⃣allow write: if true;
                  2️⃣allow create;
                  allow read: if true;
                  allow read;
                }
              }
            }
            """)
        #expect(result == ["RL8001 1️⃣", "RL8001 2️⃣"])
    }

    @Test("ownership hole: a write under {userId} that never compares request.auth.uid with it")
    func ownershipHole() {
        let result = findings("""
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                function isSignedIn() { return request.auth != null; }
                function isOwner(uid) { return request.auth.uid == uid; }
                match /users/{userId} {
                  1️⃣allow update: if isSignedIn();
                  allow create: if isOwner(userId);
                  allow delete: if userId == request.auth.uid;
                  allow read: if isSignedIn();
                  match /posts/{postId} {
                    2️⃣allow create: if resource == null;
                    allow update: if request.auth['uid'] == userId;
                  }
                }
                match /profiles/{ownerUid} {
                  function mine() { let me = request.auth.uid; return me == ownerUid; }
                  allow write: if mine();
                }
              }
            }
            """)
        #expect(result == ["RL8002 1️⃣", "RL8002 2️⃣"])
    }

    @Test("a rule covering delete that reads request.resource")
    func deleteReadsRequestResource() {
        let result = findings("""
            rules_version = '2';
            service firebase.storage {
              match /b/{bucket}/o {
                function small() { return request.resource.size < 1024; }
                match /files/{userId}/{name} {
                  1️⃣allow write: if request.auth.uid == userId && small();
                  2️⃣allow delete: if request.auth.uid == userId && request.resource.contentType == 'x';
                  allow create, update: if request.auth.uid == userId && small();
                  allow write: if request.auth.uid == userId && (request.method == 'delete' || small());
                }
              }
            }
            """)
        #expect(result == ["RL8003 1️⃣", "RL8003 2️⃣"])
    }

    @Test("functions never called, including ones only called by dead functions and shadowed ones")
    func unusedFunctions() {
        let result = findings("""
            rules_version = '2';
            function 1️⃣globalHelper() { return true; }
            service cloud.firestore {
              function used() { return request.auth != null; }
              function 2️⃣deadCaller() { return deadCallee(); }
              function 3️⃣deadCallee() { return true; }
              function 4️⃣shadowed() { return false; }
              match /databases/{database}/documents {
                function shadowed() { return used(); }
                match /a/{b} {
                  allow read: if shadowed();
                }
              }
            }
            """)
        #expect(result == ["RL8004 1️⃣", "RL8004 2️⃣", "RL8004 3️⃣", "RL8004 4️⃣"])
    }

    @Test("lint diagnostics are warnings with help")
    func shape() throws {
        let compiled = RulesCompiler.compile("""
            service cloud.firestore { match /databases/{d}/documents { match /x/{y} { allow write; } } }
            """)
        let diagnostic = try #require(RulesLinter.lint(compiled.tree).first)
        #expect(diagnostic == Diagnostic(
            code: "RL8001", severity: .warning, message: "`allow write` has no condition: anyone can write here",
            span: diagnostic.span,
            help: "require a signed-in owner, e.g. `if request.auth != null && request.auth.uid == userId`"))
        #expect(diagnostic.span.map { compiled.tree.services[0].span.start < $0.start } == true)
    }

    @Test("user-style wildcard names", arguments: [
        ("userId", true), ("uid", true), ("ownerUid", true), ("authorId", true), ("user", true),
        ("postId", false), ("name", false), ("docId", false), ("fileName", false),
    ])
    func userStyle(name: String, expected: Bool) {
        #expect(RulesLinter.isUserStyle(name) == expected)
    }
}
