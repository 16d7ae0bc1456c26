#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The violations the display-name engine hands out for names that break one rule, as arrays
/// built once.
final class SingleViolations: Sendable {
    /// `[violation]` per rule index, when the rule's violation does not depend on the name.
    let rules: [[Violation]?]
    /// Per length rule, `[violation]` per length below ``CompiledRule/cachedLengths``.
    let lengths: [[[Violation]?]]

    init(rules: [[Violation]?], lengths: [[[Violation]?]]) {
        self.rules = rules
        self.lengths = lengths
    }

    /// A copy sharing no memory with this one: arrays, violations and strings of its own.
    var deepCopy: SingleViolations {
        func copy(_ array: [Violation]?) -> [Violation]? { array.map { $0.map(\.deepCopy) } }
        return SingleViolations(rules: rules.map(copy), lengths: lengths.map { $0.map(copy) })
    }
}

/// Per-thread values of an owner: deep copies of ``SingleViolations``, an email engine's memo.
///
/// Every name that breaks one rule gets the same prebuilt array. Reference counting is atomic,
/// so when several threads retain and release one array they fight over its cache line: in the
/// batch CLI that cost a quarter of the run. A thread that takes its own deep copy once counts
/// references only on memory no other thread touches.
enum ThreadCopies {
    /// One value for one owner; a thread's values form an immutable list (newest first), so
    /// reading it needs no exclusivity checks.
    private final class Entry {
        /// Held, so that its identity cannot be reused while the entry exists.
        let owner: AnyObject
        let value: AnyObject
        let next: Entry?

        init(owner: AnyObject, value: AnyObject, next: Entry?) {
            self.owner = owner
            self.value = value
            self.next = next
        }

        /// This list with at most `count` entries.
        func prefix(_ count: Int) -> Entry? {
            count <= 0 ? nil : Entry(owner: owner, value: value, next: next?.prefix(count - 1))
        }
    }

    /// A thread keeps values for at most this many owners (the most recently added ones).
    private static let limit = 4

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let rc = pthread_key_create(&key) { list in
            #if canImport(Darwin)
            Unmanaged<Entry>.fromOpaque(UnsafeRawPointer(list)).release()
            #else
            if let list { Unmanaged<Entry>.fromOpaque(UnsafeRawPointer(list)).release() }
            #endif
        }
        precondition(rc == 0, "pthread_key_create failed: \(rc)")
        return key
    }()

    /// The calling thread's copy of `shared`, which `owner` hands out, made on first use.
    static func copy(of shared: SingleViolations, for owner: AnyObject) -> SingleViolations {
        local(for: owner) { shared.deepCopy }
    }

    /// The calling thread's value for `owner`, made by `make` on the thread's first use (or
    /// again once the thread has dropped it for newer owners).
    static func local<Value: AnyObject>(for owner: AnyObject, make: () -> Value) -> Value {
        unretainedLocal(for: owner, make: make).takeUnretainedValue()
    }

    /// ``local(for:make:)``, counting no reference: the thread's list keeps the value alive
    /// until the thread asks for the value of an owner it holds none for.
    @inline(__always)
    static func unretainedLocal<Value: AnyObject>(for owner: AnyObject, make: () -> Value) -> Unmanaged<Value> {
        // The list is walked without counting references: the thread's slot keeps it alive.
        var next = pthread_getspecific(key)
        while let pointer = next {
            let entry = Unmanaged<Entry>.fromOpaque(pointer)
            // An owner always gets values of one type.
            if let value = entry._withUnsafeGuaranteedRef({ $0.owner === owner ? Unmanaged.passUnretained($0.value) : nil }) {
                return Unmanaged.fromOpaque(value.toOpaque())
            }
            next = entry._withUnsafeGuaranteedRef { $0.next.map { Unmanaged.passUnretained($0).toOpaque() } }
        }
        return add(make(), for: owner)
    }

    /// Keeps `value` as the calling thread's value for `owner`, dropping its oldest values past ``limit``.
    private static func add<Value: AnyObject>(_ value: Value, for owner: AnyObject) -> Unmanaged<Value> {
        let head = pthread_getspecific(key).map { Unmanaged<Entry>.fromOpaque($0).takeUnretainedValue() }
        let list = Entry(owner: owner, value: value, next: head?.prefix(limit - 1))
        pthread_setspecific(key, Unmanaged.passRetained(list).toOpaque())
        if let head { Unmanaged.passUnretained(head).release() }
        return Unmanaged.passUnretained(value)
    }
}

extension Violation {
    /// A copy sharing no memory with this violation: its own storage and strings.
    var deepCopy: Violation {
        func fresh(_ text: String) -> String { String(decoding: Array(text.utf8), as: UTF8.self) }
        var parameters: [String: String] = [:]
        for (name, value) in self.parameters { parameters[fresh(name)] = fresh(value) }
        return Violation(code: fresh(code), rule: fresh(rule), message: fresh(message), parameters: parameters)
    }
}
