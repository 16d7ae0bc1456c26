import FieldValidation
import Foundation
import RulesLanguage
import RulesPatterns

/// Evaluates the app's `rules/firestore.rules` and `rules/storage.rules` on structured requests
/// derived from the fuzz bytes (service, method, path segments, signed-in uid or none, small data
/// maps, whether the display-name claim exists).
///
/// Checks: evaluation never traps; a request error or a limit never allows; an allow is granted
/// by a candidate whose verdict is `granted`; evaluating again with a coverage collector (the
/// engine's second, instrumented mode) decides the same; and the decision equals
/// ``ReferencePolicy``, the app's policy written out by hand in plain Swift.
public enum RulesEvalHarness {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let regex = PCRE2RegexEngine()
    static let firestore = program("firestore.rules")
    static let storage = program("storage.rules")

    static func program(_ name: String) -> Program? {
        guard let text = try? String(contentsOf: root.appendingPathComponent("rules/\(name)"), encoding: .utf8) else { return nil }
        return RulesCompiler.compile(text, name: name, regexEngine: regex).program
    }

    @Sendable public static func run(_ input: UnsafeRawBufferPointer) -> [FuzzFinding] {
        guard let firestore, let storage else { return [FuzzFinding("the app's rules do not compile")] }
        var reader = ByteReader(input)
        let fuzz = FuzzRequest(&reader)
        let program = fuzz.service == .firestore ? firestore : storage
        let request = fuzz.request
        let database = fuzz.database
        let decision = program.evaluate(request, lookup: database)
        var findings: [FuzzFinding] = []
        if decision.allowed {
            if decision.requestError != nil { findings.append(FuzzFinding("allowed despite a request error")) }
            let granting = decision.candidates.filter { $0.verdict == .granted }
            if granting.isEmpty { findings.append(FuzzFinding("allowed without a granting candidate")) }
        }
        let covered = program.evaluate(request, lookup: database, coverage: CoverageCollector(program: program))
        if covered.allowed != decision.allowed {
            findings.append(FuzzFinding("with coverage the decision is \(covered.allowed), without \(decision.allowed): \(fuzz)"))
        }
        let expected = ReferencePolicy.allows(fuzz)
        if expected != decision.allowed {
            findings.append(FuzzFinding("reference says \(expected), engine says \(decision.allowed): \(fuzz)\n\(decision.explanation(in: program.source))"))
        }
        return findings
    }
}

/// A request in the reference's own terms (plain strings and integers), convertible to a
/// ``RulesRequest``.
struct FuzzRequest: CustomStringConvertible {
    /// A field value in the small data maps: a string or an integer.
    enum Field: Equatable { case text(String), number(Int64) }

    var service: ServiceKind
    var method: RequestMethod
    /// Segments after `/databases/(default)/documents` or `/b/bucket/o`.
    var segments: [String]
    var uid: String?
    var resource: [String: Field]?
    var requestResource: [String: Field]?
    /// Whether `/displayNames/<last segment>` exists in the database.
    var claimExists: Bool

    static let words = ["users", "displayNames", "profile_pictures", "alice", "bob", "john.doe", "admin", "adm1n", "a.png"]
    static let keys = ["userId", "createdAt", "email", "name", "size", "contentType"]
    static let texts = ["alice", "bob", "image/png", "image/", "text/plain", "image/png\n", "a@example.com"]

    init(_ reader: inout ByteReader) {
        let flags = reader.byte()
        service = flags & 1 == 0 ? .firestore : .storage
        method = RequestMethod.allCases[reader.choose(RequestMethod.allCases.count)]
        let count = 1 + reader.choose(4)
        segments = (0..<count).map { _ in reader.pick(Self.words, excluding: UInt8(ascii: "/")) }
        uid = flags & 2 == 0 ? nil : reader.pick(["alice", "bob"])
        resource = flags & 4 == 0 ? nil : Self.map(&reader)
        requestResource = flags & 8 == 0 ? nil : Self.map(&reader)
        claimExists = flags & 16 != 0
    }

    static func map(_ reader: inout ByteReader) -> [String: Field] {
        var map: [String: Field] = [:]
        for _ in 0..<reader.choose(5) {
            let key = keys[reader.choose(keys.count)]
            switch reader.choose(3) {
            case 0: map[key] = .number(Int64(reader.byte()) << Int64(reader.choose(24)))
            case 1: map[key] = .text(reader.pick(texts))
            default: map[key] = .text(reader.pick(["alice", "bob"]))
            }
        }
        return map
    }

    var prefix: String { service == .firestore ? "/databases/(default)/documents" : "/b/bucket/o" }
    var path: String { prefix + "/" + segments.joined(separator: "/") }

    var request: RulesRequest {
        RulesRequest(service: service, path: path, method: method, auth: uid.map { Auth(uid: $0) },
                     resource: resource.map(Self.value), requestResource: requestResource.map(Self.value))
    }

    var database: InMemoryDatabase {
        guard claimExists, let name = segments.last else { return InMemoryDatabase(documents: [:]) }
        return InMemoryDatabase(documents: ["/databases/(default)/documents/displayNames/" + name: ["userId": .string("bob")]])
    }

    static func value(_ map: [String: Field]) -> Value {
        .map(map.mapValues { field in
            switch field {
            case let .text(text): .string(text)
            case let .number(number): .int(number)
            }
        })
    }

    var description: String {
        "\(service) \(method) \(segments.map { "`\($0)`" }.joined(separator: "/")) uid=\(uid ?? "nil") "
            + "resource=\(resource.map { "\($0)" } ?? "nil") request.resource=\(requestResource.map { "\($0)" } ?? "nil") claimExists=\(claimExists)"
    }
}

/// The app's policy (rules/firestore.rules, rules/storage.rules) written out by hand: what each
/// collection allows, in plain conditionals, for the differential in ``RulesEvalHarness``.
enum ReferencePolicy {
    static let displayNames: DisplayNameValidator? = try? DisplayNameValidator()

    static func allows(_ request: FuzzRequest) -> Bool {
        let s = request.segments
        // An empty segment names no document or object: the engine refuses it (RL3023).
        if s.contains(where: \.isEmpty) { return false }
        let signedIn = request.uid != nil
        switch request.service {
        case .firestore:
            guard s.count == 2 else { return false }
            if s[0] == "users" {
                let isOwner = request.uid == s[1]
                switch request.method {
                case .get, .list: return signedIn
                case .create, .delete: return isOwner
                case .update:
                    guard isOwner, let before = request.resource, let after = request.requestResource else { return false }
                    return before["createdAt"] == after["createdAt"] && before["email"] == after["email"]
                }
            }
            if s[0] == "displayNames" {
                switch request.method {
                case .create:
                    guard let uid = request.uid, request.requestResource?["userId"] == .text(uid) else { return false }
                    return isValidDisplayName(s[1]) && !request.claimExists
                case .delete:
                    guard let uid = request.uid else { return false }
                    return request.resource?["userId"] == .text(uid)
                default: return false
                }
            }
            return false
        case .storage:
            guard s.count == 3, s[0] == "profile_pictures" else { return false }
            let isOwner = request.uid == s[1]
            switch request.method {
            case .get, .list: return signedIn
            case .delete: return isOwner
            case .create, .update:
                guard isOwner, let metadata = request.requestResource,
                      case let .number(size)? = metadata["size"], case let .text(type)? = metadata["contentType"]
                else { return false }
                return size < 5 * 1024 * 1024 && type.hasPrefix("image/") && !type.contains("\n")
            }
        }
    }

    /// The reference scanner, plus the display-name pack's reserved-name rules.
    static func isValidDisplayName(_ name: String) -> Bool {
        guard ReferenceDisplayName.isValid(Array(name.utf8)) else { return false }
        let codes = displayNames?.validate(name).codes ?? ["unavailable"]
        return !codes.contains { $0 == "DN107" || $0 == "DN108" || $0 == "unavailable" }
    }
}
