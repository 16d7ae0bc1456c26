import Hummingbird
import Foundation
import NIOCore

/// The per-request context: Hummingbird's core context plus who is calling from where.
public struct ServiceRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The client's address without its port (the rate limiter's key); nil when unknown.
    public let clientAddress: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        clientAddress = source.channel.remoteAddress?.ipAddress
    }
}

extension Parameters {
    /// The path parameter `name`, percent-decoded (as given when it is not valid
    /// percent-encoding); empty when absent.
    func decoded(_ name: String) -> String {
        guard let raw = get(name) else { return "" }
        return raw.removingPercentEncoding ?? raw
    }
}
