import DatabaseRules
import Foundation
import Hummingbird
import RulesCases
import RulesLanguage

/// `POST /v1/rules/{ruleset}/decide`: one case object, exactly as in case files, decided by the
/// loaded ruleset and explained.
struct RulesRoutes: Sendable {
    let ruleSets: RuleSets
    let maxBodyBytes: Int

    func add(to routes: RouteRegistrar) {
        routes.on(.post, "v1/rules/:ruleset/decide") { request, context in try await decide(request, context) }
    }

    /// `{"decision": "allow" | "deny", "explanation": …}`.
    struct DecisionResponse: Encodable {
        var decision: String
        var explanation: String
    }

    private func decide(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let name = context.parameters.decoded("ruleset")
        guard let rules = ruleSets.byName[name] else {
            throw ServiceError.unknownRuleset(name, known: ruleSets.byName.keys.sorted())
        }
        let buffer = try await RequestBodyReader.jsonBytes(of: request, limit: maxBodyBytes)
        guard let text = String(validating: buffer.readableBytesView, as: UTF8.self),
              (try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView), options: [.fragmentsAllowed])) != nil else {
            throw ServiceError.malformedJSON()
        }
        let allowed: Bool, explanation: String
        switch rules {
        case .security(let program):
            let service: CaseService = program.service == .firestore ? .firestore : .storage
            let loaded: (testCase: RulesTestCase, mode: LookupMode)
            do {
                loaded = try CaseFileLoader.decodeRequest(text, path: "request.json", service: service)
            } catch {
                throw ServiceError.invalidCase(error.description)
            }
            let decision = program.evaluate(loaded.testCase.request(service: service),
                                            lookup: CaseDocumentLookup(testCase: loaded.testCase, mode: loaded.mode))
            (allowed, explanation) = (decision.allowed, decision.explanation(in: program.source))
        case .database(let program):
            let testCase: DatabaseTestCase
            let root: DataNode?
            do {
                testCase = try DatabaseCaseFileLoader.decodeRequest(text, path: "request.json")
                root = try DatabaseTestCase.root(testCase.data ?? .null, time: testCase.time)
            } catch let error as CaseFileError {
                throw ServiceError.invalidCase(error.description)
            } catch let error as DataError {
                throw ServiceError.invalidCase("invalid `data`: \(error.message)")
            }
            let decision = program.evaluate(testCase.request, data: root)
            (allowed, explanation) = (decision.allowed, decision.explanation(in: program.source))
        }
        return try JSONResponse.make(DecisionResponse(decision: allowed ? "allow" : "deny", explanation: explanation))
    }
}
