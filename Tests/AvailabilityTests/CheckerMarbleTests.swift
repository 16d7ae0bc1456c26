import Availability
import ClaimStoreTesting
import Clocks
import ConcurrencyExtras
import Testing

/// Collects published states with their virtual time.
actor StateRecorder {
    private(set) var events: [String] = []
    func add(_ entry: String) { events.append(entry) }
}

@Suite(.serialized)
struct CheckerMarbleTests {
    @Test("marble cases", arguments: try MarbleCase.load())
    @MainActor func marble(_ marble: MarbleCase) async throws {
        await withMainSerialExecutor {
            let clock = TestClock()
            let start = clock.now
            let store = ScriptedStore(clock: clock, taken: marble.taken, delays: marble.delays, failures: marble.failures)
            var configuration = AvailabilityChecker<TestClock<Duration>>.Configuration()
            for (key, value) in marble.config {
                switch key {
                case "debounce": configuration.debounceInterval = .milliseconds(value)
                case "timeout": configuration.queryTimeout = .milliseconds(value)
                case "attempts": configuration.maxAttempts = value
                case "backoff": configuration.retryBackoff = .milliseconds(value)
                case "availableTTL": configuration.availableLifetime = .milliseconds(value)
                case "takenTTL": configuration.takenLifetime = .milliseconds(value)
                case "cache": configuration.cacheCapacity = value
                default: Issue.record("\(marble.testDescription): unknown config key `\(key)`")
                }
            }
            let checker = AvailabilityChecker(store: store, policy: TestDisplayNamePolicy(), clock: clock, configuration: configuration)
            let recorder = StateRecorder()
            let consumer = Task {
                for await state in checker.states {
                    await recorder.add("\(start.duration(to: clock.now).milliseconds) \(render(state))")
                }
            }
            let keystrokes = Dictionary(marble.typing.map { ($0.tick, $0.text) }, uniquingKeysWith: { $1 })
            for tick in 0..<marble.ticks {
                if let text = keystrokes[tick] { checker.send(text) }
                await clock.advance(by: .milliseconds(100))
            }
            let total = marble.runMilliseconds ?? (marble.ticks * 100 + 15_000)
            await clock.advance(by: .milliseconds(total - marble.ticks * 100))
            checker.cancel()
            await consumer.value

            #expect(await recorder.events == marble.expect, "\(marble.testDescription): published states")
            #expect(await store.lookups == marble.queries, "\(marble.testDescription): store lookups")
            #expect(await store.suggestionLookups == marble.suggestionLookups, "\(marble.testDescription): suggestion lookups")
        }
    }

    @Test("an AsyncSequence of keystrokes ends the states after the last answer")
    @MainActor func asyncSequenceInput() async throws {
        try await withMainSerialExecutor {
            let clock = TestClock()
            let store = ScriptedStore(clock: clock, taken: ["zoe"])
            let checker = AvailabilityChecker(store: store, policy: TestDisplayNamePolicy(), clock: clock)
            let (typing, keyboard) = AsyncStream.makeStream(of: String.self)
            let feeder = Task { try await checker.run(typing) }
            let collector = Task { await Array(checker.states).map(render) }
            for text in ["z", "zo", "zoe"] {
                keyboard.yield(text)
                await clock.advance(by: .milliseconds(100))
            }
            keyboard.finish()
            try await feeder.value
            await clock.advance(by: .seconds(1))
            #expect(await collector.value == ["invalid(z: DN1001)", "invalid(zo: DN1001)", "checking(zoe)", "taken(zoe: zoe1 zoe2 zoe3)"])
            #expect(await store.lookups == ["700 zoe"])
        }
    }
}

extension Array {
    /// Gathers a whole async sequence.
    init<S: AsyncSequence>(_ sequence: S) async where S.Element == Element, S.Failure == Never {
        var elements: [Element] = []
        for await element in sequence { elements.append(element) }
        self = elements
    }
}
