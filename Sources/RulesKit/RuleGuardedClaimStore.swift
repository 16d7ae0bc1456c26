import Availability
import Diagnostics
import Foundation
import RulesLanguage
import RulesPatterns

/// A `ClaimStore` that asks the security rules before every write, so the server enforces
/// exactly what `rules/firestore.rules` says about `/displayNames/{name}`.
///
/// A claim must pass `create` on `/databases/(default)/documents/displayNames/KEY` with the
/// claim document the app writes (`userId` = the user, `displayName` = the name as typed,
/// `createdAt` = the request time, as `serverTimestamp()` gives); a release must pass `delete`
/// (with `resource.data.userId` = the holder); a rename must pass both. The document id is the
/// canonical key. `exists()` and `get()` see the base store's current claim for that key. A
/// denial is refused with `AV1007` and nothing is written; the base store's atomic claim stays
/// the authority on uniqueness. Reads (availability, owner) pass straight through.
///
/// Claiming a name one already holds writes nothing, so it is not a request to the rules: it
/// succeeds as in the base store (claims are idempotent). A claim over someone else's claim is
/// evaluated as the `update` Firestore would see for a `set()` on an existing document, which
/// the app's rules never allow.
public struct RuleGuardedClaimStore: ClaimStore {
    /// The store that holds the claims.
    public let base: any ClaimStore
    /// The compiled security rules.
    public let program: Program
    /// The `{database}` of the Firestore paths.
    public let database: String
    /// The base store's policy: names and keys are the base store's.
    public var policy: any DisplayNamePolicy { base.policy }

    /// Guards `base` with a compiled rules program.
    public init(base: any ClaimStore, program: Program, database: String = "(default)") {
        self.base = base
        self.program = program
        self.database = database
    }

    /// Compiles `rules` (Firestore rules source) and guards `base` with them.
    ///
    /// - Returns: The store, or nil with the compiler's diagnostics when the rules do not compile.
    public static func compile(rules: String, named name: String = "firestore.rules", base: any ClaimStore)
        -> (store: RuleGuardedClaimStore?, diagnostics: [Diagnostic]) {
        let result = RulesCompiler.compile(rules, name: name, regexEngine: PCRE2RegexEngine())
        return (result.program.map { RuleGuardedClaimStore(base: base, program: $0) }, result.diagnostics)
    }

    /// The refusal for a request the rules deny.
    public static func denied(_ name: String) -> ClaimProblem {
        ClaimProblem(code: AvailabilityCodes.rulesDeny.id, message: "The security rules do not allow this change to the username “\(name)”.")
    }

    // MARK: - ClaimStore

    /// The base store's answer (reads are not asked of the rules).
    public func availability(of name: String) async throws(ClaimStoreError) -> NameAvailability {
        try await base.availability(of: name)
    }

    /// The base store's answer (reads are not asked of the rules).
    public func availableNames(among names: [String]) async throws(ClaimStoreError) -> [String] {
        try await base.availableNames(among: names)
    }

    /// The base store's answer (reads are not asked of the rules).
    public func owner(of name: String) async throws(ClaimStoreError) -> Claim? {
        try await base.owner(of: name)
    }

    /// Claims `name` for `user` in the base store when the rules allow the `create`.
    ///
    /// - Returns: The base store's outcome, or a refusal with `AV1007` when the rules deny it.
    /// - Throws: `ClaimStoreError` when the base store cannot decide.
    public func claim(_ name: String, by user: String) async throws(ClaimStoreError) -> ClaimOutcome {
        // An invalid user id is the base store's refusal (AV1008), before any rule is asked.
        guard UserID.problem(user) == nil, case .claimable(_, let key) = PreparedName.prepare(name, with: policy) else {
            return try await base.claim(name, by: user)
        }
        // The user's own name: nothing is written, so nothing to ask the rules (owners compare by bytes).
        if let holder = try await base.owner(of: key), UserID.same(holder.owner, user) { return try await base.claim(name, by: user) }
        guard try await allows(.create, key: key, name: name, by: user) else { return refusal(name, key) }
        return try await base.claim(name, by: user)
    }

    /// Releases `name` in the base store when the rules allow the `delete`.
    ///
    /// - Returns: The base store's outcome, or a refusal with `AV1007` when the rules deny it.
    /// - Throws: `ClaimStoreError` when the base store cannot decide.
    public func release(_ name: String, by user: String) async throws(ClaimStoreError) -> ClaimOutcome {
        let key = policy.evaluate(name).key
        guard UserID.problem(user) == nil, try await base.owner(of: name) != nil else { return try await base.release(name, by: user) }
        guard try await allows(.delete, key: key, by: user) else { return refusal(name, key) }
        return try await base.release(name, by: user)
    }

    /// Renames in the base store when the rules allow the `delete` of `old` and, when the key
    /// changes, the `create` of `new`.
    ///
    /// - Returns: The base store's outcome, or a refusal with `AV1007` when the rules deny either.
    /// - Throws: `ClaimStoreError` when the base store cannot decide.
    public func rename(from old: String, to new: String, by user: String) async throws(ClaimStoreError) -> ClaimOutcome {
        let oldKey = policy.evaluate(old).key
        guard UserID.problem(user) == nil, case .claimable(_, let newKey) = PreparedName.prepare(new, with: policy),
              try await base.owner(of: old) != nil else {
            return try await base.rename(from: old, to: new, by: user)
        }
        guard try await allows(.delete, key: oldKey, by: user) else { return refusal(old, oldKey) }
        // The key being renamed within (a change of case) is the user's own: only the delete matters.
        if newKey != oldKey, !(try await allows(.create, key: newKey, name: new, by: user)) { return refusal(new, newKey) }
        return try await base.rename(from: old, to: new, by: user)
    }

    // MARK: - Rules

    private func refusal(_ name: String, _ key: String) -> ClaimOutcome {
        ClaimOutcome(name: name, key: key, claimed: false, owner: nil, problems: [Self.denied(name)])
    }

    /// Evaluates `method` on the claim document for `key` as `user`, with the current claim (if
    /// any) as the existing document. A `create` of a key that has a claim is an `update`.
    private func allows(_ method: RequestMethod, key: String, name: String? = nil, by user: String) async throws(ClaimStoreError) -> Bool {
        let path = "/databases/\(database)/documents/displayNames/\(key)"
        let holder = try await base.owner(of: key)
        let existing: [String: Value]? = holder.map { ["userId": .string($0.owner), "displayName": .string($0.name)] }
        let now = Timestamp(seconds: Int64(Date().timeIntervalSince1970))
        let written: Value? = method == .create
            ? .map(["userId": .string(user), "displayName": .string(name ?? key), "createdAt": .timestamp(now)])
            : nil
        let request = RulesRequest(
            service: .firestore, path: path, method: method == .create && holder != nil ? .update : method,
            auth: Auth(uid: user), resource: existing.map(Value.map), requestResource: written, time: now)
        let lookup = InMemoryDatabase(documents: existing.map { [path: $0] } ?? [:])
        return program.evaluate(request, lookup: lookup).allowed
    }
}
