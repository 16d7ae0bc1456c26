/// A chunk's output: bytes written in place, with no copy, into memory that is kept when the
/// buffer is emptied, so a buffer reused chunk after chunk touches no fresh pages.
///
/// A class, handed from the thread that fills it to the one that writes it out and back: one
/// thread at a time uses it.
final class OutputBuffer: @unchecked Sendable {
    // INVARIANT: `storage[0..<count]` is initialized; only one thread uses a buffer at a time
    // (handed over through the batch's dispatch group, which orders the accesses).
    private var storage: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    /// An empty buffer with room for `capacity` bytes.
    init(capacity: Int = 0) {
        self.capacity = capacity
        storage = .allocate(capacity: Swift.max(1, capacity))
    }

    deinit { storage.deallocate() }

    /// The bytes written so far.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage, count: count) }

    /// Empties the buffer, keeping its memory.
    func removeAll() { count = 0 }

    /// Makes room for `extra` more bytes.
    @inline(__always)
    func reserve(_ extra: Int) {
        if count + extra > capacity { grow(toFit: extra) }
    }

    private func grow(toFit extra: Int) {
        let grown = Swift.max(count + extra, 2 * capacity)
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        larger.initialize(from: storage, count: count)
        storage.deallocate()
        storage = larger
        capacity = grown
    }

    /// Appends what `body` writes through a ``ByteCursor``: at most `capacity` bytes.
    @inline(__always)
    func write(capacity: Int, _ body: (inout ByteCursor) -> Void) {
        reserve(capacity)
        var cursor = ByteCursor(next: storage + count)
        body(&cursor)
        assert(cursor.next - storage <= self.capacity, "ByteCursor wrote past its reservation")
        count = cursor.next - storage
    }

    /// Appends `bytes`.
    func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in write(capacity: raw.count) { $0.write(raw) } }
    }
}
