// RulesKitHummingbird: request validation for Hummingbird apps. Decodes a JSON body into a
// `Decodable` type built from RulesKit's validated values (`EmailAddress`, `DisplayName`,
// `Password`), and answers a body with invalid fields with one 422 RFC 9457 problem listing every
// one of them. Owns the problem documents; validation itself is RulesKit's.
import Foundation
import Hummingbird
import NIOCore
import RulesKit

/// A `RequestDecoder` that validates while it decodes: set it as a request context's
/// `requestDecoder`, and `request.decode(as:context:)` answers a bad body with a problem.
///
/// ```swift
/// struct AppContext: RequestContext {
///     var coreContext: CoreRequestContextStorage
///     var requestDecoder: ValidatingRequestDecoder { ValidatingRequestDecoder() }
///     init(source: Source) { coreContext = .init(source: source) }
/// }
/// router.post("/signup") { request, context in
///     let signUp = try await request.decode(as: SignUp.self, context: context)   // 422 lists every bad field
///     …
/// }
/// ```
public struct ValidatingRequestDecoder: RequestDecoder, Sendable {
    /// The validators the values decode with (nil members: the shipped packs).
    public var validators: FieldValidators

    /// Creates a decoder.
    ///
    /// - Parameter validators: The validators to decode with; the shipped packs by default.
    public init(validators: FieldValidators = FieldValidators()) {
        self.validators = validators
    }

    /// Reads the body (at most the context's `maxUploadSize`) and decodes it.
    ///
    /// - Throws: ``ValidationProblem``: 422 listing every invalid field, 400 when the body is not
    ///   JSON or not of the type's shape, 413 when it is too large.
    public func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: context.maxUploadSize)
        } catch is NIOTooManyBytesError {
            throw ValidationProblem.tooLarge(limit: context.maxUploadSize)
        }
        return try decode(type, from: Data(buffer.readableBytesView))
    }

    /// Decodes a JSON document, collecting every invalid field.
    ///
    /// - Throws: ``ValidationProblem``: 422 listing every invalid field, 400 when the document is
    ///   not JSON or not of the type's shape.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(ValidationProblem) -> T {
        let decoder = JSONDecoder()
        decoder.userInfo[.ruleKitValidators] = validators
        do {
            return try decoder.decodeCollectingInvalidFields(type, from: data)
        } catch let fields as InvalidFields {
            throw .invalidFields(fields)
        } catch let error as DecodingError {
            throw .malformed(error)
        } catch {
            throw .malformed(nil)
        }
    }
}

extension Request {
    /// Decodes the JSON body into `type`, validating every ``DisplayName`` and ``EmailAddress``
    /// in it with `validators`, whatever the context's own decoder.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - context: The request's context (its `maxUploadSize` bounds the body).
    ///   - validators: The validators (the shipped packs by default).
    /// - Throws: ``ValidationProblem`` (422, 400 or 413).
    public func decodeValidated<T: Decodable>(as type: T.Type, context: some RequestContext,
                                              validators: FieldValidators = FieldValidators()) async throws -> T {
        try await ValidatingRequestDecoder(validators: validators).decode(type, from: self, context: context)
    }
}

/// An RFC 9457 problem (`application/problem+json`) answering a body that cannot be used.
///
/// 422 `invalid-fields` lists every violation of every invalid field in `errors`, each as
/// `{"pointer", "code", "message"}` (an RFC 6901 JSON Pointer into the body, the violation's
/// stable code and its end-user sentence). 400 `malformed-body` names the member that is missing
/// or of the wrong type; 413 `body-too-large` gives the limit. No member ever quotes a value of
/// the body, so a password never travels back.
public struct ValidationProblem: Error, Sendable, HTTPResponseError {
    /// One entry of `errors`.
    public struct FieldError: Sendable, Hashable, Codable {
        /// Where the field is: an RFC 6901 JSON Pointer into the body.
        public var pointer: String
        /// The violation's stable code (`EM101`, `DN106`).
        public var code: String
        /// The violation's end-user sentence.
        public var message: String
    }

    /// The HTTP status: 422, 400 or 413.
    public var status: HTTPResponse.Status
    /// The problem type, a URI (`urn:ruleskit:problem:invalid-fields`).
    public var type: String
    /// A short summary of the problem type.
    public var title: String
    /// This occurrence, in one sentence.
    public var detail: String
    /// Every violation of every invalid field (422 only), in body order.
    public var errors: [FieldError]

    /// 422: every violation of every field in `fields`.
    public static func invalidFields(_ fields: InvalidFields) -> ValidationProblem {
        let errors = fields.fields.flatMap { field in
            field.error.result.violations.map { FieldError(pointer: field.pointer, code: $0.code, message: $0.message) }
        }
        let count = fields.fields.count
        return ValidationProblem(
            status: .unprocessableContent, type: "urn:ruleskit:problem:invalid-fields", title: "The request has invalid fields.",
            detail: count == 1 ? "1 field is invalid." : "\(count) fields are invalid.", errors: errors)
    }

    /// 400: the body is not JSON, or not of the expected shape (the member named, never its value).
    public static func malformed(_ error: DecodingError?) -> ValidationProblem {
        var detail = "The request body is not valid JSON."
        switch error {
        case .keyNotFound(let key, let context)?:
            detail = "The request body has no `\(JSONPointer.of(context.codingPath + [key]))`."
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?:
            if !context.codingPath.isEmpty { detail = "The request body has the wrong type at `\(JSONPointer.of(context.codingPath))`." }
        case .dataCorrupted(let context)?:
            if !context.codingPath.isEmpty { detail = "The request body has an unusable value at `\(JSONPointer.of(context.codingPath))`." }
        default:
            break
        }
        return ValidationProblem(status: .badRequest, type: "urn:ruleskit:problem:malformed-body",
                                 title: "The request body cannot be read.", detail: detail, errors: [])
    }

    /// 413: the body is larger than `limit` bytes.
    public static func tooLarge(limit: Int) -> ValidationProblem {
        ValidationProblem(status: .contentTooLarge, type: "urn:ruleskit:problem:body-too-large",
                          title: "The request body is too large.", detail: "The request body is larger than \(limit) bytes.", errors: [])
    }

    /// The problem document: `{"type", "title", "status", "detail", "errors"}` (`errors` for 422).
    public var document: [UInt8] {
        struct Errors: Encodable, Sendable {
            var errors: [FieldError]?
        }
        return ProblemDetails(type: type, title: title, status: status.code, detail: detail,
                              extensions: Errors(errors: status == .unprocessableContent ? errors : nil)).json
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = document
        return Response(status: status, headers: [.contentType: ProblemMediaType.name, .contentLength: String(body.count)],
                        body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
