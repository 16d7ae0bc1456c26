/// The start of a JSONL record — ``RecordWriter/jsonlPrefix(file:)`` then the record's number —
/// kept as text: the next record's head costs an increment of the digits in place, not a
/// conversion, and is written with one copy.
///
/// Owns its memory: call ``deallocate()`` when done.
struct RecordHead {
    // INVARIANT: `buffer[start..<capacity]` is the prefix (a copy of `prefix`) followed by the
    // decimal digits of `number`, which end at `capacity`.
    private let buffer: UnsafeMutablePointer<UInt8>
    private let prefix: UnsafeMutableRawBufferPointer
    private let capacity: Int
    private var start: Int
    /// The number whose head this is.
    private(set) var number: Int

    /// The head of record `number` (≥ 0) after `prefix`.
    init(prefix: UnsafeRawBufferPointer, number: Int) {
        self.prefix = .allocate(byteCount: prefix.count, alignment: 1)
        self.prefix.copyMemory(from: prefix)
        capacity = prefix.count + 20
        buffer = .allocate(capacity: capacity)
        start = capacity
        self.number = number
        set(number)
    }

    /// Frees the memory.
    func deallocate() {
        buffer.deallocate()
        prefix.deallocate()
    }

    /// The prefix and the digits.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: buffer + start, count: capacity - start) }

    /// Makes this the head of record `next` (≥ 0): an increment when `next` follows the
    /// current number, as it usually does.
    @inline(__always)
    mutating func move(to next: Int) {
        if next == number &+ 1 {
            increment()
        } else if next != number {
            set(next)
        }
    }

    @inline(__always)
    private mutating func increment() {
        number += 1
        let last = buffer + capacity - 1
        if last.pointee != UInt8(ascii: "9") {
            last.pointee += 1
        } else {
            carry()
        }
    }

    /// The increment when the last digit is 9.
    private mutating func carry() {
        var index = capacity - 1
        while buffer[index] == UInt8(ascii: "9") {
            buffer[index] = UInt8(ascii: "0")
            index -= 1
            if index < start + prefix.count {
                // A digit more, a leading 1: the prefix goes one byte further left.
                buffer[index] = UInt8(ascii: "1")
                placePrefix(before: index)
                return
            }
        }
        buffer[index] += 1
    }

    /// Writes the digits of `value` to end at `capacity`, and the prefix before them.
    private mutating func set(_ value: Int) {
        number = value
        var rest = value.magnitude
        var index = capacity
        repeat {
            index -= 1
            buffer[index] = UInt8(truncatingIfNeeded: 0x30 &+ rest % 10)
            rest /= 10
        } while rest > 0
        placePrefix(before: index)
    }

    private mutating func placePrefix(before digits: Int) {
        start = digits - prefix.count
        if let source = prefix.baseAddress { UnsafeMutableRawPointer(buffer + start).copyMemory(from: source, byteCount: prefix.count) }
    }
}
