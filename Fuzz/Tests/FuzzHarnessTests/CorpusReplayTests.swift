import Foundation
import FuzzHarness
import Testing

/// Replays every fuzz seed (corpus/fuzz/<target>/) and every minimized crash
/// (corpus/regressions/<target>/) through the harness the fuzz target runs.
@Suite struct CorpusReplayTests {
    static let root = repositoryRoot

    /// `target/file` for every corpus file, so each replay is its own named test case.
    static let cases: [String] = ["fuzz", "regressions"].flatMap { kind -> [String] in
        let dir = root.appendingPathComponent("corpus/\(kind)")
        let targets = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return targets.sorted().flatMap { target -> [String] in
            let files = (try? FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent(target).path)) ?? []
            return files.sorted().map { "\(kind)/\(target)/\($0)" }
        }
    }

    @Test func everyFuzzTargetHasSeeds() {
        for target in FuzzTargets.all.keys {
            #expect(Self.cases.contains { $0.hasPrefix("fuzz/\(target)/") }, "no seeds for \(target)")
        }
    }

    @Test(arguments: cases)
    func replay(_ path: String) throws {
        let target = path.split(separator: "/")[1]
        let harness = try #require(FuzzTargets.all[String(target)], "no harness named \(target)")
        let data = try Data(contentsOf: Self.root.appendingPathComponent("corpus/\(path)"))
        let findings = data.withUnsafeBytes { harness($0) }
        #expect(findings.isEmpty, "\(findings)")
    }
}
