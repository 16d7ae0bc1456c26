// A TCP relay between a store and the PostgreSQL server that tells a test when the store sends a
// statement: an event to await where the test would otherwise poll the server and sleep.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Relays every TCP connection made to `127.0.0.1:port` to the server, byte for byte, and reports
/// when a client sends a given text. A statement's SQL goes over the wire as it is (the extended
/// query protocol's Parse message), so a ``Watch`` on it fires once the client has sent it, which
/// postgres-nio does only after reading the answer of the statement before it.
///
/// The store under test connects through the relay; the test's own connections go straight to
/// the server. The relay's threads block in `accept` and `recv`, outside Swift's cooperative pool.
final class StatementRelay: @unchecked Sendable {
    /// The port the relay listens on, on 127.0.0.1.
    let port: Int
    private let listener: Int32
    private let target: sockaddr_in
    private let lock = NSLock()
    private var watches: [Watch] = []
    private var connections: Set<Int32> = []
    private var closed = false

    /// Text to look for in what clients send from the moment the watch is made.
    final class Watch: Sendable {
        fileprivate let text: [UInt8]
        private let events: AsyncStream<Bool>
        private let sink: AsyncStream<Bool>.Continuation

        fileprivate init(_ text: String) {
            self.text = Array(text.utf8)
            (events, sink) = AsyncStream.makeStream(of: Bool.self, bufferingPolicy: .bufferingOldest(1))
        }

        /// Waits until the text went by (true) or the watch was ended first (false).
        func wait() async -> Bool {
            for await seen in events { return seen }
            return false
        }

        /// Ends the watch unseen, so that ``wait()`` returns false if the text has not gone by.
        func end() {
            sink.yield(false)
            sink.finish()
        }

        fileprivate func fire() {
            sink.yield(true)
            sink.finish()
        }
    }

    /// Starts relaying to the server at `host:port` (an IPv4 address, or `localhost`).
    init(toHost host: String, port serverPort: Int) throws {
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = in_port_t(UInt16(serverPort).bigEndian)
        guard inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &target.sin_addr) == 1 else {
            throw RelayError("the relay takes an IPv4 address, not `\(host)`")
        }
        self.target = target
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw RelayError("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 16) == 0 && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound else {
            Glibc.close(listener)
            throw RelayError("listen on 127.0.0.1: errno \(errno)")
        }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptConnections() }
    }

    /// Watches for `text` in what clients send from now on; the watch fires once, for the first
    /// client to send it.
    func watch(for text: String) -> Watch {
        let watch = Watch(text)
        lock.withLock { watches.append(watch) }
        return watch
    }

    /// Stops listening and cuts every relayed connection.
    func close() {
        let open = lock.withLock {
            closed = true
            return connections
        }
        shutdown(listener, Int32(SHUT_RDWR))
        for descriptor in open { shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    deinit { Glibc.close(listener) }

    // MARK: - Relaying

    private func acceptConnections() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            guard let server = connectToTarget(), register([client, server]) else {
                Glibc.close(client)
                continue
            }
            let pair = Pair(client: client, server: server)
            Thread.detachNewThread { [self] in relay(from: client, to: server, watching: true, pair) }
            Thread.detachNewThread { [self] in relay(from: server, to: client, watching: false, pair) }
        }
    }

    private func connectToTarget() -> Int32? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = target
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(descriptor)
            return nil
        }
        return descriptor
    }

    /// Records the descriptors of a new connection; false once the relay is closed.
    private func register(_ descriptors: [Int32]) -> Bool {
        lock.withLock {
            guard !closed else {
                descriptors.dropFirst().forEach { Glibc.close($0) }
                return false
            }
            connections.formUnion(descriptors)
            return true
        }
    }

    /// The two sockets of one relayed connection, closed by the second of its two directions to end.
    private final class Pair: @unchecked Sendable {
        let client: Int32
        let server: Int32
        private let lock = NSLock()
        private var ended = 0

        init(client: Int32, server: Int32) {
            self.client = client
            self.server = server
        }

        /// True for the second direction to end.
        func end() -> Bool { lock.withLock { ended += 1; return ended == 2 } }
    }

    /// Copies bytes from `source` to `sink` until either side closes; `watching` scans them for
    /// the watches' texts, across reads (a text may arrive split between two).
    private func relay(from source: Int32, to sink: Int32, watching: Bool, _ pair: Pair) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var carried: [UInt8] = []
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            if watching { carried = scan(carried + buffer[..<count]) }
            guard sendAll(buffer[..<count], to: sink) else { break }
        }
        // Wake the other direction, then let whichever ends second close both sockets.
        shutdown(pair.client, Int32(SHUT_RDWR))
        shutdown(pair.server, Int32(SHUT_RDWR))
        guard pair.end() else { return }
        lock.withLock {
            connections.remove(pair.client)
            connections.remove(pair.server)
        }
        Glibc.close(pair.client)
        Glibc.close(pair.server)
    }

    /// Fires the watches whose text is in `bytes`; returns the end of `bytes` that a text still
    /// being watched could continue in the next read.
    private func scan(_ bytes: [UInt8]) -> [UInt8] {
        let (found, longest) = lock.withLock { () -> ([Watch], Int) in
            let found = watches.filter { bytes.firstRange(of: $0.text) != nil }
            watches.removeAll { watch in found.contains { $0 === watch } }
            return (found, watches.map(\.text.count).max() ?? 0)
        }
        found.forEach { $0.fire() }
        return Array(bytes.suffix(max(0, longest - 1)))
    }

    private func sendAll(_ bytes: ArraySlice<UInt8>, to descriptor: Int32) -> Bool {
        var sent = bytes.startIndex
        while sent < bytes.endIndex {
            let count = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }
}

/// Why the relay could not start.
struct RelayError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
