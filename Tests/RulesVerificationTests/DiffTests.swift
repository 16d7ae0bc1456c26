import Foundation
import RulesCases
import RulesLanguage
import RulesTestSupport
@testable import RulesVerification
import Testing

/// Compiles both texts and diffs them; every witness shown must replay on both files.
func diffRules(_ old: String, _ new: String, oldName: String = "old.rules", newName: String = "new.rules",
               timeout: Double = 60) throws -> RulesDiff {
    let oldProgram = try compile(old, name: oldName)
    let newProgram = try compile(new, name: newName)
    let diff = try RulesDiffer(timeout: timeout).diff(old: oldProgram, new: newProgram)
    let service: CaseService = newProgram.service == .firestore ? .firestore : .storage
    for change in diff.compared {
        if let witness = change.newlyAllowed {
            #expect(try replayWitness(witness, service: service, program: newProgram).actual == .allow, "NEW allows \(witness)")
            #expect(try replayWitness(witness, service: service, program: oldProgram).actual == .deny, "OLD denies \(witness)")
        }
        if let witness = change.newlyDenied {
            #expect(try replayWitness(witness, service: service, program: oldProgram).actual == .allow, "OLD allows \(witness)")
            #expect(try replayWitness(witness, service: service, program: newProgram).actual == .deny, "NEW denies \(witness)")
        }
    }
    return diff
}

/// Firestore rules with `body` inside `match /databases/{database}/documents`.
func firestoreRules(_ body: String) -> String {
    "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n\(body)\n  }\n}\n"
}

extension RulesDiff {
    /// The change for `method` on the pattern ending in `suffix`.
    func change(_ suffix: String, _ method: RequestMethod) -> RulesChange? {
        compared.first { $0.path.hasSuffix(suffix) && $0.method == method }
    }

    /// `method pattern: verdict` of every change, for messages.
    var summary: String {
        changes.map { "\($0.method.rawValue) \($0.path): \($0.verdict.rawValue) \($0.reason ?? "")" }.joined(separator: "\n")
    }
}

@Suite("rules diff: verdicts, witnesses and locations")
struct DiffTests {
    @Test("the same rules are equivalent for every request shape")
    func identical() throws {
        let rules = firestoreRules("    match /notes/{id} { allow read: if request.auth != null; allow write: if request.auth.uid == id; }")
        let diff = try diffRules(rules, rules)
        #expect(diff.verdict == .equivalent)
        #expect(diff.changes.isEmpty)
        // Two patterns (the enclosing block and `/notes/{id}`), five methods each.
        #expect(diff.compared.count == 10)
        #expect(RulesDiff.exitStatus(diff.verdict) == 0)
    }

    /// `split()`, `size()` of its list and indexing it are not modelled; each is still one value
    /// for the same operation on the same string, in both files: with a value per use, neither
    /// direction could be proved and the change was `unknown`.
    @Test("an unmodelled split() is the same value in both files: a guard that changes nothing is equivalent")
    func sharedUnmodelledFunction() throws {
        let condition = "request.resource.data.u.split('/').size() == 2 && request.resource.data.u.split('/')[1] == request.auth.uid"
        let old = firestoreRules("    match /c/{id} {\n      allow update: if \(condition);\n    }")
        let new = firestoreRules("    match /c/{id} {\n      allow update: if request.auth != null && \(condition);\n    }")
        let diff = try diffRules(old, new)
        let change = try #require(diff.change("/c/{id}", .update))
        #expect(change.verdict == .equivalent, "\(change.verdict) \(change.reason ?? "")")
        #expect(diff.verdict == .equivalent, "\(diff.summary)")
    }

    @Test("a widened condition is wider, with a witness NEW grants at the located allow")
    func wider() throws {
        let old = firestoreRules("    match /notes/{id} {\n      allow read: if request.auth != null;\n    }")
        let new = firestoreRules("    match /notes/{id} {\n      allow read: if true;\n    }")
        let diff = try diffRules(old, new)
        #expect(diff.verdict == .wider)
        #expect(RulesDiff.exitStatus(diff.verdict) == 1)
        for method in [RequestMethod.get, .list] {
            let change = try #require(diff.change("/notes/{id}", method), "\(diff.summary)")
            #expect(change.verdict == .wider)
            #expect(change.reason == nil)
            #expect(change.newlyDenied == nil)
            let witness = try #require(change.newlyAllowed)
            #expect(witness.contains("\"auth\": null"), "the only newly allowed requests are signed out: \(witness)")
            #expect(witness.contains("\"expect\": \"allow\""))
            #expect(change.location == DiffLocation(file: "new.rules", line: 5, column: 7))
            #expect(change.newlyAllowedCompact?.hasPrefix("\(method.rawValue) /databases/") == true)
        }
        #expect(diff.changes.count == 2, "\(diff.summary)")
    }

    @Test("a narrowed condition is narrower, with a witness OLD allowed")
    func narrower() throws {
        let old = firestoreRules("    match /notes/{id} { allow write: if request.auth != null; }")
        let new = firestoreRules("    match /notes/{id} { allow write: if request.auth != null && request.auth.uid == id; }")
        let diff = try diffRules(old, new)
        #expect(diff.verdict == .narrower)
        #expect(RulesDiff.exitStatus(diff.verdict) == 0)
        #expect(diff.changes.map(\.method) == [.create, .update, .delete])
        for change in diff.changes {
            #expect(change.verdict == .narrower)
            #expect(change.newlyAllowed == nil)
            #expect(change.location == nil)
            let witness = try #require(change.newlyDenied)
            #expect(witness.contains("\"expect\": \"deny\""))
        }
    }

    @Test("swapping who may read is incomparable: both witnesses")
    func incomparable() throws {
        let old = firestoreRules("    match /notes/{id} { allow get: if request.auth.uid == 'alice'; }")
        let new = firestoreRules("    match /notes/{id} { allow get: if request.auth.uid == 'bob'; }")
        let diff = try diffRules(old, new)
        #expect(diff.verdict == .incomparable)
        let change = try #require(diff.change("/notes/{id}", .get))
        #expect(change.verdict == .incomparable)
        #expect(change.newlyAllowed?.contains("\"uid\": \"bob\"") == true)
        #expect(change.newlyDenied?.contains("\"uid\": \"alice\"") == true)
        #expect(diff.changes.count == 1, "\(diff.summary)")
    }

    @Test("a new match block is wider on its own pattern; a removed one narrower")
    func addedAndRemovedBlocks() throws {
        let old = firestoreRules("    match /a/{id} { allow get: if true; }")
        let new = firestoreRules("    match /b/{id} { allow get: if true; }")
        let diff = try diffRules(old, new)
        #expect(diff.verdict == .incomparable)
        #expect(diff.change("/b/{id}", .get)?.verdict == .wider)
        #expect(diff.change("/a/{id}", .get)?.verdict == .narrower)
        #expect(diff.change("/b/{id}", .get)?.newlyAllowed?.contains("/documents/b/") == true)
        #expect(diff.changes.count == 2, "\(diff.summary)")
    }

    @Test("renamed wildcards are one pattern, and equivalent")
    func renamedWildcard() throws {
        let old = firestoreRules("    match /notes/{id} { allow get: if request.auth.uid == id; }")
        let new = firestoreRules("    match /notes/{noteId} { allow get: if request.auth.uid == noteId; }")
        let diff = try diffRules(old, new)
        #expect(diff.verdict == .equivalent, "\(diff.summary)")
        #expect(diff.compared.count == 10)
        #expect(diff.compared.contains { $0.path.hasSuffix("/notes/{noteId}") }, "NEW's spelling is shown")
    }

    @Test("a renamed wildcard is not confused with a field of the same name")
    func renameIsNotTextual() throws {
        let old = firestoreRules("    match /notes/{x} { allow get: if resource.data.x == x; }")
        let new = firestoreRules("    match /notes/{y} { allow get: if resource.data.y == y; }")
        let diff = try diffRules(old, new)
        #expect(diff.verdict == .incomparable, "\(diff.summary)")
    }

    @Test("reordered conjuncts and disjuncts are one rule")
    func reordered() throws {
        let old = firestoreRules("    match /notes/{id} { allow get: if (request.auth.uid == id && resource.data.n > 1) || resource.data.open == true; }")
        let new = firestoreRules("    match /notes/{id} { allow get: if resource.data.open == true || (resource.data.n > 1 && request.auth.uid == id); }")
        let diff = try diffRules(old, new)
        #expect(diff.verdict == .equivalent, "\(diff.summary)")
        let changed = firestoreRules("    match /notes/{id} { allow get: if resource.data.open == true || (resource.data.n > 2 && request.auth.uid == id); }")
        #expect(try diffRules(old, changed).verdict == .narrower)
    }

    @Test("recursive wildcards: a deep request is found, and equal rules under them are equivalent")
    func recursive() throws {
        let old = firestoreRules("    match /{document=**} { allow get: if request.auth != null && request.auth.uid == 'admin'; }")
        let new = firestoreRules("    match /{document=**} { allow get: if request.auth != null; }")
        let diff = try diffRules(old, new)
        #expect(diff.verdict == .wider)
        let change = try #require(diff.change("/{document=**}", .get))
        #expect(change.verdict == .wider)
        #expect(change.newlyAllowed != nil)
        let same = try diffRules(new, new)
        #expect(same.verdict == .equivalent)
    }

    @Test("a recursive wildcard in the middle of a pattern: the witness path is one of the pattern's")
    func recursiveInTheMiddle() throws {
        let old = firestoreRules("    match /{pre=**}/c/{id} { allow get: if false; }")
        let new = firestoreRules("    match /{pre=**}/c/{id} { allow get: if id == 'x'; }")
        let diff = try diffRules(old, new)
        let change = try #require(diff.change("/{pre=**}/c/{id}", .get))
        #expect(change.verdict == .wider, "\(diff.summary)")
        let witness = try #require(change.newlyAllowed)
        #expect(witness.contains("/c/x\""), "\(witness)")
    }

    @Test("Storage: a raised size limit is wider for create and update only")
    func storage() throws {
        func rules(_ limit: Int) -> String {
            """
            rules_version = '2';
            service firebase.storage {
              match /b/{bucket}/o {
                match /pictures/{userId}/{file} {
                  allow read: if request.auth != null;
                  allow create, update: if request.auth.uid == userId && request.resource.size <= \(limit);
                }
              }
            }
            """
        }
        let diff = try diffRules(rules(1024), rules(2048))
        #expect(diff.verdict == .wider)
        #expect(diff.changes.map(\.method) == [.create, .update], "\(diff.summary)")
        let change = try #require(diff.change("/pictures/{userId}/{file}", .create))
        #expect(change.location == DiffLocation(file: "new.rules", line: 6, column: 7))
        let witness = try #require(change.newlyAllowed)
        #expect(witness.contains("\"size\": "), "\(witness)")
        let back = try diffRules(rules(2048), rules(1024))
        #expect(back.verdict == .narrower)
    }

    @Test("a construct the encoding does not model makes the change unknown, with the construct and its location")
    func unknown() throws {
        let old = firestoreRules("    match /notes/{id} { allow get: if false; }")
        let new = firestoreRules("    match /notes/{id} {\n      allow get: if resource.data.tags[request.auth.uid.size()] == 'x';\n    }")
        let diff = try diffRules(old, new, timeout: 20)
        let change = try #require(diff.change("/notes/{id}", .get))
        if change.verdict == .unknown {
            let reason = try #require(change.reason)
            #expect(reason.contains("new.rules:5:"), "\(reason)")
            #expect(change.location?.file == "new.rules")
            #expect(diff.verdict == .unknown)
            #expect(RulesDiff.exitStatus(diff.verdict) == 3)
        } else {
            // A witness that replays is a fine answer too, but then it must be a real one.
            #expect(change.verdict == .wider, "\(change.verdict) \(change.reason ?? "")")
            #expect(change.newlyAllowed != nil)
        }
    }

    @Test("the top-level verdict joins the changes")
    func join() {
        #expect(RulesDiff.join([]) == .equivalent)
        #expect(RulesDiff.join([.equivalent, .equivalent]) == .equivalent)
        #expect(RulesDiff.join([.equivalent, .narrower]) == .narrower)
        #expect(RulesDiff.join([.narrower, .unknown]) == .unknown)
        #expect(RulesDiff.join([.wider, .unknown]) == .wider)
        #expect(RulesDiff.join([.wider, .narrower]) == .incomparable)
        #expect(RulesDiff.join([.incomparable, .equivalent]) == .incomparable)
        #expect(RulesDiff.join([.wider, .wider]) == .wider)
        #expect(RulesDiff.exitStatus(.incomparable) == 1)
        #expect(RulesDiff.exitStatus(.narrower) == 0)
    }

    @Test("different services are refused")
    func services() throws {
        let firestore = try compile(firestoreRules("    match /a/{b} { allow read; }"), name: "a.rules")
        let storage = try compile("rules_version = '2';\nservice firebase.storage { match /b/{bucket}/o { allow read; } }", name: "b.rules")
        #expect(throws: RulesDiffServiceMismatch.self) { try RulesDiffer().diff(old: firestore, new: storage) }
    }

    @Test("the reports: JSON document shape, SARIF results, text summary")
    func reports() throws {
        let old = firestoreRules("    match /notes/{id} {\n      allow get: if request.auth.uid == 'alice';\n    }")
        let new = firestoreRules("    match /notes/{id} {\n      allow get: if request.auth.uid == 'bob';\n    }")
        let diff = try diffRules(old, new)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(DiffReport.json(diff).utf8)) as? [String: Any])
        #expect(Set(json.keys) == ["old", "new", "service", "verdict", "changes"])
        #expect(json["service"] as? String == "firestore")
        #expect(json["verdict"] as? String == "incomparable")
        let changes = try #require(json["changes"] as? [[String: Any]])
        #expect(changes.count == 1)
        #expect(Set(changes[0].keys) == ["path", "method", "verdict", "newlyAllowed", "newlyDenied", "reason", "location"])
        #expect((changes[0]["newlyAllowed"] as? [String: Any])?["method"] as? String == "get")
        #expect((changes[0]["location"] as? [String: Any])?["line"] as? Int == 5)

        let sarif = try #require(try JSONSerialization.jsonObject(with: Data(DiffReport.sarif([diff]).utf8)) as? [String: Any])
        #expect(sarif["version"] as? String == "2.1.0")
        let run = try #require((sarif["runs"] as? [[String: Any]])?.first)
        let rules = try #require(((run["tool"] as? [String: Any])?["driver"] as? [String: Any])?["rules"] as? [[String: Any]])
        #expect(rules.map { $0["id"] as? String } == ["VF3011", "VF3012"])
        #expect(rules.allSatisfy { ($0["help"] as? [String: Any])?["text"] is String })
        let results = try #require(run["results"] as? [[String: Any]])
        #expect(results.count == 1)
        #expect(results[0]["ruleId"] as? String == "VF3012")
        #expect(results[0]["level"] as? String == "error")
        let physical = try #require(((results[0]["locations"] as? [[String: Any]])?.first)?["physicalLocation"] as? [String: Any])
        #expect((physical["artifactLocation"] as? [String: Any])?["uri"] as? String == "new.rules")
        #expect((physical["region"] as? [String: Any])?["startLine"] as? Int == 5)
        #expect((physical["region"] as? [String: Any])?["startColumn"] as? Int == 7)
        #expect(((results[0]["message"] as? [String: Any])?["text"] as? String)?.contains("\"bob\"") == true)

        let text = DiffReport.text(diff)
        #expect(text.contains("~ get /databases/{database}/documents/notes/{id}: incomparable"))
        #expect(text.hasSuffix("verdict: incomparable (\(DiffReport.meaning(.incomparable)))"))
    }
}
