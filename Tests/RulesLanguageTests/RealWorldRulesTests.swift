import Diagnostics
import RulesLanguage
import Testing

/// Rules in the shapes found in Firebase's documentation and samples parse, check cleanly and
/// decide as documented.
@Suite struct RealWorldRulesTests {
    static let rbac = """
    rules_version = '2';
    service cloud.firestore {
      match /databases/{database}/documents {
        // Role-based access (firebase/snippets-rules solution-rbac, step 5 shape).
        match /stories/{story} {
          function isSignedIn() {
            return request.auth != null;
          }

          function getRole(rsc) {
            // Read from the "roles" map in the resource (rsc).
            return rsc.data.roles[request.auth.uid];
          }

          function isOneOfRoles(rsc, array) {
            // Determine if the user is one of an array of roles
            return isSignedIn() && (getRole(rsc) in array);
          }

          function onlyContentChanged() {
            // Ensure that title and roles are unchanged and that no new
            // fields are added to the document.
            return request.resource.data.title == resource.data.title
              && request.resource.data.roles == resource.data.roles
              && request.resource.data.keys() == resource.data.keys();
          }

          // Split writing into creation, deletion, and updating. Only an
          // owner can create or delete a story but a writer can update
          // story content.
          allow create: if isValidNewStory();
          allow delete: if isOneOfRoles(resource, ['owner']);
          allow update: if isOneOfRoles(resource, ['owner'])
                           || (isOneOfRoles(resource, ['writer']) && onlyContentChanged());
          allow read: if isOneOfRoles(resource, ['owner', 'writer', 'commenter', 'reader'])

          function isValidNewStory() {
            return resource == null
              && request.resource.data.roles[request.auth.uid] == 'owner';
          }

          match /comments/{comment} {
            allow read: if isOneOfRoles(get(/databases/$(database)/documents/stories/$(story)),
                                        ['owner', 'writer', 'commenter', 'reader']);
            allow create: if isOneOfRoles(get(/databases/$(database)/documents/stories/$(story)),
                                          ['owner', 'writer', 'commenter'])
                          && request.resource.data.user == request.auth.uid;
          }
        }
        /* Collection group query over every "posts" subcollection. */
        match /{path=**}/posts/{post} {
          allow read: if resource.data.published == true
            && request.time < resource.data.expires + duration.value(1, 'd');
          allow list: if request.query.limit <= 50;
        }
        match /restaurants/{restaurantId} {
          allow update: if request.resource.data.diff(resource.data).affectedKeys()
            .hasOnly(['avgRating', 'numRatings']);
          allow create: if request.resource.data.name is string
            && request.resource.data.name.size() < 100
            && request.resource.data.get('tags', []).size() <= 5
            && request.auth.token.email_verified == true
            && request.auth.token.email.matches('.*@example[.]com');
        }
      }
    }
    """

    static let story: [String: Value] = ["title": .string("T"), "roles": .map(["ann": .string("owner"), "wes": .string("writer")])]

    @Test func rbacStories() throws {
        let program = try #require(compileOrFail(Self.rbac))
        #expect(RulesCompiler.compile(Self.rbac, regexEngine: TestRegexEngine()).diagnostics.isEmpty)
        var updated = Self.story
        updated["body"] = .string("new")
        #expect(program.evaluate(firestoreRequest("/stories/s", .update, uid: "wes", resource: Self.story, requestResource: Self.story)).allowed)
        #expect(!program.evaluate(firestoreRequest("/stories/s", .update, uid: "wes", resource: Self.story, requestResource: updated)).allowed)
        #expect(program.evaluate(firestoreRequest("/stories/s", .update, uid: "ann", resource: Self.story, requestResource: updated)).allowed)
        #expect(!program.evaluate(firestoreRequest("/stories/s", .delete, uid: "wes", resource: Self.story)).allowed)
        #expect(program.evaluate(firestoreRequest("/stories/s", .create, uid: "ann", requestResource: Self.story)).allowed)
        let db = InMemoryDatabase(documents: [firestorePrefix + "/stories/s": Self.story])
        let comment: [String: Value] = ["user": .string("wes"), "text": .string("hi")]
        #expect(program.evaluate(firestoreRequest("/stories/s/comments/c", .create, uid: "wes", requestResource: comment), lookup: db).allowed)
        #expect(!program.evaluate(firestoreRequest("/stories/s/comments/c", .create, uid: "eve", requestResource: comment), lookup: db).allowed)
    }

    @Test func collectionGroupAndQueries() throws {
        let program = try #require(compileOrFail(Self.rbac))
        let post: [String: Value] = ["published": .bool(true), "expires": .timestamp(Timestamp(seconds: 1_700_000_000 - 3600))]
        #expect(program.evaluate(firestoreRequest("/users/u/posts/p", .get, resource: post)).allowed)
        var list = firestoreRequest("/blogs/b/posts/p", .list, resource: ["published": .bool(false)])
        list.query = ["limit": .int(20)]
        #expect(program.evaluate(list).allowed)
        list.query = ["limit": .int(100)]
        #expect(!program.evaluate(list).allowed)
    }

    @Test func restaurants() throws {
        let program = try #require(compileOrFail(Self.rbac))
        let before: [String: Value] = ["name": .string("R"), "avgRating": .float(4.5), "numRatings": .int(2)]
        var after = before
        after["avgRating"] = .float(4.0)
        after["numRatings"] = .int(3)
        #expect(program.evaluate(firestoreRequest("/restaurants/r", .update, resource: before, requestResource: after)).allowed)
        after["name"] = .string("X")
        #expect(!program.evaluate(firestoreRequest("/restaurants/r", .update, resource: before, requestResource: after)).allowed)
        var create = firestoreRequest("/restaurants/r", .create, requestResource: before)
        create.auth = Auth(uid: "u", token: ["email_verified": .bool(true), "email": .string("a@example.com")])
        #expect(program.evaluate(create).allowed)
        create.auth = Auth(uid: "u", token: ["email_verified": .bool(true), "email": .string("a@exampleXcom.org")])
        #expect(!program.evaluate(create).allowed)
    }

    @Test func printerRoundTripsRealRules() throws {
        let parsed = RulesParser.parse(SourceFile(name: "rbac.rules", text: Self.rbac))
        #expect(parsed.diagnostics.isEmpty)
        let reparsed = RulesParser.parse(SourceFile(name: "printed.rules", text: RulesPrinter.print(parsed.file)))
        #expect(reparsed.diagnostics.isEmpty)
        #expect(reparsed.file == parsed.file)
    }
}
