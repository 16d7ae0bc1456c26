import Availability

/// Batches (``ClaimStore/claim(batch:)``, `release(batch:)`, `rename(batch:)`) must decide every
/// record exactly as one request per record in input order would: checked against a
/// ``MemoryClaimStore`` asked one record at a time (the reference), on the same starting claims.
public enum BatchConformance {
    /// One operation of a scripted run: a batch, or single requests one after another.
    public enum Step: Sendable {
        case claims([NameRequest])
        case releases([NameRequest])
        case renames([RenameRequest])
    }

    /// What a scripted run's records met, for properties to check that their inputs reach the
    /// cases they are about.
    public struct Tally: Sendable {
        /// Refusal codes, counted per record (`AV1003` taken, `AV1006` the user holds another, …).
        public var codes: [String: Int] = [:]
        /// Claims that succeeded again for a key an earlier record of the same step claimed for the
        /// same user (a repeat, or a duplicate within the step).
        public var repeats = 0
        /// Records whose key an earlier transaction of the same step already decided (a batch
        /// split across transactions where the split matters).
        public var acrossTransactions = 0
        /// Renames and releases done.
        public var renamed = 0
        public var released = 0

        public init() {}
    }

    /// Runs `steps` on `store` as batches of at most `batchSize` records, and on a fresh memory
    /// store one record at a time; every record's outcome and the claims on `universe` afterwards
    /// must be the same. Returns what the records met.
    @discardableResult
    public static func matchesOneByOne(_ store: any ClaimStore, steps: [Step], batchSize: Int, universe: [String]) async throws -> Tally {
        let reference = MemoryClaimStore(policy: store.policy)
        var tally = Tally()
        for (number, step) in steps.enumerated() {
            let (actual, expected) = try await (run(step, on: store, batchSize: batchSize), run(step, oneByOneOn: reference))
            try require(actual.count == expected.count, "step \(number): \(actual.count) outcomes for \(expected.count) records")
            for (index, (got, want)) in zip(actual, expected).enumerated() {
                try require(same(got, want), "step \(number), record \(index + 1): batch said \(got), one by one \(want)")
            }
            // Key → (owner, transaction) of the step's earlier successful claims.
            var claimedBefore: [String: (owner: String, transaction: Int)] = [:]
            var decidedIn: [String: Int] = [:]
            for (index, outcome) in actual.enumerated() {
                let transaction = index / batchSize
                for problem in outcome.problems { tally.codes[problem.code, default: 0] += 1 }
                if let earlier = decidedIn[outcome.key], earlier < transaction { tally.acrossTransactions += 1 }
                switch step {
                case .claims:
                    if outcome.claimed, let owner = outcome.owner {
                        if let before = claimedBefore[outcome.key], before.owner == owner { tally.repeats += 1 }
                        claimedBefore[outcome.key] = (owner, transaction)
                    }
                case .renames:
                    if outcome.claimed { tally.renamed += 1 }
                case .releases:
                    if !outcome.claimed && outcome.problems.isEmpty { tally.released += 1 }
                }
                if decidedIn[outcome.key] == nil { decidedIn[outcome.key] = transaction }
            }
        }
        let held = try await StoreConformance.owners(of: universe, in: store)
        let expected = try await StoreConformance.owners(of: universe, in: reference)
        try require(held == expected, "claims after the batches: \(held.sorted { $0.key < $1.key }), one by one: \(expected.sorted { $0.key < $1.key })")
        return tally
    }

    /// Runs a step as batches; fails on a fault.
    public static func run(_ step: Step, on store: any ClaimStore, batchSize: Int) async throws -> [ClaimOutcome] {
        var outcomes: [ClaimOutcome] = []
        func take(_ batch: BatchOutcome, _ count: Int) throws {
            if let fault = batch.fault { throw CheckFailure("the batch failed at records \(fault.records): \(fault.error)") }
            try require(batch.outcomes.count == count, "\(batch.outcomes.count) outcomes for a batch of \(count)")
            outcomes += batch.outcomes
        }
        switch step {
        case .claims(let requests):
            for start in stride(from: 0, to: requests.count, by: batchSize) {
                let chunk = Array(requests[start..<min(start + batchSize, requests.count)])
                try take(await store.claim(batch: chunk), chunk.count)
            }
        case .releases(let requests):
            for start in stride(from: 0, to: requests.count, by: batchSize) {
                let chunk = Array(requests[start..<min(start + batchSize, requests.count)])
                try take(await store.release(batch: chunk), chunk.count)
            }
        case .renames(let requests):
            for start in stride(from: 0, to: requests.count, by: batchSize) {
                let chunk = Array(requests[start..<min(start + batchSize, requests.count)])
                try take(await store.rename(batch: chunk), chunk.count)
            }
        }
        return outcomes
    }

    /// Runs a step one request at a time.
    public static func run(_ step: Step, oneByOneOn store: any ClaimStore) async throws -> [ClaimOutcome] {
        var outcomes: [ClaimOutcome] = []
        switch step {
        case .claims(let requests):
            for request in requests { outcomes.append(try await store.claim(request.name, by: request.user)) }
        case .releases(let requests):
            for request in requests { outcomes.append(try await store.release(request.name, by: request.user)) }
        case .renames(let requests):
            for request in requests { outcomes.append(try await store.rename(from: request.old, to: request.new, by: request.user)) }
        }
        return outcomes
    }

    /// Outcomes compared with owners by their bytes (as the stores compare them).
    static func same(_ a: ClaimOutcome, _ b: ClaimOutcome) -> Bool {
        a.claimed == b.claimed && UserID.same(a.name, b.name) && UserID.same(a.key, b.key) && a.problems == b.problems
            && ((a.owner == nil && b.owner == nil) || (a.owner.map { o in b.owner.map { UserID.same(o, $0) } ?? false } ?? false))
    }

    /// A deterministic pseudo-random script: claims of few names by many users in varied
    /// spellings (repeats, second users, users already holding a name, invalid and reserved
    /// names, invalid user ids), then releases and renames over the same names.
    ///
    /// - Parameters:
    ///   - seed: Picks the script.
    ///   - records: Records per step.
    /// - Returns: The steps and every name they mention.
    public static func script(seed: UInt64, records: Int = 120) -> (steps: [Step], universe: [String]) {
        var random = SplitMix(seed)
        let stems = (0..<24).map { "nm\($0)" } + ["admin", "a..b", "x"]
        func name() -> String {
            let stem = stems[random.next(stems.count)]
            switch random.next(4) {
            case 0: return stem.uppercased()
            case 1: return stem.prefix(1).uppercased() + stem.dropFirst()
            default: return stem
            }
        }
        func user() -> String {
            random.next(40) == 0 ? ["", "bad\u{0}id", "tab\tid"][random.next(3)] : "u\(random.next(30))"
        }
        let claims = (0..<records).map { _ in NameRequest(name: name(), user: user()) }
        let releases = (0..<(records / 2)).map { _ in NameRequest(name: name(), user: user()) }
        let renames = (0..<records).map { _ in RenameRequest(old: name(), new: name(), user: user()) }
        let moreClaims = (0..<records).map { _ in NameRequest(name: name(), user: user()) }
        return ([.claims(claims), .renames(renames), .releases(releases), .claims(moreClaims), .renames(renames)],
                stems + stems.map { $0.uppercased() })
    }

    /// Every batch check.
    public static let all: [StoreConformance.Check] = [
        .init(name: "batch-duplicates-and-repeats-within-a-batch") { store in
            let batch = [NameRequest(name: "Ann.B", user: "u1"), NameRequest(name: "ann.b", user: "u2"),
                         NameRequest(name: "ANN.B", user: "u1"), NameRequest(name: "Ann.B", user: "u1"),
                         NameRequest(name: "bo_b", user: "u2"), NameRequest(name: "zed", user: "u1")]
            let outcome = await store.claim(batch: batch)
            try require(outcome.fault == nil && outcome.outcomes.count == 6, "\(outcome)")
            let o = outcome.outcomes
            try require(o[0].claimed && o[0].owner == "u1" && o[0].name == "Ann.B", "first claimant: \(o[0])")
            try require(!o[1].claimed && o[1].owner == "u1" && o[1].problems.map(\.code) == ["AV1003"], "second user: \(o[1])")
            for index in [2, 3] {
                try require(o[index].claimed && o[index].owner == "u1" && o[index].name == "Ann.B" && o[index].problems.isEmpty,
                            "repeat by the holder, record \(index + 1): \(o[index])")
            }
            try require(o[4].claimed && o[4].owner == "u2", "u2's other name: \(o[4])")
            try require(!o[5].claimed && o[5].problems.map(\.code) == ["AV1006"], "u1's second name: \(o[5])")
            try require(try await store.owner(of: "ann.b") == Claim(name: "Ann.B", key: "ann.b", owner: "u1"), "ann.b's holder")
            try require(try await store.owner(of: "zed") == nil, "zed was stored")
        },
        .init(name: "batch-a-name-held-before-the-batch") { store in
            try require(try await store.claim("Held.Name", by: "u9").claimed, "setup")
            let outcome = await store.claim(batch: [NameRequest(name: "held.name", user: "u1"), NameRequest(name: "HELD.NAME", user: "u9"),
                                                    NameRequest(name: "other", user: "u9"), NameRequest(name: "other", user: "u1")])
            let codes = outcome.outcomes.map { $0.problems.map(\.code) }
            try require(codes == [["AV1003"], [], ["AV1006"], []], "codes: \(codes)")
            try require(outcome.outcomes[0].owner == "u9" && outcome.outcomes[1].name == "Held.Name", "\(outcome.outcomes)")
            try require(outcome.outcomes[3].claimed && outcome.outcomes[3].owner == "u1", "\(outcome.outcomes[3])")
        },
        .init(name: "batch-refusals-never-reach-storage") { store in
            let outcome = await store.claim(batch: [NameRequest(name: "a..b", user: "u1"), NameRequest(name: "Admin", user: "u1"),
                                                    NameRequest(name: "fine.name", user: ""), NameRequest(name: "fine.name", user: "v\u{0}x")])
            try require(outcome.outcomes.map { $0.problems.first?.code } == ["AV1001", "AV1002", "AV1008", "AV1008"],
                        "\(outcome.outcomes.map(\.problems))")
            try require(try await store.owner(of: "fine.name") == nil, "an invalid user's claim was stored")
            let empty = await store.claim(batch: [])
            try require(empty.outcomes.isEmpty && empty.fault == nil, "an empty batch: \(empty)")
        },
        .init(name: "batch-releases-and-renames") { store in
            for (name, user) in [("rel1", "u1"), ("rel2", "u2"), ("rel3", "u3")] {
                try require(try await store.claim(name, by: user).claimed, "setup claim of \(name)")
            }
            let releases = await store.release(batch: [NameRequest(name: "Rel1", user: "u2"), NameRequest(name: "Rel1", user: "u1"),
                                                       NameRequest(name: "rel1", user: "u1"), NameRequest(name: "free", user: "u1")])
            try require(releases.outcomes.map { $0.problems.map(\.code) } == [["AV1005"], [], ["AV1004"], ["AV1004"]],
                        "releases: \(releases.outcomes)")
            try require(releases.outcomes[1].name == "rel1" && !releases.outcomes[1].claimed, "release: \(releases.outcomes[1])")
            // A chain inside one batch: u2 frees rel2 by renaming, u3 takes it, both repeat theirs.
            let renames = await store.rename(batch: [RenameRequest(old: "rel3", new: "rel2", user: "u3"), RenameRequest(old: "rel2", new: "rel4", user: "u2"),
                                                     RenameRequest(old: "rel3", new: "Rel2", user: "u3"), RenameRequest(old: "rel3", new: "rel2", user: "u3"),
                                                     RenameRequest(old: "rel4", new: "Rel4", user: "u2"), RenameRequest(old: "rel2", new: "rel4", user: "u2")])
            let codes = renames.outcomes.map { $0.problems.map(\.code) }
            try require(codes == [["AV1003"], [], [], [], [], []], "renames: \(codes)")
            try require(renames.outcomes[3].name == "Rel2" && renames.outcomes[3].claimed, "a repeated rename succeeds: \(renames.outcomes[3])")
            try require(try await store.owner(of: "rel2") == Claim(name: "Rel2", key: "rel2", owner: "u3"), "rel2")
            try require(try await store.owner(of: "rel4") == Claim(name: "Rel4", key: "rel4", owner: "u2"), "rel4")
            try require(try await store.owner(of: "rel3") == nil, "rel3")
        },
        .init(name: "batch-split-across-transactions-matches-one-by-one") { store in
            let (steps, universe) = script(seed: 7)
            try await matchesOneByOne(store, steps: steps, batchSize: 16, universe: universe)
        },
        .init(name: "batch-whole-matches-one-by-one") { store in
            let (steps, universe) = script(seed: 11, records: 200)
            try await matchesOneByOne(store, steps: steps, batchSize: 1_000, universe: universe)
        },
        .init(name: "batch-rerun-converges") { store in
            let (steps, _) = script(seed: 3)
            guard case .claims(let claims) = steps[0] else { throw CheckFailure("the script starts with claims") }
            let first = try await run(.claims(claims), on: store, batchSize: 25)
            let second = try await run(.claims(claims), on: store, batchSize: 40)
            // Every claim made on the first run is the user's own on the second: still claimed.
            for (index, (a, b)) in zip(first, second).enumerated() where a.claimed {
                try require(b.claimed && b.owner == a.owner && b.name == a.name, "record \(index + 1): \(a) then \(b)")
            }
        },
    ]
}

/// SplitMix64: a small seeded generator, so scripts are the same on every run.
struct SplitMix {
    private var state: UInt64

    init(_ seed: UInt64) { state = seed }

    /// A number in `0..<bound`.
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}
