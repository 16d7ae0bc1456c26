#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HTTPTypes
import Hummingbird

// MARK: - Addresses and networks

/// An IPv4 or IPv6 address, parsed by the C library (`inet_pton`: dotted-quad IPv4 only, no
/// octal, hex or short forms). An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) is its IPv4
/// address.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 (IPv6), in network order.
    public let bytes: [UInt8]

    /// Parses `text`, an address without brackets, port or zone; nil when it is not one.
    public init?(_ text: String) {
        // A C string ends at a NUL: `127.0.0.1\0.evil` must not parse as 127.0.0.1.
        guard !text.isEmpty, text.utf8.count <= 64, !text.utf8.contains(0) else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let all = withUnsafeBytes(of: &v6) { Array($0) }
        bytes = all.prefix(12).elementsEqual(Self.mappedPrefix) ? Array(all.suffix(4)) : all
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    /// `::ffff:0:0/96`, the IPv4-mapped IPv6 addresses.
    private static let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF]

    /// True for IPv4.
    public var isIPv4: Bool { bytes.count == 4 }

    /// True for `127.0.0.0/8` and `::1`.
    public var isLoopback: Bool {
        isIPv4 ? bytes[0] == 127 : bytes == Array(repeating: 0, count: 15) + [1]
    }

    /// The address with all but its first `prefixLength` bits cleared.
    func masked(to prefixLength: Int) -> IPAddress {
        var masked = bytes
        for index in masked.indices {
            let kept = max(0, min(8, prefixLength - index * 8))
            masked[index] &= kept == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - kept))
        }
        return IPAddress(bytes: masked)
    }

    /// The rate limiter's key for a client at this address: the address for IPv4, its /64 for
    /// IPv6 (one subscriber usually controls a whole /64).
    var bucket: String {
        isIPv4 ? description : "\(masked(to: 64))/64"
    }

    /// The address in its usual text form (`inet_ntop`).
    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = isIPv4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { raw in
            buffer.withUnsafeMutableBufferPointer { inet_ntop(family, raw.baseAddress, $0.baseAddress, socklen_t($0.count)) }
        }
        guard written != nil else { return bytes.map(String.init).joined(separator: ".") }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A network in CIDR notation (`10.0.0.0/8`, `2001:db8::/32`; a bare address is a network of
/// one): the peers `--trusted-proxy` names.
public struct IPNetwork: Hashable, Sendable, CustomStringConvertible {
    /// The network's address, host bits cleared.
    public let address: IPAddress
    /// Leading bits that must match: 0–32 (IPv4) or 0–128 (IPv6).
    public let prefixLength: Int

    /// Parses `ADDRESS[/BITS]`; nil when it is not one.
    public init?(cidr text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(String(parts[0])) else { return nil }
        let width = address.isIPv4 ? 32 : 128
        var length = width
        if parts.count == 2 {
            let digits = parts[1]
            guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
                  let bits = Int(digits), bits <= width else { return nil }
            length = bits
        }
        self.address = address.masked(to: length)
        self.prefixLength = length
    }

    /// True when `candidate` is in this network (an IPv4 address is never in an IPv6 network).
    public func contains(_ candidate: IPAddress) -> Bool {
        candidate.bytes.count == address.bytes.count && candidate.masked(to: prefixLength) == address
    }

    public var description: String { "\(address)/\(prefixLength)" }
}

// MARK: - Who the client is

/// Who a request comes from, for the rate limiter: the peer's address, or, when the peer is a
/// trusted proxy (`--trusted-proxy`), the address the proxies recorded in `Forwarded` (RFC 7239
/// `for=`) or, without it, `X-Forwarded-For`.
///
/// The hops are read from the right (the one the nearest proxy added) and skipped while they are
/// trusted proxies themselves; the first hop that is not is the client. A hop that is not an
/// address (`unknown`, an obfuscated `_name`, garbage) ends the search: the last trusted proxy
/// read is taken for the client, so such requests share that proxy's bucket. A header from a
/// peer that is not trusted is ignored: anyone can send one.
struct ClientIdentity: Sendable {
    let trustedProxies: [IPNetwork]

    /// The client's address, or nil when the peer's address is unknown.
    func client(of request: Request, peer: String?) -> IPAddress? {
        guard let peer = peer.flatMap(IPAddress.init) else { return nil }
        guard isTrusted(peer), let hops = Self.forwardedHops(request.headers) else { return peer }
        var client = peer
        for hop in hops.reversed() {
            guard let hop else { break }
            client = hop
            if !isTrusted(hop) { break }
        }
        return client
    }

    /// The rate limiter's key for the request's client: `client <address>` (IPv6: its /64).
    func bucket(of request: Request, peer: String?) -> String {
        "client " + (client(of: request, peer: peer)?.bucket ?? "unknown")
    }

    private func isTrusted(_ address: IPAddress) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }

    static let forwarded = HTTPField.Name("Forwarded")
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")

    /// The hops the proxies recorded, oldest first (nil for a hop that is not an address), or
    /// nil when the request has neither header. `Forwarded` wins over `X-Forwarded-For`.
    static func forwardedHops(_ headers: HTTPFields) -> [IPAddress?]? {
        if let name = forwarded {
            let values = headers[values: name]
            if !values.isEmpty { return values.flatMap(forwardedFor) }
        }
        if let name = xForwardedFor {
            let values = headers[values: name]
            if !values.isEmpty {
                return values.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
                    .map { node(String($0).trimmingWhitespace) }
            }
        }
        return nil
    }

    /// The `for=` of each element of one `Forwarded` value (`for=192.0.2.60;proto=http, for="[2001:db8::17]:4711"`);
    /// an element without `for` or with a value that is not an address gives nil.
    static func forwardedFor(_ value: String) -> [IPAddress?] {
        splitOutsideQuotes(value, ",").map { element in
            for pair in splitOutsideQuotes(element, ";") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, parts[0].trimmingWhitespace.lowercased() == "for" else { continue }
                return node(unquoted(parts[1].trimmingWhitespace))
            }
            return nil
        }
    }

    /// A node as proxies write it: `192.0.2.60`, `192.0.2.60:8080`, `2001:db8::17`,
    /// `[2001:db8::17]`, `[2001:db8::17]:4711`; nil for anything else.
    static func node(_ text: String) -> IPAddress? {
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || isPort(rest.dropFirst()) && rest.first == ":" else { return nil }
            return IPAddress(String(text[text.index(after: text.startIndex)..<close]))
        }
        if let address = IPAddress(text) { return address }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, isPort(parts[1]), let address = IPAddress(String(parts[0])), address.isIPv4 else { return nil }
        return address
    }

    static func isPort(_ text: Substring) -> Bool {
        (1...5).contains(text.count) && text.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// `text` split at `separator` where it is not inside a quoted string.
    private static func splitOutsideQuotes(_ text: String, _ separator: Character) -> [String] {
        var parts: [String] = []
        var current = ""
        var (quoted, escaped) = (false, false)
        for character in text {
            if escaped {
                escaped = false
            } else if quoted && character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == separator && !quoted {
                parts.append(current)
                current = ""
                continue
            }
            current.append(character)
        }
        parts.append(current)
        return parts
    }

    /// A token or a quoted string's content (backslash escapes removed).
    private static func unquoted(_ text: String) -> String {
        guard text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") else { return text }
        var out = ""
        var escaped = false
        for character in text.dropFirst().dropLast() {
            if !escaped && character == "\\" { escaped = true; continue }
            escaped = false
            out.append(character)
        }
        return out
    }
}

// MARK: - Host names for --dev-auth

/// The `Host` check of `--dev-auth` (against DNS rebinding): a request's host must be a loopback
/// name or address, with an optional port.
enum LoopbackHost {
    /// True for `localhost`, an address in `127.0.0.0/8` and `[::1]`, each optionally with
    /// `:PORT`. `127.0.0.1.example.com`, `evil.example` and bare `::1` are not.
    static func accepts(_ host: String) -> Bool {
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            let rest = host[host.index(after: close)...]
            guard rest.isEmpty || rest.first == ":" && ClientIdentity.isPort(rest.dropFirst()) else { return false }
            return IPAddress(String(host[host.index(after: host.startIndex)..<close])).map { !$0.isIPv4 && $0.isLoopback } ?? false
        }
        let parts = host.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { return false }
        if parts.count == 2, !ClientIdentity.isPort(parts[1]) { return false }
        let name = String(parts[0])
        if name.lowercased() == "localhost" { return true }
        return IPAddress(name).map { $0.isIPv4 && $0.isLoopback } ?? false
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    var trimmingWhitespace: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
