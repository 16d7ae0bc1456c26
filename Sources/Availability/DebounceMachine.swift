/// The availability checker's decisions as a pure state machine: an event and the current instant
/// go in, actions come out. No tasks, no clock: ``AvailabilityChecker`` performs the actions.
///
/// Behaviour:
/// - Empty text publishes `idle`; an invalid name publishes `invalid` at once. Both cancel any
///   pending timer and running query, and never cause a lookup.
/// - A valid name publishes `checking` and (re)starts the debounce timer; the lookup starts when
///   the timer expires with no newer keystroke: one lookup per typing burst.
/// - Distinct until changed on the canonical key: typing the key that is already being looked up
///   keeps that lookup; typing back the key of the last answer (before another lookup started)
///   republishes that answer with no lookup (`abc` → `abcd` → `abc`).
/// - A fresh cached answer is published without a lookup.
/// - A keystroke with a different key cancels the running lookup; an answer whose ticket is not
///   the running one is stale and ignored, so a stale answer is never published.
package struct DebounceMachine<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// Something that happened.
    package enum Event: Sendable {
        /// The text changed; `evaluation` is the policy's verdict on it.
        case typed(String, NameEvaluation)
        /// The debounce timer expired.
        case timerFired
        /// The lookup with `ticket` finished.
        case answered(ticket: Int, Result<LookupAnswer, AvailabilityError>)
    }

    /// Something the driver must do, in order.
    package enum Action: Sendable, Hashable {
        /// Publish a new state.
        case publish(AvailabilityState)
        /// Start (or restart) the single debounce timer to fire at the instant.
        case startTimer(Instant)
        /// Stop the debounce timer.
        case cancelTimer
        /// Start looking up `name` (key `key`); report back with `ticket`.
        case startLookup(ticket: Int, name: String, key: String)
        /// Cancel the lookup with `ticket`; its answer will be ignored anyway.
        case cancelLookup(ticket: Int)
    }

    private struct Pending: Sendable { var name: String; var key: String; var deadline: Instant }
    private struct Lookup: Sendable { var ticket: Int; var name: String; var key: String }
    private struct Settled: Sendable { var key: String; var answer: LookupAnswer }

    /// Quiet time after the last keystroke before a lookup starts.
    package let debounceInterval: Duration
    /// Answers already known.
    package private(set) var cache: AnswerCache<Instant>
    private var pending: Pending?
    private var lookup: Lookup?
    private var settled: Settled?
    private var lastPublished: AvailabilityState?
    private var nextTicket = 1

    /// Creates a machine in the idle state.
    package init(debounceInterval: Duration, cache: AnswerCache<Instant>) {
        self.debounceInterval = debounceInterval
        self.cache = cache
    }

    /// True when no timer is pending and no lookup is running.
    package var isQuiescent: Bool { pending == nil && lookup == nil }

    /// Handles one event at instant `now`.
    ///
    /// - Returns: The actions to perform, in order.
    package mutating func handle(_ event: Event, at now: Instant) -> [Action] {
        switch event {
        case .typed(let text, let evaluation): typed(text, evaluation, at: now)
        case .timerFired: timerFired(at: now)
        case .answered(let ticket, let result): answered(ticket: ticket, result, at: now)
        }
    }

    // MARK: - Events

    private mutating func typed(_ text: String, _ evaluation: NameEvaluation, at now: Instant) -> [Action] {
        if text.isEmpty { return stopAll() + publish(.idle) }
        guard evaluation.isClaimable else {
            return stopAll() + publish(.invalid(name: text, violations: Self.violations(of: text, evaluation)))
        }
        let key = evaluation.key
        if let running = lookup, running.key == key {
            lookup?.name = text
            return stopTimer() + publish(.checking(name: text))
        }
        let actions = stopLookup()
        if let settled, settled.key == key {
            return actions + stopTimer() + publish(settled.answer.state(for: text))
        }
        if let answer = cache.answer(for: key, at: now) {
            settled = Settled(key: key, answer: answer)
            return actions + stopTimer() + publish(answer.state(for: text))
        }
        let deadline = now.advanced(by: debounceInterval)
        pending = Pending(name: text, key: key, deadline: deadline)
        return actions + [.startTimer(deadline)] + publish(.checking(name: text))
    }

    private mutating func timerFired(at now: Instant) -> [Action] {
        guard let due = pending, now >= due.deadline else { return [] }
        pending = nil
        if let answer = cache.answer(for: due.key, at: now) {
            settled = Settled(key: due.key, answer: answer)
            return publish(answer.state(for: due.name))
        }
        settled = nil
        let ticket = nextTicket
        nextTicket += 1
        lookup = Lookup(ticket: ticket, name: due.name, key: due.key)
        return [.startLookup(ticket: ticket, name: due.name, key: due.key)]
    }

    private mutating func answered(ticket: Int, _ result: Result<LookupAnswer, AvailabilityError>, at now: Instant) -> [Action] {
        guard let running = lookup, running.ticket == ticket else { return [] }
        lookup = nil
        switch result {
        case .success(let answer):
            cache.insert(answer, for: running.key, at: now)
            settled = Settled(key: running.key, answer: answer)
            return publish(answer.state(for: running.name))
        case .failure(let error):
            return publish(.failed(name: running.name, error: error))
        }
    }

    // MARK: - Helpers

    private mutating func publish(_ state: AvailabilityState) -> [Action] {
        guard state != lastPublished else { return [] }
        lastPublished = state
        return [.publish(state)]
    }

    private mutating func stopTimer() -> [Action] {
        guard pending != nil else { return [] }
        pending = nil
        return [.cancelTimer]
    }

    private mutating func stopLookup() -> [Action] {
        guard let running = lookup else { return [] }
        lookup = nil
        return [.cancelLookup(ticket: running.ticket)]
    }

    private mutating func stopAll() -> [Action] {
        settled = nil
        return stopTimer() + stopLookup()
    }

    /// The violations to show; a reserved name the policy did not flag gets `AV1002`.
    private static func violations(of text: String, _ evaluation: NameEvaluation) -> [NameViolation] {
        guard evaluation.violations.isEmpty else { return evaluation.violations }
        let reserved = ClaimProblem.reserved(text)
        return [NameViolation(code: reserved.code, rule: "displayName.reserved", message: reserved.message)]
    }
}
