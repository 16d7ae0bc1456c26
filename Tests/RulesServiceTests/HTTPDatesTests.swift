import Foundation
@testable import RulesService
import Testing

@Suite("Date headers")
struct HTTPDatesTests {
    @Test("IMF-fixdate as RFC 9110 spells its example, and around a year and a day boundary")
    func imfFixdate() {
        #expect(HTTPDates.format(Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDates.format(Date(timeIntervalSince1970: 946_684_799)) == "Fri, 31 Dec 1999 23:59:59 GMT")
        #expect(HTTPDates.format(Date(timeIntervalSince1970: 946_684_800.9)) == "Sat, 01 Jan 2000 00:00:00 GMT")
    }

    @Test("every answer carries a Date header", .timeLimit(.minutes(2)))
    func answersCarryADate() async throws {
        let harness = try await ServiceHarness()
        try await harness.live { client in
            let answer = try await client.execute(uri: "/healthz", method: .get)
            let date = try #require(answer.headers[.date])
            #expect(date.hasSuffix(" GMT") && date.count == 29, "\(date)")
        }
    }
}
