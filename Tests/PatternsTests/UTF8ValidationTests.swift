import Patterns
import PropertyBased
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

    @Test func agreesWithTheStandardLibrary() async {
        await propertyCheck(input: Gen.uint8().array(of: 0...40)) { (bytes: [UInt8]) in
            let ours = bytes.withUnsafeBytes { isValidUTF8($0) }
            #expect(ours == (String(validating: bytes, as: UTF8.self) != nil), "\(bytes)")
        }
    }
}
