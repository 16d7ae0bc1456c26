import RulesLanguage

/// A value in a case file after `__type__` wrappers are decoded: what a document field, an auth
/// token claim or a query parameter holds before it becomes a rules value.
public indirect enum CaseValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Double)
    case string(String)
    case list([CaseValue])
    case map([String: CaseValue])
    /// `{"__type__": "timestamp", "value": "RFC 3339"}`
    case timestamp(Timestamp)
    /// `{"__type__": "duration", "seconds": N, "nanos": N}`
    case duration(seconds: Int64, nanos: Int32)
    /// `{"__type__": "bytes", "base64": "…"}`
    case bytes([UInt8])
    /// `{"__type__": "latlng", "latitude": x, "longitude": y}`
    case latlng(latitude: Double, longitude: Double)
    /// `{"__type__": "path", "value": "/…"}`
    case path(String)
    /// `{"__type__": "request_time"}`: the case's `time`.
    case requestTime
}

extension Timestamp {
    /// The default `request.time` of a case: 2026-01-01T00:00:00Z.
    public static let defaultRequestTime = Timestamp(seconds: 1_767_225_600)
}
