import RulesLanguage

// MARK: - Case values to rules values

extension CaseValue {
    /// The rules value this case value stands for; `request_time` becomes `requestTime`.
    public func rulesValue(requestTime: Timestamp) -> Value {
        switch self {
        case .null: .null
        case .bool(let value): .bool(value)
        case .int(let value): .int(value)
        case .float(let value): .float(value)
        case .string(let value): .string(value)
        case .list(let items): .list(items.map { $0.rulesValue(requestTime: requestTime) })
        case .map(let entries): .map(entries.mapValues { $0.rulesValue(requestTime: requestTime) })
        case .timestamp(let instant): .timestamp(instant)
        case .duration(let seconds, let nanos): .duration(RulesDuration(seconds: seconds, nanos: nanos))
        case .bytes(let bytes): .bytes(bytes)
        case .latlng(let latitude, let longitude): .latlng(LatLng(latitude: latitude, longitude: longitude))
        case .path(let text): .path(PathValue(text))
        case .requestTime: .timestamp(requestTime)
        }
    }

    /// The fields of a document or object, or nil for `null` (and for non-maps, which the
    /// decoder never lets through).
    func document(requestTime: Timestamp) -> [String: Value]? {
        guard case .map(let entries) = self else { return nil }
        return entries.mapValues { $0.rulesValue(requestTime: requestTime) }
    }
}

// MARK: - Lookups

/// Answers `get()`/`exists()` (and the `After` forms) from a case's `existing`, `batch` and
/// `existingAfter`, in the file's lookup mode.
public struct CaseDocumentLookup: DocumentLookup {
    /// Path → fields, or nil for "listed as missing".
    let before: [String: [String: Value]?]
    let after: [String: [String: Value]?]
    let mode: LookupMode

    /// Builds the lookup for one case.
    public init(testCase: RulesTestCase, mode: LookupMode) {
        let time = testCase.time
        var before: [String: [String: Value]?] = [:]
        for (path, value) in testCase.existing { before[path] = .some(value.document(requestTime: time)) }
        var after = before
        for write in testCase.batch { after[write.path] = .some(write.data?.document(requestTime: time)) }
        for (path, value) in testCase.existingAfter ?? [:] { after[path] = .some(value.document(requestTime: time)) }
        self.before = before
        self.after = after
        self.mode = mode
    }

    /// The listed document (or "missing" for a `null` entry); an unlisted path is missing in
    /// `database` mode and a failure in `mocks-only` mode.
    public func lookup(path: String, afterWrite: Bool) -> LookupResult {
        let source = afterWrite ? after : before
        if let entry = source[path] { return entry.map { .document($0) } ?? .missing }
        switch mode {
        case .database: return .missing
        case .mocksOnly:
            let keys = afterWrite ? "`existingAfter`, `batch` or `existing`" : "`existing`"
            return .failure("the path is not listed in \(keys) (lookupMode mocks-only)")
        }
    }
}

// MARK: - Requests

extension RulesTestCase {
    /// The request this case describes.
    ///
    /// `resource` falls back to the case's `existing` entry for `path` when the file leaves the
    /// key out (Firestore only; Storage objects are not in `existing`).
    public func request(service: CaseService) -> RulesRequest {
        let resourceValue: CaseValue? = resource ?? (service == .firestore ? existing[path] : nil)
        return RulesRequest(
            service: service == .firestore ? .firestore : .storage,
            path: path,
            method: method,
            auth: auth.map { Auth(uid: $0.uid, token: $0.token.mapValues { $0.rulesValue(requestTime: time) }) },
            resource: resourceValue.flatMap { $0.document(requestTime: time) }.map(Value.map),
            requestResource: requestResource.flatMap { $0.document(requestTime: time) }.map(Value.map),
            time: time,
            query: query.flatMap { $0.document(requestTime: time) },
            isBatched: !batch.isEmpty)
    }
}
