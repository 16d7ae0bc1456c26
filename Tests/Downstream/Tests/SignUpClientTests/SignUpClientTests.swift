import Foundation
import RulesKit
import SignUpClient
import Testing

/// RulesKit's validated values as a downstream package sees them (issue 29 §1).
@Suite struct SignUpClientTests {
    @Test func aValidBodyDecodesToNormalizedValues() throws {
        let body = Data(#"{"email": "user@Bücher.example", "displayName": "John.Doe", "password": "correct horse battery"}"#.utf8)
        let signUp = try SignUp.decode(body)
        #expect(signUp.email.normalized == "user@bücher.example")
        #expect(signUp.email.asciiForm == "user@xn--bcher-kva.example")
        #expect(signUp.displayName.value == "John.Doe")
        #expect(signUp.displayName.key == "john.doe")
        #expect("\(signUp.password)" == "Password(redacted)")
    }

    @Test func anInvalidFieldIsDataCorruptedAtItsPathWithEveryViolation() throws {
        let body = Data(#"{"email": "user@example.com", "displayName": "John..Doe", "password": "pw"}"#.utf8)
        do {
            _ = try SignUp.decode(body)
            Issue.record("John..Doe decoded")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.map(\.stringValue) == ["displayName"])
            let invalid = try #require(context.underlyingError as? InvalidFieldValue)
            #expect(invalid.result.violations.map(\.code) == ["DN106"])
            #expect(invalid.result.violations.map(\.message) == ["Username cannot contain two periods in a row."])
        }
    }

    @Test func validatorsInUserInfoDecide() throws {
        let body = Data(#"{"email": "user@example.com", "displayName": "Chirp", "password": "pw"}"#.utf8)
        #expect(try SignUp.decode(body).displayName.key == "chirp")
        let reserving = FieldValidators(displayName: try DisplayNameValidator(appName: "Chirp"))
        #expect(throws: DecodingError.self) { try SignUp.decode(body, validators: reserving) }
    }

    @Test func aProfileEncodesTheNormalizedStrings() throws {
        let profile = Profile(email: try EmailAddress("User@EXAMPLE.com"), displayName: try DisplayName("Jane.Doe"))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(profile), as: UTF8.self)
        #expect(json == #"{"displayName":"Jane.Doe","email":"User@example.com"}"#)
        #expect(try JSONDecoder().decode(Profile.self, from: Data(json.utf8)) == profile)
    }
}
