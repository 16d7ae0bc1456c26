import Foundation
import RulesLanguage
import RulesPatterns
import RulesTesting
import RulesVerification

/// Builds a small ruleset and one property from the fuzz bytes (conditions over auth, path
/// variables, document fields, lookups, `lower()`/`upper()` (against computed strings and
/// non-ASCII literals), `matches()`, key sets, time), verifies it, and
/// checks the verdict against the evaluator. A third of the inputs are "deep": the block has a
/// recursive wildcard (`/c/{id}/{sub=**}`, `/{pre=**}/c/{id}`), the property path is
/// `…/documents/{rest=**}`, and the sampled requests have 1 to 5 segments below `documents`.
///
/// Checks: verification never traps; a witness loads as a case and the evaluator allows it; a
/// `holds` for `never`/`only-if` is not contradicted by any of 32 requests derived from the same
/// bytes; a `violated` `possible` is not contradicted either.
public enum VerifyHarness {
    static let atoms = [
        "request.auth != null", "request.auth == null", "request.auth.uid == id", "request.auth.uid == 'u1'",
        "resource.data.owner == request.auth.uid", "request.resource.data.owner == request.auth.uid",
        "request.resource.data.n > 3", "request.resource.data.n <= resource.data.n",
        "request.resource.data.keys().hasOnly(['owner', 'n'])", "'n' in request.resource.data",
        "exists(/databases/$(database)/documents/c/$(request.auth.uid))",
        "get(/databases/$(database)/documents/c/u1).data.n == 1", "id.size() > 2", "id.matches('[a-z]+')",
        "request.resource.data.owner.lower() == id", "request.time < timestamp.date(2026, 6, 1)",
        "resource == null", "request.resource.data.n is int",
        "!request.resource.data.diff(resource.data).affectedKeys().hasAny(['owner'])",
        "getAfter(/databases/$(database)/documents/c/$(id)).data.n == 2",
        "id.lower() == 'élise'", "id.upper() in ['AB', 'ÉLISE', 'STRASSE']", "request.resource.data.owner.upper() != 'ÉLISE'",
    ]
    /// Ids, uids and string values; the non-ASCII ones map to the literals of the `lower()`/`upper()`
    /// atoms (`É` precomposed and as `E` + U+0301, `ß` uppercasing to `SS`).
    static let ids = ["u1", "u2", "abc", "Ab", "Élise", "E\u{301}LISE", "straße"]
    /// Conditions of deep properties, over the `{rest=**}` path.
    static let deepAtoms = [
        "rest[0] == 'c'", "rest[1] == 'u1'", "rest == /c/u1", "request.auth != null", "request.auth.uid == 'u1'",
        "resource == null", "request.path == /databases/$(database)/documents/$(rest)",
    ]
    static let deepBlocks = ["/c/{id}", "/c/{id}/{sub=**}", "/{pre=**}/c/{id}"]
    static let segmentNames = ["c", "u1", "u2", "x"]
    static let regex = PCRE2RegexEngine()

    static func condition(_ reader: inout ByteReader, depth: Int) -> String {
        let choice = Int(reader.byte()) % 5
        if depth == 0 || choice < 2 { return atoms[Int(reader.byte()) % atoms.count] }
        switch choice {
        case 2: return "(\(condition(&reader, depth: depth - 1)) && \(condition(&reader, depth: depth - 1)))"
        case 3: return "(\(condition(&reader, depth: depth - 1)) || \(condition(&reader, depth: depth - 1)))"
        default: return "!(\(condition(&reader, depth: depth - 1)))"
        }
    }

    @Sendable public static func run(_ input: UnsafeRawBufferPointer) -> [FuzzFinding] {
        var reader = ByteReader(input)
        let deep = reader.byte() % 3 == 0
        let block = deep ? deepBlocks[Int(reader.byte()) % deepBlocks.count] : "/c/{id}"
        let methods = ["read", "write", "get", "list", "create", "update", "delete"]
        let allow = "allow \(methods[Int(reader.byte()) % methods.count]): if \(condition(&reader, depth: 2));"
        let rules = "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n    match \(block) {\n      \(allow)\n    }\n  }\n}\n"
        guard let program = RulesCompiler.compile(rules, name: "fuzz.rules", regexEngine: regex).program else { return [] }
        let method = RequestMethod.allCases[Int(reader.byte()) % RequestMethod.allCases.count]
        let kind = ["never", "only-if", "possible"][Int(reader.byte()) % 3]
        let conditionText = deep
            ? "(\(deepAtoms[Int(reader.byte()) % deepAtoms.count]) || \(deepAtoms[Int(reader.byte()) % deepAtoms.count]))"
            : condition(&reader, depth: 1)
        let propertyPath = deep ? "/databases/{database}/documents/{rest=**}" : "/databases/{database}/documents/c/{id}"
        let property = "{\"name\": \"p\", \"path\": \"\(propertyPath)\", \"methods\": [\"\(method.rawValue)\"], \"kind\": \"\(kind)\""
            + (kind == "never" ? "}" : ", \"condition\": \"\(conditionText)\"}")
        let fileText = "{\"rules\": \"fuzz.rules\", \"service\": \"firestore\", \"properties\": [\(property)]}"
        guard let file = try? PropertyFileLoader.decode(fileText, path: "fuzz.props.json") else {
            return [FuzzFinding("a generated property file does not load: \(fileText)")]
        }
        let result = RulesVerifier(timeout: 2, regexEngine: regex).verify(file.properties[0], in: file, program: program)
        var findings: [FuzzFinding] = []
        if let witness = result.witness {
            let caseText = "{\"rules\": \"r\", \"service\": \"firestore\", \"cases\": [\(witness)]}"
            guard let cases = try? CaseFileLoader.decode(caseText, path: "w.json"), let testCase = cases.cases.first else {
                return [FuzzFinding("a witness does not load as a case: \(witness)")]
            }
            if RulesTestRunner.evaluate(testCase, of: cases, with: program).actual != .allow {
                findings.append(FuzzFinding("a witness is denied by the evaluator: \(witness)\n\(rules)"))
            }
        }
        for _ in 0..<32 {
            let id = ids[Int(reader.byte()) % ids.count]
            // Deep: 1 to 5 segments, around `c/<id>` or not.
            var rest = ["c", id]
            if deep {
                let shape = reader.byte()
                let extra = (0..<Int(shape / 4) % 4).map { _ in segmentNames[Int(reader.byte()) % segmentNames.count] }
                switch shape % 4 {
                case 0: rest += extra
                case 1: rest = extra + rest
                case 2: rest = extra + ["x"]
                default: break
                }
            }
            let path = "/databases/(default)/documents/" + rest.joined(separator: "/")
            let auth: Auth? = reader.byte() % 4 == 0 ? nil : Auth(uid: ids[Int(reader.byte()) % ids.count])
            func document() -> [String: Value] {
                var data: [String: Value] = [:]
                for key in ["owner", "n"] where reader.byte() % 4 > 0 {
                    let b = reader.byte()
                    data[key] = b % 2 == 0 ? .int(Int64(b % 7)) : .string(ids[Int(b / 2) % ids.count])
                }
                return data
            }
            let resource: [String: Value]? = reader.byte() % 2 == 0 ? document() : nil
            let requestResource: [String: Value]? = method == .create || method == .update ? document() : nil
            var documents: [String: [String: Value]] = [:]
            for other in ids where reader.byte() % 2 == 0 { documents["/databases/(default)/documents/c/\(other)"] = document() }
            documents[path] = resource
            let request = RulesRequest(service: .firestore, path: path, method: method, auth: auth, resource: resource.map(Value.map),
                                       requestResource: requestResource.map(Value.map),
                                       time: Timestamp(seconds: 1_767_225_600 + Int64(reader.byte()) * 200_000),
                                       query: method == .list ? [:] : nil)
            let database = InMemoryDatabase(documents: documents)
            guard program.evaluate(request, lookup: database).allowed else { continue }
            var holdsHere = true
            if let condition = file.properties[0].condition {
                let variables: [String: Value] = deep ? ["rest": .path(PathValue(segments: rest)), "database": .string("(default)")]
                    : ["id": .string(id), "database": .string("(default)")]
                let (value, _) = Program.evaluateExpression(condition, request: request, variables: variables,
                                                            lookup: database, regexEngine: regex)
                if case .success(.bool(true)) = value { holdsHere = true } else { holdsHere = false }
            }
            switch (file.properties[0].kind, result.verdict) {
            case (.never, .holds): findings.append(FuzzFinding("never proved, but \(path) is allowed\n\(rules)"))
            case (.onlyIf, .holds) where !holdsHere: findings.append(FuzzFinding("only-if proved, but allowed \(path) breaks it\n\(rules)\n\(conditionText)"))
            case (.possible, .violated) where holdsHere: findings.append(FuzzFinding("possible refuted, but allowed \(path) shows it\n\(rules)\n\(conditionText)"))
            default: break
            }
        }
        return findings
    }
}
