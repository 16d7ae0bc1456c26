import Foundation
import RulesCases
import RulesLanguage
import RulesTestSupport
@testable import RulesVerification
import Testing

/// The app's own rules (rules/firestore.rules, rules/storage.rules) with planted edits.
enum AppRules {
    static func text(_ name: String) throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent("rules/\(name)"), encoding: .utf8)
    }

    /// `text` with each `(old, new)` replaced exactly once (a planted edit must apply).
    static func edit(_ text: String, _ replacements: [(String, String)]) throws -> String {
        var out = text
        for (old, new) in replacements {
            let parts = out.components(separatedBy: old)
            guard parts.count == 2 else { throw TestFailure(message: "`\(old)` occurs \(parts.count - 1) times, not once") }
            out = parts.joined(separator: new)
        }
        return out
    }
}

/// One planted edit: its name, the replacements, and the changes it must produce (pattern
/// suffix and method) with their verdict; every other shape must be equivalent.
struct PlantedEdit: CustomTestStringConvertible, Sendable {
    var name: String
    var file: String
    var replacements: [(String, String)]
    var expected: [(String, RequestMethod)]
    var testDescription: String { "\(file): \(name)" }
}

@Suite("rules diff on the app's own rules: planted widenings found, refactorings equivalent")
struct DiffAppRulesTests {
    static let widenings: [PlantedEdit] = [
        PlantedEdit(name: "profiles readable by any signed-in user", file: "firestore.rules",
                    replacements: [("allow get: if isOwner(userId);", "allow get: if isSignedIn();")],
                    expected: [("/users/{userId}", .get)]),
        PlantedEdit(name: "profiles listable", file: "firestore.rules",
                    replacements: [("allow get: if isOwner(userId);", "allow get, list: if isOwner(userId);")],
                    expected: [("/users/{userId}", .list)]),
        PlantedEdit(name: "any signed-in user releases any claim", file: "firestore.rules",
                    replacements: [("allow delete: if isSignedIn() && resource.data.userId == request.auth.uid;", "allow delete: if isSignedIn();")],
                    expected: [("/displayNames/{key}", .delete)]),
        PlantedEdit(name: "claims editable by their holder", file: "firestore.rules",
                    replacements: [("      // No `update`: a claim is never handed over or edited, only released and claimed again.",
                                    "      allow update: if isSignedIn() && resource.data.userId == request.auth.uid;")],
                    expected: [("/displayNames/{key}", .update)]),
        PlantedEdit(name: "pictures readable signed out", file: "storage.rules",
                    replacements: [("allow read: if isSignedIn();", "allow read;")],
                    expected: [("/profile_pictures/{userId}/{fileName}", .get), ("/profile_pictures/{userId}/{fileName}", .list)]),
        PlantedEdit(name: "pictures up to 10 MiB", file: "storage.rules",
                    replacements: [("request.resource.size <= 5 * 1024 * 1024", "request.resource.size <= 10 * 1024 * 1024")],
                    expected: [("/profile_pictures/{userId}/{fileName}", .create), ("/profile_pictures/{userId}/{fileName}", .update)]),
        PlantedEdit(name: "anyone deletes a picture", file: "storage.rules",
                    replacements: [("allow delete: if isOwner(userId);", "allow delete: if isSignedIn();")],
                    expected: [("/profile_pictures/{userId}/{fileName}", .delete)]),
    ]

    static let refactorings: [PlantedEdit] = [
        PlantedEdit(name: "reordered conjuncts", file: "firestore.rules",
                    replacements: [("allow delete: if isSignedIn() && resource.data.userId == request.auth.uid;",
                                    "allow delete: if resource.data.userId == request.auth.uid && isSignedIn();"),
                                   ("return isSignedIn() && request.auth.uid == userId;", "return request.auth.uid == userId && isSignedIn();")],
                    expected: []),
        PlantedEdit(name: "an extracted function", file: "firestore.rules",
                    replacements: [("allow delete: if isSignedIn() && resource.data.userId == request.auth.uid;",
                                    "allow delete: if isSignedIn() && isHolder();\n      function isHolder() { return resource.data.userId == request.auth.uid; }")],
                    expected: []),
        PlantedEdit(name: "a renamed variable", file: "firestore.rules",
                    replacements: [("match /users/{userId} {", "match /users/{uid} {"),
                                   ("allow get: if isOwner(userId);", "allow get: if isOwner(uid);"),
                                   ("allow create: if isOwner(userId)", "allow create: if isOwner(uid)"),
                                   ("allow update: if isOwner(userId)", "allow update: if isOwner(uid)"),
                                   ("allow delete: if isOwner(userId);", "allow delete: if isOwner(uid);")],
                    expected: []),
        PlantedEdit(name: "reordered conjuncts", file: "storage.rules",
                    replacements: [("return request.resource.size <= 5 * 1024 * 1024\n          && request.resource.contentType.lower().matches('image/[a-z0-9][a-z0-9!#$&^_.+-]*')",
                                    "return request.resource.contentType.lower().matches('image/[a-z0-9][a-z0-9!#$&^_.+-]*')\n          && request.resource.size <= 5 * 1024 * 1024")],
                    expected: []),
        PlantedEdit(name: "an extracted function and a renamed variable", file: "storage.rules",
                    replacements: [("match /profile_pictures/{userId}/{fileName} {", "match /profile_pictures/{owner}/{fileName} {\n      function mine() { return isOwner(owner); }"),
                                   ("allow create, update: if isOwner(userId) && isAcceptablePicture();", "allow create, update: if mine() && isAcceptablePicture();"),
                                   ("allow delete: if isOwner(userId);", "allow delete: if mine();")],
                    expected: []),
    ]

    @Test("each planted widening is found, at the granting rule, with a witness that replays", arguments: widenings)
    func widening(_ edit: PlantedEdit) throws {
        let old = try AppRules.text(edit.file)
        let new = try AppRules.edit(old, edit.replacements)
        let diff = try diffRules(old, new, oldName: "rules/\(edit.file)", newName: "edited/\(edit.file)", timeout: 60)
        #expect(diff.verdict == .wider, "\(diff.summary)")
        for (suffix, method) in edit.expected {
            let change = try #require(diff.change(suffix, method), "\(suffix) \(method)")
            #expect(change.verdict == .wider, "\(method) \(suffix): \(change.verdict) \(change.reason ?? "")")
            #expect(change.newlyAllowed != nil)
            #expect(change.location?.file == "edited/\(edit.file)")
        }
        #expect(diff.changes.count == edit.expected.count, "\(diff.summary)")
    }

    /// The profile's `create` and `update` hold `getAfter()` of a claim at the display name's
    /// uninterpreted `lower()` (whose axiom must stay where the call is encoded, or Z3 runs out of
    /// resources), a diff's key set and `split()` of the picture URL. Opening either to any
    /// signed-in user is wider, and the other direction (no request is newly denied) is proved
    /// too: both files see the same `split()`.
    @Test("opening the profile's create or update to any signed-in user is decided both ways: wider, nothing newly denied",
          arguments: [RequestMethod.create, .update])
    func profileWritesDecided(_ method: RequestMethod) throws {
        let old = try AppRules.text("firestore.rules")
        let new = try AppRules.edit(old, [("allow \(method.rawValue): if isOwner(userId)", "allow \(method.rawValue): if isSignedIn()")])
        // diffRules replays every witness on both files.
        let diff = try diffRules(old, new, oldName: "rules/firestore.rules", newName: "edited/firestore.rules", timeout: 120)
        let change = try #require(diff.change("/users/{userId}", method))
        #expect(change.verdict == .wider, "\(change.verdict) \(change.reason ?? "")")
        #expect(change.reason == nil, "an undecided direction: \(change.reason ?? "")")
        #expect(change.newlyAllowed != nil)
        #expect(change.newlyDenied == nil)
        #expect(diff.changes.count == 1, "\(diff.summary)")
    }

    @Test("each planted refactoring is proved equivalent", arguments: refactorings)
    func refactoring(_ edit: PlantedEdit) throws {
        let old = try AppRules.text(edit.file)
        let new = try AppRules.edit(old, edit.replacements)
        #expect(new != old)
        let diff = try diffRules(old, new, oldName: "rules/\(edit.file)", newName: "edited/\(edit.file)", timeout: 60)
        #expect(diff.verdict == .equivalent, "\(diff.summary)")
        #expect(diff.compared.count == (edit.file == "firestore.rules" ? 15 : 10))
    }
}
