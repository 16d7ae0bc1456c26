@testable import FuzzHarness
import PropertyBased
import RulesLanguage
import Testing

/// The app's rules (rules/*.rules) against ``ReferencePolicy``, their hand-written reference
/// (the `FuzzRulesEval` target's differential): on random fuzz bytes, and exhaustively over the
/// writes whose fields the data model checks, where random bytes rarely reach an allow.
@Suite struct AppRulesReferenceTests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String($0, radix: 16) }.joined(separator: " ") }

    @Test func theRulesAgreeWithTheReferenceOnFuzzBytes() async {
        var checked = 0
        await propertyCheck(count: 2000, input: Gen.uint8().array(of: 0...64)) { bytes in
            let findings = bytes.withUnsafeBytes { RulesEvalHarness.run($0) }
            checked += 1
            #expect(findings.isEmpty, "bytes [\(Self.hex(bytes))]: \(findings)")
        }
        #expect(checked == 2000)
    }

    /// A request of the reference's own shape, every other part fixed.
    static func request(_ method: RequestMethod, _ segments: [String], uid: String?,
                        resource: [String: FuzzRequest.Field]? = nil, data: [String: FuzzRequest.Field]?,
                        claims: Bool, service: ServiceKind = .firestore) -> FuzzRequest {
        var request = [UInt8]().withUnsafeBytes { buffer in
            var reader = ByteReader(buffer)
            return FuzzRequest(&reader)
        }
        request.service = service
        request.method = method
        request.segments = segments
        request.uid = uid
        request.resource = resource
        request.requestResource = data
        request.claimExists = claims
        return request
    }

    /// Decides every request with the engine and the reference; returns how many were allowed.
    static func compare(_ requests: [FuzzRequest], sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        var allowed = 0
        for request in requests {
            let program = try #require(request.service == .firestore ? RulesEvalHarness.firestore : RulesEvalHarness.storage)
            let decision = program.evaluate(request.request, lookup: request.database)
            #expect(decision.allowed == ReferencePolicy.allows(request), "\(request)", sourceLocation: sourceLocation)
            if decision.allowed { allowed += 1 }
        }
        return allowed
    }

    static let uids: [String?] = ["alice", "bob", nil]
    static let names: [FuzzRequest.Field] = [.text("alice"), .text("ALICE"), .text("john.doe"), .text("bob"), .text("a/b"), .number(7)]
    static let photos: [FuzzRequest.Field] = [.text(""), .text(FuzzRequest.photoURL("alice")), .text(FuzzRequest.photoURL("bob")),
                                              .text("a.png"), .number(0)]
    static let times: [FuzzRequest.Field] = [.time, .number(1_767_607_200)]

    @Test func profileCreates() throws {
        var requests: [FuzzRequest] = []
        for uid in Self.uids { for email in ["alice@example.com", "bob@example.com"] { for name in Self.names {
            for photo in Self.photos { for created in Self.times { for claims in [true, false] {
                let data: [String: FuzzRequest.Field] = ["email": .text(email), "displayName": name, "photoURL": photo, "createdAt": created]
                requests.append(Self.request(.create, ["users", "alice"], uid: uid, data: data, claims: claims))
            } } } } } }
        let allowed = try Self.compare(requests)
        #expect(requests.count == 720)
        #expect(allowed == 4, "\(allowed) of \(requests.count) profile creates allowed")
    }

    @Test func profileUpdates() throws {
        let before: [String: FuzzRequest.Field] = ["email": .text("alice@example.com"), "displayName": .text("Alice"),
                                                   "photoURL": .text(""), "createdAt": .number(5)]
        var requests: [FuzzRequest] = []
        for uid in Self.uids { for name in Self.names + [.text("Alice")] { for photo in Self.photos {
            for (email, created) in [("alice@example.com", FuzzRequest.Field.number(5)), ("bob@example.com", .number(5)),
                                     ("alice@example.com", .time)] { for claims in [true, false] {
                let data: [String: FuzzRequest.Field] = ["email": .text(email), "displayName": name, "photoURL": photo, "createdAt": created]
                requests.append(Self.request(.update, ["users", "alice"], uid: uid, resource: before, data: data, claims: claims))
            } } } } }
        let allowed = try Self.compare(requests)
        #expect(requests.count == 630)
        #expect(allowed == 8, "\(allowed) of \(requests.count) profile updates allowed")
    }

    @Test func claimCreates() throws {
        var requests: [FuzzRequest] = []
        for uid in Self.uids { for key in ["john.doe", "alice", "admin", "JOHN.DOE"] { for name in Self.names + [.text("admin"), .text("John.Doe")] {
            for holder in ["alice", "bob"] { for created in Self.times {
                let data: [String: FuzzRequest.Field] = ["userId": .text(holder), "displayName": name, "createdAt": created]
                requests.append(Self.request(.create, ["displayNames", key], uid: uid, data: data, claims: false))
            } } } } }
        let allowed = try Self.compare(requests)
        #expect(requests.count == 384)
        #expect(allowed == 8, "\(allowed) of \(requests.count) claim creates allowed")
    }

    @Test func pictureUploads() throws {
        var requests: [FuzzRequest] = []
        for uid in Self.uids { for size in [0, 5 * 1024 * 1024 - 1, 5 * 1024 * 1024, 5 * 1024 * 1024 + 1] {
            for type in ["image/png", "IMAGE/PNG", "image/", "image/svg+xml", "Image/SVG+XML", "image/png; q=1", "text/plain", "image/.png"] {
                let data: [String: FuzzRequest.Field] = ["size": .number(Int64(size)), "contentType": .text(type)]
                requests.append(Self.request(.create, ["profile_pictures", "alice", "a.png"], uid: uid, data: data, claims: false, service: .storage))
            } } }
        let allowed = try Self.compare(requests)
        #expect(requests.count == 96)
        #expect(allowed == 6, "\(allowed) of \(requests.count) uploads allowed")
    }
}
