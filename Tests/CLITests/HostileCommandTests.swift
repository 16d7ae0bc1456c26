import Foundation
import RulesTestSupport
import Testing

extension HostileCommandCase: CustomTestStringConvertible {
    public var testDescription: String { id }
}

/// `corpus/hostile/cli/`: each hostile command line ends with its exit status and diagnostics,
/// never a trap, a hang or a lost record.
@Suite("validate on hostile input (corpus/hostile/cli)")
struct HostileCommandTests {
    static let cases = (try? HostileCorpus.load(HostileCommandCase.self, from: "cli")) ?? []

    @Test("every case file reads, and names are unique")
    func caseFilesRead() throws {
        let cases = try HostileCorpus.load(HostileCommandCase.self, from: "cli")
        #expect(cases.count >= 20)
        #expect(Set(cases.map(\.id)).count == cases.count)
    }

    @Test("the run ends as the case says", arguments: cases)
    func run(_ hostile: HostileCommandCase) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func substitute(_ text: String) -> String {
            var text = text.replacingOccurrences(of: "{dir}", with: directory.path)
            for name in (hostile.files ?? [:]).keys { text = text.replacingOccurrences(of: "{\(name)}", with: directory.appendingPathComponent(name).path) }
            return text
        }
        for (name, content) in hostile.files ?? [:] {
            let data = String(data: content.bytes, encoding: .utf8).map { Data(substitute($0).utf8) } ?? content.bytes
            try data.write(to: directory.appendingPathComponent(name))
        }
        // A generous guard so a regression fails this case instead of hanging the suite; the
        // case asserts on the outcome, never on the time taken.
        let run = try runValidate(hostile.args.map(substitute), stdin: hostile.stdin?.bytes, killAfter: .seconds(120), prlimit: hostile.prlimit)
        let stderr = String(decoding: run.stderr, as: UTF8.self)
        let stdout = String(decoding: run.stdout, as: UTF8.self)
        #expect(run.status == hostile.status, "\(hostile.id): \(hostile.why)\nstderr: \(stderr.prefix(600))")
        for text in hostile.stderr ?? [] { #expect(stderr.contains(text), "\(hostile.id): stderr lacks `\(text)`: \(stderr.prefix(600))") }
        for text in hostile.stdout ?? [] { #expect(stdout.contains(text), "\(hostile.id): stdout lacks `\(text)`: \(stdout.prefix(600))") }
        if let lines = hostile.stdoutLines {
            #expect(run.stdout.count { $0 == UInt8(ascii: "\n") } == lines, "\(hostile.id): one output record per input record")
        }
    }
}
