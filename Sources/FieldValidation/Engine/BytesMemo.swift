/// A bounded memo keyed by bytes (no `String` is built to look one up), for one thread: what the
/// email rules make of a domain, computed once per distinct domain.
///
/// Real exports repeat a few domains heavily, so IDNA (libidn2) and the domain rules run once per
/// domain instead of once per address. At most ``capacity`` keys are kept; when full, the memo
/// is emptied and refills with the keys in use.
final class BytesMemo<Value: AnyObject> {
    // INVARIANT: the buffers below are allocated in `init` and freed in `deinit`.

    static var capacity: Int { 4096 }
    /// Longest domain kept, in bytes (a valid one has at most 253, RFC 1035 section 2.3.4):
    /// the memo holds at most ``capacity`` × this many key bytes. Longer ones are computed each time.
    static var maxKeyBytes: Int { 255 }
    private static var slotCount: Int { 2 * capacity }
    // Fixed buffers, allocated once: lookups cost no copy-on-write or exclusivity checks.
    /// Open addressing: `slots[h]` is an entry index plus one, 0 when empty.
    private let slots = UnsafeMutablePointer<Int32>.allocate(capacity: BytesMemo.slotCount)
    private let hashes = UnsafeMutablePointer<UInt64>.allocate(capacity: BytesMemo.capacity)
    /// Entry `i`'s key is `keys[i * maxKeyBytes ..< i * maxKeyBytes + keyCounts[i]]`.
    private let keyCounts = UnsafeMutablePointer<Int>.allocate(capacity: BytesMemo.capacity)
    private let keys = UnsafeMutablePointer<UInt8>.allocate(capacity: BytesMemo.capacity * BytesMemo.maxKeyBytes)
    /// Entry `i`'s value, retained by the memo (released when emptied, and in `deinit`): a
    /// lookup copies one reference, with no generic optional to copy and destroy.
    private let outcomes = UnsafeMutablePointer<Unmanaged<Value>>.allocate(capacity: BytesMemo.capacity)
    /// How many entries are in use.
    private let count = UnsafeMutablePointer<Int>.allocate(capacity: 1)

    init() {
        slots.initialize(repeating: 0, count: Self.slotCount)
        hashes.initialize(repeating: 0, count: Self.capacity)
        keyCounts.initialize(repeating: 0, count: Self.capacity)
        count.initialize(to: 0)
    }

    deinit {
        releaseAll()
        for pointer in [UnsafeMutableRawPointer(slots), UnsafeMutableRawPointer(hashes), UnsafeMutableRawPointer(keyCounts),
                        UnsafeMutableRawPointer(keys), UnsafeMutableRawPointer(outcomes), UnsafeMutableRawPointer(count)] {
            pointer.deallocate()
        }
    }

    /// The value for the key `domain`, computed with `compute` (given the key as a string) and
    /// kept when unknown; nil when the key is too long to keep (``maxKeyBytes``). The memo keeps
    /// the value alive until the next call, counting no reference for the caller.
    @inline(__always)
    func value(for domain: UnsafeBufferPointer<UInt8>, compute: (String) -> Value) -> Unmanaged<Value>? {
        guard domain.count <= Self.maxKeyBytes, let base = domain.baseAddress else { return nil }
        let hash = Self.hash(UnsafeRawPointer(base), domain.count)
        if let known = find(base, domain.count, hash: hash).outcome { return known }
        return insert(compute(String(decoding: domain, as: UTF8.self)), base, domain.count, hash: hash)
    }

    /// Keeps `outcome` for the key, unless the key is known already; returns the value kept.
    private func insert(_ outcome: Value, _ base: UnsafePointer<UInt8>, _ keyCount: Int, hash: UInt64) -> Unmanaged<Value> {
        var (found, slot) = find(base, keyCount, hash: hash)
        if let found { return found }
        if count.pointee >= Self.capacity {
            // Full: start again with the domains in use.
            slots.update(repeating: 0, count: Self.slotCount)
            releaseAll()
            count.pointee = 0
            (found, slot) = find(base, keyCount, hash: hash)
        }
        let entry = count.pointee
        count.pointee += 1
        hashes[entry] = hash
        keyCounts[entry] = keyCount
        (keys + entry * Self.maxKeyBytes).update(from: base, count: keyCount)
        outcomes[entry] = Unmanaged.passRetained(outcome)
        slots[slot] = Int32(entry + 1)
        return outcomes[entry]
    }

    /// Releases every entry's value.
    private func releaseAll() {
        for entry in 0..<count.pointee { outcomes[entry].release() }
    }

    /// A 64-bit hash of `count` bytes at `bytes`, eight at a time.
    @inline(__always)
    private static func hash(_ bytes: UnsafeRawPointer, _ count: Int) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(count)
        var i = 0
        while i + 8 <= count {
            hash = (hash ^ bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0x9E37_79B9_7F4A_7C15
            hash ^= hash >> 29
            i += 8
        }
        if i < count, count >= 8 {
            // The last eight bytes, overlapping those already read.
            hash = (hash ^ bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)) &* 0x9E37_79B9_7F4A_7C15
            hash ^= hash >> 29
            i = count
        }
        while i < count {
            hash = (hash ^ UInt64(bytes.load(fromByteOffset: i, as: UInt8.self))) &* 0x100_0000_01b3
            i += 1
        }
        return hash ^ (hash >> 32)
    }

    /// The entry for the key, or the empty slot where it belongs.
    @inline(__always)
    private func find(_ key: UnsafePointer<UInt8>, _ keyCount: Int, hash: UInt64) -> (outcome: Unmanaged<Value>?, slot: Int) {
        let mask = Self.slotCount - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let entry = Int(slots[slot]) - 1
            if entry < 0 { return (nil, slot) }
            if hashes[entry] == hash && keyCounts[entry] == keyCount
                && Self.equal(keys + entry * Self.maxKeyBytes, key, keyCount) {
                return (outcomes[entry], slot)
            }
            slot = (slot + 1) & mask
        }
    }

    /// Whether `count` bytes at `a` and `b` are equal, eight at a time (domains are short: a
    /// call to `memcmp` costs more than the comparison).
    @inline(__always)
    private static func equal(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        let a = UnsafeRawPointer(a), b = UnsafeRawPointer(b)
        guard count >= 8 else {
            for i in 0..<count where a.load(fromByteOffset: i, as: UInt8.self) != b.load(fromByteOffset: i, as: UInt8.self) { return false }
            return true
        }
        var i = 0
        while i + 8 <= count {
            guard a.loadUnaligned(fromByteOffset: i, as: UInt64.self) == b.loadUnaligned(fromByteOffset: i, as: UInt64.self) else { return false }
            i += 8
        }
        // The last eight bytes, overlapping those already compared.
        return i == count
            || a.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self) == b.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
    }
}
