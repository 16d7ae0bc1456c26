import Foundation
import RulesTestSupport
import Testing

/// One line of `corpus/damaged/MANIFEST`: a damaged file and how many records it holds.
struct DamagedFile: CustomTestStringConvertible, Sendable {
    let file: String
    let input: String
    let field: String?
    let records: Int
    var testDescription: String { "damaged/\(file)" }

    static var all: [DamagedFile] { manifest.files }

    /// The MANIFEST's entries and every line that is not a well-formed entry (a missing or
    /// unreadable MANIFEST is a problem too, so the suite cannot pass with zero cases).
    static var manifest: (files: [DamagedFile], problems: [String]) {
        guard let text = try? String(contentsOf: packageRoot.appendingPathComponent("corpus/damaged/MANIFEST"), encoding: .utf8) else {
            return ([], ["corpus/damaged/MANIFEST cannot be read"])
        }
        var files: [DamagedFile] = []
        var problems: [String] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where !line.hasPrefix("#") && !line.allSatisfy(\.isWhitespace) {
            let parts = line.split(separator: " ").map(String.init)
            guard parts.count == 4, let records = Int(parts[3]), records > 0 else {
                problems.append("MANIFEST:\(index + 1): `\(line)` is not `FILE FORMAT FIELD|- RECORDS`")
                continue
            }
            files.append(DamagedFile(file: parts[0], input: parts[1], field: parts[2] == "-" ? nil : parts[2], records: records))
        }
        return (files, problems)
    }

    var arguments: [String] {
        var args = ["corpus/damaged/\(file)", "--input", input, "--max-line-bytes", "1000"]
        if let field { args += ["--field", field] }
        return args
    }
}

@Suite("Damaged input: one output record per input record, always")
struct DamagedInputTests {
    @Test("the MANIFEST is well formed and lists every damaged file")
    func manifestListsEveryFile() throws {
        let (files, problems) = DamagedFile.manifest
        #expect(problems.isEmpty, "\(problems)")
        let directory = packageRoot.appendingPathComponent("corpus/damaged").path
        let present = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0 != "MANIFEST" }.sorted()
        #expect(files.map(\.file).sorted() == present)
        #expect(files.count == 3, "lines, CSV and JSONL: \(files.map(\.file))")
    }

    @Test("input count == output count for every validator and per-record format", arguments: DamagedFile.all)
    func counts(_ damaged: DamagedFile) throws {
        for kind in ["display-name", "email", "password"] {
            for format in ["jsonl", "csv", "text"] {
                let run = try runValidate([kind] + damaged.arguments + ["--format", format])
                let lines = String(decoding: run.stdout, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
                let records: Int = switch format {
                case "jsonl": lines.filter { $0.hasPrefix("{") }.count
                case "csv": lines.filter { $0.first?.isNumber == true }.count
                default: lines.filter { line in
                    let rest = line.drop { $0.isNumber }
                    return rest.count < line.count && (rest.hasPrefix(": valid") || rest.hasPrefix(": invalid"))
                }.count
                }
                #expect(records == damaged.records, "\(kind) --format \(format)")
                #expect(run.status == 1, "\(kind) --format \(format): status")
                #expect(run.stderr.isEmpty, "\(kind) --format \(format): stderr")
            }
            let summary = try runValidate([kind] + damaged.arguments + ["--format", "summary-json"])
            #expect(String(decoding: summary.stdout, as: UTF8.self).hasPrefix("{\"records\": \(damaged.records),"), "\(kind) summary")
        }
    }
}
