import FieldValidation
import Foundation
import RulesLanguage
import RulesPatterns

/// Evaluates the app's `rules/firestore.rules` and `rules/storage.rules` on structured requests
/// derived from the fuzz bytes (service, method, path segments, signed-in uid or none, small data
/// maps, whether the claims of `alice` and `john.doe` exist).
///
/// Checks: evaluation never traps; a request error or a limit never allows; an allow is granted
/// by a candidate whose verdict is `granted`; evaluating again with a coverage collector (the
/// engine's second, instrumented mode) decides the same; and the decision equals
/// ``ReferencePolicy``, the app's policy written out by hand in plain Swift.
public enum RulesEvalHarness {
    static let regex = PCRE2RegexEngine()
    static let firestore = program("firestore.rules")
    static let storage = program("storage.rules")

    static func program(_ name: String) -> Program? {
        guard let text = try? String(contentsOf: repositoryRoot.appendingPathComponent("rules/\(name)"), encoding: .utf8) else { return nil }
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
    /// A field value in the small data maps: a string, an integer or the request time (what a
    /// client's `serverTimestamp()` becomes).
    enum Field: Equatable { case text(String), number(Int64), time }

    var service: ServiceKind
    var method: RequestMethod
    /// Segments after `/databases/(default)/documents` or `/b/bucket/o`.
    var segments: [String]
    var uid: String?
    var resource: [String: Field]?
    var requestResource: [String: Field]?
    /// Whether the database holds the claims `displayNames/alice` (alice's) and
    /// `displayNames/john.doe` (bob's).
    var claimExists: Bool

    static let words = ["users", "displayNames", "profile_pictures", "alice", "bob", "john.doe", "admin", "adm1n", "a.png"]
    static let keys = ["userId", "createdAt", "email", "displayName", "photoURL", "size", "contentType"]
    static let texts = ["alice", "bob", "Alice", "john.doe", "JOHN.DOE", "admin", "", "image/png", "image/", "IMAGE/PNG",
                        "image/svg+xml", "text/plain", "image/png\n", "alice@example.com", "bob@example.com",
                        photoURL("alice"), photoURL("bob")]

    /// A download URL of a picture in `uid`'s folder.
    static func photoURL(_ uid: String) -> String {
        "https://firebasestorage.googleapis.com/v0/b/app.appspot.com/o/profile_pictures%2F\(uid)%2Fa.png?alt=media&token=t"
    }

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
            switch reader.choose(4) {
            case 0: map[key] = .number(Int64(reader.byte()) << Int64(reader.choose(24)))
            case 1: map[key] = .text(reader.pick(texts))
            case 2: map[key] = .time
            default: map[key] = .text(reader.pick(["alice", "bob"]))
            }
        }
        return map
    }

    var prefix: String { service == .firestore ? "/databases/(default)/documents" : "/b/bucket/o" }
    var path: String { prefix + "/" + segments.joined(separator: "/") }

    /// `request.time` (and every ``Field/time``).
    static let time = Timestamp(seconds: 1_767_607_200)

    /// A signed-in user's token carries `email` = `<uid>@example.com`.
    var request: RulesRequest {
        RulesRequest(service: service, path: path, method: method,
                     auth: uid.map { Auth(uid: $0, token: ["email": .string($0 + "@example.com")]) },
                     resource: resource.map(Self.value), requestResource: requestResource.map(Self.value), time: Self.time)
    }

    /// The claims the reference knows: `alice` held by alice, `john.doe` held by bob.
    static let claims = ["alice": "alice", "john.doe": "bob"]

    var database: InMemoryDatabase {
        guard claimExists else { return InMemoryDatabase(documents: [:]) }
        var documents: [String: [String: Value]] = [:]
        for (key, holder) in Self.claims {
            documents["/databases/(default)/documents/displayNames/" + key] = ["userId": .string(holder), "displayName": .string(key)]
        }
        return InMemoryDatabase(documents: documents)
    }

    static func value(_ map: [String: Field]) -> Value {
        .map(map.mapValues { field in
            switch field {
            case let .text(text): .string(text)
            case let .number(number): .int(number)
            case .time: .timestamp(time)
            }
        })
    }

    var description: String {
        "\(service) \(method) \(segments.map { "`\($0)`" }.joined(separator: "/")) uid=\(uid ?? "nil") "
            + "resource=\(resource.map { "\($0)" } ?? "nil") request.resource=\(requestResource.map { "\($0)" } ?? "nil") claimExists=\(claimExists)"
    }
}

/// The app's policy (rules/firestore.rules, rules/storage.rules; docs/APP-RULES.md) written out
/// by hand: what each collection allows, in plain conditionals, for the differential in
/// ``RulesEvalHarness``. A condition that would error in the rules is simply not true here.
enum ReferencePolicy {
    static let displayNames: DisplayNameValidator? = try? DisplayNameValidator(appName: "RulesKit")
    static let profileKeys: Set<String> = ["email", "displayName", "photoURL", "createdAt"]
    static let claimKeys: Set<String> = ["userId", "displayName", "createdAt"]

    static func allows(_ request: FuzzRequest) -> Bool {
        let s = request.segments
        // An empty segment names no document or object: the engine refuses it (RL3023).
        if s.contains(where: \.isEmpty) { return false }
        let signedIn = request.uid != nil
        switch request.service {
        case .firestore:
            guard s.count == 2 else { return false }
            if s[0] == "users" {
                guard let uid = request.uid, uid == s[1] else { return false }
                switch request.method {
                case .get, .delete: return true
                case .list: return false
                case .create:
                    guard let data = request.requestResource, Set(data.keys) == profileKeys else { return false }
                    return data["email"] == .text(uid + "@example.com") && holds(data["displayName"], request)
                        && isOwnPhotoURL(data["photoURL"], uid) && data["createdAt"] == .time
                case .update:
                    guard let before = request.resource, let after = request.requestResource, Set(after.keys) == profileKeys,
                          before["email"] == after["email"], before["createdAt"] == after["createdAt"] else { return false }
                    let sameName = before["displayName"] != nil && before["displayName"] == after["displayName"]
                    return (sameName || holds(after["displayName"], request)) && isOwnPhotoURL(after["photoURL"], uid)
                }
            }
            if s[0] == "displayNames" {
                switch request.method {
                case .get: return true
                case .create:
                    guard let uid = request.uid, let data = request.requestResource, Set(data.keys) == claimKeys,
                          data["userId"] == .text(uid), case let .text(name)? = data["displayName"] else { return false }
                    return isValidDisplayName(name) && name.lowercased() == s[1] && data["createdAt"] == .time
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
                return size <= 5 * 1024 * 1024 && isImageType(type.lowercased()) && type.lowercased() != "image/svg+xml"
            }
        }
    }

    /// `holdsName`: an ASCII name whose canonical key's claim names the signed-in user.
    static func holds(_ field: FuzzRequest.Field?, _ request: FuzzRequest) -> Bool {
        guard case let .text(name)? = field, !name.isEmpty, request.claimExists,
              name.unicodeScalars.allSatisfy({
                  $0 == "." || $0 == "_" || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
              })
        else { return false }
        return FuzzRequest.claims[name.lowercased()] == request.uid
    }

    /// `isOwnPhotoURL`: empty, or a download URL of `profile_pictures/{uid}/{file}`.
    static func isOwnPhotoURL(_ field: FuzzRequest.Field?, _ uid: String) -> Bool {
        guard case let .text(url)? = field else { return false }
        if url.isEmpty { return true }
        let parts = url.components(separatedBy: "%2F")
        guard url.unicodeScalars.count <= 2048, parts.count == 3 else { return false }
        let head = "https://firebasestorage.googleapis.com/v0/b/", tail = "/o/profile_pictures"
        guard parts[0].hasPrefix(head), parts[0].hasSuffix(tail), parts[0].count > head.count + tail.count else { return false }
        let bucket = parts[0].dropFirst(head.count).dropLast(tail.count)
        let file = parts[2].prefix { $0 != "?" }
        let query = parts[2].dropFirst(file.count)
        let plain = { (text: Substring) in !text.isEmpty && !text.unicodeScalars.contains { "/?#%".unicodeScalars.contains($0) } }
        return plain(bucket) && parts[1] == uid && plain(file) && !query.contains("#")
    }

    /// `image/` then an RFC 6838 restricted-name subtype (of a lowercased type).
    static func isImageType(_ type: String) -> Bool {
        guard type.hasPrefix("image/") else { return false }
        let subtype = Array(type.unicodeScalars.dropFirst(6))
        let alnum = { (c: Unicode.Scalar) in ("a"..."z").contains(c) || ("0"..."9").contains(c) }
        guard let first = subtype.first, alnum(first) else { return false }
        return subtype.dropFirst().allSatisfy { alnum($0) || "!#$&^_.+-".unicodeScalars.contains($0) }
    }

    /// The reference scanner, plus the display-name pack's reserved-name rules.
    static func isValidDisplayName(_ name: String) -> Bool {
        guard ReferenceDisplayName.isValid(Array(name.utf8)) else { return false }
        let codes = displayNames?.validate(name).codes ?? ["unavailable"]
        return !codes.contains { $0 == "DN107" || $0 == "DN108" || $0 == "unavailable" }
    }
}
