import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import RulesKit
import RulesKitHummingbird
import Testing

/// RulesKitHummingbird in a small app, through HummingbirdTesting (issue 29 §2).
@Suite struct ValidatedRequestTests {
    struct SignUp: Decodable {
        var email: EmailAddress
        var displayName: DisplayName
        var password: Password
        var team: [Member]?
        struct Member: Decodable { var displayName: DisplayName }
    }

    /// A context whose decoder validates: `request.decode(as:context:)` answers 422.
    struct AppContext: RequestContext {
        var coreContext: CoreRequestContextStorage
        var requestDecoder: ValidatingRequestDecoder { ValidatingRequestDecoder() }
        var maxUploadSize: Int { 4096 }
        init(source: Source) { coreContext = .init(source: source) }
    }

    /// `/signup` decodes with the context's decoder; `/reserved` with `decodeValidated` and a
    /// validator that reserves the app name.
    static func app() throws -> some ApplicationProtocol {
        let router = Router(context: AppContext.self)
        router.post("/signup") { request, context -> String in
            let signUp = try await request.decode(as: SignUp.self, context: context)
            return "\(signUp.email.normalized) \(signUp.displayName.key) \(signUp.team?.count ?? 0)"
        }
        let chirp = FieldValidators(displayName: try DisplayNameValidator(appName: "Chirp"))
        router.post("/reserved") { request, context -> String in
            let signUp = try await request.decodeValidated(as: SignUp.self, context: context, validators: chirp)
            return signUp.displayName.key
        }
        return Application(router: router)
    }

    func post(_ client: some TestClientProtocol, _ path: String, _ json: String) async throws -> TestResponse {
        try await client.execute(uri: path, method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: json))
    }

    func problem(_ response: TestResponse) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(String(buffer: response.body).utf8)) as? [String: Any])
    }

    @Test func aValidBodyIsDecodedWithNormalizedValues() async throws {
        try await Self.app().test(.router) { client in
            let response = try await post(client, "/signup", #"{"email": "user@Bücher.example", "displayName": "John.Doe", "password": "pw"}"#)
            #expect(response.status == .ok)
            #expect(String(buffer: response.body) == "user@bücher.example john.doe 0")
        }
    }

    @Test func everyInvalidFieldIsListedInOne422Problem() async throws {
        let secret = "hunter2-\(UUID().uuidString)"
        let body = """
            {"email": "no-at-sign.example", "displayName": "x..y", "password": "\(secret)",
             "team": [{"displayName": "ok.name"}, {"displayName": "a..b"}]}
            """
        // What the validators say about each bad value: the oracle for the entries.
        let email = #expect(throws: InvalidFieldValue.self) { try EmailAddress("no-at-sign.example") }
        let name = #expect(throws: InvalidFieldValue.self) { try DisplayName("x..y") }
        let member = #expect(throws: InvalidFieldValue.self) { try DisplayName("a..b") }
        let expected = [("/email", email), ("/displayName", name), ("/team/1/displayName", member)].flatMap { pointer, error in
            (error?.result.violations ?? []).map { [pointer, $0.code, $0.message] }
        }
        #expect(expected.count >= 3)
        try await Self.app().test(.router) { client in
            let response = try await post(client, "/signup", body)
            #expect(response.status == .unprocessableContent)
            #expect(response.headers[.contentType] == "application/problem+json")
            let text = String(buffer: response.body)
            let leaked = text.contains(secret)
            #expect(!leaked, "the problem never carries the password")
            #expect(!text.contains("no-at-sign"), "nor any other value")
            let document = try problem(response)
            #expect(document["status"] as? Int == 422)
            #expect(document["type"] as? String == "urn:ruleskit:problem:invalid-fields")
            #expect(document["title"] as? String == "The request has invalid fields.")
            #expect(document["detail"] as? String == "3 fields are invalid.")
            let errors = try #require(document["errors"] as? [[String: String]])
            #expect(errors.map { [$0["pointer"] ?? "", $0["code"] ?? "", $0["message"] ?? ""] } == expected)
        }
    }

    @Test func theValidatorsGivenDecide() async throws {
        try await Self.app().test(.router) { client in
            let body = #"{"email": "a@example.com", "displayName": "Chirp", "password": "pw"}"#
            #expect(try await post(client, "/signup", body).status == .ok, "the shipped packs reserve no app name")
            let refused = try await post(client, "/reserved", body)
            #expect(refused.status == .unprocessableContent)
            let errors = try #require(try problem(refused)["errors"] as? [[String: String]])
            #expect(errors.map { $0["pointer"] } == Array(repeating: "/displayName", count: errors.count))
            #expect(!errors.isEmpty)
        }
    }

    @Test func aBodyOfTheWrongShapeIsA400ProblemNamingTheMember() async throws {
        try await Self.app().test(.router) { client in
            let missing = try await post(client, "/signup", #"{"email": "a@example.com", "password": "pw"}"#)
            #expect(missing.status == .badRequest)
            #expect(missing.headers[.contentType] == "application/problem+json")
            let document = try problem(missing)
            #expect(document["detail"] as? String == "The request body has no `/displayName`.")
            #expect(document["status"] as? Int == 400)
            #expect(document["errors"] == nil)
            let wrongType = try await post(client, "/signup", #"{"email": "a@example.com", "displayName": 3, "password": "pw"}"#)
            #expect(try problem(wrongType)["detail"] as? String == "The request body has the wrong type at `/displayName`.")
            let notJSON = try await post(client, "/signup", "{")
            #expect(notJSON.status == .badRequest)
            #expect(try problem(notJSON)["detail"] as? String == "The request body is not valid JSON.")
        }
    }

    @Test func aBodyOverTheLimitIsA413Problem() async throws {
        try await Self.app().test(.router) { client in
            let large = #"{"email": "a@example.com", "displayName": "jane.doe", "password": ""# + String(repeating: "x", count: 5000) + #""}"#
            let response = try await post(client, "/signup", large)
            #expect(response.status == .contentTooLarge)
            #expect(try problem(response)["detail"] as? String == "The request body is larger than 4096 bytes.")
        }
    }
}

/// The problem document type and its media type.
@Suite struct ProblemDetailsTests {
    @Test(arguments: [
        ("application/problem+json", true),
        ("application/json, application/problem+json", true),
        ("text/html;q=0.9, Application/Problem+JSON ; q=0.1", true),
        ("application/problem+json;q=0", false),
        ("application/problem+json;q=0.0", false),
        ("application/json", false),
        ("*/*", false),
        ("application/problem+xml", false),
        ("", false),
    ])
    func acceptLists(_ accept: String, asks: Bool) {
        #expect(ProblemMediaType.isAccepted(by: accept) == asks)
    }

    @Test func noAcceptHeaderAsksForNothing() {
        #expect(!ProblemMediaType.isAccepted(by: nil))
    }

    @Test func extensionMembersJoinTheStandardOnes() throws {
        struct Members: Encodable, Sendable { var code = "X1"; var errors = ["a", "b"] }
        let json = ProblemDetails(type: "urn:x", title: "T.", status: 409, detail: "D.", extensions: Members()).json
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
        #expect(Set(object.keys) == ["type", "title", "status", "detail", "code", "errors"])
        #expect(object["status"] as? Int == 409 && object["code"] as? String == "X1" && object["errors"] as? [String] == ["a", "b"])
    }
}
