import Foundation
import RulesTestSupport
import Testing

/// One end-to-end case: a directory under `corpus/cli/` holding `args` (one argument per
/// line, paths relative to the package root), an optional `stdin`, and the expected
/// `stdout`, `stderr` and `status`.
struct GoldenCase: CustomTestStringConvertible, Sendable {
    let name: String
    var directory: URL { packageRoot.appendingPathComponent("corpus/cli/\(name)") }
    var testDescription: String { "cli/\(name)" }

    static var all: [GoldenCase] {
        let root = packageRoot.appendingPathComponent("corpus/cli")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return names.filter { FileManager.default.fileExists(atPath: root.appendingPathComponent("\($0)/args").path) }
            .sorted().map(GoldenCase.init(name:))
    }
}

@Suite("validate end to end (golden transcripts)")
struct GoldenTests {
    @Test("transcript matches", arguments: GoldenCase.all)
    func transcript(_ golden: GoldenCase) throws {
        let argsText = try String(contentsOf: golden.directory.appendingPathComponent("args"), encoding: .utf8)
        let arguments = argsText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty }
        let stdin = try? Data(contentsOf: golden.directory.appendingPathComponent("stdin"))
        let actual = try runValidate(arguments, stdin: stdin)
        let files: [(String, Data)] = [("stdout", actual.stdout), ("stderr", actual.stderr), ("status", Data("\(actual.status)\n".utf8))]
        if recordingGolden {
            for (file, data) in files { try data.write(to: golden.directory.appendingPathComponent(file)) }
            return
        }
        for (file, data) in files {
            let expected = try Data(contentsOf: golden.directory.appendingPathComponent(file))
            #expect(String(decoding: data, as: UTF8.self) == String(decoding: expected, as: UTF8.self), "cli/\(golden.name)/\(file)")
        }
    }

    @Test("there are golden cases for every output format and exit status")
    func coverage() throws {
        var formats = Set<String>()
        var statuses = Set<String>()
        var inputs = Set<String>()
        for golden in GoldenCase.all {
            let args = try String(contentsOf: golden.directory.appendingPathComponent("args"), encoding: .utf8).split(separator: "\n").map(String.init)
            for (index, arg) in args.enumerated().dropLast() where arg == "--format" { formats.insert(args[index + 1]) }
            for (index, arg) in args.enumerated().dropLast() where arg == "--input" { inputs.insert(args[index + 1]) }
            if !args.contains("--format") { formats.insert("text") }
            if !args.contains("--input") { inputs.insert("lines") }
            statuses.insert(try String(contentsOf: golden.directory.appendingPathComponent("status"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        #expect(formats.isSuperset(of: ["text", "jsonl", "csv", "summary", "summary-json"]))
        #expect(inputs.isSuperset(of: ["lines", "csv", "jsonl"]))
        #expect(statuses.isSuperset(of: ["0", "1", "2", "64"]))
    }
}
