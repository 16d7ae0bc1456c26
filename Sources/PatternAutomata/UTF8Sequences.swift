// Code-point ranges as UTF-8 byte-range sequences (the construction RE2 and regex-automata use).

/// A sequence of byte ranges that matches the UTF-8 encodings of a range of scalars: one range
/// per byte of the encoding.
typealias ByteRangeSequence = [ClosedRange<UInt8>]

enum UTF8Sequences {
    /// The byte-range sequences whose union matches exactly the UTF-8 encodings of the scalars
    /// in `range` (surrogates excluded: they have no UTF-8 encoding).
    static func of(_ range: ClosedRange<UInt32>) -> [ByteRangeSequence] {
        var pending: [ClosedRange<UInt32>] = []
        // Surrogates are not scalars: cut them out.
        if range.lowerBound < 0xD800 {
            pending.append(range.lowerBound...min(range.upperBound, 0xD7FF))
        }
        if range.upperBound > 0xDFFF {
            pending.append(max(range.lowerBound, 0xE000)...range.upperBound)
        }
        var sequences: [ByteRangeSequence] = []
        next: while var current = pending.popLast() {
            // One encoded length per range.
            for boundary: UInt32 in [0x7F, 0x7FF, 0xFFFF] where current.lowerBound <= boundary && boundary < current.upperBound {
                pending.append((boundary + 1)...current.upperBound)
                current = current.lowerBound...boundary
            }
            if current.upperBound <= 0x7F {
                sequences.append([UInt8(current.lowerBound)...UInt8(current.upperBound)])
                continue
            }
            // Split until each continuation byte spans its whole range or a prefix stays fixed.
            for level in 1..<4 {
                let mask: UInt32 = (1 << (6 * level)) - 1
                guard current.lowerBound & ~mask != current.upperBound & ~mask else { continue }
                if current.lowerBound & mask != 0 {
                    pending.append(((current.lowerBound | mask) + 1)...current.upperBound)
                    pending.append(current.lowerBound...(current.lowerBound | mask))
                    continue next
                }
                if current.upperBound & mask != mask {
                    pending.append((current.upperBound & ~mask)...current.upperBound)
                    pending.append(current.lowerBound...((current.upperBound & ~mask) - 1))
                    continue next
                }
            }
            let low = encode(current.lowerBound), high = encode(current.upperBound)
            sequences.append(zip(low, high).map { $0...$1 })
        }
        return sequences
    }

    /// The UTF-8 encoding of a scalar value (not a surrogate).
    static func encode(_ value: UInt32) -> [UInt8] {
        switch value {
        case 0..<0x80: [UInt8(value)]
        case 0x80..<0x800: [UInt8(0xC0 | value >> 6), UInt8(0x80 | value & 0x3F)]
        case 0x800..<0x10000: [UInt8(0xE0 | value >> 12), UInt8(0x80 | value >> 6 & 0x3F), UInt8(0x80 | value & 0x3F)]
        default: [UInt8(0xF0 | value >> 18), UInt8(0x80 | value >> 12 & 0x3F), UInt8(0x80 | value >> 6 & 0x3F), UInt8(0x80 | value & 0x3F)]
        }
    }
}
