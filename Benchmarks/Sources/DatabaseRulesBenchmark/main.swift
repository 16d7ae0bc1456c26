// DatabaseRulesBenchmark: decisions per second for the app's presence rules (a write and a read)
// against hand-written Swift functions making the same decision, and parse+check time for a
// generated 2,000-line database rules file.
// Run: swift build -c release --package-path Benchmarks --product DatabaseRulesBenchmark && Benchmarks/.build/release/DatabaseRulesBenchmark 200000
import BenchmarkTiming
import DatabaseRules
import Diagnostics
import Foundation
import Patterns
import RulesPatterns

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
guard let rulesText = try? String(contentsOf: root.appendingPathComponent("rules/database.rules.json"), encoding: .utf8) else {
    print("cannot read rules/database.rules.json")
    exit(1)
}
let engine = PCRE2DatabaseRegexEngine()
let compiled = DatabaseRulesCompiler.compile(SourceFile(name: "database.rules.json", text: rulesText), regexEngine: engine)
guard let program = compiled.program else {
    print(renderDiagnostics(compiled.diagnostics, in: SourceFile(name: "database.rules.json", text: rulesText)))
    exit(1)
}

// MARK: - Hand-written equivalents (same inputs: a DatabaseRequest and the stored DataNode)

let displayNamePattern: Pattern = {
    do { return try Pattern("[A-Za-z0-9_]+(\\.[A-Za-z0-9_]+)*") } catch { print("benchmark pattern does not compile: \(error)"); exit(1) }
}()

func authUid(_ auth: JSONValue?) -> String? {
    guard case .object(let fields)? = auth, case .string(let uid)? = fields["uid"] else { return nil }
    return uid
}

/// The presence rules' decision for a `set` of a whole record at `/userPresence/{uid}`.
func handWrittenSet(_ request: DatabaseRequest) -> Bool {
    let keys = request.path.split(separator: "/")
    guard keys.count == 2, keys[0] == "userPresence", authUid(request.auth) == String(keys[1]),
          case .set(.object(let record)) = request.operation, record["status"] != nil, record["lastSeen"] != nil else { return false }
    for (key, value) in record {
        switch (key, value) {
        case ("status", .string(let s)) where s == "online" || s == "offline" || s == "away": continue
        case ("lastSeen", .number(let n)) where n == request.now: continue
        case ("lastSeen", .object(let sv)) where sv[".sv"] == .string("timestamp"): continue
        case ("displayName", .string(let name)):
            let length = name.utf16.count
            guard length >= 3, length <= 30, (try? displayNamePattern.matches(name)) == true else { return false }
        default: return false
        }
    }
    return true
}

/// The presence rules' decision for a read of `/userPresence/{uid}`.
func handWrittenRead(_ request: DatabaseRequest) -> Bool {
    let keys = request.path.split(separator: "/")
    guard keys.count >= 2, keys[0] == "userPresence", case .read = request.operation else { return false }
    return authUid(request.auth) != nil
}

let iterations = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 200_000
let now = 1_767_225_600_000.0
let stored: DataNode? = .branch(["userPresence": .branch([
    "alice": .branch(["status": .leaf(.string("online"), priority: nil), "lastSeen": .leaf(.number(now - 60_000), priority: nil)], priority: nil),
    "bob": .branch(["status": .leaf(.string("away"), priority: nil), "lastSeen": .leaf(.number(now - 120_000), priority: nil)], priority: nil),
], priority: nil)], priority: nil)
let alice: JSONValue = .object(["uid": .string("alice")])
let write = DatabaseRequest(path: "/userPresence/alice", operation: .set(.object([
    "status": .string("away"), "lastSeen": .object([".sv": .string("timestamp")]), "displayName": .string("alice.smith"),
])), auth: alice, now: now)
let read = DatabaseRequest(path: "/userPresence/bob", operation: .read(DatabaseQuery()), auth: alice, now: now)

print("Database rules benchmark (\(iterations) decisions per measurement, release build)")
print("(a) set /userPresence/alice by its owner (status, server timestamp, display name)")
let a = measureInterleaved(iterations: iterations, [
    ("rules, isAllowed (verdict only)", { program.isAllowed(write, data: stored) }),
    ("hand-written", { handWrittenSet(write) }),
    ("rules, evaluate (recorded decision)", { program.evaluate(write, data: stored).allowed }),
])
print("  ratio: \(format1(a[0] / a[1]))x verdict only, \(format1(a[2] / a[1]))x recorded")
let only = ProcessInfo.processInfo.environment["DB_BENCH_ONLY"]
if only == "a" { exit(0) }
print("(b) read /userPresence/bob by a signed-in user")
let b = measureInterleaved(iterations: iterations, [
    ("rules, isAllowed (verdict only)", { program.isAllowed(read, data: stored) }),
    ("hand-written", { handWrittenRead(read) }),
    ("rules, evaluate (recorded decision)", { program.evaluate(read, data: stored).allowed }),
])
print("  ratio: \(format1(b[0] / b[1]))x verdict only, \(format1(b[2] / b[1]))x recorded")

// MARK: - Parse + check of a generated 2,000-line file

if only == "b" { exit(0) }

func generatedRules(lines target: Int) -> String {
    var lines = ["// Generated by DatabaseRulesBenchmark.", "{", "  \"rules\": {", "    \".read\": false,"]
    var i = 0
    while lines.count < target - 3 {
        lines += [
            "    \"collection\(i)\": {",
            "      \"$doc\": {",
            "        \".read\": \"auth != null && (data.child('public').val() == true || data.child('owner').val() == auth.uid)\",",
            "        \".write\": \"auth != null && (!data.exists() || data.child('owner').val() == auth.uid)\",",
            "        \".validate\": \"newData.hasChildren(['owner', 'title']) && newData.child('owner').val() == auth.uid\",",
            "        \"title\": { \".validate\": \"newData.isString() && newData.val().length <= \(100 + i)\" },",
            "        \"slug\": { \".validate\": \"newData.isString() && newData.val().matches(/^[a-z0-9-]{3,40}$/)\" },",
            "        \"updatedAt\": { \".validate\": \"newData.val() == now\" },",
            "        \"$other\": { \".validate\": false }",
            "      },",
            "      \".indexOn\": [\"owner\", \"updatedAt\"]",
            "    },",
        ]
        i += 1
    }
    lines[lines.count - 1] = "    }"
    return (lines + ["  }", "}"]).joined(separator: "\n")
}

let big = generatedRules(lines: 2000)
let bigLines = big.split(separator: "\n", omittingEmptySubsequences: false).count
guard let timings = sortedMilliseconds(runs: 21, {
    DatabaseRulesCompiler.compile(SourceFile(name: "generated.json", text: big), regexEngine: engine).program != nil
}) else { print("generated rules do not compile"); exit(1) }
print("(c) parse+check of a generated \(bigLines)-line file (\(big.utf8.count) bytes): median \(format1(timings[10])) ms, min \(format1(timings[0])) ms over 21 runs")
