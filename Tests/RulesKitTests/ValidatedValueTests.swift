import Foundation
import RulesKit
import Testing

/// `DisplayName`, `EmailAddress` and `Password`: built, decoded and encoded as issue 29 §1 says.
@Suite struct ValidatedValueTests {
    struct SignUp: Decodable {
        var email: EmailAddress
        var displayName: DisplayName
        var password: Password
    }

    struct Team: Codable, Equatable {
        struct Member: Codable, Equatable { var displayName: DisplayName }
        var members: [Member]
    }

    /// The error a decode threw, as the caller sees it.
    func decodingError<T: Decodable>(_ type: T.Type, _ json: String, decoder: JSONDecoder = JSONDecoder()) -> DecodingError? {
        do {
            _ = try decoder.decode(type, from: Data(json.utf8))
            return nil
        } catch {
            return error as? DecodingError
        }
    }

    // MARK: - DisplayName

    @Test func aValidDisplayNameKeepsItsValueAndKey() throws {
        let name = try DisplayName("John.Doe")
        #expect(name.value == "John.Doe")
        #expect(name.key == "john.doe")
        #expect("\(name)" == "John.Doe")
    }

    @Test func anInvalidDisplayNameThrowsEveryViolation() {
        #expect {
            try DisplayName("John..Doe")
        } throws: { error in
            let invalid = error as? InvalidFieldValue
            return invalid?.kind == .displayName && invalid?.result.codes == ["DN106"]
                && invalid?.description == "invalid display name: DN106 Username cannot contain two periods in a row."
        }
    }

    @Test func aDisplayNameUsesTheValidatorItIsGiven() throws {
        let chirp = try DisplayNameValidator(appName: "Chirp")
        #expect(try DisplayName("Chirp").key == "chirp", "the shipped packs reserve no app name")
        let refused = #expect(throws: InvalidFieldValue.self) { try DisplayName("Chirp", validator: chirp) }
        #expect(refused?.result.violations.map(\.rule).contains("display-name.reserved") == true, "\(String(describing: refused))")
    }

    // MARK: - EmailAddress

    @Test func anEmailAddressIsNormalizedWithItsASCIIForm() throws {
        let email = try EmailAddress("user@Bücher.example")
        #expect(email.normalized == "user@bücher.example")
        #expect(email.asciiForm == "user@xn--bcher-kva.example")
    }

    @Test func anInvalidEmailAddressThrowsItsViolations() {
        let refused = #expect(throws: InvalidFieldValue.self) { try EmailAddress("no-at-sign.example") }
        #expect(refused?.kind == .email)
        #expect(refused?.result.isValid == false)
        #expect(refused?.result.codes.allSatisfy { $0.hasPrefix("EM") } == true, "\(String(describing: refused))")
    }

    @Test func anEmailAddressUsesTheValidatorItIsGiven() throws {
        let asciiOnly = try EmailValidator(asciiOnly: true)
        #expect(try EmailAddress("jürgen@example.com").normalized == "jürgen@example.com")
        #expect(try EmailAddress("jürgen@example.com").asciiForm == nil, "no ASCII form for a non-ASCII local part")
        let refused = #expect(throws: InvalidFieldValue.self) { try EmailAddress("jürgen@example.com", validator: asciiOnly) }
        #expect(refused?.result.isValid == false)
    }

    // MARK: - Decoding

    @Test func decodingValidatesEveryField() throws {
        let json = #"{"email": "user@Bücher.example", "displayName": "John.Doe", "password": "correct horse battery staple"}"#
        let signUp = try JSONDecoder().decode(SignUp.self, from: Data(json.utf8))
        #expect(signUp.email.normalized == "user@bücher.example")
        #expect(signUp.displayName.key == "john.doe")
        #expect(signUp.password.revealed == "correct horse battery staple")
    }

    @Test func anInvalidFieldIsDataCorruptedAtItsCodingPathWithTheFieldError() throws {
        let json = #"{"members": [{"displayName": "jane.doe"}, {"displayName": "x..y"}]}"#
        guard case .dataCorrupted(let context)? = decodingError(Team.self, json) else {
            Issue.record("expected dataCorrupted, got \(String(describing: decodingError(Team.self, json)))")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["members", "Index 1", "displayName"])
        let underlying = try #require(context.underlyingError as? InvalidFieldValue, "\(String(describing: context.underlyingError))")
        #expect(underlying.result.codes == ["DN106"])
        #expect(context.debugDescription == underlying.description)
    }

    @Test func aValueOfTheWrongTypeIsTheUsualTypeMismatch() {
        let error = decodingError(Team.self, #"{"members": [{"displayName": 12}]}"#)
        guard case .typeMismatch(_, let context)? = error else {
            Issue.record("expected typeMismatch, got \(String(describing: error))")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["members", "Index 0", "displayName"])
    }

    @Test func decodingUsesTheValidatorsInUserInfo() throws {
        let json = #"{"members": [{"displayName": "Chirp"}]}"#
        #expect(try JSONDecoder().decode(Team.self, from: Data(json.utf8)).members[0].displayName.value == "Chirp")
        let decoder = JSONDecoder()
        decoder.userInfo[.ruleKitValidators] = FieldValidators(displayName: try DisplayNameValidator(appName: "Chirp"))
        guard case .dataCorrupted(let context)? = decodingError(Team.self, json, decoder: decoder) else {
            Issue.record("the app name is reserved by the validator in userInfo")
            return
        }
        #expect((context.underlyingError as? InvalidFieldValue)?.result.violations.map(\.rule).contains("display-name.reserved") == true)
    }

    @Test func somethingElseInUserInfoIsRefusedByName() {
        let decoder = JSONDecoder()
        decoder.userInfo[.ruleKitValidators] = "not validators"
        guard case .dataCorrupted(let context)? = decodingError(Team.self, #"{"members": [{"displayName": "jane.doe"}]}"#, decoder: decoder) else {
            Issue.record("expected dataCorrupted")
            return
        }
        #expect(context.debugDescription
                == "userInfo[.ruleKitValidators] holds a String, not FieldValidators, DisplayNameValidator or EmailValidator")
        #expect(context.codingPath.map(\.stringValue) == ["members", "Index 0", "displayName"])
    }

    @Test func oneValidatorAloneInUserInfoDecodesItsKindAndLeavesTheOtherShipped() throws {
        let json = #"{"email": "jürgen@example.com", "displayName": "Chirp", "password": "pw"}"#
        let reserving = JSONDecoder()
        reserving.userInfo[.ruleKitValidators] = try DisplayNameValidator(appName: "Chirp")
        guard case .dataCorrupted(let context)? = decodingError(SignUp.self, json, decoder: reserving) else {
            Issue.record("the app name is reserved by the display-name validator in userInfo")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["displayName"])
        let asciiOnly = JSONDecoder()
        asciiOnly.userInfo[.ruleKitValidators] = try EmailValidator(asciiOnly: true)
        guard case .dataCorrupted(let emailContext)? = decodingError(SignUp.self, json, decoder: asciiOnly) else {
            Issue.record("the ASCII-only email validator in userInfo refuses a non-ASCII local part")
            return
        }
        #expect(emailContext.codingPath.map(\.stringValue) == ["email"])
        #expect((emailContext.underlyingError as? InvalidFieldValue)?.kind == .email)
    }

    // MARK: - Encoding

    @Test func encodingWritesTheNormalizedString() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let email = try EmailAddress("user@Bücher.EXAMPLE")
        #expect(String(decoding: try encoder.encode([email]), as: UTF8.self) == #"["user@bücher.example"]"#)
        let team = Team(members: [.init(displayName: try DisplayName("Jane.Doe"))])
        let encoded = try encoder.encode(team)
        #expect(String(decoding: encoded, as: UTF8.self) == #"{"members":[{"displayName":"Jane.Doe"}]}"#)
        #expect(try JSONDecoder().decode(Team.self, from: encoded) == team)
    }

    // MARK: - Collecting every invalid field

    @Test func everyInvalidFieldIsCollectedWithItsPointer() throws {
        let json = #"{"email": "no-at-sign.example", "displayName": "x..y", "password": "pw"}"#
        let error = #expect(throws: InvalidFields.self) {
            try JSONDecoder().decodeCollectingInvalidFields(SignUp.self, from: Data(json.utf8))
        }
        #expect(error?.fields.map(\.pointer) == ["/email", "/displayName"])
        #expect(error?.fields.map(\.error.kind) == [.email, .displayName])
        #expect(error?.fields.last?.error.result.codes == ["DN106"])
    }

    @Test func collectedPointersEscapeAndIndex() throws {
        let json = #"{"a/b~c": "x..y", "fine": "jane.doe"}"#
        let error = #expect(throws: InvalidFields.self) {
            try JSONDecoder().decodeCollectingInvalidFields([String: DisplayName].self, from: Data(json.utf8))
        }
        #expect(error?.fields.map(\.pointer) == ["/a~1b~0c"])
        let team = #"{"members": [{"displayName": "x..y"}, {"displayName": "ok.name"}, {"displayName": "a"}]}"#
        let teamError = #expect(throws: InvalidFields.self) {
            try JSONDecoder().decodeCollectingInvalidFields(Team.self, from: Data(team.utf8))
        }
        #expect(teamError?.fields.map(\.pointer) == ["/members/0/displayName", "/members/2/displayName"])
    }

    @Test func collectingStillThrowsShapeErrorsAndReturnsValidValues() throws {
        let missing = #"{"email": "user@example.com", "displayName": "x..y"}"#
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decodeCollectingInvalidFields(SignUp.self, from: Data(missing.utf8))
        }
        let decoder = JSONDecoder()
        decoder.userInfo[.ruleKitValidators] = FieldValidators(displayName: try DisplayNameValidator(appName: "Chirp"))
        let valid = #"{"members": [{"displayName": "Jane.Doe"}]}"#
        #expect(try decoder.decodeCollectingInvalidFields(Team.self, from: Data(valid.utf8)).members[0].displayName.key == "jane.doe")
        let reserved = #"{"members": [{"displayName": "Chirp"}]}"#
        #expect(throws: InvalidFields.self, "the copy keeps userInfo's validators") {
            try decoder.decodeCollectingInvalidFields(Team.self, from: Data(reserved.utf8))
        }
        #expect(decoder.userInfo.count == 1, "the caller's decoder is not changed")
    }

    // MARK: - Password

    @Test func aPasswordNeverShowsItself() throws {
        let secret = "s3cret-Marker-\(UUID().uuidString)"
        let signUp = try JSONDecoder().decode(
            SignUp.self, from: Data(#"{"email": "a@example.com", "displayName": "jane.doe", "password": "\#(secret)"}"#.utf8))
        var dumped = ""
        dump(signUp, to: &dumped)
        var dumpedPassword = ""
        dump(signUp.password, to: &dumpedPassword)
        let renderings = [
            signUp.password.description, signUp.password.debugDescription, "\(signUp.password)",
            String(reflecting: signUp.password), String(describing: signUp), String(reflecting: signUp), dumped, dumpedPassword,
        ]
        // The renderings are compared, never printed: a failure must not print the password.
        let leaks = renderings.filter { $0.contains(secret) }.count
        #expect(leaks == 0)
        #expect(signUp.password.description == "Password(redacted)")
        #expect(dumpedPassword == "- Password(redacted)\n")
        #expect(Mirror(reflecting: signUp.password).children.isEmpty)
        let matches = signUp.password.revealed == secret
        #expect(matches, "the hasher gets the text")
    }

    @Test func aPasswordIsDecodableButNotEncodable() {
        #expect((Password.self as Any.Type) is any Decodable.Type)
        #expect(!((Password.self as Any.Type) is any Encodable.Type))
    }

    @Test func aPasswordIsCheckedOnlyWhenAsked() throws {
        let policy = try PasswordValidator()
        let short = Password("pw")
        #expect(short.validate(by: policy).isValid == false)
        let refused = #expect(throws: InvalidFieldValue.self) { try short.validated(by: policy) }
        #expect(refused?.kind == .password)
        #expect(refused?.result.codes.allSatisfy { $0.hasPrefix("PW") } == true)
        let contextual = Password("jane.doe-Correct-Horse-Battery")
        let withName = contextual.validate(by: policy, context: PasswordContext(username: "jane.doe"))
        #expect(withName.isValid == false, "the context is checked")
        #expect(withName.normalized == nil, "a result never holds the password")
    }
}
