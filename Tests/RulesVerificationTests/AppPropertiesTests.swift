import Foundation
import RulesCases
import RulesLanguage
import RulesTestSupport
@testable import RulesVerification
import Testing

@Suite("the app's properties on rules written to the app's data model")
struct AppPropertiesTests {
    static let verifier = RulesVerifier(timeout: 60)

    @Test("every Firestore property holds, and every possible flow has a witness that replays")
    func firestore() throws {
        let program = try compile(try fixtureText("firestore-app.rules"), name: "firestore-app.rules")
        let file = try PropertyFileLoader.load(path: fixtures.appendingPathComponent("firestore-app.props.json").path)
        #expect(file.properties.count == 23)
        var possibles = 0
        for property in file.properties {
            let result = Self.verifier.verify(property, in: file, program: program)
            #expect(result.verdict == .holds, "\(property.name): \(result.verdict) \(result.reason ?? "") \(result.witness ?? "")")
            if property.kind == .possible, let witness = result.witness {
                possibles += 1
                #expect(try replayWitness(witness, service: .firestore, program: program).actual == .allow, "\(property.name)")
            }
        }
        #expect(possibles == 6)
    }

    @Test("every Storage property holds")
    func storage() throws {
        let program = try compile(try fixtureText("storage-app.rules"), name: "storage-app.rules")
        let file = try PropertyFileLoader.load(path: fixtures.appendingPathComponent("storage-app.props.json").path)
        #expect(file.properties.count == 8)
        var possibles = 0
        for property in file.properties {
            let result = Self.verifier.verify(property, in: file, program: program)
            #expect(result.verdict == .holds, "\(property.name): \(result.verdict) \(result.reason ?? "") \(result.witness ?? "")")
            if property.kind == .possible, let witness = result.witness {
                possibles += 1
                #expect(try replayWitness(witness, service: .storage, program: program).actual == .allow, "\(property.name)")
            }
        }
        #expect(possibles == 2)
    }

    @Test("the shipped property files name the shipped rules and load")
    func shippedFiles() throws {
        let firestore = try PropertyFileLoader.load(path: packageRoot.appendingPathComponent("rules/properties/firestore.props.json").path)
        let storage = try PropertyFileLoader.load(path: packageRoot.appendingPathComponent("rules/properties/storage.props.json").path)
        #expect(firestore.rulesPath.hasSuffix("rules/firestore.rules"))
        #expect(storage.rulesPath.hasSuffix("rules/storage.rules"))
        #expect(firestore.properties.map(\.name) == (try PropertyFileLoader.load(path: fixtures.appendingPathComponent("firestore-app.props.json").path)).properties.map(\.name))
    }
}
