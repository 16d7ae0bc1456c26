import Diagnostics
import Foundation
import RulesLanguage

/// Writes the case-file format as JSON text, one line per value: case objects, the `__type__`
/// wrappers and a case file around its cases. The verifier writes its witnesses with it, so a
/// witness replays with `validate rules test` (``CaseFileLoader`` reads back what it writes).
///
/// Values are JSON texts the caller has written (with `Diagnostics.jsonString` for strings), so a
/// map keeps the order its keys were given in.
public enum CaseFileWriter {
    /// A JSON object from its entries in order: `{"key": value, …}`.
    ///
    /// - Parameter entries: each key with its value's JSON text; keys are escaped here.
    /// - Returns: the object on one line, entries separated by `, `.
    public static func object(_ entries: [(String, String)]) -> String {
        "{" + entries.map { "\(jsonString($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
    }

    /// A case file holding `cases` for the rules file at `rules` (resolved, when read, against
    /// the case file's directory): `{"rules": …, "service": …, "cases": [case, …]}`.
    ///
    /// - Parameter cases: case objects' JSON texts, such as ``object(_:)`` writes.
    public static func file(rules: String, service: CaseService, cases: [String]) -> String {
        "{\"rules\": \(jsonString(rules)), \"service\": \(jsonString(service.rawValue)), \"cases\": [\(cases.joined(separator: ", "))]}"
    }

    /// `{"__type__": "float", "value": N}`: a float even when `value` has no fraction.
    public static func float(_ value: Double) -> String {
        "{\"__type__\": \"float\", \"value\": \(value)}"
    }

    /// `{"__type__": "timestamp", "value": "RFC 3339"}`, in UTC.
    public static func timestamp(_ instant: Timestamp) -> String {
        "{\"__type__\": \"timestamp\", \"value\": \(jsonString(instant.description))}"
    }

    /// `{"__type__": "duration", "seconds": N, "nanos": N}`; `nanos` has the sign of `seconds`.
    public static func duration(seconds: Int64, nanos: Int64) -> String {
        "{\"__type__\": \"duration\", \"seconds\": \(seconds), \"nanos\": \(nanos)}"
    }

    /// `{"__type__": "bytes", "base64": "…"}`, standard base64 with padding.
    public static func bytes(_ bytes: [UInt8]) -> String {
        "{\"__type__\": \"bytes\", \"base64\": \(jsonString(Data(bytes).base64EncodedString()))}"
    }
}
