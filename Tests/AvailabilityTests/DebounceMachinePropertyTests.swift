import Availability
import ClaimStoreTesting
import PropertyBased
import Testing

/// Random keystrokes, pauses and (possibly stale) answers driven through the pure machine; the
/// invariants must hold after every step.
struct DebounceMachinePropertyTests {
    typealias Machine = DebounceMachine<ContinuousClock.Instant>
    static let texts = ["", "a", "abc", "abcd", "Abc", "a..b", "bob", "admin", "bobby"]

    @Test func neverStaleNeverInvalidOneLookupAtATime() async {
        var staleAnswers = 0
        await propertyCheck(input: Gen.int(in: 0...999).array(of: 0...80)) { (steps: [Int]) in
            let (violations, stale) = Self.run(steps)
            staleAnswers += stale
            #expect(violations.isEmpty, "steps \(steps): \(violations)")
        }
        // Stale answers carry tickets the machine really issued earlier; enough of them were sent.
        #expect(staleAnswers >= 50, "only \(staleAnswers) stale answers were sent")
    }

    @Test func aStaleAnswerWithAnIssuedTicketIsIgnored() {
        // Type `abc`, wait 600 ms (lookup 1 starts), type `abcd` (lookup 1 is cancelled), wait
        // 600 ms (lookup 2 starts), then answer lookup 1: nothing may change.
        let steps = [0 + 4 * 2, 2 + 4 * 6, 0 + 4 * 3, 2 + 4 * 6, 3 + 4 * 3]
        let (violations, stale) = Self.run(steps)
        #expect(violations.isEmpty, "\(violations)")
        #expect(stale == 1)
    }

    /// Runs the steps; returns every broken invariant and how many stale answers were sent.
    static func run(_ steps: [Int]) -> (problems: [String], staleAnswers: Int) {
        let policy = TestDisplayNamePolicy()
        var machine = Machine(debounceInterval: .milliseconds(500),
                              cache: AnswerCache(capacity: 4, availableLifetime: .seconds(2), takenLifetime: .seconds(5)))
        let base = ContinuousClock.now
        var now = 0
        var typed = ""
        var timer: Int?
        var running: (ticket: Int, name: String)?
        var issued: [Int] = []
        var staleAnswers = 0
        var problems: [String] = []

        func apply(_ actions: [Machine.Action]) {
            for action in actions {
                switch action {
                case .publish(let state):
                    switch state {
                    case .available(let name), .taken(let name, _), .checking(let name), .failed(let name, _):
                        if name != typed { problems.append("published \(state) while `\(typed)` is typed") }
                        if !policy.evaluate(name).isClaimable { problems.append("published \(state) for an unclaimable name") }
                    case .invalid(let name, _):
                        if name != typed || policy.evaluate(name).isClaimable { problems.append("published \(state) for `\(typed)`") }
                    case .idle:
                        if !typed.isEmpty { problems.append("idle while `\(typed)` is typed") }
                    }
                case .startTimer(let deadline):
                    timer = Int(base.duration(to: deadline).components.attoseconds / 1_000_000_000_000_000
                                + base.duration(to: deadline).components.seconds * 1_000)
                case .cancelTimer:
                    timer = nil
                case .startLookup(let ticket, let name, _):
                    if let other = running { problems.append("lookup \(ticket) started while \(other.ticket) runs") }
                    if !policy.evaluate(name).isClaimable { problems.append("lookup for unclaimable `\(name)`") }
                    running = (ticket, name)
                    issued.append(ticket)
                case .cancelLookup(let ticket):
                    if running?.ticket != ticket { problems.append("cancelled lookup \(ticket) that is not running") }
                    running = nil
                }
            }
        }

        for step in steps {
            let choice = step / 4
            switch step % 4 {
            case 0, 1:
                typed = texts[choice % texts.count]
                apply(machine.handle(.typed(typed, policy.evaluate(typed)), at: base.advanced(by: .milliseconds(now))))
            case 2:
                now += (choice % 8) * 100
                if let due = timer, due <= now {
                    timer = nil
                    apply(machine.handle(.timerFired, at: base.advanced(by: .milliseconds(due))))
                }
            default:
                let answer: LookupAnswer = choice % 2 == 0 ? .available : .taken(suggestions: [])
                if let lookup = running, choice % 3 != 0 {
                    running = nil
                    apply(machine.handle(.answered(ticket: lookup.ticket, .success(answer)), at: base.advanced(by: .milliseconds(now))))
                } else {
                    // An answer to a lookup issued earlier and since cancelled or answered (a
                    // real ticket, not the running one) must change nothing.
                    let earlier = issued.filter { $0 != running?.ticket }
                    guard !earlier.isEmpty else { continue }
                    let ticket = earlier[choice % earlier.count]
                    staleAnswers += 1
                    let stale = machine.handle(.answered(ticket: ticket, .success(answer)), at: base.advanced(by: .milliseconds(now)))
                    if !stale.isEmpty { problems.append("stale answer to lookup \(ticket) produced \(stale)") }
                }
            }
        }
        return (problems, staleAnswers)
    }
}
