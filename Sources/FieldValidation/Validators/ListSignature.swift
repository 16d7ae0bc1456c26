/// A one-addition-per-byte fingerprint of a list key, computed while a name is scanned, and the
/// set of fingerprints of a list's keys: a name whose fingerprint is not in the set is certainly
/// not listed, so a valid name is accepted without building its key.
///
/// The fingerprint is the sum (mod 2⁶⁴) of a fixed pseudo-random value per byte of the key with
/// every `m` spelled `rn`: for look-alike keys, `rn` → `m` makes the key depend on the next byte,
/// but its inverse, `m` → `rn`, maps one byte at a time, and two names have the same look-alike
/// key exactly when their keys are equal with every `m` spelled `rn` (both forms are normal forms
/// of `rn` = `m`). So each byte is one step, `hash = hash + value[byte]`, from a 256-entry table,
/// with `value[m] = value[r] + value[n]`. A sum ignores the order of the bytes, so anagrams of a
/// key hit too; that is the price of a step with no multiplication to wait for, and a hit is
/// only a hint anyway: the caller then looks the key up exactly.
final class ListSignature: @unchecked Sendable {
    // INVARIANT: both buffers are written only in `init` and freed only in `deinit`, so
    // concurrent reads are safe.

    /// Per byte: the value it adds.
    let values: UnsafeMutablePointer<UInt64>
    private let slots: UnsafeMutableBufferPointer<UInt64>
    private let shift: UInt64

    private static let base: UInt64 = 0x9E37_79B9_7F4A_7C15 | 1

    /// Fingerprints the ASCII keys among `keys`, which are keys of kind `kind` (keys with other
    /// bytes never match an ASCII name).
    init(kind: ListKey, keys: some Collection<String>) {
        values = .allocate(capacity: 256)
        for byte in 0..<256 {
            let key = Self.keyByte(UInt8(byte), kind)
            let expandsM = kind == .lookalike && key == UInt8(ascii: "m")
            values[byte] = expandsM ? Self.value(UInt8(ascii: "r")) &+ Self.value(UInt8(ascii: "n")) : Self.value(key)
        }
        let keys = keys.filter { $0.utf8.allSatisfy { $0 < 128 } }
        var bits: UInt64 = 3
        while 1 << bits < keys.count * 4 { bits += 1 }
        shift = 64 - bits
        slots = .allocate(capacity: 1 << bits)
        slots.initialize(repeating: 0)
        for key in keys {
            var hash = Self.seed
            for byte in key.utf8 { hash = step(hash, byte) }
            var index = slot(hash)
            while slots[index] != 0 && slots[index] != hash | 1 { index = (index + 1) & (slots.count - 1) }
            slots[index] = hash | 1
        }
    }

    deinit {
        values.deallocate()
        slots.deallocate()
    }

    /// The fingerprint of the empty key.
    static let seed: UInt64 = 0

    /// The fingerprint after one more byte.
    @inline(__always)
    func step(_ hash: UInt64, _ byte: UInt8) -> UInt64 {
        hash &+ values[Int(byte)]
    }

    /// The value a key byte adds: SplitMix64's finalizer of the byte, so that the sums of
    /// different short keys differ.
    private static func value(_ byte: UInt8) -> UInt64 {
        var z = (UInt64(byte) &+ 1) &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// False when no key of the list has this fingerprint (so the name is certainly not listed).
    @inline(__always)
    func mayContain(_ hash: UInt64) -> Bool {
        let wanted = hash | 1
        var index = slot(hash)
        while true {
            let found = slots[index]
            if found == wanted { return true }
            if found == 0 { return false }
            index = (index + 1) & (slots.count - 1)
        }
    }

    @inline(__always)
    private func slot(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: (hash &* Self.base) >> shift) }

    /// One byte of the key, before `m` is spelled `rn`.
    private static func keyByte(_ byte: UInt8, _ kind: ListKey) -> UInt8 {
        var byte = byte
        if kind != .exact, byte &- 0x41 < 26 { byte |= 0x20 }
        guard kind == .lookalike else { return byte }
        switch byte {
        case UInt8(ascii: "1"), UInt8(ascii: "i"), UInt8(ascii: "|"): return UInt8(ascii: "l")
        case UInt8(ascii: "0"): return UInt8(ascii: "o")
        default: return byte
        }
    }
}
