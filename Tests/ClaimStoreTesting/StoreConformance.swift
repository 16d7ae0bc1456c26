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

    /// Who holds each of `names`, by key (names nobody holds are left out).
    public static func owners(of names: [String], in store: any ClaimStore) async throws -> [String: String] {
        var owners: [String: String] = [:]
        for name in names {
            if let claim = try await store.owner(of: name) { owners[claim.key] = claim.owner }
        }
        return owners
    }

    /// Every check: single requests, then batches (``BatchConformance``).
    public static let all: [Check] = singles + BatchConformance.all

    /// The checks of single requests.
    public static let singles: [Check] = [
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
        Check(name: "claim-again-is-never-taken") { store in
            // The holder asking again, in any spelling of the key, is told the name is theirs,
            // with the display form they hold; the store is unchanged.
            let first = try await store.claim("Kim.Lee", by: "u1")
            try require(first.claimed, "first claim: \(first)")
            for spelling in ["Kim.Lee", "kim.lee", "KIM.LEE"] {
                let again = try await store.claim(spelling, by: "u1")
                try require(again.claimed && again.owner == "u1" && again.problems.isEmpty && again.name == "Kim.Lee",
                            "repeat claim as `\(spelling)`: \(again)")
                try require(!again.problems.contains { $0.code == "AV1003" }, "the holder was told `taken`: \(again)")
            }
            try require(try await store.owner(of: "kim.lee") == Claim(name: "Kim.Lee", key: "kim.lee", owner: "u1"),
                        "repeat claims changed the claim")
        },
        Check(name: "rename-again-is-done") { store in
            // A rename that already happened (a retried request, a re-run after a crash)
            // succeeds again instead of failing because the old name is gone.
            _ = try await store.claim("lena", by: "u1")
            let first = try await store.rename(from: "lena", to: "Lena.M", by: "u1")
            try require(first.claimed && first.name == "Lena.M", "first rename: \(first)")
            let again = try await store.rename(from: "lena", to: "lena.m", by: "u1")
            try require(again.claimed && again.owner == "u1" && again.problems.isEmpty && again.name == "Lena.M",
                        "repeated rename: \(again)")
            try require(try await store.owner(of: "lena") == nil, "the old name came back")
            // Someone else's repeat is still refused: u2 never held `lena`.
            let stranger = try await store.rename(from: "lena", to: "lena.m", by: "u2")
            try require(!stranger.claimed && stranger.problems.map(\.code) == ["AV1004"], "stranger's rename: \(stranger)")
        },
        Check(name: "batch-rerun-converges") { store in
            // A batch with conflicts, run twice (as after a crash and re-run): the second run
            // changes nothing, every record gets the same answer, and nobody is told `taken`
            // about their own name.
            let batch = [("Mia", "u1"), ("mia", "u2"), ("Noah_2", "u2"), ("oli.ver", "u3"), ("Oli.Ver", "u3"), ("pat", "u1")]
            var firstRun: [ClaimOutcome] = []
            for (name, user) in batch { firstRun.append(try await store.claim(name, by: user)) }
            let afterFirst = try await StoreConformance.owners(of: batch.map(\.0), in: store)
            var secondRun: [ClaimOutcome] = []
            for (name, user) in batch { secondRun.append(try await store.claim(name, by: user)) }
            let afterSecond = try await StoreConformance.owners(of: batch.map(\.0), in: store)
            try require(afterFirst == afterSecond, "state changed on re-run: \(afterFirst) then \(afterSecond)")
            try require(firstRun.map(\.claimed) == [true, false, true, true, true, false], "first run: \(firstRun.map(\.claimed))")
            try require(secondRun.map(\.claimed) == firstRun.map(\.claimed), "second run: \(secondRun.map(\.claimed))")
            try require(secondRun.map { $0.problems.map(\.code) } == firstRun.map { $0.problems.map(\.code) },
                        "second run codes: \(secondRun.map { $0.problems.map(\.code) })")
            try require(afterSecond == ["mia": "u1", "noah_2": "u2", "oli.ver": "u3"], "final state: \(afterSecond)")
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
        Check(name: "user-ids-compare-by-bytes") { store in
            // `jose\u{301}` is canonically equivalent to `josé` (Swift's == says equal), but it is
            // another user: it never claims, releases or renames what `josé` holds.
            let (composed, decomposed) = ("jos\u{E9}", "jose\u{301}")
            try require(try await store.claim("vname", by: composed).claimed, "josé's claim")
            let claim = try await store.claim("vname", by: decomposed)
            try require(!claim.claimed && claim.problems.map(\.code) == ["AV1003"], "equivalent user's claim: \(claim)")
            let release = try await store.release("vname", by: decomposed)
            try require(!release.succeeded && release.problems.map(\.code) == ["AV1005"], "equivalent user's release: \(release)")
            let renameAway = try await store.rename(from: "vname", to: "wname", by: decomposed)
            try require(!renameAway.claimed && renameAway.problems.map(\.code) == ["AV1005"], "equivalent user's rename away: \(renameAway)")
            try require(try await store.claim("dname", by: decomposed).claimed, "the equivalent user is a user of its own")
            // Renaming into josé's name is refused as taken, not a store fault.
            let renameInto = try await store.rename(from: "dname", to: "VName", by: decomposed)
            try require(!renameInto.claimed && renameInto.problems.map(\.code) == ["AV1003"], "rename into josé's name: \(renameInto)")
            let vname = try await store.owner(of: "vname")
            try require(vname.map { UserID.same($0.owner, composed) } == true, "vname's owner changed: \(String(describing: vname))")
            let dname = try await store.owner(of: "dname")
            try require(dname.map { UserID.same($0.owner, decomposed) } == true, "dname's owner changed: \(String(describing: dname))")
            try require(try await store.owner(of: "wname") == nil, "wname was claimed")
        },
        Check(name: "invalid-user-ids-are-refused") { store in
            // Empty ids and control characters (NUL above all: a C string ends there) never reach storage.
            for user in ["", "victim\u{0}x", "\u{0}", "tab\tuser", "bell\u{7}", "del\u{7F}", "c1\u{85}"] {
                let claim = try await store.claim("nobody.s", by: user)
                try require(!claim.claimed && claim.problems.map(\.code) == ["AV1008"], "claim by \(user.debugDescription): \(claim)")
                let release = try await store.release("nobody.s", by: user)
                try require(release.problems.map(\.code) == ["AV1008"], "release by \(user.debugDescription): \(release)")
                let rename = try await store.rename(from: "nobody.s", to: "nobody.t", by: user)
                try require(rename.problems.map(\.code) == ["AV1008"], "rename by \(user.debugDescription): \(rename)")
            }
            try require(try await store.owner(of: "nobody.s") == nil, "an invalid user's claim was stored")
            try require(try await store.owner(of: "nobody.t") == nil, "an invalid user's rename was stored")
        },
        Check(name: "a-nul-never-acts-as-the-user-before-it") { store in
            try require(try await store.claim("vic.name", by: "victim").claimed, "victim's claim")
            try require(try await store.claim("v1.name", by: "victim1").claimed, "victim1's claim")
            let asVictim = try await store.claim("fresh", by: "victim\u{0}x")
            try require(asVictim.problems.map(\.code) == ["AV1008"], "claim by victim\\0x: \(asVictim)")
            let release = try await store.release("vic.name", by: "victim\u{0}x")
            try require(release.problems.map(\.code) == ["AV1008"], "release by victim\\0x: \(release)")
            // victim1\0evil is not told victim1's name (an AV1006 would name it).
            let asVictim1 = try await store.claim("other", by: "victim1\u{0}evil")
            try require(asVictim1.problems.map(\.code) == ["AV1008"] && !asVictim1.problems.contains { $0.message.contains("v1.name") },
                        "claim by victim1\\0evil: \(asVictim1)")
            try require(try await store.owner(of: "fresh") == nil, "victim\\0x's claim was stored")
            try require(try await store.owner(of: "vic.name")?.owner == "victim", "victim lost its name")
            let again = try await store.claim("vic.name", by: "victim")
            try require(again.claimed && again.problems.isEmpty, "victim's own name: \(again)")
            let second = try await store.claim("vic.other", by: "victim")
            try require(second.problems.map(\.code) == ["AV1006"], "victim holds exactly its one name: \(second)")
        },
    ]
}
