import Availability
import ClaimStoreTesting
import Testing

/// The debounce decisions without tasks or clocks: events and instants in, actions out.
struct DebounceMachineTests {
    typealias Machine = DebounceMachine<ContinuousClock.Instant>
    let base = ContinuousClock.now
    let policy = TestDisplayNamePolicy()

    func at(_ milliseconds: Int) -> ContinuousClock.Instant { base.advanced(by: .milliseconds(milliseconds)) }

    func machine(cacheCapacity: Int = 16) -> Machine {
        Machine(debounceInterval: .milliseconds(500),
                cache: AnswerCache(capacity: cacheCapacity, availableLifetime: .seconds(10), takenLifetime: .seconds(60)))
    }

    func type(_ text: String, _ machine: inout Machine, at milliseconds: Int) -> [Machine.Action] {
        machine.handle(.typed(text, policy.evaluate(text)), at: at(milliseconds))
    }

    @Test func eachKeystrokeRestartsTheTimerAndOnlyTheLastDeadlineLooksUp() {
        var machine = machine()
        #expect(type("ann", &machine, at: 0) == [.startTimer(at(500)), .publish(.checking(name: "ann"))])
        #expect(type("anna", &machine, at: 300) == [.startTimer(at(800)), .publish(.checking(name: "anna"))])
        #expect(machine.handle(.timerFired, at: at(500)) == [], "a timer from before the last keystroke does nothing")
        #expect(machine.handle(.timerFired, at: at(800)) == [.startLookup(ticket: 1, name: "anna", key: "anna")])
        #expect(machine.handle(.answered(ticket: 1, .success(.available)), at: at(850)) == [.publish(.available(name: "anna"))])
        #expect(machine.isQuiescent)
    }

    @Test func invalidNamesPublishAtOnceAndNeverLookUp() {
        var machine = machine()
        let actions = type("a..b", &machine, at: 0)
        #expect(actions.count == 1)
        guard case .publish(.invalid(let name, let violations)) = actions.first else {
            Issue.record("expected an invalid state, got \(actions)")
            return
        }
        #expect(name == "a..b" && violations.map(\.code) == ["DN1004"])
        #expect(machine.handle(.timerFired, at: at(1_000)) == [])
        #expect(machine.isQuiescent)
    }

    @Test func newerInputCancelsTheLookupAndItsLateAnswerIsIgnored() {
        var machine = machine()
        _ = type("bob", &machine, at: 0)
        _ = machine.handle(.timerFired, at: at(500))
        #expect(type("bobby", &machine, at: 600) == [.cancelLookup(ticket: 1), .startTimer(at(1_100)), .publish(.checking(name: "bobby"))])
        #expect(machine.handle(.answered(ticket: 1, .success(.taken(suggestions: []))), at: at(700)) == [], "stale answer published")
        #expect(machine.handle(.timerFired, at: at(1_100)) == [.startLookup(ticket: 2, name: "bobby", key: "bobby")])
        #expect(machine.handle(.answered(ticket: 2, .success(.available)), at: at(1_200)) == [.publish(.available(name: "bobby"))])
    }

    @Test func typingTheRunningKeyAgainKeepsTheLookup() {
        var machine = machine()
        _ = type("cleo", &machine, at: 0)
        _ = machine.handle(.timerFired, at: at(500))
        #expect(type("Cleo", &machine, at: 600) == [.publish(.checking(name: "Cleo"))])
        #expect(machine.handle(.answered(ticket: 1, .success(.available)), at: at(700)) == [.publish(.available(name: "Cleo"))])
    }

    @Test func distinctUntilChangedWithoutACache() {
        var machine = machine(cacheCapacity: 0)
        _ = type("abc", &machine, at: 0)
        _ = machine.handle(.timerFired, at: at(500))
        _ = machine.handle(.answered(ticket: 1, .success(.available)), at: at(500))
        _ = type("abcd", &machine, at: 600)
        #expect(type("abc", &machine, at: 700) == [.cancelTimer, .publish(.available(name: "abc"))])
        #expect(machine.isQuiescent)
    }

    @Test func cachedAnswersSkipTheDebounce() {
        var machine = machine()
        _ = type("dora", &machine, at: 0)
        _ = machine.handle(.timerFired, at: at(500))
        _ = machine.handle(.answered(ticket: 1, .success(.taken(suggestions: ["dora1"]))), at: at(500))
        #expect(type("", &machine, at: 600) == [.publish(.idle)])
        #expect(type("DORA", &machine, at: 700) == [.publish(.taken(name: "DORA", suggestions: ["dora1"]))])
    }

    @Test func failuresPublishFailedAndAreNotCached() {
        var machine = machine()
        let error = AvailabilityError(code: "AV2002", message: "store unavailable")
        _ = type("eve", &machine, at: 0)
        _ = machine.handle(.timerFired, at: at(500))
        #expect(machine.handle(.answered(ticket: 1, .failure(error)), at: at(600)) == [.publish(.failed(name: "eve", error: error))])
        _ = type("", &machine, at: 700)
        #expect(type("eve", &machine, at: 800) == [.startTimer(at(1_300)), .publish(.checking(name: "eve"))])
    }

    @Test func identicalStatesArePublishedOnce() {
        var machine = machine()
        #expect(type("", &machine, at: 0) == [.publish(.idle)])
        #expect(type("", &machine, at: 100) == [])
    }
}

struct AnswerCacheTests {
    let base = ContinuousClock.now
    func at(_ seconds: Int) -> ContinuousClock.Instant { base.advanced(by: .seconds(seconds)) }

    @Test func takenAndAvailableAnswersHaveTheirOwnLifetimes() {
        var cache = AnswerCache<ContinuousClock.Instant>(capacity: 8, availableLifetime: .seconds(10), takenLifetime: .seconds(60))
        cache.insert(.available, for: "free", at: at(0))
        cache.insert(.taken(suggestions: []), for: "held", at: at(0))
        #expect(cache.answer(for: "free", at: at(9)) == .available)
        #expect(cache.answer(for: "free", at: at(10)) == nil)
        #expect(cache.answer(for: "held", at: at(59)) == .taken(suggestions: []))
        #expect(cache.answer(for: "held", at: at(60)) == nil)
    }

    @Test func theLeastRecentlyUsedEntryIsEvictedWhenFull() {
        var cache = AnswerCache<ContinuousClock.Instant>(capacity: 2, availableLifetime: .seconds(10), takenLifetime: .seconds(10))
        cache.insert(.available, for: "a", at: at(0))
        cache.insert(.available, for: "b", at: at(0))
        _ = cache.answer(for: "a", at: at(1))
        cache.insert(.available, for: "c", at: at(1))
        #expect(cache.count == 2)
        #expect(cache.answer(for: "b", at: at(1)) == nil)
        #expect(cache.answer(for: "a", at: at(1)) == .available)
        #expect(cache.answer(for: "c", at: at(1)) == .available)
    }

    @Test func capacityZeroCachesNothing() {
        var cache = AnswerCache<ContinuousClock.Instant>(capacity: 0, availableLifetime: .seconds(10), takenLifetime: .seconds(10))
        cache.insert(.available, for: "a", at: at(0))
        #expect(cache.answer(for: "a", at: at(0)) == nil)
    }
}

struct SuggestionTests {
    @Test func candidatesPassThePolicyAndHaveDistinctKeys() {
        let policy = TestDisplayNamePolicy()
        #expect(Suggestions.candidates(for: "bob", policy: policy)
                == ["bob1", "bob2", "bob3", "bob4", "bob5", "bob6", "bob7", "bob8", "bob9", "bob_", "the.bob"])
        let longest = String(repeating: "x", count: 30)
        #expect(Suggestions.candidates(for: longest, policy: policy).isEmpty, "every candidate is over 30 characters")
        #expect(!Suggestions.candidates(for: "amy.", policy: policy).contains("the.amy."), "trailing period stays invalid")
    }
}
