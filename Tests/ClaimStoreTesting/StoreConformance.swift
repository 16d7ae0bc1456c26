import Availability

/// A failed expectation inside a shared check; the test that ran the check reports it.
public struct CheckFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Fails with `message` unless `condition` holds.
public func require(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw CheckFailure(message()) }
}

/// Behaviour every ``ClaimStore`` must have, as named checks run against a fresh, empty store.
public enum StoreConformance {
    /// One check: a stable name (shown as the test argument) and its body.
    public struct Check: Sendable, CustomStringConvertible {
        public var name: String
        public var run: @Sendable (any ClaimStore) async throws -> Void
        public var description: String { name }
    }

    /// Every check.
    public static let all: [Check] = [
        Check(name: "claim-then-taken") { store in
            let first = try await store.claim("Alice.B", by: "u1")
            try require(first.claimed && first.owner == "u1" && first.problems.isEmpty, "first claim: \(first)")
            let second = try await store.claim("alice.b", by: "u2")
            try require(!second.claimed && second.owner == "u1" && second.problems.map(\.code) == ["AV1003"], "second claim: \(second)")
            let owner = try await store.owner(of: "ALICE.B")
            try require(owner == Claim(name: "Alice.B", key: "alice.b", owner: "u1"), "display form kept, key canonical: \(String(describing: owner))")
        },
        Check(name: "claim-is-idempotent-for-owner") { store in
            _ = try await store.claim("bob_1", by: "u1")
            let again = try await store.claim("BOB_1", by: "u1")
            try require(again.claimed && again.owner == "u1" && again.problems.isEmpty, "repeat claim: \(again)")
        },
        Check(name: "one-name-per-user") { store in
            _ = try await store.claim("carol", by: "u1")
            let second = try await store.claim("carol2", by: "u1")
            try require(!second.claimed && second.problems.map(\.code) == ["AV1006"], "second name: \(second)")
            try require(try await store.owner(of: "carol2") == nil, "second name must stay free")
        },
        Check(name: "invalid-and-reserved-never-stored") { store in
            let invalid = try await store.claim("a..b", by: "u1")
            try require(!invalid.claimed && invalid.problems.map(\.code) == ["AV1001", "DN1004"], "invalid: \(invalid)")
            let reserved = try await store.claim("Admin", by: "u1")
            try require(!reserved.claimed && reserved.problems.map(\.code) == ["AV1002"], "reserved: \(reserved)")
            try require(try await store.owner(of: "admin") == nil, "reserved name stored")
            let availability = try await store.availability(of: "admin")
            try require(!availability.isAvailable && availability.problems.map(\.code) == ["AV1002"], "reserved availability: \(availability)")
        },
        Check(name: "availability") { store in
            try require(try await store.availability(of: "dave").isAvailable, "dave should be available")
            _ = try await store.claim("Dave", by: "u1")
            let after = try await store.availability(of: "dave")
            try require(!after.isAvailable && after.key == "dave", "dave after claim: \(after)")
            let free = try await store.availableNames(among: ["dave1", "DAVE", "x", "dave2"])
            try require(free == ["dave1", "dave2"], "available among: \(free)")
        },
        Check(name: "release-only-by-owner") { store in
            _ = try await store.claim("erin", by: "u1")
            let stranger = try await store.release("erin", by: "u2")
            try require(!stranger.succeeded && stranger.problems.map(\.code) == ["AV1005"] && stranger.owner == "u1", "stranger release: \(stranger)")
            let nobody = try await store.release("frank", by: "u2")
            try require(nobody.problems.map(\.code) == ["AV1004"], "release of free name: \(nobody)")
            let owner = try await store.release("ERIN", by: "u1")
            try require(owner.succeeded && !owner.claimed && owner.owner == nil, "owner release: \(owner)")
            try require(try await store.owner(of: "erin") == nil, "erin still held after release")
            try require(try await store.claim("erin", by: "u2").claimed, "released name claimable again")
        },
        Check(name: "rename-is-atomic") { store in
            _ = try await store.claim("gina", by: "u1")
            _ = try await store.claim("hank", by: "u2")
            let blocked = try await store.rename(from: "gina", to: "hank", by: "u1")
            try require(!blocked.claimed && blocked.problems.map(\.code) == ["AV1003"], "rename onto taken: \(blocked)")
            try require(try await store.owner(of: "gina")?.owner == "u1", "refused rename must keep the old name")
            let invalid = try await store.rename(from: "gina", to: ".gina", by: "u1")
            try require(invalid.problems.first?.code == "AV1001", "rename to invalid: \(invalid)")
            let stranger = try await store.rename(from: "gina", to: "ivy", by: "u2")
            try require(stranger.problems.map(\.code) == ["AV1005"], "rename by stranger: \(stranger)")
            let done = try await store.rename(from: "gina", to: "Ivy", by: "u1")
            try require(done.claimed && done.owner == "u1" && done.name == "Ivy", "rename: \(done)")
            try require(try await store.owner(of: "gina") == nil, "old name still held")
            try require(try await store.owner(of: "ivy")?.owner == "u1", "new name not held")
            let recase = try await store.rename(from: "ivy", to: "IVY", by: "u1")
            let recased = try await store.owner(of: "ivy")
            try require(recase.claimed && recased?.name == "IVY", "rename to same key: \(recase), held as \(String(describing: recased))")
        },
    ]
}
