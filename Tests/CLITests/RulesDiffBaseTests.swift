import Foundation
import RulesTestSupport
import Testing

/// `validate rules diff --base GITREF FILE…` against a git repository made for the test.
@Suite("validate rules diff --base")
struct RulesDiffBaseTests {
    static let committed = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /notes/{id} {
              allow get: if request.auth != null && request.auth.uid == id;
            }
          }
        }

        """

    /// A repository with `rules/app.rules` committed, in a fresh temporary directory.
    final class Repository {
        let root: URL

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("ruleskit-diff-base-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root.appendingPathComponent("rules"), withIntermediateDirectories: true)
            try Self.run(["git", "init", "--quiet", "--initial-branch=main"], in: root)
            try write("rules/app.rules", RulesDiffBaseTests.committed)
            try Self.run(["git", "add", "rules/app.rules"], in: root)
            try Self.run(["git", "-c", "user.name=Test", "-c", "user.email=test@example.com", "commit", "--quiet", "-m", "rules"], in: root)
        }

        deinit { try? FileManager.default.removeItem(at: root) }

        func write(_ path: String, _ text: String) throws {
            try text.write(to: root.appendingPathComponent(path), atomically: true, encoding: .utf8)
        }

        @discardableResult
        static func run(_ arguments: [String], in directory: URL) throws -> Int32 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = arguments
            process.currentDirectoryURL = directory
            process.environment = ["PATH": "/usr/bin:/bin", "HOME": directory.path, "GIT_CONFIG_NOSYSTEM": "1"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw CLIFailure(message: "`\(arguments.joined(separator: " "))` failed") }
            return process.terminationStatus
        }

        /// Runs `validate` in `directory` (default: the repository root).
        func validate(_ arguments: [String], in directory: URL? = nil) throws -> (stdout: String, stderr: String, status: Int32) {
            let out = root.appendingPathComponent(".stdout-\(UUID().uuidString)"), err = root.appendingPathComponent(".stderr-\(UUID().uuidString)")
            FileManager.default.createFile(atPath: out.path, contents: nil)
            FileManager.default.createFile(atPath: err.path, contents: nil)
            defer {
                try? FileManager.default.removeItem(at: out)
                try? FileManager.default.removeItem(at: err)
            }
            let process = Process()
            process.executableURL = validateBinary
            process.arguments = arguments
            process.currentDirectoryURL = directory ?? root
            process.environment = ["PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": root.path, "GIT_CONFIG_NOSYSTEM": "1"]
            process.standardOutput = try FileHandle(forWritingTo: out)
            process.standardError = try FileHandle(forWritingTo: err)
            try process.run()
            process.waitUntilExit()
            return (try String(contentsOf: out, encoding: .utf8), try String(contentsOf: err, encoding: .utf8), process.terminationStatus)
        }
    }

    struct CLIFailure: Error { var message: String }

    /// The JSON documents of a run, one per line.
    static func documents(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test("an unchanged file is equivalent to itself at the base: exit 0")
    func unchanged() throws {
        let repository = try Repository()
        let run = try repository.validate(["rules", "diff", "--base", "HEAD", "rules/app.rules", "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let documents = try Self.documents(run.stdout)
        #expect(documents.count == 1)
        #expect(documents.first?["old"] as? String == "HEAD:rules/app.rules")
        #expect(documents.first?["new"] as? String == "rules/app.rules")
        #expect(documents.first?["verdict"] as? String == "equivalent")
        #expect((documents.first?["changes"] as? [Any])?.isEmpty == true)
    }

    @Test("a widened working copy and a file absent at the base (compared with deny everything) are wider: exit 1")
    func widenedAndNew() throws {
        let repository = try Repository()
        try repository.write("rules/app.rules", Self.committed.replacingOccurrences(of: " && request.auth.uid == id", with: ""))
        try repository.write("rules/new.rules", Self.committed)
        let run = try repository.validate(["rules", "diff", "--base", "HEAD", "rules/app.rules", "rules/new.rules", "--format", "json"])
        #expect(run.status == 1, "\(run.stderr)")
        let documents = try Self.documents(run.stdout)
        #expect(documents.count == 2)
        #expect(documents.map { $0["verdict"] as? String } == ["wider", "wider"])
        #expect(documents.map { $0["old"] as? String } == ["HEAD:rules/app.rules", "HEAD:rules/new.rules"])
        let changes = try #require(documents.first?["changes"] as? [[String: Any]])
        #expect(changes.map { $0["method"] as? String } == ["get"])
        // Against deny everything, every method the new file grants is new access.
        let added = try #require(documents.last?["changes"] as? [[String: Any]])
        #expect(added.map { $0["method"] as? String } == ["get"])
        #expect(added.first?["newlyAllowed"] is [String: Any])
    }

    @Test("paths are resolved against the working directory, relative or absolute")
    func subdirectory() throws {
        let repository = try Repository()
        try repository.write("rules/app.rules", Self.committed.replacingOccurrences(of: "allow get:", with: "allow get, list:"))
        let rulesDirectory = repository.root.appendingPathComponent("rules")
        let relative = try repository.validate(["rules", "diff", "--base", "HEAD", "app.rules", "--format", "json"], in: rulesDirectory)
        #expect(relative.status == 1, "\(relative.stderr)")
        #expect(try Self.documents(relative.stdout).first?["verdict"] as? String == "wider")
        let absolute = try repository.validate(["rules", "diff", "--base", "HEAD", rulesDirectory.appendingPathComponent("app.rules").path])
        #expect(absolute.status == 1, "\(absolute.stderr)")
        #expect(absolute.stdout.contains("+ list /databases/{database}/documents/notes/{id}: wider"), "\(absolute.stdout)")
    }

    @Test("a revision that does not exist, or no repository at all: exit 2 with VF3103")
    func badRevision() throws {
        let repository = try Repository()
        let run = try repository.validate(["rules", "diff", "--base", "no-such-branch", "rules/app.rules"])
        #expect(run.status == 2)
        #expect(run.stderr == "error[VF3103]: `no-such-branch` is not a commit of this git repository\n")
        #expect(run.stdout.isEmpty)
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("ruleskit-no-repo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: outside) }
        let file = outside.appendingPathComponent("a.rules")
        try Self.committed.write(to: file, atomically: true, encoding: .utf8)
        let none = try repository.validate(["rules", "diff", "--base", "HEAD", "a.rules"], in: outside)
        #expect(none.status == 2)
        #expect(none.stderr.contains("VF3103"), "\(none.stderr)")
    }

    @Test("a database.rules.json absent at the base is compared with rules that deny everything; a Firestore base for it is a service mismatch")
    func databaseRules() throws {
        let repository = try Repository()
        try repository.write("rules/database.rules.json", #"{"rules": {"presence": {"$uid": {".read": "auth != null", ".write": "auth.uid == $uid"}}}}"#)
        let run = try repository.validate(["rules", "diff", "--base", "HEAD", "rules/database.rules.json", "--format", "json"])
        #expect(run.status == 1, "\(run.stderr)")
        let document = try #require(try Self.documents(run.stdout).first)
        #expect(document["service"] as? String == "database")
        #expect(document["old"] as? String == "HEAD:rules/database.rules.json")
        #expect(document["verdict"] as? String == "wider")
        let changes = document["changes"] as? [[String: Any]] ?? []
        #expect(changes.contains { $0["path"] as? String == "/presence/$uid" && $0["method"] as? String == "read" && $0["verdict"] as? String == "wider" })
        #expect(changes.contains { $0["path"] as? String == "/presence/$uid" && $0["method"] as? String == "write" && $0["verdict"] as? String == "wider" })
        // The Firestore file at the base, database rules in the working copy: two services.
        try repository.write("rules/app.rules", #"{"rules": {".read": true}}"#)
        let mismatch = try repository.validate(["rules", "diff", "--base", "HEAD", "rules/app.rules"])
        #expect(mismatch.status == 2)
        #expect(mismatch.stderr.contains("VF3102"), "\(mismatch.stderr)")
    }
}
