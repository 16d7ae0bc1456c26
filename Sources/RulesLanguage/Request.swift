// Request: what the caller supplies to an evaluation — the request, the documents rules may
// look up, and the regular-expression engine behind `matches`, `replace` and `split`.

/// The granular method of a request (`read`/`write` exist only on the grant side).
public enum RequestMethod: String, Sendable, Hashable, CaseIterable {
    case get, list, create, update, delete
}

/// The signed-in user, as `request.auth`.
public struct Auth: Sendable, Hashable {
    /// `request.auth.uid`.
    public var uid: String
    /// `request.auth.token` claims; `sub` defaults to `uid` when absent.
    public var token: [String: Value]

    /// Creates a signed-in user.
    public init(uid: String, token: [String: Value] = [:]) {
        self.uid = uid
        self.token = token
    }

    /// `{uid, token}` as the rules see it.
    public var value: Value {
        var claims = token
        if claims["sub"] == nil { claims["sub"] = .string(uid) }
        return .map(["uid": .string(uid), "token": .map(claims)])
    }
}

/// One request to decide.
///
/// `resource` and `requestResource` hold the document **data** map (Firestore) or the object
/// **metadata** map (Storage); the evaluator wraps Firestore data as `{data, id, __name__}` and
/// adds Storage `name`/`bucket` from the path when the metadata lacks them.
public struct RulesRequest: Sendable {
    /// Which service the request is for (must match the ruleset's service).
    public var service: ServiceKind
    /// The full path: `/databases/(default)/documents/users/alice` or `/b/bucket/o/a/b.png`.
    public var path: String
    /// The granular method.
    public var method: RequestMethod
    /// nil for an unauthenticated request.
    public var auth: Auth?
    /// The existing document data / object metadata; nil when it does not exist.
    public var resource: Value?
    /// The document data / object metadata after the write; nil for reads and deletes.
    public var requestResource: Value?
    /// `request.time`.
    public var time: Timestamp
    /// `request.query` for `list` (`limit`, `offset`, `orderBy`); nil makes reading it an error.
    public var query: [String: Value]?
    /// `request.params`.
    public var params: [String: Value]
    /// True for batched writes and transactions (20 lookups instead of 10).
    public var isBatched: Bool

    /// Creates a request; unspecified fields mean "absent".
    public init(
        service: ServiceKind, path: String, method: RequestMethod, auth: Auth? = nil,
        resource: Value? = nil, requestResource: Value? = nil, time: Timestamp = Timestamp(seconds: 0),
        query: [String: Value]? = nil, params: [String: Value] = [:], isBatched: Bool = false
    ) {
        self.service = service
        self.path = path
        self.method = method
        self.auth = auth
        self.resource = resource
        self.requestResource = requestResource
        self.time = time
        self.query = query
        self.params = params
        self.isBatched = isBatched
    }
}

/// What a document lookup found.
public enum LookupResult: Sendable, Equatable {
    /// The document exists with this data map.
    case document([String: Value])
    /// The document does not exist.
    case missing
    /// The lookup itself failed (e.g. a path not listed in mocks-only mode); denies as an error.
    case failure(String)
}

/// Supplies documents to `get`, `exists`, `getAfter`, `existsAfter` and Storage's `firestore.*`.
///
/// `getAfter`/`existsAfter` of the request's own path never reach the lookup: the evaluator
/// answers them from `requestResource` (or "missing" for a delete).
public protocol DocumentLookup: Sendable {
    /// The document at `path` (`/databases/(default)/documents/users/alice`), before the request
    /// (`afterWrite == false`) or as if the request's batch had succeeded (`afterWrite == true`).
    func lookup(path: String, afterWrite: Bool) -> LookupResult
}

/// A lookup with no documents: every path is missing.
public struct EmptyDatabase: DocumentLookup {
    /// Creates a request; unspecified fields mean "absent".
    public init() {}
    /// Always `.missing`.
    public func lookup(path: String, afterWrite: Bool) -> LookupResult { .missing }
}

/// An in-memory database: full document path → data.
public struct InMemoryDatabase: DocumentLookup {
    /// Full document path → data, before the request.
    public var documents: [String: [String: Value]]
    /// Full document path → data after the batch; nil means unchanged.
    public var documentsAfter: [String: [String: Value]]?

    /// - Parameters:
    ///   - documents: the state before the request.
    ///   - documentsAfter: the state after the batch; nil means "same as before".
    public init(documents: [String: [String: Value]], documentsAfter: [String: [String: Value]]? = nil) {
        self.documents = documents
        self.documentsAfter = documentsAfter
    }

    /// Looks the path up in `documents` or `documentsAfter`.
    public func lookup(path: String, afterWrite: Bool) -> LookupResult {
        let source = afterWrite ? (documentsAfter ?? documents) : documents
        return source[path].map { .document($0) } ?? .missing
    }
}

/// A regular-expression failure: bad syntax (including syntax RE2 lacks) or a match limit hit.
public struct RegexError: Error, Sendable, Hashable {
    /// Stable code: `RL3020` unsupported/invalid pattern, `RL3021` match limit exceeded.
    public var code: String
    /// What is wrong, for people.
    public var message: String

    /// Creates a request; unspecified fields mean "absent".
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}

/// The regular-expression library the evaluator calls for `matches`, `replace` and `split`
/// (RE2 syntax). `RulesPatterns.PCRE2RegexEngine` is the production engine.
public protocol RegexEngine: Sendable {
    /// Whole-string match.
    func matches(_ subject: String, pattern: String) throws(RegexError) -> Bool
    /// Replaces every match of `pattern` with `replacement` taken literally.
    func replace(_ subject: String, pattern: String, with replacement: String) throws(RegexError) -> String
    /// Splits on every match of `pattern`.
    func split(_ subject: String, pattern: String) throws(RegexError) -> [String]
    /// A problem with `pattern` found without matching (for the checker), or nil.
    func validate(pattern: String) -> RegexError?
    /// Replaces every match like ``replace(_:pattern:with:)``, but never builds a result longer
    /// than `maxResultBytes` UTF-8 bytes: it answers how long that result would be instead.
    /// The default builds the result and measures it; an engine that knows the matches first
    /// should size the result before building it.
    func replace(_ subject: String, pattern: String, with replacement: String, maxResultBytes: Int) throws(RegexError) -> BoundedReplacement
}

/// What a bounded `replace` gives: the text, or how long it would have been.
public enum BoundedReplacement: Sendable, Equatable {
    /// The replaced text, at most the bound long.
    case text(String)
    /// The result would be `bytes` long, more than the bound, and was not built.
    case tooLarge(bytes: Int)
}

extension RegexEngine {
    /// Builds the result with ``replace(_:pattern:with:)`` and measures it.
    public func replace(_ subject: String, pattern: String, with replacement: String, maxResultBytes: Int) throws(RegexError) -> BoundedReplacement {
        let text = try replace(subject, pattern: pattern, with: replacement)
        return text.utf8.count > maxResultBytes ? .tooLarge(bytes: text.utf8.count) : .text(text)
    }
}

/// A regex engine that rejects every call; the default when none is injected.
public struct UnavailableRegexEngine: RegexEngine {
    /// Creates a request; unspecified fields mean "absent".
    public init() {}
    static let error = RegexError(code: RulesLanguageCodes.noRegexEngine.id, message: "no regular-expression engine is configured")
    /// Always throws `RL3022`.
    public func matches(_ subject: String, pattern: String) throws(RegexError) -> Bool { throw Self.error }
    /// Always throws `RL3022`.
    public func replace(_ subject: String, pattern: String, with replacement: String) throws(RegexError) -> String { throw Self.error }
    /// Always throws `RL3022`.
    public func split(_ subject: String, pattern: String) throws(RegexError) -> [String] { throw Self.error }
    /// Accepts every pattern (errors surface when matching).
    public func validate(pattern: String) -> RegexError? { nil }
}
