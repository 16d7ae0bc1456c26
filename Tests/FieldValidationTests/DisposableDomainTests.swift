@testable import FieldValidation
import Foundation
import RulesTestSupport
import Testing

/// `email.disposable-domain` against its source: every domain of the Python package
/// disposable-email-domains (the version in the list's header, from `.venv-oracles/`, which
/// `scripts/bootstrap --with-oracles` creates) is rejected, at the domain and below it, and the
/// allow list wins. Without the package the test is skipped, except with `CI=true`.
@Suite struct DisposableDomainTests {
    static let python: URL? = {
        let venv = packageRoot.appendingPathComponent(".venv-oracles/bin/python3")
        return FileManager.default.isExecutableFile(atPath: venv.path) ? venv : nil
    }()
    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

    /// The version the shipped list names in its header.
    static func listVersion() throws -> String {
        let text = try String(contentsOf: packageRoot.appendingPathComponent("rules/lists/disposable-domains.txt"), encoding: .utf8)
        let header = try #require(text.split(separator: "\n").first { $0.hasPrefix("# Source: ") })
        let words = header.split(separator: " ")
        let index = try #require(words.firstIndex(of: "disposable-email-domains"))
        return String(words[index + 1])
    }

    /// The package's blocklist and version, or nil when it is not installed.
    static func blocklist() throws -> (version: String, domains: [String])? {
        guard let python else { return nil }
        let process = Process()
        process.executableURL = python
        process.arguments = ["-c", """
            import importlib.metadata, json, disposable_email_domains
            print(json.dumps({"version": importlib.metadata.version("disposable-email-domains"),
                              "domains": sorted(disposable_email_domains.blocklist)}))
            """]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        struct Answer: Decodable { var version: String; var domains: [String] }
        let answer = try JSONDecoder().decode(Answer.self, from: data)
        return (answer.version, answer.domains)
    }

    @Test(.enabled(if: python != nil || isCI, "no .venv-oracles: run scripts/bootstrap --with-oracles (with CI=true this test fails instead)"))
    func everyDomainOfThePackageIsRejectedAndTheAllowListWins() throws {
        let source = try #require(try Self.blocklist(), "disposable-email-domains is missing from .venv-oracles: run scripts/bootstrap --with-oracles")
        #expect(source.version == (try Self.listVersion()), "the shipped list was written from another version: run scripts/build-disposable-domains \(source.version)")
        #expect(source.domains.count > 1_000)
        let listed = RulePackSet.listEntries(try String(contentsOf: packageRoot.appendingPathComponent("rules/lists/disposable-domains.txt"), encoding: .utf8))
        #expect(listed == source.domains, "the shipped list is the package's blocklist, sorted")
        let validator = try EmailValidator(rejectDisposable: true)
        var rejected = 0, subdomainsRejected = 0
        var missed: [String] = []
        for domain in source.domains {
            if validator.validate("jane@" + domain).codes.contains("EM132") { rejected += 1 } else { missed.append(domain) }
            if validator.validate("jane@mx1." + domain).codes.contains("EM132") { subdomainsRejected += 1 }
        }
        #expect(missed.isEmpty, "not rejected: \(missed.prefix(20))")
        #expect(rejected == source.domains.count && subdomainsRejected == source.domains.count)
        // The allow list wins: a sample of 500 listed domains allowed, the rest still rejected.
        let allowed = stride(from: 0, to: source.domains.count, by: max(1, source.domains.count / 500)).map { source.domains[$0] }
        let permissive = try EmailValidator(rejectDisposable: true, allowDomains: allowed)
        let allowedSet = Set(allowed)
        var accepted = 0, stillRejected = 0
        for domain in source.domains {
            let codes = permissive.validate("jane@" + domain).codes
            if allowedSet.contains(domain) {
                #expect(!codes.contains("EM132"), "allowed yet rejected: \(domain)")
                accepted += 1
            } else if codes.contains("EM132") {
                stillRejected += 1
            }
        }
        #expect(accepted == allowed.count && accepted >= 500)
        // The rest are rejected, except listed subdomains of an allowed domain (the allow list covers them).
        #expect(stillRejected == source.domains.count - accepted - countParentsAllowed(source.domains, allowedSet))
    }

    /// Listed domains below an allowed one: the allow list covers subdomains, so these pass too.
    func countParentsAllowed(_ domains: [String], _ allowed: Set<String>) -> Int {
        domains.filter { domain in
            !allowed.contains(domain) && Keys.suffixKeys(domain).dropFirst().contains { allowed.contains(String($0)) }
        }.count
    }

    @Test func commonProvidersAreNotListed() throws {
        let validator = try EmailValidator(rejectDisposable: true)
        for domain in ["gmail.com", "googlemail.com", "google.com", "fastmail.com", "outlook.com", "icloud.com", "proton.me", "yahoo.com"] {
            #expect(!validator.validate("jane@" + domain).codes.contains("EM132"), "\(domain)")
        }
    }
}
