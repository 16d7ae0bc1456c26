import Foundation
import RulesLanguage
import Testing
@testable import RulesVerification

/// Proofs through `request.path` indexing around a recursive wildcard, and through values of
/// types the encoding does not represent (issue 32 §4): a `violated` for `possible` is a proof.
@Suite struct PathIndexingTests {
    /// A held-out check: the rules allow a `get` of `/b/BUCKET_NAME/o/dir/subdir/image.png`.
    static let imageRules = """
    rules_version = '2';
    service firebase.storage {
      match /b/{bucket}/o {
        match /{allPaths=**} {
          allow read: if request.path[0] == "b" && request.path[1] == "BUCKET_NAME" && request.path[2] == "o"
            && request.path[3] == "dir" && request.path[4] == "subdir" && request.path[5] == "image.png"
            && request.path == path("/b/BUCKET_NAME/o/dir/subdir/image.png");
        }
      }
    }
    """

    static let imageProperty = """
        {"name": "the image can be read", "path": "/b/{bucket}/o/{p=**}", "methods": ["get"], "kind": "possible",
         "condition": "bucket == 'BUCKET_NAME'"}
        """

    @Test("possible: the request the rules allow is found (it was a wrong `violated` proof)")
    func indexedRequestPathAroundARecursiveWildcard() throws {
        let result = try verifyOne(Self.imageRules, Self.imageProperty, service: "storage")
        #expect(result.verdict == .holds, "\(result.reason ?? "")")
        let witness = try #require(result.witness)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(witness.utf8)) as? [String: Any])
        #expect(object["path"] as? String == "/b/BUCKET_NAME/o/dir/subdir/image.png")
    }

    @Test("the shapes spell out every segment a literal index reads")
    func shapesCoverLiteralIndexes() throws {
        let program = try compile(Self.imageRules)
        let file = try properties(propertyFile(service: "storage", [Self.imageProperty]))
        let shapes = PathShape.shapes(for: file.properties[0], rules: program.file)
        // `request.path[5]` reads six segments; the property spells out three.
        #expect(shapes.map(\.rest) == [.segments(1), .segments(2), .segments(3), .segments(4), .long(head: 3, tail: 1)])
    }

    @Test("an index into a binding counts from where the binding starts")
    func bindingIndexesCountFromTheirStart() throws {
        let program = try compile("""
            rules_version = '2';
            service firebase.storage {
              match /b/{bucket}/o {
                match /a/{rest=**} { allow get: if rest[1] == 'x'; }
              }
            }
            """)
        let file = try properties(propertyFile(service: "storage", ["""
            {"name": "p", "path": "/b/{bucket}/o/{p=**}", "methods": ["get"], "kind": "possible", "condition": "p[0] == 'a'"}
            """]))
        let shapes = PathShape.shapes(for: file.properties[0], rules: program.file)
        // `rest` starts at segment 4, so `rest[1]` reads segment 5: two past the property's three.
        #expect(shapes.last?.rest == .long(head: 3, tail: 1))
    }

    /// `path()` of a computed string is a value the encoding does not model; compared with
    /// `request.path` it is equal in every real request, so the rules allow every `get`.
    static let computedPathRules = """
    rules_version = '2';
    service cloud.firestore {
      match /databases/{database}/documents {
        match /docs/{id} {
          allow get: if request.path == path('/databases/' + database + '/documents/docs/' + id);
          allow list: if request.path != path('/databases/' + database + '/documents/docs');
        }
      }
    }
    """

    @Test("a value the encoding does not model, compared with a path, never proves `possible` violated")
    func unmodelledValueAgainstAPath() throws {
        let possible = try verifyOne(Self.computedPathRules, """
            {"name": "a doc can be read", "path": "/databases/{database}/documents/docs/{id}", "methods": ["get"], "kind": "possible"}
            """)
        // The rules allow every get: a replayed witness, or `unknown`; `violated` would be a wrong proof.
        #expect(possible.verdict != .violated, "\(possible.reason ?? "")")
        if possible.verdict == .holds { #expect(possible.witness != nil) }
    }

    @Test("... nor proves `never` holds when the rules allow the request")
    func unmodelledValueAgainstAPathNeverHolds() throws {
        let never = try verifyOne(Self.computedPathRules, """
            {"name": "no doc is read", "path": "/databases/{database}/documents/docs/{id}", "methods": ["get"], "kind": "never"}
            """)
        #expect(never.verdict != .holds, "\(never.reason ?? "")")
    }
}
