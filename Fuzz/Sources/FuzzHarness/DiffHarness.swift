import Foundation
import RulesLanguage
import RulesPatterns
import RulesTesting
import RulesVerification

/// Builds two small rulesets from the fuzz bytes (the same atoms as ``VerifyHarness``: auth,
/// path variables, document fields, lookups, `lower()`, `matches()`, key sets, time), the second
/// an edit of the first, diffs them, and checks the verdicts against the evaluator. Half the
/// inputs are "deep": a block has a recursive wildcard and the sampled requests have 1 to 5
/// segments below `documents`.
///
/// Checks: diffing never traps; every witness loads as a case, and NEW and OLD decide it as the
/// change claims (newly allowed: NEW allows, OLD denies; newly denied: the reverse); none of 32
/// requests derived from the same bytes contradicts the verdict of a pattern it falls under; the
/// JSON and SARIF reports parse as JSON.
public enum DiffHarness {
    static let regex = PCRE2RegexEngine()
    static let methods = ["read", "write", "get", "list", "create", "update", "delete"]

    struct Allow {
        var method: String
        var condition: String
    }

    static func rules(_ block: String, _ allows: [Allow]) -> String {
        "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n    match \(block) {\n"
            + allows.map { "      allow \($0.method): if \($0.condition);\n" }.joined()
            + "    }\n  }\n}\n"
    }

    @Sendable public static func run(_ input: UnsafeRawBufferPointer) -> [FuzzFinding] {
        var reader = ByteReader(input)
        let deep = reader.byte() % 2 == 0
        let oldBlock = deep ? VerifyHarness.deepBlocks[Int(reader.byte()) % VerifyHarness.deepBlocks.count] : "/c/{id}"
        var allows = (0..<(1 + Int(reader.byte()) % 2)).map { _ in
            Allow(method: methods[Int(reader.byte()) % methods.count], condition: VerifyHarness.condition(&reader, depth: 2))
        }
        let oldText = rules(oldBlock, allows)
        // The edit: a condition replaced, strengthened or weakened, a method changed, an allow
        // added, or the block moved.
        var newBlock = oldBlock
        let index = Int(reader.byte()) % allows.count
        switch reader.byte() % 6 {
        case 0: allows[index].condition = VerifyHarness.condition(&reader, depth: 1)
        case 1: allows[index].condition = "(\(allows[index].condition) && \(VerifyHarness.atoms[Int(reader.byte()) % VerifyHarness.atoms.count]))"
        case 2: allows[index].condition = "(\(allows[index].condition) || \(VerifyHarness.atoms[Int(reader.byte()) % VerifyHarness.atoms.count]))"
        case 3: allows[index].method = methods[Int(reader.byte()) % methods.count]
        case 4: allows.append(Allow(method: methods[Int(reader.byte()) % methods.count], condition: VerifyHarness.condition(&reader, depth: 1)))
        default: if deep { newBlock = VerifyHarness.deepBlocks[Int(reader.byte()) % VerifyHarness.deepBlocks.count] }
        }
        let newText = rules(newBlock, allows)
        guard let old = RulesCompiler.compile(oldText, name: "old.rules", regexEngine: regex).program,
              let new = RulesCompiler.compile(newText, name: "new.rules", regexEngine: regex).program else { return [] }
        let diff: RulesDiff
        do {
            diff = try RulesDiffer(timeout: 2).diff(old: old, new: new)
        } catch {
            return [FuzzFinding("two Firestore rulesets are refused as different services")]
        }
        var findings: [FuzzFinding] = []
        let context = "OLD\n\(oldText)NEW\n\(newText)"
        for change in diff.compared {
            for (witness, allowedBy, deniedBy) in [(change.newlyAllowed, new, old), (change.newlyDenied, old, new)] {
                guard let witness else { continue }
                let caseText = "{\"rules\": \"r\", \"service\": \"firestore\", \"cases\": [\(witness)]}"
                guard let cases = try? CaseFileLoader.decode(caseText, path: "w.json"), let testCase = cases.cases.first else {
                    findings.append(FuzzFinding("a witness does not load as a case: \(witness)"))
                    continue
                }
                if RulesTestRunner.evaluate(testCase, of: cases, with: allowedBy).actual != .allow
                    || RulesTestRunner.evaluate(testCase, of: cases, with: deniedBy).actual != .deny {
                    findings.append(FuzzFinding("a witness does not replay on both files: \(witness)\n\(context)"))
                }
            }
        }
        for report in [DiffReport.json(diff), DiffReport.sarif([diff])] {
            if (try? JSONSerialization.jsonObject(with: Data(report.utf8))) == nil {
                findings.append(FuzzFinding("a report is not JSON: \(report)"))
            }
        }
        _ = DiffReport.text(diff)
        for _ in 0..<32 {
            let method = RequestMethod.allCases[Int(reader.byte()) % RequestMethod.allCases.count]
            let id = VerifyHarness.ids[Int(reader.byte()) % VerifyHarness.ids.count]
            var rest = ["c", id]
            if deep {
                let shape = reader.byte()
                let extra = (0..<Int(shape / 4) % 4).map { _ in VerifyHarness.segmentNames[Int(reader.byte()) % VerifyHarness.segmentNames.count] }
                switch shape % 4 {
                case 0: rest += extra
                case 1: rest = extra + rest
                case 2: rest = extra + ["x"]
                default: break
                }
            }
            let path = "/databases/(default)/documents/" + rest.joined(separator: "/")
            let auth: Auth? = reader.byte() % 4 == 0 ? nil : Auth(uid: VerifyHarness.ids[Int(reader.byte()) % VerifyHarness.ids.count])
            func document() -> [String: Value] {
                var data: [String: Value] = [:]
                for key in ["owner", "n"] where reader.byte() % 4 > 0 {
                    let b = reader.byte()
                    data[key] = b % 2 == 0 ? .int(Int64(b % 7)) : .string(VerifyHarness.ids[Int(b / 2) % VerifyHarness.ids.count])
                }
                return data
            }
            let resource: [String: Value]? = reader.byte() % 2 == 0 ? document() : nil
            let requestResource: [String: Value]? = method == .create || method == .update ? document() : nil
            var documents: [String: [String: Value]] = [:]
            for other in VerifyHarness.ids where reader.byte() % 2 == 0 { documents["/databases/(default)/documents/c/\(other)"] = document() }
            documents[path] = resource
            let request = RulesRequest(service: .firestore, path: path, method: method, auth: auth, resource: resource.map(Value.map),
                                       requestResource: requestResource.map(Value.map),
                                       time: Timestamp(seconds: 1_767_225_600 + Int64(reader.byte()) * 200_000),
                                       query: method == .list ? [:] : nil)
            let database = InMemoryDatabase(documents: documents)
            let oldAllows = old.evaluate(request, lookup: database).allowed
            let newAllows = new.evaluate(request, lookup: database).allowed
            let segments = PathValue(path).segments
            for change in diff.compared where change.method == method && RulesDiffer.pattern(change.path, in: [new, old], matches: segments) {
                if change.isContradicted(oldAllows: oldAllows, newAllows: newAllows) {
                    findings.append(FuzzFinding("\(method.rawValue) \(path) (OLD \(oldAllows), NEW \(newAllows)) contradicts "
                                                + "`\(change.verdict.rawValue)` for \(change.path)\n\(context)"))
                }
            }
        }
        return findings
    }
}

extension RulesChange {
    /// Whether a sampled request that OLD decides `oldAllows` and NEW decides `newAllows` contradicts
    /// this change's verdict: a decided direction (`equivalent`, `narrower`, or a `wider` without an
    /// undecided direction) is a proof about every request of its shape.
    func isContradicted(oldAllows: Bool, newAllows: Bool) -> Bool {
        switch verdict {
        case .equivalent: oldAllows != newAllows
        case .narrower: newAllows && !oldAllows
        case .wider: reason == nil && oldAllows && !newAllows
        case .incomparable, .unknown: false
        }
    }
}
