import Diagnostics
import Foundation
import RulesLanguage
import RulesLinting
@testable import RulesVerification
import Testing

@Suite("lint --prove: RL8002 ownership warnings decided by the verifier")
struct OwnershipProofTests {
    static let rules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /profiles/{userId} {
              allow update: if request.auth != null
                  && resource.data.owner == request.auth.uid && resource.data.owner == userId;
            }
            match /notes/{userId}/items/{noteId} {
              allow create, delete: if request.auth != null;
            }
            match /{group=**}/shared/{ownerId} {
              allow write: if request.auth != null && request.auth.token.admin == true;
            }
          }
        }
        """

    func decided() throws -> (program: Program, holes: [OwnershipHole], diagnostics: [Diagnostic]) {
        let program = try compile(Self.rules)
        let holes = RulesLinter.ownershipHoles(program.file)
        let lint = RulesLinter.lint(program.file)
        let proved = OwnershipProver.prove(lint, holes: holes, program: program, rulesPath: "test.rules", verifier: RulesVerifier(timeout: 30))
        return (program, holes, proved)
    }

    @Test("the property: the block's whole path, the allow's write methods, the signed-in wildcard user")
    func property() throws {
        let (program, holes, _) = try decided()
        #expect(holes.map(\.wildcard) == ["userId", "userId", "ownerId"])
        let file = try OwnershipProver.property(for: holes[1], service: program.service, rulesPath: "test.rules")
        let property = file.properties[0]
        #expect(property.pathText == "/databases/{database}/documents/notes/{userId}/items/{noteId}")
        #expect(property.methods == [.create, .delete])
        #expect(property.kind == .onlyIf)
    }

    @Test("a warning the rules make safe another way becomes a proven note")
    func proven() throws {
        let (_, _, diagnostics) = try decided()
        let notes = diagnostics.filter { $0.code == RulesLanguageCodes.ownershipHole.id && $0.severity == .note }
        #expect(notes.count == 1)
        #expect(notes.first?.message.contains("proven: every update request to /databases/{database}/documents/profiles/{userId}") == true)
    }

    @Test("a real hole keeps its warning, with a witness that replays")
    func refuted() throws {
        let (program, _, diagnostics) = try decided()
        let hole = try #require(diagnostics.first { $0.message.contains("proven: the rules allow one not made by") })
        #expect(hole.severity == .warning)
        let help = try #require(hole.help)
        let witness = String(try #require(help.range(of: "{").map { help[$0.lowerBound...] }))
        #expect(try replayWitness(witness, service: .firestore, program: program).actual == .allow)
        #expect(witness.contains("/documents/notes/"))
    }

    @Test("a path that is not a property path keeps the warning and says why")
    func notStated() throws {
        let (_, _, diagnostics) = try decided()
        let hole = try #require(diagnostics.first { $0.message.contains("{ownerId}") })
        #expect(hole.severity == .warning)
        #expect(hole.help?.contains("not proven: the block's path cannot be stated as a property") == true, "\(hole.help ?? "")")
    }
}
