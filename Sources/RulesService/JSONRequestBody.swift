import Foundation
import BatchValidation
import Hummingbird
import NIOCore

/// Reading request bodies: the content type first (415), then at most the body limit (413),
/// then JSON (400). Error messages name members, never values.
enum RequestBodyReader {
    /// The JSON endpoints' media type.
    static let json = "application/json"
    /// The streamed batch's media type.
    static let ndjson = "application/x-ndjson"

    /// Throws 415 unless the request's `Content-Type` is `expected` (parameters such as
    /// `charset` are ignored).
    static func requireContentType(_ expected: String, of request: Request) throws(ServiceError) {
        let mediaType = request.headers[.contentType]?.split(separator: ";").first?
            .trimmingCharacters(in: .whitespaces).lowercased()
        guard mediaType == expected else { throw .unsupportedMediaType(expected: expected) }
    }

    /// Deepest nesting a JSON body may have (a case object's `data` nests).
    static let maxDepth = 128

    /// The whole body of a JSON request, at most `limit` bytes, naming no key twice in an object
    /// (400 `API1004`: parsers disagree on which value wins, so the service checks none).
    static func jsonBytes(of request: Request, limit: Int) async throws -> ByteBuffer {
        try requireContentType(json, of: request)
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw ServiceError.bodyTooLarge(limit: limit)
        }
        // Other damage is left to the decoders, which word it for the endpoint.
        if case .duplicateKey(let detail)? = buffer.withUnsafeReadableBytes({ StrictJSON.damage(inObject: $0, maxDepth: maxDepth) }) {
            throw ServiceError.duplicateKey(detail)
        }
        return buffer
    }

    /// Decodes a JSON body into `type`.
    static func decode<Body: Decodable>(_ type: Body.Type, from request: Request, limit: Int) async throws -> Body {
        let buffer = try await jsonBytes(of: request, limit: limit)
        do {
            return try JSONDecoder().decode(type, from: Data(buffer.readableBytesView))
        } catch let error as DecodingError {
            throw describe(error)
        }
    }

    /// The 400 for a decoding failure, naming the member (never its value).
    private static func describe(_ error: DecodingError) -> ServiceError {
        func path(_ keys: [any CodingKey]) -> String {
            keys.isEmpty ? "the body" : "`" + keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".") + "`"
        }
        switch error {
        case let .keyNotFound(key, context):
            return .invalidBody("\(path(context.codingPath + [key])) is missing")
        case let .typeMismatch(_, context), let .valueNotFound(_, context):
            return .invalidBody("\(path(context.codingPath)) has the wrong type")
        case let .dataCorrupted(context):
            return context.codingPath.isEmpty ? .malformedJSON() : .invalidBody("\(path(context.codingPath)) is not valid")
        @unknown default:
            return .malformedJSON()
        }
    }
}

/// Writes JSON responses.
enum JSONResponse {
    /// A 200 (or `status`) response with an `Encodable` body.
    static func make(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return make(bytes: Array(try encoder.encode(value)), status: status)
    }

    /// A response with a body that is already JSON.
    static func make(bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: RequestBodyReader.json], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
