import Foundation
import RulesTestSupport
import Testing

@Suite("--output and colour")
struct OutputFileTests {
    @Test("--output writes the records to the file and nothing to stdout")
    func outputFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("validate-output-\(getpid()).jsonl")
        defer { try? FileManager.default.removeItem(at: path) }
        let run = try runValidate(["display-name", "corpus/samples/display-names.txt", "--format", "jsonl", "--output", path.path])
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.isEmpty)
        #expect(run.status == 1)
        let written = try String(contentsOf: path, encoding: .utf8)
        let golden = try String(contentsOf: packageRoot.appendingPathComponent("corpus/cli/dn-jsonl/stdout"), encoding: .utf8)
        #expect(written == golden)
    }

    @Test("an --output path that cannot be created is exit status 2")
    func unwritableOutput() throws {
        let run = try runValidate(["display-name", "corpus/samples/display-names.txt", "--output", "/nonexistent-dir/out.txt"])
        #expect(run.status == 2)
        #expect(String(decoding: run.stderr, as: UTF8.self) == "validate: error: cannot write /nonexistent-dir/out.txt: No such file or directory\n")
    }

    @Test("text on a pipe has no colour escapes, even without NO_COLOR")
    func noColourOnPipes() throws {
        let run = try runValidate(["display-name", "corpus/samples/display-names.txt"])
        #expect(!run.stdout.contains(0x1B))
    }
}

@Suite("--output never clobbers an input")
struct OutputClobberTests {
    @Test("--output naming an input file is refused with status 2 and the input is untouched")
    func refusesToOverwriteInput() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("validate-same-\(getpid()).txt")
        try Data("john.doe\nab\n".utf8).write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        let run = try runValidate(["display-name", path.path, "--output", path.path])
        #expect(run.status == 2)
        #expect(run.stdout.isEmpty)
        #expect(try String(contentsOf: path, encoding: .utf8) == "john.doe\nab\n")
    }
}
