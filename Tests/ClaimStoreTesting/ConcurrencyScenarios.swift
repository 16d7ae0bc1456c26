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
