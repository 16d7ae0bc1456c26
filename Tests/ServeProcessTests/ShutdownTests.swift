import Foundation
import Testing

@Suite("SIGTERM during a streamed batch")
struct ShutdownTests {
    static let lines = 200_000

    @Test("every row received is a complete JSON line, in order, and the server exits 0")
    func sigtermDuringBatch() throws {
        let body = temporaryPath(".ndjson")
        defer { try? FileManager.default.removeItem(atPath: body) }
        let text = (1...Self.lines).map { #"{"value": "streamer\#($0)"}"# }.joined(separator: "\n") + "\n"
        try text.write(toFile: body, atomically: false, encoding: .utf8)

        let server = try ServerProcess(["--store", "sqlite:" + temporaryPath(".sqlite"), "--request-timeout", "600"])
        // curl streams the body up and prints rows as they come (-N: no output buffering).
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-sS", "-N", "-X", "POST", "-H", "Content-Type: application/x-ndjson", "--data-binary", "@" + body,
                          "http://127.0.0.1:\(server.port)/v1/display-name/validate-batch"]
        let output = Pipe()
        curl.standardOutput = output
        curl.standardError = FileHandle.nullDevice
        try curl.run()

        // SIGTERM once the first rows have arrived, while the rest are still being checked. The
        // rest is read on another thread meanwhile: a full pipe would stall curl, and the server.
        var received = Data()
        while !received.contains(UInt8(ascii: "\n")) {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            received += data
        }
        let beforeSignal = received.count
        nonisolated(unsafe) var rest = Data()
        let reader = DispatchGroup()
        DispatchQueue.global().async(group: reader) { rest = output.fileHandleForReading.readDataToEndOfFile() }
        let status = server.terminate()
        reader.wait()
        received += rest
        curl.waitUntilExit()

        #expect(status == 0, "\(server.log)")
        #expect(beforeSignal > 0, "rows arrived before SIGTERM")
        #expect(received.last == UInt8(ascii: "\n"), "the last row is complete")
        let rows = received.split(separator: UInt8(ascii: "\n"))
        var records: [Int] = []
        for row in rows {
            let object = try? JSONSerialization.jsonObject(with: Data(row)) as? [String: Any]
            #expect(object != nil, "a row that is not a complete JSON object: \(String(decoding: row.prefix(200), as: UTF8.self))")
            if let record = object?["record"] as? Int { records.append(record) }
        }
        #expect(records == Array(1..<(records.count + 1)), "rows in order from 1, none missing")
        // Draining lets the request in flight finish: every line gets its row.
        #expect(records.count == Self.lines, "\(records.count) of \(Self.lines) rows before the server stopped")
    }
}
