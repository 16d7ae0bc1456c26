import BreachedPasswords
import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /v1/breached/range/{prefix}`: the Pwned Passwords range API over the store given with
/// `--breached`, so existing Pwned Passwords clients can ask a local copy, with no password or
/// whole hash leaving the network.
struct BreachedRoutes: Sendable {
    /// The store, or nil when the service has none (the route then answers 404 `API1206`).
    let store: BreachedStore?
    /// The request header asking for padding, as the public API names it.
    static let addPadding = HTTPField.Name("Add-Padding")!  // INVARIANT: a valid field name

    func add(to routes: RouteRegistrar) {
        routes.on(.get, "v1/breached/range/:prefix") { request, context in
            // Percent-decoded like every path parameter; anything but five hex digits is refused.
            guard let prefix = RangeAnswer.prefix(context.parameters.decoded("prefix")) else { throw ServiceError.invalidRangePrefix() }
            guard let store else { throw ServiceError.noBreachedStore() }
            let padded = request.headers[values: Self.addPadding].contains { $0.lowercased() == "true" }
            let body: [UInt8]
            do {
                body = try RangeAnswer.text(prefix: prefix, store: store, padded: padded)
            } catch {
                // INVARIANT: the service refuses a store that is not exact at start-up.
                throw ServiceError.internalFailure()
            }
            return Response(status: .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
    }
}
