import Diagnostics
import RulesLanguage

/// A tiny regex engine for testing RulesLanguage alone (Swift Regex; no RE2 syntax check).
struct TestRegexEngine: RegexEngine {
    func compile(_ pattern: String) throws(RegexError) -> Regex<AnyRegexOutput> {
        do { return try Regex(pattern) } catch { throw RegexError(code: "RL3020", message: "bad pattern `\(pattern)`") }
    }

    func matches(_ subject: String, pattern: String) throws(RegexError) -> Bool {
        let regex = try compile(pattern)
        return (try? regex.wholeMatch(in: subject)) != nil
    }

    func replace(_ subject: String, pattern: String, with replacement: String) throws(RegexError) -> String {
        subject.replacing(try compile(pattern), with: replacement)
    }

    func split(_ subject: String, pattern: String) throws(RegexError) -> [String] {
        subject.split(separator: try compile(pattern), omittingEmptySubsequences: false).map(String.init)
    }

    func validate(pattern: String) -> RegexError? {
        do { _ = try compile(pattern); return nil } catch { return error }
    }
}

/// Compiles rules or records an issue naming the diagnostics.
func compileOrFail(_ text: String, name: String = "test.rules") -> Program? {
    let result = RulesCompiler.compile(text, name: name, regexEngine: TestRegexEngine())
    if result.program == nil {
        let source = SourceFile(name: name, text: text)
        print(renderDiagnostics(result.diagnostics, in: source))
    }
    return result.program
}

let firestorePrefix = "/databases/(default)/documents"

func firestoreRequest(
    _ path: String, _ method: RequestMethod, uid: String? = nil, resource: [String: Value]? = nil,
    requestResource: [String: Value]? = nil, batched: Bool = false
) -> RulesRequest {
    RulesRequest(
        service: .firestore, path: firestorePrefix + path, method: method, auth: uid.map { Auth(uid: $0) },
        resource: resource.map(Value.map), requestResource: requestResource.map(Value.map),
        time: Timestamp(seconds: 1_700_000_000), isBatched: batched)
}
