import BatchValidation
import FieldCheckers
import Foundation
import Hummingbird
import HummingbirdTesting
@testable import RulesService
import Testing

@Suite("POST /v1/{field}/validate and validate-batch")
struct FieldEndpointTests {
    @Test("each field answers the CLI's record without `record`")
    func validateEachField() async throws {
        try await ServiceHarness().test { client in
            let name = try await client.post("/v1/display-name/validate", json: #"{"value": "John.Doe"}"#)
            #expect(name.status == .ok)
            #expect(name.headers[.contentType] == "application/json")
            #expect(name.text == #"{"valid": true, "errors": [], "normalized": "John.Doe", "key": "john.doe"}"#)
            let bad = try await client.post("/v1/display-name/validate", json: #"{"value": "John..Doe"}"#)
            #expect(bad.text == #"{"valid": false, "errors": [{"code": "DN106", "rule": "display-name.consecutive-periods", "message": "Username cannot contain two periods in a row."}]}"#)
            let email = try await client.post("/v1/email/validate", json: #"{"value": "A@Example.COM", "unknown": 1}"#)
            #expect(email.text == #"{"valid": true, "errors": [], "normalized": "A@example.com", "mailboxKey": "A@example.com"}"#)
            let reserved = try await client.post("/v1/display-name/validate", json: #"{"value": "chirp"}"#)
            #expect(reserved.object["valid"] as? Bool == false, "the server's --app-name is reserved")
        }
    }

    @Test("a valid email's answer and batch row carry its mailbox key; aliases share it, `normalized` stays as typed")
    func emailMailboxKey() async throws {
        try await ServiceHarness().test { client in
            let tagged = try await client.post("/v1/email/validate", json: #"{"value": "Jane.Doe+promo@gmail.com"}"#)
            #expect(tagged.status == .ok)
            #expect(tagged.text == #"{"valid": true, "errors": [], "normalized": "Jane.Doe+promo@gmail.com", "mailboxKey": "janedoe@gmail.com"}"#)
            let alias = try await client.post("/v1/email/validate", json: #"{"value": "janedoe@googlemail.com"}"#)
            #expect(alias.text == #"{"valid": true, "errors": [], "normalized": "janedoe@googlemail.com", "mailboxKey": "janedoe@gmail.com"}"#)
            let invalid = try await client.post("/v1/email/validate", json: #"{"value": "jane..doe@gmail.com"}"#)
            #expect(invalid.object["valid"] as? Bool == false && invalid.object["mailboxKey"] == nil)
            let rows = try await client.post("/v1/email/validate-batch", json: """
                {"value": "Jane.Doe+promo@gmail.com"}
                {"value": "jane..doe@gmail.com"}
                {"value": "janedoe@googlemail.com"}
                """, contentType: "application/x-ndjson")
            let keys = try rows.text.split(separator: "\n").map { line in
                try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])["mailboxKey"] as? String
            }
            #expect(keys == ["janedoe@gmail.com", nil, "janedoe@gmail.com"])
            for field in ["password", "display-name"] {
                let answer = try await client.post("/v1/\(field)/validate", json: #"{"value": "janedoe@gmail.com"}"#)
                #expect(answer.object["mailboxKey"] == nil, "\(field)")
            }
        }
    }

    @Test("a password is never echoed: not in the answer, not in any log line; context and confirmation count")
    func passwordNeverEchoed() async throws {
        let harness = try await ServiceHarness()
        let password = "jane.doe-Secret-Passphrase-42"
        try await harness.test { client in
            let answer = try await client.post("/v1/password/validate", json: """
                {"value": "\(password)", "context": {"username": "jane.doe", "email": "jane@example.com"}, "confirmation": "\(password)x"}
                """)
            #expect(answer.status == .ok)
            let codes = (answer.object["errors"] as? [[String: Any]])?.compactMap { $0["code"] as? String } ?? []
            #expect(codes.contains("PW108"), "the confirmation differs")
            #expect(answer.object["normalized"] == nil)
            #expect(!answer.text.contains(password))
            let rows = try await client.post("/v1/password/validate-batch", json: """
                {"value": "\(password)"}
                {"value": "\(password)", "context": {"username": "jane.doe"}}
                """, contentType: "application/x-ndjson")
            #expect(!rows.text.contains(password))
            #expect(rows.text.split(separator: "\n").count == 2)
            let wrongType = try await client.post("/v1/password/validate", json: #"{"value": "\#(password)", "confirmation": 5}"#)
            #expect(wrongType.status == .badRequest)
            #expect(!wrongType.text.contains(password))
        }
        #expect(harness.logs.all.contains("/v1/password/validate"), "the service logged the requests")
        #expect(!harness.logs.all.contains(password))
    }

    @Test("a password with \"strength\": true gets its estimate, never the password; other fields and false get none")
    func strengthWhenAsked() async throws {
        let harness = try await ServiceHarness()
        let password = "Tr0ub4dor&3-jane.doe"
        try await harness.test { client in
            let asked = try await client.post("/v1/password/validate", json: """
                {"value": "\(password)", "context": {"username": "jane.doe", "userInputs": ["troubadour"]}, "strength": true}
                """)
            #expect(asked.status == .ok)
            let strength = try #require(asked.object["strength"] as? [String: Any])
            #expect(Set(strength.keys) == ["score", "guessesLog10", "warning", "suggestions"])
            #expect((strength["score"] as? Int).map { (0...4).contains($0) } == true)
            #expect((strength["guessesLog10"] as? Double).map { $0 > 0 } == true)
            #expect(strength["suggestions"] is [Any])
            // Bools first, so a failure cannot print the password.
            let echoed = asked.text.contains(password) || asked.text.contains("troubadour")
            #expect(!echoed, "the answer holds the password or its user input")
            // The same password as the CLI estimates it: the username and the user input rank as
            // words of the user dictionary.
            let weak = try await client.post("/v1/password/validate", json: #"{"value": "password", "strength": true}"#)
            let weakStrength = try #require(weak.object["strength"] as? [String: Any])
            #expect(weakStrength["score"] as? Int == 0)
            #expect((weakStrength["warning"] as? [String: Any])?["code"] as? String == "PW201")
            for body in [#"{"value": "password"}"#, #"{"value": "password", "strength": false}"#, #"{"value": "password", "strength": null}"#] {
                let plain = try await client.post("/v1/password/validate", json: body)
                #expect(plain.status == .ok && plain.object["strength"] == nil)
            }
            let email = try await client.post("/v1/email/validate", json: #"{"value": "a@example.com", "strength": true}"#)
            #expect(email.status == .ok && email.object["strength"] == nil, "only passwords are estimated")
            let wrongType = try await client.post("/v1/password/validate", json: #"{"value": "\#(password)", "strength": "yes"}"#)
            let echoedInError = wrongType.text.contains(password)
            #expect(wrongType.status == .badRequest && wrongType.errorCode == "API1002" && !echoedInError)
            let badInputs = try await client.post("/v1/password/validate", json: #"{"value": "x", "context": {"userInputs": "x"}, "strength": true}"#)
            #expect(badInputs.status == .badRequest && badInputs.errorCode == "API1002")
        }
        let logged = harness.logs.all.contains(password)
        #expect(!logged, "a log line holds the password")
    }

    @Test("email and display names take no context, as in the CLI: `context` and `confirmation` are ignored, whatever their type")
    func onlyPasswordsTakeAContext() async throws {
        // `appName` does not reserve a display name per request (the CLI has no such flag), and no
        // member beside `value` is even type-checked (the CLI reads only `--field value`).
        let body = """
            {"value": "John.Doe", "context": {"appName": 5}, "confirmation": 7}
            {"value": "Chirp2", "context": {"appName": "Chirp2"}}
            {"value": "a..b", "context": "x"}
            """
        let checker = try FieldCheckers.make(.displayName, rulesDirectory: nil, appName: "Chirp")
        let expected = try StreamedBatch(configuration: BatchConfiguration(
            input: .jsonl, fields: FieldSelection(value: .name("value")), writer: FieldKind.displayName.jsonlWriter), checker: checker)
        let cliRows = String(decoding: Array(body.utf8).withUnsafeBytes { expected.push($0) } + expected.finish(), as: UTF8.self)
        #expect(cliRows.split(separator: "\n").count == 3 && !cliRows.contains("input."))
        try await ServiceHarness().test { client in
            let rows = try await client.post("/v1/display-name/validate-batch", json: body, contentType: "application/x-ndjson")
            #expect(rows.text == cliRows)
            for (field, value) in [("email", "A@Example.COM"), ("display-name", "John.Doe")] {
                let plain = try await client.post("/v1/\(field)/validate", json: #"{"value": "\#(value)"}"#)
                let withContext = try await client.post("/v1/\(field)/validate", json: #"{"value": "\#(value)", "context": 5, "confirmation": [1]}"#)
                #expect(plain.status == .ok && withContext.status == .ok, "\(field)")
                #expect(withContext.text == plain.text, "\(field)")
            }
            let appName = try await client.post("/v1/display-name/validate", json: #"{"value": "Chirp2", "context": {"appName": "Chirp2"}}"#)
            #expect(appName.object["valid"] as? Bool == true)
            let password = try await client.post("/v1/password/validate", json: #"{"value": "x", "context": 5}"#)
            #expect(password.status == .badRequest && password.errorCode == "API1002", "a password's context is still checked")
        }
    }

    @Test("a batch streams exactly the CLI's rows, one per line, damaged lines with their input.* codes")
    func batchRowsAreTheCLIRows() async throws {
        let body = "{\"value\": \"John.Doe\"}\n{\"value\": \"a..b\"}\nnot json\n\n{\"name\": \"x\"}\n{\"value\": \"\(String(repeating: "x", count: 200))\"}\r\n{\"value\": \"Jane_Doe\"}"
        var limits = ServiceLimits()
        limits.maxLineBytes = 100
        // The CLI's rows for the same bytes: `validate display-name --input jsonl --field value --format jsonl`.
        let checker = try FieldCheckers.make(.displayName, rulesDirectory: nil, appName: "Chirp")
        let expected = try StreamedBatch(configuration: BatchConfiguration(
            input: .jsonl, fields: FieldSelection(value: .name("value")), writer: FieldKind.displayName.jsonlWriter, maxRecordBytes: 100),
                                         checker: checker)
        let cliRows = String(decoding: Array(body.utf8).withUnsafeBytes { expected.push($0) } + expected.finish(), as: UTF8.self)
        try await ServiceHarness(limits: limits).test { client in
            let response = try await client.post("/v1/display-name/validate-batch", json: body, contentType: "application/x-ndjson")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/x-ndjson")
            #expect(response.text == cliRows)
            let codes = response.text.split(separator: "\n").map { line in
                ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]).flatMap {
                    (($0["errors"] as? [[String: Any]])?.first?["code"] as? String) ?? "valid"
                } ?? "?"
            }
            #expect(codes == ["valid", "DN106", "input.malformed-json", "input.empty", "input.missing-field", "input.too-long", "valid"])
        }
    }

    @Test("400 for malformed JSON and for the wrong shape, 404 for an unknown field, 413 over the body limit, 415 for a wrong content type")
    func errors() async throws {
        var limits = ServiceLimits()
        limits.maxBodyBytes = 64
        try await ServiceHarness(limits: limits).test { client in
            let malformed = try await client.post("/v1/email/validate", json: #"{"value": "#)
            #expect(malformed.status == .badRequest && malformed.errorCode == "API1001")
            let missing = try await client.post("/v1/email/validate", json: #"{"valu": "a@b.c"}"#)
            #expect(missing.status == .badRequest && missing.errorCode == "API1002")
            #expect(missing.text.contains("`value` is missing"))
            let unknown = try await client.post("/v1/phone/validate", json: #"{"value": "1"}"#)
            #expect(unknown.status == .notFound && unknown.errorCode == "API1201")
            let unknownBatch = try await client.post("/v1/phone/validate-batch", json: #"{"value": "1"}"#, contentType: "application/x-ndjson")
            #expect(unknownBatch.status == .notFound && unknownBatch.errorCode == "API1201")
            let large = try await client.post("/v1/email/validate", json: #"{"value": "\#(String(repeating: "a", count: 100))@example.com"}"#)
            #expect(large.status == .contentTooLarge && large.errorCode == "API1301")
            let text = try await client.post("/v1/email/validate", json: #"{"value": "a@b.c"}"#, contentType: "text/plain")
            #expect(text.status == .unsupportedMediaType && text.errorCode == "API1401")
            let noType = try await client.execute(uri: "/v1/email/validate", method: .post, body: ByteBuffer(string: #"{"value": "a@b.c"}"#))
            #expect(noType.status == .unsupportedMediaType)
            let batchAsJSON = try await client.post("/v1/email/validate-batch", json: #"{"value": "a@b.c"}"#)
            #expect(batchAsJSON.status == .unsupportedMediaType && batchAsJSON.errorCode == "API1401")
            #expect(Set(malformed.object.keys) == ["error"])
            #expect(Set((malformed.object["error"] as? [String: Any])?.keys.map { $0 } ?? []) == ["code", "message"])
        }
    }

    @Test("429 with Retry-After when every batch stream slot is taken; the slot comes back afterwards")
    func streamLimit() async throws {
        var limits = ServiceLimits()
        limits.maxBatchStreams = 1
        let routes = try FieldRoutes(appName: nil, limits: limits, timeoutClock: ContinuousClock())
        let router = Router(context: ServiceRequestContext.self)
        router.add(middleware: ErrorMiddleware())
        routes.add(to: RouteRegistrar(router: router))
        let app = Application(router: router)
        let body = "{\"value\": \"a@b.c\"}\n"
        var held = routes.streams.take()
        #expect(held != nil && routes.streams.take() == nil)
        try await app.test(.router) { client in
            let refused = try await client.post("/v1/email/validate-batch", json: body, contentType: "application/x-ndjson")
            #expect(refused.status == .tooManyRequests && refused.errorCode == "API1502")
            #expect(refused.headers[.retryAfter] == "1")
        }
        held = nil
        #expect(routes.streams.count == 0)
        try await app.test(.router) { client in
            let served = try await client.post("/v1/email/validate-batch", json: body, contentType: "application/x-ndjson")
            #expect(served.status == .ok)
            #expect(served.text.hasPrefix("{\"record\": 1, \"valid\": true"))
        }
        #expect(routes.streams.count == 0, "the served stream gave its slot back")
    }
}
