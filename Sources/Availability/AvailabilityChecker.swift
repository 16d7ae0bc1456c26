/// Tells a sign-up or profile screen whether the display name being typed is available.
///
/// Feed it keystrokes with ``send(_:)`` (or any `AsyncSequence` of strings with ``run(_:)``) and
/// read ``states``. Decisions are made by ``DebounceMachine`` (see there for the exact
/// behaviour); this type only runs its timer and lookups as tasks on the injected clock, so tests
/// can drive it on virtual time.
///
/// ```swift
/// let checker = AvailabilityChecker(store: store, policy: policy, clock: ContinuousClock())
/// Task { for await state in checker.states { render(state) } }
/// checker.send("alice")
/// ```
public final class AvailabilityChecker<C: Clock>: Sendable where C.Duration == Duration {
    /// Timing and size limits.
    public struct Configuration: Sendable {
        /// Quiet time after the last keystroke before a lookup starts.
        public var debounceInterval: Duration = .milliseconds(500)
        /// Longest wait for one lookup attempt.
        public var queryTimeout: Duration = .seconds(3)
        /// Attempts per lookup (first try included) on timeouts and transient store errors.
        public var maxAttempts = 3
        /// Wait before the second attempt; doubled for each further attempt.
        public var retryBackoff: Duration = .milliseconds(250)
        /// Most answers cached (least recently used go first); 0 disables the cache.
        public var cacheCapacity = 256
        /// How long an "available" answer is reused.
        public var availableLifetime: Duration = .seconds(10)
        /// How long a "taken" answer is reused.
        public var takenLifetime: Duration = .seconds(60)
        /// Most suggestions offered for a taken name.
        public var maxSuggestions = 3

        /// The defaults: 500 ms debounce, 3 s timeout, 3 attempts from 250 ms backoff, 256
        /// cached answers kept 10 s (available) / 60 s (taken), 3 suggestions.
        public init() {}
    }

    private enum Input: Sendable {
        case typed(String)
        case machine(DebounceMachine<C.Instant>.Event)
        case finish
    }

    /// Every state change, in order. Ends after ``finish()`` once pending work is done, or after
    /// ``cancel()``.
    public let states: AsyncStream<AvailabilityState>
    private let inputs: AsyncStream<Input>.Continuation
    private let driver: Task<Void, Never>

    /// Creates a checker and starts it.
    ///
    /// - Parameters:
    ///   - store: Where lookups go.
    ///   - policy: The display-name rules; invalid names never reach the store.
    ///   - clock: The clock for debounce, timeouts and backoff (a `TestClock` in tests).
    ///   - configuration: Timing and size limits.
    public init(store: any ClaimStore, policy: any DisplayNamePolicy, clock: C, configuration: Configuration = .init()) {
        let (states, publisher) = AsyncStream.makeStream(of: AvailabilityState.self)
        let (inputs, sink) = AsyncStream.makeStream(of: Input.self)
        let runner = LookupRunner(store: store, policy: policy, clock: clock, timeout: configuration.queryTimeout,
                                  maxAttempts: configuration.maxAttempts, backoff: configuration.retryBackoff,
                                  maxSuggestions: configuration.maxSuggestions)
        let machine = DebounceMachine<C.Instant>(
            debounceInterval: configuration.debounceInterval,
            cache: AnswerCache(capacity: configuration.cacheCapacity, availableLifetime: configuration.availableLifetime,
                               takenLifetime: configuration.takenLifetime))
        self.states = states
        self.inputs = sink
        self.driver = Task {
            await Self.drive(machine, inputs: inputs, sink: sink, publisher: publisher, policy: policy, clock: clock, runner: runner)
        }
    }

    deinit {
        driver.cancel()
    }

    /// Reports the text field's new content (call on every keystroke). Ignored after ``finish()``.
    public func send(_ text: String) {
        inputs.yield(.typed(text))
    }

    /// Sends every element of `texts`, then ``finish()``.
    ///
    /// - Throws: Whatever `texts` throws (the checker is finished either way).
    public func run<S: AsyncSequence>(_ texts: S) async throws where S.Element == String {
        defer { finish() }
        for try await text in texts { send(text) }
    }

    /// No more input: ``states`` ends once the pending debounce and lookup have been published.
    public func finish() {
        inputs.yield(.finish)
    }

    /// Stops at once: cancels the timer and any lookup and ends ``states``.
    public func cancel() {
        driver.cancel()
    }

    // MARK: - Driver

    /// The one task that owns the machine; timers and lookups report back through `sink`.
    private static func drive(
        _ initial: DebounceMachine<C.Instant>, inputs: AsyncStream<Input>, sink: AsyncStream<Input>.Continuation,
        publisher: AsyncStream<AvailabilityState>.Continuation, policy: any DisplayNamePolicy, clock: C,
        runner: LookupRunner<C>
    ) async {
        var machine = initial
        var timer: Task<Void, Never>?
        var lookups: [Int: Task<Void, Never>] = [:]
        var finishing = false
        defer {
            timer?.cancel()
            lookups.values.forEach { $0.cancel() }
            sink.finish()
            publisher.finish()
        }
        for await input in inputs {
            let event: DebounceMachine<C.Instant>.Event
            switch input {
            case .typed(let text):
                if finishing { continue }
                event = .typed(text, policy.evaluate(text))
            case .machine(let machineEvent):
                event = machineEvent
            case .finish:
                finishing = true
                if machine.isQuiescent { return }
                continue
            }
            for action in machine.handle(event, at: clock.now) {
                switch action {
                case .publish(let state):
                    publisher.yield(state)
                case .startTimer(let deadline):
                    timer?.cancel()
                    timer = Task {
                        do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return }
                        sink.yield(.machine(.timerFired))
                    }
                case .cancelTimer:
                    timer?.cancel()
                    timer = nil
                case .startLookup(let ticket, let name, _):
                    lookups[ticket] = Task {
                        guard let result = await runner.run(name: name) else { return }
                        sink.yield(.machine(.answered(ticket: ticket, result)))
                    }
                case .cancelLookup(let ticket):
                    lookups.removeValue(forKey: ticket)?.cancel()
                }
            }
            if case .answered(let ticket, _) = event { lookups[ticket] = nil }
            if finishing && machine.isQuiescent { return }
        }
    }
}
