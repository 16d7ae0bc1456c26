// RulesBenchmark: decisions per second for typical app requests against a hand-written Swift
// function making the same decision, and parse+check time for a generated 2,000-line ruleset.
// Run: swift run -c release --package-path Benchmarks RulesBenchmark   (figures go in docs/BENCHMARKS.md)
import BenchmarkTiming
import Diagnostics
#if canImport(Glibc)
import Glibc
#endif
import Patterns
import RulesLanguage
import RulesPatterns
import Foundation

let rulesText = """
rules_version = '2';
service cloud.firestore {
  match /databases/{database}/documents {
    function signedIn() { return request.auth != null; }
    match /users/{userId} {
      allow read: if signedIn();
      allow create: if signedIn() && request.auth.uid == userId;
      allow update: if signedIn() && request.auth.uid == userId
        && request.resource.data.createdAt == resource.data.createdAt
        && request.resource.data.email == resource.data.email;
      allow delete: if signedIn() && request.auth.uid == userId;
    }
    match /displayNames/{name} {
      allow create: if signedIn()
        && !exists(/databases/$(database)/documents/displayNames/$(name))
        && request.resource.data.userId == request.auth.uid
        && name.size() >= 3 && name.size() <= 30
        && name.matches('[A-Za-z0-9_]+([.][A-Za-z0-9_]+)*');
      allow delete: if signedIn() && resource.data.userId == request.auth.uid;
    }
  }
}
"""

let prefix = "/databases/(default)/documents"

// MARK: - Hand-written equivalents

let displayNamePattern: Pattern = {
    do { return try Pattern("[A-Za-z0-9_]+([.][A-Za-z0-9_]+)*") } catch { print("benchmark pattern does not compile: \(error)"); exit(1) }
}()

/// The same decision as the rules for `get /users/{uid}`.
func handWrittenUsers(_ request: RulesRequest) -> Bool {
    let segments = request.path.split(separator: "/")
    guard segments.count == 5, segments[0] == "databases", segments[2] == "documents", segments[3] == "users" else { return false }
    switch request.method {
    case .get, .list: return request.auth != nil
    case .create, .delete: return request.auth?.uid == String(segments[4])
    case .update:
        guard request.auth?.uid == String(segments[4]),
              case .map(let after)? = request.requestResource, case .map(let before)? = request.resource else { return false }
        return after["createdAt"] == before["createdAt"] && after["email"] == before["email"]
    }
}

/// `handWrittenUsers` with a byte-level path split: the strictest baseline.
func handWrittenUsersFast(_ request: RulesRequest) -> Bool {
    let segments = request.path.utf8.split(separator: UInt8(ascii: "/"))
    guard segments.count == 5, segments[0].elementsEqual("databases".utf8), segments[2].elementsEqual("documents".utf8),
          segments[3].elementsEqual("users".utf8) else { return false }
    switch request.method {
    case .get, .list: return request.auth != nil
    default: return handWrittenUsers(request)
    }
}

/// The same decision as the rules for `create /displayNames/{name}`.
func handWrittenDisplayNames(_ request: RulesRequest, _ lookup: any DocumentLookup) -> Bool {
    let segments = request.path.split(separator: "/")
    guard segments.count == 5, segments[0] == "databases", segments[2] == "documents", segments[3] == "displayNames",
          request.method == .create, let auth = request.auth else { return false }
    let name = String(segments[4])
    guard case .missing = lookup.lookup(path: "/databases/\(segments[1])/documents/displayNames/\(name)", afterWrite: false),
          case .map(let data)? = request.requestResource, data["userId"] == .string(auth.uid) else { return false }
    let size = name.unicodeScalars.count
    guard size >= 3 && size <= 30 else { return false }
    return (try? displayNamePattern.matches(name)) ?? false
}

let engine = PCRE2RegexEngine()
let compiled = RulesCompiler.compile(rulesText, name: "bench.rules", regexEngine: engine)
guard let program = compiled.program else {
    print(renderDiagnostics(compiled.diagnostics, in: SourceFile(name: "bench.rules", text: rulesText)))
    exit(1)
}

let iterations = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 200_000
print("Rules language benchmark (\(iterations) decisions per measurement, release build)")

let userGet = RulesRequest(service: .firestore, path: prefix + "/users/alice", method: .get, auth: Auth(uid: "alice"),
                           resource: .map(["email": .string("a@example.com")]))
print("(a) get /users/{uid} by its owner")
let only = ProcessInfo.processInfo.environment["RULES_BENCH_ONLY"]
if only == nil || only == "a" {
    let a = measureInterleaved(iterations: iterations, [
        ("rules", { program.evaluate(userGet).allowed }),
        ("hand-written", { handWrittenUsers(userGet) }),
        ("hand-written, byte-level path split", { handWrittenUsersFast(userGet) }),
    ])
    print("  ratio: \(format1(a[0] / a[1]))x (\(format1(a[0] / a[2]))x against the byte-level baseline)")
}

let database = InMemoryDatabase(documents: [prefix + "/displayNames/taken": ["userId": .string("bob")]])
let create = RulesRequest(service: .firestore, path: prefix + "/displayNames/john.doe", method: .create, auth: Auth(uid: "alice"),
                          requestResource: .map(["userId": .string("alice")]))
print("(b) create /displayNames/{name} with an exists() lookup")
if only == nil || only == "b" {
    let b = measureInterleaved(iterations: iterations, [
        ("rules", { program.evaluate(create, lookup: database).allowed }),
        ("hand-written", { handWrittenDisplayNames(create, database) }),
    ])
    print("  ratio: \(format1(b[0] / b[1]))x")
}
if only != nil { exit(0) }

// MARK: - Parse + check of a generated 2,000-line file

func generatedRules(lines target: Int) -> String {
    var lines = ["rules_version = '2';", "service cloud.firestore {", "  match /databases/{database}/documents {",
                 "    function signedIn() { return request.auth != null; }"]
    var i = 0
    while lines.count < target - 2 {
        lines += [
            "    match /collection\(i)/{doc\(i)} {",
            "      function isOwner\(i)() {",
            "        let uid = request.auth.uid;",
            "        return uid == doc\(i) || uid in resource.data.editors;",
            "      }",
            "      allow read: if signedIn() && (resource.data.public == true || isOwner\(i)());",
            "      allow create: if isOwner\(i)() && request.resource.data.keys().hasOnly(['title', 'body', 'tags'])",
            "        && request.resource.data.title is string && request.resource.data.title.size() <= \(100 + i);",
            "      allow update: if isOwner\(i)() && request.resource.data.diff(resource.data).affectedKeys().hasOnly(['body']);",
            "      allow delete: if isOwner\(i)() && exists(/databases/$(database)/documents/admins/$(request.auth.uid));",
            "    }",
        ]
        i += 1
    }
    return (lines + ["  }", "}"]).joined(separator: "\n")
}

let big = generatedRules(lines: 2000)
let bigLines = big.split(separator: "\n", omittingEmptySubsequences: false).count
guard let timings = sortedMilliseconds(runs: 21, { RulesCompiler.compile(big, name: "generated.rules", regexEngine: engine).program != nil }) else {
    print("generated rules do not compile")
    exit(1)
}
print("(c) parse+check of a generated \(bigLines)-line file (\(big.utf8.count) bytes): median \(format1(timings[10])) ms, min \(format1(timings[0])) ms over 21 runs")
