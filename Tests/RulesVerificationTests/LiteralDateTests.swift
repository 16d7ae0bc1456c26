import Testing
@testable import RulesVerification

/// `timestamp.date(y, m, d)` of literal arguments is encoded as the evaluator decides it: a
/// date that exists is that day; one that does not (30 February) is an error, so the request is
/// denied.
@Suite struct LiteralDateTests {
    static func rules(_ condition: String) -> String {
        """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /docs/{id} { allow get: if \(condition); }
          }
        }
        """
    }

    static let possibleGet = """
        {"name": "a doc can be read", "path": "/databases/{database}/documents/docs/{id}", "methods": ["get"], "kind": "possible"}
        """

    @Test("a date that does not exist denies every request: `possible` is proved violated", arguments: [
        "timestamp.date(2023, 2, 30) < request.time",
        "timestamp.date(2023, 2, 29) < request.time",
        "timestamp.date(2023, 4, 31) < request.time",
        "timestamp.date(2023, 1, 0) < request.time",
    ])
    func impossibleDate(_ condition: String) throws {
        let result = try verifyOne(Self.rules(condition), Self.possibleGet)
        #expect(result.verdict == .violated, "\(result.reason ?? "")")
    }

    @Test("a date that exists (29 February of a leap year) allows a later request, with a witness", arguments: [
        "timestamp.date(2024, 2, 29) < request.time",
        "timestamp.date(2023, 12, 31) < request.time",
    ])
    func existingDate(_ condition: String) throws {
        let result = try verifyOne(Self.rules(condition), Self.possibleGet)
        #expect(result.verdict == .holds, "\(result.reason ?? "")")
        #expect(result.witness != nil)
    }
}
