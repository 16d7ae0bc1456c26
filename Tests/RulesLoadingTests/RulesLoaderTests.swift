import DatabaseRules
import Diagnostics
import Foundation
import RulesLanguage
import RulesLoading
import RulesTestSupport
import Testing

/// Rules files of every service, from a path to a program: the service is told by the file's
/// first character, and a file that cannot be used says why at `file:line:column`.
@Suite("loading rules files")
struct RulesLoaderTests {
    /// Writes `text` to a fresh temporary file named `name`; the caller removes its directory.
    static func temporaryFile(_ name: String, _ text: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rules-loading-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    @Test("the app's rules load as the service each guards", arguments: [
        ("rules/firestore.rules", "firestore"), ("rules/storage.rules", "storage"), ("rules/database.rules.json", "database"),
    ])
    func appRules(path: String, service: String) throws {
        switch try RulesLoader.load(path: packageRoot.appendingPathComponent(path).path) {
        case .security(let program): #expect(program.service.rawValue.hasSuffix(service))
        case .database: #expect(service == "database")
        }
    }

    @Test("database rules are told by `{` after whitespace and comments", arguments: [
        ("{\"rules\": {}}", true),
        ("  // a comment\n/* { */\n\t{", true),
        ("rules_version = '2';", false),
        ("service cloud.firestore {}", false),
        ("// only a comment", false),
        ("/* unterminated {", false),
        ("", false),
    ])
    func detection(text: String, isDatabase: Bool) {
        #expect(RulesLoader.isDatabaseRules(SourceFile(name: "r", text: text)) == isDatabase)
    }

    @Test("a missing file names itself and the file that names it")
    func missing() {
        #expect(throws: RulesLoadError.self) { try RulesLoader.load(path: "/nonexistent/x.rules", namedIn: "app.cases.json") }
        do {
            _ = try RulesLoader.loadProgram(path: "/nonexistent/x.rules", namedIn: "app.cases.json")
        } catch {
            #expect(error.description == "app.cases.json: cannot read rules file `/nonexistent/x.rules`: no such file")
        }
    }

    @Test("Firestore rules with errors give their diagnostics at file:line:column")
    func invalidSecurityRules() throws {
        let url = try Self.temporaryFile("firestore.rules", """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                match /a/{b} {
                  allow read: if auht != null;
                }
              }
            }

            """)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        do {
            _ = try RulesLoader.load(path: url.path)
            Issue.record("the rules loaded")
        } catch {
            guard case .invalid(let source, let diagnostics) = error else { Issue.record("not invalid: \(error)"); return }
            let errors = diagnostics.filter { $0.severity == .error }
            #expect(errors.map(\.code) == ["RL2001"])
            #expect(error.description.hasPrefix("\(url.path):5:22: error[RL2001]: unknown variable `auht`\n"))
            #expect(error.description == renderDiagnostics(errors, in: source))
        }
    }

    @Test("database rules with errors give their diagnostics at file:line:column")
    func invalidDatabaseRules() throws {
        let url = try Self.temporaryFile("database.rules.json", "{\"rules\": {\".read\": \"auth !=\"}}\n")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        do {
            _ = try RulesLoader.load(path: url.path)
            Issue.record("the rules loaded")
        } catch {
            guard case .invalid(_, let diagnostics) = error else { Issue.record("not invalid: \(error)"); return }
            #expect(diagnostics.contains { $0.severity == .error && $0.code.hasPrefix("RD") })
            #expect(error.description.hasPrefix("\(url.path):1:"))
        }
    }
}
