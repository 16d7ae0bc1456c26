import Patterns
import RulesTestSupport
import Testing

@Suite struct UTF8ValidationTests {
    @Test(arguments: [
        ([0x61, 0x62], nil),
        ([0xC3, 0xA9], nil),
        ([0xC3, 0x28], 0),
        ([0xC0, 0xAF], 0),             // overlong "/"
        ([0xED, 0xA0, 0x80], 0),       // UTF-16 surrogate
        ([0xF4, 0x90, 0x80, 0x80], 0), // above U+10FFFF
        ([0x61, 0xE2, 0x82], 1),       // truncated sequence
        ([0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0xFF], 9),
    ] as [([UInt8], Int?)])
    func findsTheFirstInvalidByte(bytes: [UInt8], expected: Int?) {
        #expect(bytes.withUnsafeBytes { firstInvalidUTF8Offset($0) } == expected)
    }

    /// Subjects built from characters of every encoded length and from invalid sequences
    /// (truncated, overlong, surrogates, stray continuation bytes), so both answers and every
    /// sequence length come up often; uniform random bytes would almost never be valid.
    @Test func agreesWithTheStandardLibrary() {
        var random = SplitMix(seed: 8)
        var valid = 0, invalid = 0, validMultiByte = 0, fourByte = 0
        for _ in 0..<20_000 {
            let bytes = SubjectGenerator.subject(using: &random, hints: [])
            let reference = String(validating: bytes, as: UTF8.self) != nil
            let ours = bytes.withUnsafeBytes { isValidUTF8($0) }
            let offset = bytes.withUnsafeBytes { firstInvalidUTF8Offset($0) }
            #expect(ours == reference, "\(bytes)")
            #expect((offset == nil) == reference, "\(bytes)")
            if let offset {
                // The bytes before the first invalid one are valid, and that byte starts no
                // valid sequence.
                #expect(String(validating: bytes[..<offset], as: UTF8.self) != nil, "\(bytes)")
            }
            if reference {
                valid += 1
                if bytes.contains(where: { $0 >= 0x80 }) { validMultiByte += 1 }
                if bytes.contains(where: { $0 >= 0xF0 }) { fourByte += 1 }
            } else {
                invalid += 1
            }
        }
        #expect(valid >= 5_000 && invalid >= 5_000, "valid \(valid), invalid \(invalid)")
        #expect(validMultiByte >= 3_000, "\(validMultiByte) valid subjects with multi-byte characters")
        #expect(fourByte >= 1_000, "\(fourByte) valid subjects with four-byte characters")
    }
}
