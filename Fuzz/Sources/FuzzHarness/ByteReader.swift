/// Reads fuzz bytes as a stream of small choices; past the end it yields zeros, so every input
/// decodes to something.
struct ByteReader {
    private let bytes: UnsafeRawBufferPointer
    private var index = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// The next byte, or 0 past the end.
    mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    /// A number in `0..<count` (`count` ≥ 1).
    mutating func choose(_ count: Int) -> Int { Int(byte()) % count }

    /// One of `options`, or a short raw string taken from the input when the byte says so.
    mutating func pick(_ options: [String], excluding excluded: UInt8? = nil) -> String {
        let choice = choose(options.count + 1)
        if choice < options.count { return options[choice] }
        let length = choose(12)
        var raw: [UInt8] = []
        for _ in 0..<length {
            let next = byte()
            if next != excluded { raw.append(next) }
        }
        return String(decoding: raw, as: UTF8.self)
    }
}
