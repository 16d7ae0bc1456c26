/// A one-multiply-per-byte fingerprint of a list key, computed while a name is scanned, and the
/// set of fingerprints of a list's keys: a name whose fingerprint is not in the set is certainly
/// not listed, so a valid name is accepted without building its key.
///
/// The fingerprint is a polynomial hash (mod 2⁶⁴) of the key with every `m` spelled `rn`: for
/// look-alike keys, `rn` → `m` makes the key depend on the next byte, but its inverse, `m` →
/// `rn`, maps one byte at a time, and two names have the same look-alike key exactly when their
/// keys are equal with every `m` spelled `rn` (both forms are normal forms of `rn` = `m`). So
/// each byte is one step, `hash = hash × multiplier[byte] + addend[byte]`, from a 256-entry
/// table. A hit is only a hint: the caller then looks the key up exactly.
final class ListSignature: @unchecked Sendable {
    // INVARIANT: both buffers are written only in `init` and freed only in `deinit`, so
    // concurrent reads are safe.

    /// Per byte: the multiplier, then the addend (so one step reads one 16-byte entry).
    let steps: UnsafeMutablePointer<UInt64>
    private let slots: UnsafeMutableBufferPointer<UInt64>
    private let shift: UInt64

    private static let base: UInt64 = 0x9E37_79B9_7F4A_7C15 | 1

    /// Fingerprints the ASCII keys among `keys`, which are keys of kind `kind` (keys with other
    /// bytes never match an ASCII name).
    init(kind: ListKey, keys: some Collection<String>) {
        steps = .allocate(capacity: 512)
        for byte in 0..<256 {
            let key = Self.keyByte(UInt8(byte), kind)
            let expandsM = kind == .lookalike && key == UInt8(ascii: "m")
            steps[2 * byte] = expandsM ? Self.base &* Self.base : Self.base
            steps[2 * byte + 1] = expandsM ? UInt64(UInt8(ascii: "r")) &* Self.base &+ UInt64(UInt8(ascii: "n")) : UInt64(key)
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
        steps.deallocate()
        slots.deallocate()
    }

    /// The fingerprint of the empty key.
    static let seed: UInt64 = 0

    /// The fingerprint after one more byte.
    @inline(__always)
    func step(_ hash: UInt64, _ byte: UInt8) -> UInt64 {
        hash &* steps[2 &* Int(byte)] &+ steps[2 &* Int(byte) &+ 1]
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
