import RulesLanguage

/// Which Firebase product a case file's rules guard.
public enum CaseService: String, Sendable, CaseIterable {
    case firestore, storage
}

/// How document lookups (`get()`, `exists()`, …) are answered while running a case file.
public enum LookupMode: String, Sendable, CaseIterable {
    /// `existing` is the whole database: an unlisted path does not exist.
    case database
    /// `existing` lists every document the rules may read: an unlisted path is an evaluation error.
    case mocksOnly = "mocks-only"
}

/// The decision a case expects.
public enum Expectation: String, Sendable, CaseIterable {
    case allow, deny
}

/// The signed-in user of a case.
public struct CaseAuth: Sendable, Equatable {
    /// `request.auth.uid`.
    public var uid: String
    /// `request.auth.token`; `sub` is filled with `uid` when the file leaves it out.
    public var token: [String: CaseValue]

    /// Creates an auth value; `token["sub"]` defaults to `uid`.
    public init(uid: String, token: [String: CaseValue] = [:]) {
        self.uid = uid
        var token = token
        if token["sub"] == nil { token["sub"] = .string(uid) }
        self.token = token
    }
}

/// One request and the decision it must get.
public struct RulesTestCase: Sendable, Equatable {
    /// Unique within its file.
    public var name: String
    /// Full request path (`/databases/(default)/documents/users/alice`, `/b/bucket/o/a/b.png`).
    public var path: String
    /// The granular method: `get`, `list`, `create`, `update` or `delete`.
    public var method: RequestMethod
    /// nil for a signed-out request.
    public var auth: CaseAuth?
    /// The existing document data / object metadata; `.null` when it does not exist; nil when the
    /// file leaves the key out (the runner then looks the path up in ``existing``).
    public var resource: CaseValue?
    /// The data / metadata after the write; nil for requests without `request.resource`.
    public var requestResource: CaseValue?
    /// Other documents by full path; `.null` means "does not exist".
    public var existing: [String: CaseValue]
    /// Overrides for the state after the write; nil when the file leaves the key out.
    public var existingAfter: [String: CaseValue]?
    /// The other writes of the same batched write or transaction, in order; empty for a
    /// request on its own. They shape what `getAfter()`/`existsAfter()` see, and a non-empty
    /// batch raises the lookup budget to the batched one.
    public var batch: [BatchWrite]
    /// `request.query` for `list` requests.
    public var query: CaseValue?
    /// `request.time`.
    public var time: Timestamp
    /// The expected decision.
    public var expect: Expectation

    /// Creates a case.
    public init(name: String, path: String, method: RequestMethod, auth: CaseAuth? = nil, resource: CaseValue? = nil,
                requestResource: CaseValue? = nil, existing: [String: CaseValue] = [:],
                existingAfter: [String: CaseValue]? = nil, batch: [BatchWrite] = [], query: CaseValue? = nil,
                time: Timestamp = .defaultRequestTime, expect: Expectation) {
        self.name = name
        self.path = path
        self.method = method
        self.auth = auth
        self.resource = resource
        self.requestResource = requestResource
        self.existing = existing
        self.existingAfter = existingAfter
        self.batch = batch
        self.query = query
        self.time = time
        self.expect = expect
    }
}

/// One other write of the batch a case's request belongs to (a Firestore batched write or
/// transaction): the sign-up batch writes a claim and a profile, a rename writes a new claim,
/// updates the profile and deletes the old claim.
public struct BatchWrite: Sendable, Equatable {
    /// Full document path (`/databases/(default)/documents/displayNames/john.doe`).
    public var path: String
    /// `create`, `update` or `delete`.
    public var method: RequestMethod
    /// The document after the write (`create`, `update`: the full merged document); nil for `delete`.
    public var data: CaseValue?

    /// Creates a batch write.
    public init(path: String, method: RequestMethod, data: CaseValue? = nil) {
        self.path = path
        self.method = method
        self.data = data
    }
}

/// A loaded case file: which rules, how to look documents up, and the cases.
public struct RulesCaseFile: Sendable {
    /// The case file's path as the caller gave it (shown in reports).
    public var path: String
    /// The rules file's path: the file's `rules` key resolved against the case file's directory.
    public var rulesPath: String
    /// The service the rules guard.
    public var service: CaseService
    /// How lookups are answered.
    public var lookupMode: LookupMode
    /// The cases, in file order.
    public var cases: [RulesTestCase]

    /// Creates a case file.
    public init(path: String, rulesPath: String, service: CaseService, lookupMode: LookupMode = .database, cases: [RulesTestCase]) {
        self.path = path
        self.rulesPath = rulesPath
        self.service = service
        self.lookupMode = lookupMode
        self.cases = cases
    }
}

/// A problem with a case file, naming the file and, when it is about one case, the case.
public struct CaseFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The case file's path.
    public var file: String
    /// The case's name (or `#N` for an unnamed case), nil for file-level problems.
    public var caseName: String?
    /// What is wrong, terse and lowercase.
    public var message: String
    /// The diagnostic code (`RL4001`), for the problems that have one.
    public var code: String?

    /// Creates an error.
    public init(file: String, caseName: String? = nil, message: String, code: String? = nil) {
        self.file = file
        self.caseName = caseName
        self.message = message
        self.code = code
    }

    /// `file: case "name": message`, with `error[CODE]: ` before the message when there is a code.
    public var description: String {
        let text = code.map { "error[\($0)]: \(message)" } ?? message
        if let caseName { return "\(file): case \"\(caseName)\": \(text)" }
        return "\(file): \(text)"
    }
}
