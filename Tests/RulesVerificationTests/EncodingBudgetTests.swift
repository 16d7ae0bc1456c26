import Foundation
import RulesLanguage
import Testing
@testable import RulesVerification

/// Inlining functions is memoised and bounded: a distinct call is encoded once, the work is
/// counted, and past the budget or the deadline the verdict is `unknown` with its reason.
@Suite("rules verify: the encoding's budget")
struct EncodingBudgetTests {
    static func chain(levels: Int, calls: Int, distinct: Bool) -> String {
        var functions: [String] = []
        for level in 0..<levels {
            let body = level == levels - 1
                ? "request.auth != null && request.auth.uid == x"
                : (0..<calls).map { distinct ? "f\(level + 1)(x + '\($0)')" : "f\(level + 1)(x)" }.joined(separator: " && ")
            functions.append("    function f\(level)(x) { return \(body); }")
        }
        return """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
            \(functions.joined(separator: "\n"))
                match /users/{userId} {
                  allow update: if f0(userId);
                }
              }
            }
            """
    }

    static let onlyTheOwner = """
        {"name": "only the owner updates", "path": "/databases/{database}/documents/users/{userId}", "methods": ["update"],
         "kind": "only-if", "condition": "request.auth != null && request.auth.uid == userId"}
        """

    func verify(_ rules: String, timeout: Double = 60, workLimit: Int? = nil) throws -> PropertyResult {
        let program = try compile(rules)
        let file = try properties(propertyFile([Self.onlyTheOwner]))
        var verifier = RulesVerifier(timeout: timeout)
        verifier.encodingWorkLimit = workLimit
        return verifier.verify(file.properties[0], in: file, program: program)
    }

    @Test("nine functions calling the next ten times with the same argument: each inlined once, proved")
    func repeatedCallsProve() throws {
        let result = try verify(Self.chain(levels: 9, calls: 10, distinct: false))
        #expect(result.verdict == .holds, "\(result.reason ?? "")")
        // Inlined at every call site, the chain would encode 10^8 bodies.
        #expect(result.encodingWork < 5_000, "\(result.encodingWork) units")
    }

    @Test("ten distinct calls per level: unknown at the work limit (VF2001), never past it")
    func distinctCallsStopAtTheBudget() throws {
        let result = try verify(Self.chain(levels: 9, calls: 10, distinct: true), workLimit: 20_000)
        #expect(result.verdict == .unknown)
        #expect(result.reason == "VF2001 encoding needs more than 20000 units of work (each call inlines its function's body)")
        #expect(result.encodingWork > 20_000 && result.encodingWork < 20_000 + 1_000, "\(result.encodingWork) units")
    }

    @Test("the same rules at the default budget stop there too")
    func defaultBudget() throws {
        let result = try verify(Self.chain(levels: 9, calls: 10, distinct: true))
        #expect(result.verdict == .unknown)
        #expect(result.reason?.hasPrefix("VF2001 encoding needs more than 200000 units") == true, "\(result.reason ?? "")")
    }

    @Test("a property whose time is already spent is not encoded at all")
    func deadlineBeforeEncoding() throws {
        let result = try verify(Self.chain(levels: 9, calls: 10, distinct: true), timeout: 0.01)
        #expect(result.verdict == .unknown)
        #expect(result.reason == "timeout after 0.0 s")
        #expect(result.encodingWork == 0)
    }

    @Test("`a && a` is `a`: a repeated term is written once")
    func repeatedTermsWrittenOnce() {
        #expect(SMT.and(["|x|", "|y|", "|x|"]) == "(and |x| |y|)")
        #expect(SMT.or(["|x|", "|x|"]) == "|x|")
    }
}
