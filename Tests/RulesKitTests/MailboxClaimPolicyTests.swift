import Availability
import RulesKit
import Testing

/// One account per mailbox: a claim store keyed by `mailboxKey`.
@Suite struct MailboxClaimPolicyTests {
    @Test func oneClaimPerMailbox() async throws {
        let store = MemoryClaimStore(policy: try MailboxClaimPolicy())
        let first = try await store.claim("Jane.Doe+promo@gmail.com", by: "u1")
        #expect(first.claimed && first.key == "janedoe@gmail.com")
        #expect(first.name == "Jane.Doe+promo@gmail.com", "the address is kept as given")
        for alias in ["janedoe@googlemail.com", "j.a.n.e.doe+other@gmail.com", "JaneDoe@GMAIL.com"] {
            let taken = try await store.claim(alias, by: "u2")
            #expect(!taken.claimed && taken.owner == "u1", "\(alias)")
            #expect(taken.problems.map(\.code) == ["AV1003"], "\(alias)")
        }
        #expect(try await store.claim("janedoe@googlemail.com", by: "u1").claimed, "the same user, the same mailbox")
        // Other providers keep dots; other domains keep everything.
        #expect(try await store.claim("jane.doe@outlook.com", by: "u3").claimed)
        #expect(try await store.claim("janedoe@outlook.com", by: "u4").claimed)
        #expect(!(try await store.claim("jane.doe+x@outlook.com", by: "u5")).claimed)
        let invalid = try await store.claim("jane..doe@gmail.com", by: "u6")
        #expect(!invalid.claimed && invalid.problems.first?.code == "AV1001")
    }
}

/// `import RulesKit` alone is enough for the sign-up protection the README shows.
@Suite struct SignUpFacadeTests {
    @Test func breachedDisposableAndMailboxKeyThroughTheFacade() throws {
        let bytes = BreachedStore.bytes(of: [BreachedStore.Entry(hash: PasswordHash.sha1("hunter2"), count: 17_043)])
        let store = try bytes.withUnsafeBytes { try BreachedStore(bytes: $0) }
        let breached = try PasswordValidator(breached: store).validate("hunter2").codes.contains("PW109")
        #expect(breached)
        #expect(try EmailValidator(rejectDisposable: true).validate("jane@mailinator.com").codes == ["EM132"])
        #expect(try EmailValidator().validate("Jane.Doe+promo@gmail.com").mailboxKey == "janedoe@gmail.com")
    }
}
