// Raw HTTP/1.1 over TCP on 127.0.0.1, for tests that send what no HTTP client sends (broken
// chunked bodies, half a request head) and read the answer byte for byte.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Why a raw connection failed.
public struct RawConnectionError: Error, CustomStringConvertible {
    public let description: String
}

/// A TCP connection to 127.0.0.1 that sends bytes as they are and reads what comes back: for
/// requests no HTTP client would send.
public struct RawConnection {
    public let descriptor: Int32

    /// Connects to `127.0.0.1:port`. Reads give up after `guardTime` without data, so that a
    /// server that never answers fails the test instead of hanging it (the tests never assert on
    /// how long anything took).
    public init(port: Int, guardTime: Int = 60) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RawConnectionError(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(descriptor)
            throw RawConnectionError(description: "connect to 127.0.0.1:\(port): errno \(errno)")
        }
        var timeout = timeval(tv_sec: guardTime, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Sends all of `bytes`.
    public func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw RawConnectionError(description: "send: errno \(errno)") }
            sent += count
        }
    }

    /// Sends `text` as UTF-8.
    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Everything until the server closes the connection.
    ///
    /// - Throws: when the guard time passes without the connection closing.
    public func readToEnd() throws -> [UInt8] {
        var all: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 { return all }
            if count < 0 {
                if errno == ECONNRESET { return all }
                throw RawConnectionError(description: "the server neither answered nor closed the connection (errno \(errno)); got \(all.count) bytes")
            }
            all += buffer[..<count]
        }
    }

    /// Closes the connection.
    public func close() { Glibc.close(descriptor) }
}

extension RawConnection {
    /// Connects to `127.0.0.1:port`, sends `bytes` and reads until the server closes the
    /// connection, on a Dispatch thread: blocking reads must not hold a thread of Swift's
    /// cooperative pool, which an in-process server needs to answer.
    public static func exchange(port: Int, _ bytes: [UInt8], guardTime: Int = 60) async throws -> [UInt8] {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    let connection = try RawConnection(port: port, guardTime: guardTime)
                    defer { connection.close() }
                    try connection.send(bytes)
                    return try connection.readToEnd()
                })
            }
        }
    }
}

/// One HTTP/1.1 response read off the wire: the status and, for the service's error shape, the code.
public struct RawResponse {
    public let text: String

    /// The response in `bytes`.
    public init(_ bytes: [UInt8]) { text = String(decoding: bytes, as: UTF8.self) }

    /// How many responses the bytes hold (status lines).
    public var count: Int { text.components(separatedBy: "HTTP/1.1 ").count - 1 }
    /// The first status code.
    public var status: Int? { text.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } }
    /// `error.code` of the first body.
    public var errorCode: String? {
        guard let body = text.range(of: "\r\n\r\n").map({ text[$0.upperBound...] }),
              let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else { return nil }
        return (object["error"] as? [String: Any])?["code"] as? String
    }
    /// True when the headers say `Content-Type: application/json`.
    public var isJSON: Bool { text.lowercased().contains("\r\ncontent-type: application/json\r\n") }
}
