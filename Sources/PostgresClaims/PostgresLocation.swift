import Availability
import Foundation

/// Where a PostgreSQL claims database is: parsed from
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require][&schema=NAME]`.
///
/// `schema` names the PostgreSQL schema holding the tables (`public` by default); it must match
/// `[a-z_][a-z0-9_]*` (63 bytes at most).
///
/// The user information ends at the URL's last `@`, so a password may hold an unescaped `@` or
/// `/` (`postgres://u:p@ss/w@host/db`). ``description`` and ``redacted(_:)`` never show anything
/// between the scheme and that last `@`: not the password, and not a user name that may be part
/// of one (`postgres://u@SECRET@host/db`).
public struct PostgresLocation: Sendable, Hashable, CustomStringConvertible {
    /// How the connection uses TLS.
    public enum TLSMode: String, Sendable, Hashable {
        /// Plain TCP (fine on loopback).
        case disable
        /// TLS when the server offers it (the default).
        case prefer
        /// TLS or nothing.
        case require
    }

    /// Server host name or address.
    public var host: String
    /// Server port (5432 when the URL has none).
    public var port: Int
    /// Role to log in as.
    public var username: String
    /// Password, if the URL has one. Never printed.
    public var password: String?
    /// Database name.
    public var database: String
    /// TLS use (`sslmode`).
    public var tls: TLSMode
    /// PostgreSQL schema holding the claims tables (`schema`, default `public`).
    public var schema: String

    /// Parses a `postgres://` (or `postgresql://`) URL.
    ///
    /// - Throws: ``ClaimStoreError`` `.badLocation` saying which part is wrong.
    public init(url: String) throws(ClaimStoreError) {
        guard let (userInfo, rest) = Self.split(url) else {
            throw ClaimStoreError(.badLocation, "not a `postgres://user:password@host:port/database` url")
        }
        guard let userInfo else { throw ClaimStoreError(.badLocation, "postgres url has no user name") }
        // Host, port, database and query, parsed without the user information (whatever it holds).
        guard let components = URLComponents(string: "postgres://" + rest) else {
            throw ClaimStoreError(.badLocation, "postgres url: the part after the last `@` is not `host:port/database`")
        }
        guard let host = components.host, !host.isEmpty else {
            throw ClaimStoreError(.badLocation, "postgres url has no host")
        }
        let (user, password) = userInfo.firstIndex(of: ":").map { (userInfo[..<$0], Optional(userInfo[userInfo.index(after: $0)...])) }
            ?? (userInfo[...], nil)
        guard !user.isEmpty else {
            throw ClaimStoreError(.badLocation, "postgres url has no user name")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty else {
            throw ClaimStoreError(.badLocation, "postgres url has no database name after the host")
        }
        let modeText = components.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? "prefer"
        guard let mode = TLSMode(rawValue: modeText) else {
            throw ClaimStoreError(.badLocation, "unknown sslmode `\(modeText)`; use disable, prefer or require")
        }
        let schema = components.queryItems?.first(where: { $0.name == "schema" })?.value ?? "public"
        guard Self.isPlainIdentifier(schema) else {
            throw ClaimStoreError(.badLocation, "schema name `\(schema)` must match [a-z_][a-z0-9_]* (63 bytes at most)")
        }
        self.schema = schema
        self.host = host
        self.port = components.port ?? 5432
        self.username = user.removingPercentEncoding ?? String(user)
        self.password = password.map { $0.removingPercentEncoding ?? String($0) }
        self.database = database.removingPercentEncoding ?? database
        self.tls = mode
    }

    /// The location without its user information: `postgres://***@HOST:PORT/DATABASE`.
    public var description: String {
        "postgres://***@\(host):\(port)/\(database)" + (schema == "public" ? "" : "?schema=\(schema)")
    }

    /// `url` with everything between its scheme and its last `@` replaced by `***`, for any
    /// message that repeats a location as given (`postgres://u@SECRET@host/db` is
    /// `postgres://***@host/db`). Text without `://` is returned whole; without an `@` after
    /// the scheme, as is.
    public static func redacted(_ url: String) -> String {
        guard let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].lastIndex(of: "@") else { return url }
        return String(url[..<scheme.upperBound]) + "***" + String(url[at...])
    }

    /// The user information (nil when the URL has no `@`) and what follows its last `@`, for a
    /// `postgres://` or `postgresql://` URL; nil for any other text.
    private static func split(_ url: String) -> (userInfo: Substring?, rest: Substring)? {
        guard let scheme = url.range(of: "://"), ["postgres", "postgresql"].contains(url[..<scheme.lowerBound]) else { return nil }
        let afterScheme = url[scheme.upperBound...]
        guard let at = afterScheme.lastIndex(of: "@") else { return (nil, afterScheme) }
        return (afterScheme[..<at], afterScheme[afterScheme.index(after: at)...])
    }

    /// True for names safe to splice into SQL unquoted-or-quoted: `[a-z_][a-z0-9_]*`, ≤ 63 bytes.
    static func isPlainIdentifier(_ name: String) -> Bool {
        guard name.utf8.count <= 63, let first = name.unicodeScalars.first, first == "_" || ("a"..."z").contains(first) else {
            return false
        }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("0"..."9").contains($0) }
    }
}
