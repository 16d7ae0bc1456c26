import Availability
import Testing

/// Fault codes are stable and each says what to do; claim messages are worded as the app shows them.
struct ClaimStoreErrorTests {
    /// The code of every fault reason. Codes never change and are never reused: a new reason
    /// gets the next free number, and this table grows.
    static let codes: [ClaimStoreError.Reason: String] = [
        .unreachable: "AV3001", .transient: "AV3002", .failed: "AV3003", .badLocation: "AV3004",
        .readOnly: "AV3005", .storageFull: "AV3006", .locked: "AV3007", .notADatabase: "AV3008",
        .fileReplaced: "AV3009", .serializationFailure: "AV3010", .statementTimeout: "AV3011",
        .authenticationFailed: "AV3012", .unknownDatabase: "AV3013", .connectionLost: "AV3014", .shutDown: "AV3015",
    ]

    @Test func everyReasonHasItsPinnedCodeAndAHelpSentence() {
        #expect(ClaimStoreError.Reason.allCases.count == Self.codes.count, "a reason without a pinned code")
        for reason in ClaimStoreError.Reason.allCases {
            #expect(reason.code == Self.codes[reason], "\(reason)")
            #expect(reason.help.first?.isUppercase == true && reason.help.hasSuffix("."), "\(reason): \(reason.help)")
        }
        #expect(Set(ClaimStoreError.Reason.allCases.map(\.help)).count == ClaimStoreError.Reason.allCases.count,
                "two reasons share a help sentence")
    }

    @Test func retryingHelpsOnlyWhereItCan() {
        let transient: Set<ClaimStoreError.Reason> = [.unreachable, .transient, .locked, .serializationFailure, .statementTimeout, .connectionLost]
        for reason in ClaimStoreError.Reason.allCases {
            #expect(ClaimStoreError(reason, "x").isTransient == transient.contains(reason), "\(reason)")
        }
        #expect(ClaimStoreError.Reason(ClaimStoreError.Kind.transient).code == "AV3002")
    }

    @Test func theErrorPrintsItsCodeAndMessage() {
        let error = ClaimStoreError(.readOnly, "sqlite `names.sqlite`: attempt to write a readonly database")
        #expect(error.description == "error[AV3005]: sqlite `names.sqlite`: attempt to write a readonly database")
        #expect(error.help == "Make the database file and its directory writable by this user, or use another store location.")
    }

    @Test func batchRowsForFaultsCarryTheFaultCode() {
        let error = ClaimStoreError(.connectionLost, "postgres `x`: server closed the connection")
        #expect(ClaimProblem.fault(error) == ClaimProblem(code: "AV3014", message: error.help))
        #expect(ClaimProblem.notAttempted(stoppedAt: 7, by: error) == ClaimProblem(
            code: "AV3016",
            message: "This record was not attempted because the store failed at record 7 (AV3014); run the batch again once that is fixed."))
        #expect(ClaimProblem.notAttempted(stoppedAt: nil, by: error).message.contains("the store could not be opened (AV3014)"))
    }

    @Test func claimMessagesSayUsernameAsTheAppDoes() {
        #expect(ClaimProblem.taken("Alice") == ClaimProblem(code: "AV1003", message: "This username is already taken. Please choose another."))
        #expect(ClaimProblem.reserved("admin").message == "The username “admin” is reserved and cannot be claimed.")
        #expect(ClaimProblem.notClaimed("bo").message == "The username “bo” is not claimed by anyone.")
        #expect(ClaimProblem.notOwner("bo").message == "The username “bo” belongs to another user.")
        #expect(ClaimProblem.alreadyHolds("bo").message == "You already have the username “bo”; rename it instead of claiming a second one.")
        #expect(ClaimProblem.invalid("a..b", []).map(\.message) == ["The username “a..b” is not valid."])
        for problem in [ClaimProblem.taken("x"), .reserved("x"), .notClaimed("x"), .notOwner("x"), .alreadyHolds("x")] {
            #expect(!problem.message.lowercased().contains("display name"), "\(problem)")
        }
    }
}
