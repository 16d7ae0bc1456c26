import Foundation
import RulesLoading
import Testing

/// Files are read up to `BoundedFile.maxBytes`, so a huge file or an endless device is refused
/// where the bound falls instead of filling memory.
@Suite("bounded file reads")
struct BoundedFileTests {
    @Test("files are read up to the bound: one byte more is refused where the bound falls")
    func boundedFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bounded-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data("abc\ndefghi".utf8).write(to: url)
        #expect(try BoundedFile.text(url.path, maxBytes: 10) == "abc\ndefghi")
        try Data("abc\ndefghij".utf8).write(to: url)
        #expect(throws: BoundedFile.Problem.tooLarge(maxBytes: 10, line: 2, column: 7)) { try BoundedFile.text(url.path, maxBytes: 10) }
        #expect(throws: BoundedFile.Problem.missing) { try BoundedFile.text(url.path + ".none") }
        #expect(BoundedFile.Problem.tooLarge(maxBytes: 16 << 20, line: 1, column: 1).message == "the file is larger than 16 MiB")
    }

    @Test("a device that never ends is read only up to the bound")
    func endlessDevice() throws {
        guard FileManager.default.fileExists(atPath: "/dev/zero") else {
            // Every CI runner is Linux or macOS; a missing /dev/zero must not pass silently there.
            #expect(ProcessInfo.processInfo.environment["CI"] != "true", "no /dev/zero")
            return
        }
        #expect(throws: BoundedFile.Problem.self) { try BoundedFile.data("/dev/zero", maxBytes: 1 << 20) }
    }
}
