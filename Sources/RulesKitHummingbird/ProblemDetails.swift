import Foundation

/// An RFC 9457 problem details document: the standard members `type`, `title`, `status` and
/// `detail`, followed by the members of `extensions` (a `Encodable` whose keys are added to the
/// same object). ``ValidationProblem`` and `validate serve`'s errors are written with it, so every
/// error RulesKit answers over HTTP has one shape.
public struct ProblemDetails<Extensions: Encodable & Sendable>: Encodable, Sendable {
    /// The problem type, a URI (`urn:ruleskit:problem:invalid-fields`).
    public var type: String
    /// A short summary of the problem type.
    public var title: String
    /// The HTTP status code.
    public var status: Int
    /// This occurrence, in one sentence.
    public var detail: String
    /// Members of the document beyond the standard ones.
    public var extensions: Extensions

    /// Creates a document.
    public init(type: String, title: String, status: Int, detail: String, extensions: Extensions) {
        self.type = type
        self.title = title
        self.status = status
        self.detail = detail
        self.extensions = extensions
    }

    private enum CodingKeys: String, CodingKey {
        case type, title, status, detail
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encode(title, forKey: .title)
        try container.encode(status, forKey: .status)
        try container.encode(detail, forKey: .detail)
        try extensions.encode(to: encoder)
    }

    /// The document as JSON bytes, keys sorted.
    public var json: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // INVARIANT: strings, an integer and the extensions' members (strings and arrays or
        // objects of strings in RulesKit's problems) always encode.
        return (try? encoder.encode(self)).map(Array.init) ?? []
    }
}

/// The problem document's media type, and whether a client asked for it.
public enum ProblemMediaType {
    /// `application/problem+json`.
    public static let name = "application/problem+json"

    /// True when an `Accept` header value lists `application/problem+json` (with a quality above
    /// zero): the client asked for problems in their own media type.
    public static func isAccepted(by accept: String?) -> Bool {
        guard let accept else { return false }
        return accept.split(separator: ",").contains { range in
            let parameters = range.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard parameters.first == name else { return false }
            let quality = parameters.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) }
            return (quality ?? 1) > 0
        }
    }
}
