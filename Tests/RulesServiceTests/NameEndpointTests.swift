import Availability
import Foundation
import Hummingbird
import HummingbirdTesting
@testable import RulesService
import Testing

@Suite("/v1/names: availability and claims")
struct NameEndpointTests {
    @Test("availability: free, taken, reserved; an invalid name gets its DN errors and never reaches the store")
    func availability() async throws {
        let harness = try await ServiceHarness()
        try await harness.test { client in
            let free = try await client.send(.get, "/v1/names/John.Doe")
            #expect(free.status == .ok)
            #expect(free.text == #"{"available":true,"errors":[],"key":"john.doe","name":"John.Doe"}"#)
            _ = try await client.send(.post, "/v1/names/John.Doe/claim", user: "u1")
            let taken = try await client.send(.get, "/v1/names/john.doe")
            #expect(taken.object["available"] as? Bool == false)
            #expect((taken.object["errors"] as? [Any])?.isEmpty == true)
            let invalid = try await client.send(.get, "/v1/names/a..b")
            #expect(invalid.status == .ok)
            #expect(invalid.text == #"{"available":false,"errors":[{"code":"DN106","message":"Username cannot contain two periods in a row."}],"key":"a..b","name":"a..b"}"#)
            let encoded = try await client.send(.get, "/v1/names/bad%20name")
            #expect(encoded.object["name"] as? String == "bad name", "path parameters are percent-decoded")
        }
        #expect(harness.store.asked == ["John.Doe", "John.Doe", "john.doe"], "neither `a..b` nor `bad name` reached the store")
    }

    @Test("a claim acts for the authenticated user only; 409 AV1003 when taken; repeating it succeeds")
    func claim() async throws {
        let harness = try await ServiceHarness()
        try await harness.test { client in
            let claimed = try await client.send(.post, "/v1/names/John.Doe/claim", user: "u1")
            #expect(claimed.status == .ok)
            #expect(claimed.text == #"{"claimed":true,"key":"john.doe","name":"John.Doe","owner":"u1"}"#)
            let again = try await client.send(.post, "/v1/names/John.Doe/claim", user: "u1")
            #expect(again.status == .ok)
            let taken = try await client.send(.post, "/v1/names/john.doe/claim", user: "u2")
            #expect(taken.status == .conflict && taken.errorCode == "AV1003")
            #expect(taken.object["error"] != nil && taken.object.count == 1)
            // A body naming another user changes nothing: the token decides.
            let sneaky = try await client.post("/v1/names/Jane.Doe/claim", json: #"{"user": "u1", "owner": "u1"}"#, user: "u3")
            #expect(sneaky.object["owner"] as? String == "u3")
        }
        #expect(try await harness.store.base.owner(of: "jane.doe")?.owner == "u3")
    }

    @Test("401 without a token, with a malformed header, and with a token that names nobody")
    func unauthenticated() async throws {
        try await ServiceHarness().test { client in
            let none = try await client.send(.post, "/v1/names/John.Doe/claim")
            #expect(none.status == .unauthorized && none.errorCode == "API1101")
            let basic = try await client.execute(uri: "/v1/names/John.Doe/claim", method: .post, headers: [.authorization: "Basic dTE6cA=="])
            #expect(basic.status == .unauthorized && basic.errorCode == "API1101")
            let wrong = try await client.execute(uri: "/v1/names/John.Doe/claim", method: .delete, headers: [.authorization: "Bearer u1"])
            #expect(wrong.status == .unauthorized && wrong.errorCode == "API1102")
            let rename = try await client.post("/v1/names/rename", json: #"{"from": "a.b.c", "to": "d.e.f"}"#)
            #expect(rename.status == .unauthorized)
        }
    }

    @Test("only the holder releases: 403 AV1005 for another user, 409 AV1004 when nobody holds it")
    func release() async throws {
        let harness = try await ServiceHarness()
        try await harness.test { client in
            _ = try await client.send(.post, "/v1/names/John.Doe/claim", user: "u1")
            let other = try await client.send(.delete, "/v1/names/john.doe/claim", user: "u2")
            #expect(other.status == .forbidden && other.errorCode == "AV1005")
            let released = try await client.send(.delete, "/v1/names/john.doe/claim", user: "u1")
            #expect(released.status == .ok)
            #expect(released.text == #"{"claimed":false,"key":"john.doe","name":"John.Doe","owner":null}"#, "the name as it was held")
            let nobody = try await client.send(.delete, "/v1/names/john.doe/claim", user: "u1")
            #expect(nobody.status == .conflict && nobody.errorCode == "AV1004")
        }
        #expect(try await harness.store.base.owner(of: "john.doe") == nil)
    }

    @Test("rename is atomic: done, or refused with nothing changed")
    func rename() async throws {
        let harness = try await ServiceHarness()
        try await harness.test { client in
            _ = try await client.send(.post, "/v1/names/John.Doe/claim", user: "u1")
            _ = try await client.send(.post, "/v1/names/Taken.Name/claim", user: "u2")
            let refused = try await client.post("/v1/names/rename", json: #"{"from": "John.Doe", "to": "taken.name"}"#, user: "u1")
            #expect(refused.status == .conflict && refused.errorCode == "AV1003")
            let renamed = try await client.post("/v1/names/rename", json: #"{"from": "John.Doe", "to": "Jane.Doe", "user": "u2"}"#, user: "u1")
            #expect(renamed.status == .ok)
            #expect(renamed.text == #"{"claimed":true,"key":"jane.doe","name":"Jane.Doe","owner":"u1"}"#)
            let badBody = try await client.post("/v1/names/rename", json: #"{"from": "Jane.Doe"}"#, user: "u1")
            #expect(badBody.status == .badRequest && badBody.errorCode == "API1002")
            let invalid = try await client.post("/v1/names/rename", json: #"{"from": "Jane.Doe", "to": "x..y"}"#, user: "u1")
            #expect(invalid.status == .unprocessableContent && invalid.errorCode == "AV1001")
        }
        let base = harness.store.base
        #expect(try await base.owner(of: "john.doe") == nil)
        #expect(try await base.owner(of: "jane.doe")?.owner == "u1")
        #expect(try await base.owner(of: "taken.name")?.owner == "u2")
    }

    @Test("422 for an invalid or reserved name, which never reaches the store")
    func invalidClaim() async throws {
        let harness = try await ServiceHarness()
        try await harness.test { client in
            let invalid = try await client.send(.post, "/v1/names/x..y/claim", user: "u1")
            #expect(invalid.status == .unprocessableContent && invalid.errorCode == "AV1001")
            #expect(invalid.text.contains("two periods"), "the message says why")
            let reserved = try await client.send(.post, "/v1/names/admin/claim", user: "u1")
            #expect(reserved.status == .unprocessableContent && reserved.errorCode == "AV1002")
        }
        #expect(try await harness.store.base.owner(of: "x..y") == nil)
    }

    @Test("429 with Retry-After once a client's lookups are over the rate; the bucket refills with time")
    func rateLimit() async throws {
        let harness = try await ServiceHarness(lookupsPerSecond: 2)
        try await harness.test { client in
            #expect(try await client.send(.get, "/v1/names/John.Doe").status == .ok)
            #expect(try await client.send(.get, "/v1/names/Jane.Doe").status == .ok)
            let limited = try await client.send(.get, "/v1/names/Joe.Doe")
            #expect(limited.status == .tooManyRequests && limited.errorCode == "API1501")
            #expect(limited.headers[.retryAfter] == "1")
            harness.clock.advance(by: 0.5)
            #expect(try await client.send(.get, "/v1/names/Joe.Doe").status == .ok)
            #expect(try await client.send(.get, "/v1/names/Joe.Doe").status == .tooManyRequests)
            // Claims share the bucket (ClientIdentityTests): limited too.
            #expect(try await client.send(.post, "/v1/names/Joe.Doe/claim", user: "u1").status == .tooManyRequests)
        }
        #expect(harness.store.asked.filter { $0 == "Joe.Doe" }.count == 1, "one lookup; the limited requests never reached the store")
    }

    @Test("503 with the store's code when the store is down; readyz says so too")
    func storeDown() async throws {
        let harness = try await ServiceHarness(failure: ClaimStoreError(.unreachable, "connection refused"))
        try await harness.test { client in
            let lookup = try await client.send(.get, "/v1/names/John.Doe")
            #expect(lookup.status == .serviceUnavailable && lookup.errorCode == "AV3001")
            #expect(lookup.headers[.retryAfter] == "1")
            let claim = try await client.send(.post, "/v1/names/John.Doe/claim", user: "u1")
            #expect(claim.status == .serviceUnavailable && claim.errorCode == "AV3001")
            let ready = try await client.send(.get, "/readyz")
            #expect(ready.status == .serviceUnavailable && ready.errorCode == "AV3001")
            let alive = try await client.send(.get, "/healthz")
            #expect(alive.status == .ok)
        }
    }
}
