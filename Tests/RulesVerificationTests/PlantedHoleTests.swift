import Foundation
import RulesCases
import RulesLanguage
@testable import RulesVerification
import Testing

/// One bug planted in the app's rules, and the property that must catch it.
struct PlantedHole: CustomTestStringConvertible, Sendable {
    var name: String
    var rules: String
    var props: String
    var replace: String
    var with: String
    var property: String
    var testDescription: String { name }
}

@Suite("planted holes: each mutation makes its property violated, with a witness that replays")
struct PlantedHoleTests {
    static let holes: [PlantedHole] = [
        PlantedHole(name: "drop the uid check on profile delete", rules: "firestore-app.rules", props: "firestore-app.props.json",
                    replace: "allow delete: if isOwner(userId);", with: "allow delete: if isSignedIn();",
                    property: "only the owner creates, updates or deletes a profile"),
        PlantedHole(name: "`||` for `&&` in the claim create rule", rules: "firestore-app.rules", props: "firestore-app.props.json",
                    replace: "allow create: if isSignedIn()\n          &&", with: "allow create: if isSignedIn()\n          ||",
                    property: "a claim names the user who makes it"),
        PlantedHole(name: "an update that lets email change", rules: "firestore-app.rules", props: "firestore-app.props.json",
                    replace: ".affectedKeys().hasAny(['createdAt', 'email'])", with: ".affectedKeys().hasAny(['createdAt'])",
                    property: "email never changes"),
        PlantedHole(name: "claims become editable by their holder", rules: "firestore-app.rules", props: "firestore-app.props.json",
                    replace: "allow delete: if isSignedIn() && resource.data.userId == request.auth.uid;",
                    with: "allow delete, update: if isSignedIn() && resource.data.userId == request.auth.uid;",
                    property: "claims are never updated"),
        PlantedHole(name: "the size check reads resource instead of request.resource", rules: "storage-app.rules", props: "storage-app.props.json",
                    replace: "return request.resource.size <= 5 * 1024 * 1024", with: "return resource.size <= 5 * 1024 * 1024",
                    property: "a picture is at most 5 MiB"),
        PlantedHole(name: "a {document=**} that grants reads to everyone signed in", rules: "firestore-app.rules", props: "firestore-app.props.json",
                    replace: "    match /users/{userId} {", with: "    match /{document=**} {\n      allow read: if isSignedIn();\n    }\n\n    match /users/{userId} {",
                    property: "only the owner reads a profile"),
        PlantedHole(name: "a {document=**} that grants everything to everyone signed in", rules: "firestore-app.rules", props: "firestore-app.props.json",
                    replace: "    match /users/{userId} {", with: "    match /{document=**} {\n      allow read, write: if isSignedIn();\n    }\n\n    match /users/{userId} {",
                    property: "nothing outside profiles and claims is read or written"),
        PlantedHole(name: "a {document=**} below a profile that its owner's friends may read", rules: "firestore-app.rules", props: "firestore-app.props.json",
                    replace: "    match /users/{userId} {", with: "    match /users/{userId} {\n      match /{document=**} {\n        allow get: if isSignedIn();\n      }\n",
                    property: "nothing below a profile or a claim is read or written"),
        PlantedHole(name: "a Storage {path=**} that lets anyone signed in write anywhere", rules: "storage-app.rules", props: "storage-app.props.json",
                    replace: "    match /profile_pictures/{userId}/{fileName} {", with: "    match /{path=**} {\n      allow write: if request.auth != null;\n    }\n\n    match /profile_pictures/{userId}/{fileName} {",
                    property: "nothing outside profile_pictures is written"),
        PlantedHole(name: "an off-by-one name length limit", rules: "firestore-app.rules", props: "firestore-app.props.json",
                    replace: "&& name.size() <= 30", with: "&& name.size() <= 31",
                    property: "every claim's name passes the display-name format rule"),
        PlantedHole(name: "getAfter() on the wrong path (the name as typed, not its key)", rules: "firestore-app.rules", props: "firestore-app.props.json",
                    replace: "documents/displayNames/$(name.lower());", with: "documents/displayNames/$(name);",
                    property: "a new profile's displayName is a name its owner holds"),
        PlantedHole(name: "an off-by-one picture size limit", rules: "storage-app.rules", props: "storage-app.props.json",
                    replace: "request.resource.size <= 5 * 1024 * 1024", with: "request.resource.size <= 5 * 1024 * 1024 + 1",
                    property: "a picture is at most 5 MiB"),
        PlantedHole(name: "SVG no longer refused", rules: "storage-app.rules", props: "storage-app.props.json",
                    replace: "&& request.resource.contentType.lower() != 'image/svg+xml'", with: "",
                    property: "a picture is an image, never SVG"),
    ]

    /// The solver's resource limit decides (the largest query here takes 3,349,938 units, about
    /// 6 s of one core); the time is only a safety net, far above what a loaded machine needs.
    static let verifier = RulesVerifier(timeout: 600)

    @Test("the mutation is caught", arguments: PlantedHoleTests.holes)
    func caught(_ hole: PlantedHole) throws {
        let original = try fixtureText(hole.rules)
        #expect(original.contains(hole.replace), "the mutation no longer applies to \(hole.rules)")
        let program = try compile(original.replacingOccurrences(of: hole.replace, with: hole.with), name: hole.rules)
        let file = try PropertyFileLoader.load(path: fixtures.appendingPathComponent(hole.props).path)
        let property = try #require(file.properties.first { $0.name == hole.property })
        let result = Self.verifier.verify(property, in: file, program: program)
        #expect(result.verdict == .violated, "\(result.reason ?? "")")
        guard let witness = result.witness else {
            Issue.record("no witness for `\(hole.property)`")
            return
        }
        let replayed = try replayWitness(witness, service: file.service, program: program)
        #expect(replayed.actual == .allow)
        // The same property holds on the unmutated rules.
        let intact = Self.verifier.verify(property, in: file, program: try compile(original, name: hole.rules))
        #expect(intact.verdict == .holds, "\(intact.reason ?? "") \(intact.witness ?? "")")
    }
}
