import Availability
import Hummingbird
import Logging
import NIOHTTP1

/// Turns every error a route throws into `{"error": {"code", "message"}}` with its status:
/// the service's own (``ServiceError``), a store that cannot answer (503), Hummingbird's (404,
/// 405, 413, …), a body whose HTTP framing breaks while it is read (400 `API1005`), and anything
/// else as a 500 that says nothing about the request.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return try Self.serviceError(for: error, logger: context.logger).response(from: request, context: context)
        }
    }

    /// The ``ServiceError`` an error is answered with.
    static func serviceError(for error: any Error, logger: Logger) -> ServiceError {
        switch error {
        case let error as ServiceError:
            return error
        case let error as ClaimStoreError:
            // Store errors print locations without passwords.
            logger.error("claims store cannot answer", metadata: ["error": "\(error)"])
            return .storeDown(error)
        case let error as HTTPParserError:
            // The body's framing broke while a route read it: a client error, and the
            // connection closes after the answer.
            return ConnectionGuard.serviceError(for: error, maxHeaderBytes: nil)
        case let error as HTTPError:
            switch error.status {
            case .notFound: return .unknownEndpoint()
            case .methodNotAllowed: return .methodNotAllowed(allow: nil)
            case .contentTooLarge: return .bodyTooLarge(limit: nil)
            default: return ServiceError(error.status, code: ServiceCodes.otherHTTPError.id, message: "The request cannot be answered (\(error.status.code)).")
            }
        default:
            logger.error("internal failure", metadata: ["error.type": "\(type(of: error))"])
            return .internalFailure()
        }
    }
}
