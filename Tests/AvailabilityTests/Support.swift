import Availability
import Clocks
import ClaimStoreTesting
import Foundation

/// A store for checker tests: answers on the test clock after a scripted delay (ignoring
/// cancellation, like a slow network), fails transiently a scripted number of times, and logs
/// every lookup with its virtual time.
actor ScriptedStore: ClaimStore {
    nonisolated let policy: any DisplayNamePolicy = TestDisplayNamePolicy()
    private let clock: TestClock<Duration>
    private let start: TestClock<Duration>.Instant
    private let taken: Set<String>
    private let delays: [String: Int]
    private var failures: [String: Int]
    private(set) var lookups: [String] = []
    private(set) var suggestionLookups = 0

    init(clock: TestClock<Duration>, taken: Set<String> = [], delays: [String: Int] = [:], failures: [String: Int] = [:]) {
        self.clock = clock
        self.start = clock.now
        self.taken = taken
        self.delays = delays
        self.failures = failures
    }

    func availability(of name: String) async throws(ClaimStoreError) -> NameAvailability {
        let key = policy.evaluate(name).key
        lookups.append("\(start.duration(to: clock.now).milliseconds) \(name)")
        if let delay = delays[key] {
            // An unstructured task does not inherit cancellation: the answer comes late, as from a slow server.
            await Task { [clock] in try? await clock.sleep(for: .milliseconds(delay)) }.value
        }
        if let remaining = failures[key], remaining > 0 {
            failures[key] = remaining - 1
            throw ClaimStoreError(.transient, "scripted failure for `\(name)`")
        }
        return NameAvailability(name: name, key: key, isAvailable: !taken.contains(key))
    }

    func availableNames(among names: [String]) throws(ClaimStoreError) -> [String] {
        suggestionLookups += 1
        return names.filter { !taken.contains(policy.evaluate($0).key) }
    }

    func claim(_ name: String, by user: String) throws(ClaimStoreError) -> ClaimOutcome { unsupported(name) }
    func release(_ name: String, by user: String) throws(ClaimStoreError) -> ClaimOutcome { unsupported(name) }
    func rename(from old: String, to new: String, by user: String) throws(ClaimStoreError) -> ClaimOutcome { unsupported(new) }
    func owner(of name: String) throws(ClaimStoreError) -> Claim? { nil }

    private func unsupported(_ name: String) -> ClaimOutcome {
        ClaimOutcome(name: name, key: name, claimed: false, owner: nil, problems: [ClaimProblem(code: "TEST", message: "not scripted")])
    }
}

extension Duration {
    /// Whole milliseconds.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
    }
}

/// The marble notation of a state (see corpus/availability/checker.marbles).
func render(_ state: AvailabilityState) -> String {
    switch state {
    case .idle: "idle"
    case .invalid(let name, let violations): "invalid(\(name): \(violations.map(\.code).joined(separator: " ")))"
    case .checking(let name): "checking(\(name))"
    case .available(let name): "available(\(name))"
    case .taken(let name, let suggestions): suggestions.isEmpty ? "taken(\(name))" : "taken(\(name): \(suggestions.joined(separator: " ")))"
    case .failed(let name, let error): "failed(\(name): \(error.code))"
    }
}
