import Availability

/// Races against a store through several independent connections (one ``ClaimStore`` value per
/// connection), checked with the store's own answers afterwards.
public enum ConcurrencyScenarios {
    /// `attempts` claims spread over `names` names by distinct users, run all at once, round-robin
    /// over `stores`. Exactly one claim per name must win, and the store must agree afterwards.
    public static func claimRace(stores: [any ClaimStore], names: Int = 100, attempts: Int = 1_000) async throws {
        let outcomes = try await withThrowingTaskGroup(of: (Int, ClaimOutcome).self) { group in
            for attempt in 0..<attempts {
                let store = stores[attempt % stores.count]
                group.addTask { (attempt, try await store.claim("racer.\(attempt % names)", by: "user\(attempt)")) }
            }
            var outcomes: [Int: ClaimOutcome] = [:]
            for try await (attempt, outcome) in group { outcomes[attempt] = outcome }
            return outcomes
        }
        let winners = outcomes.filter { $0.value.claimed }
        try require(winners.count == names, "expected \(names) winners, got \(winners.count)")
        let winnerByName = Dictionary(grouping: winners, by: { $0.key % names })
        try require(winnerByName.count == names && winnerByName.values.allSatisfy { $0.count == 1 },
                    "some name has no or several winners")
        for (attempt, outcome) in outcomes where !outcome.claimed {
            try require(outcome.problems.map(\.code) == ["AV1003"], "attempt \(attempt) refused with \(outcome.problems.map(\.code))")
            let winner = winnerByName[attempt % names]?.first?.key
            try require(outcome.owner == winner.map { "user\($0)" }, "attempt \(attempt) saw owner \(String(describing: outcome.owner))")
        }
        for index in 0..<names {
            let owner = try await stores[index % stores.count].owner(of: "racer.\(index)")
            let winner = winnerByName[index]?.first?.key
            try require(owner?.owner == winner.map { "user\($0)" }, "racer.\(index) owned by \(String(describing: owner?.owner))")
        }
    }

    /// `users` users each hold a name, then all rename at once, several times each, partly onto
    /// the same targets and partly to each other's old names. Afterwards every user must hold
    /// exactly one name and every name at most one user.
    public static func renameRace(stores: [any ClaimStore], users: Int = 40, renamesPerUser: Int = 5) async throws {
        let pool = (0..<(users / 2)).map { "target.\($0)" }
        var universe = Set(pool)
        for user in 0..<users {
            let name = "start.\(user)"
            universe.insert(name)
            let outcome = try await stores[user % stores.count].claim(name, by: "renamer\(user)")
            try require(outcome.claimed, "setup claim for renamer\(user): \(outcome)")
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for user in 0..<users {
                for round in 0..<renamesPerUser {
                    let store = stores[(user + round) % stores.count]
                    // Two renames per user race each other from the same old name; targets collide across users.
                    let from = round % 2 == 0 ? "start.\(user)" : pool[(user + round) % pool.count]
                    let to = pool[(user * 7 + round * 3) % pool.count]
                    group.addTask { _ = try await store.rename(from: from, to: to, by: "renamer\(user)") }
                }
            }
            try await group.waitForAll()
        }
        var namesByUser: [String: [String]] = [:]
        for name in universe {
            if let holder = try await stores[0].owner(of: name) { namesByUser[holder.owner, default: []].append(name) }
        }
        for user in 0..<users {
            let held = namesByUser["renamer\(user)"] ?? []
            try require(held.count == 1, "renamer\(user) holds \(held.count) names: \(held.sorted())")
        }
        try require(namesByUser.count == users, "unexpected holders: \(namesByUser.keys.sorted())")
    }
}

extension ConcurrencyScenarios {
    /// The records of a racing batch: for each of `names` names, a claim by its batch user
    /// `bN`, later a claim by a second batch user `cN` (another spelling), later the first
    /// claim again; the three are spread so that they fall in different transactions.
    public static func racingBatch(names: Int) -> [NameRequest] {
        (0..<names).map { NameRequest(name: "race.\($0)", user: "b\($0)") }
            + (0..<names).map { NameRequest(name: "RACE.\($0)", user: "c\($0)") }
            + (0..<names).map { NameRequest(name: "race.\($0)", user: "b\($0)") }
    }

    /// Checks a racing batch's outcomes (``racingBatch(names:)``) and the single claims that
    /// raced it (`race.N` by `sN`, `singles[N]`) against the store afterwards: every name has one
    /// owner; every claim told `claimed` holds it; every refusal names that owner; within the
    /// batch, input order decides (`bN` before `cN`) and the repeat is answered as the first.
    public static func checkBatchRace(store: any ClaimStore, names: Int, batch: [ClaimOutcome], singles: [ClaimOutcome]) async throws {
        try require(batch.count == 3 * names && singles.count == names, "\(batch.count) batch and \(singles.count) single outcomes")
        for index in 0..<names {
            let owner = try await store.owner(of: "race.\(index)")?.owner
            try require(owner == "b\(index)" || owner == "s\(index)", "race.\(index) held by \(String(describing: owner))")
            let (first, second, repeated, single) = (batch[index], batch[names + index], batch[2 * names + index], singles[index])
            for (label, outcome, user) in [("batch", first, "b\(index)"), ("second", second, "c\(index)"),
                                           ("repeat", repeated, "b\(index)"), ("single", single, "s\(index)")] {
                if outcome.claimed {
                    try require(owner == user, "race.\(index): the \(label) claim by \(user) was told claimed, but \(String(describing: owner)) holds it")
                } else {
                    try require(outcome.problems.map(\.code) == ["AV1003"] && outcome.owner == owner,
                                "race.\(index): the \(label) claim by \(user) was refused with \(outcome.problems.map(\.code)), owner \(String(describing: outcome.owner)); held by \(String(describing: owner))")
                }
            }
            try require(!second.claimed, "race.\(index): the second batch user won")
            try require(repeated.claimed == first.claimed, "race.\(index): the repeat was answered \(repeated.claimed), the first \(first.claimed)")
        }
    }

    /// A batch (``racingBatch(names:)``, in transactions of `batchSize`) through `batchStore`,
    /// racing single claims of the same names by other users through `singleStores`; checked by
    /// ``checkBatchRace(store:names:batch:singles:)``.
    public static func batchRace(batchStore: any ClaimStore, singleStores: [any ClaimStore], names: Int = 200, batchSize: Int = 10) async throws {
        let records = racingBatch(names: names)
        let (batch, singles) = try await withThrowingTaskGroup(of: (Int, [ClaimOutcome]).self) { group in
            group.addTask {
                (-1, try await BatchConformance.run(.claims(records), on: batchStore, batchSize: batchSize))
            }
            for (offset, store) in singleStores.enumerated() {
                group.addTask {
                    var outcomes: [ClaimOutcome] = []
                    for index in stride(from: offset, to: names, by: singleStores.count) {
                        outcomes.append(try await store.claim("race.\(index)", by: "s\(index)"))
                    }
                    return (offset, outcomes)
                }
            }
            var batch: [ClaimOutcome] = []
            var singles = [ClaimOutcome?](repeating: nil, count: names)
            for try await (offset, outcomes) in group {
                if offset < 0 { batch = outcomes; continue }
                for (position, outcome) in outcomes.enumerated() { singles[offset + position * singleStores.count] = outcome }
            }
            return (batch, singles.compactMap { $0 })
        }
        try await checkBatchRace(store: batchStore, names: names, batch: batch, singles: singles)
    }
}
