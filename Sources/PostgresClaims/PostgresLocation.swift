import Availability
import Foundation

/// Where a PostgreSQL claims database is: parsed from
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require][&schema=NAME]`.
///
/// `schema` names the PostgreSQL schema holding the tables (`public` by default); it must match
/// `[a-z_][a-z0-9_]*` (63 bytes at most).
///
/// ``description`` never shows the password.
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
        guard let components = URLComponents(string: url),
              let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme) else {
            throw ClaimStoreError(.badLocation, "not a `postgres://user:password@host:port/database` url")
        }
        guard let host = components.host, !host.isEmpty else {
            throw ClaimStoreError(.badLocation, "postgres url has no host")
        }
        guard let user = components.user, !user.isEmpty else {
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
        self.username = user.removingPercentEncoding ?? user
        self.password = components.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = database.removingPercentEncoding ?? database
        self.tls = mode
    }

    /// The location without its password.
    public var description: String {
        "postgres://\(username)@\(host):\(port)/\(database)" + (schema == "public" ? "" : "?schema=\(schema)")
    }

    /// True for names safe to splice into SQL unquoted-or-quoted: `[a-z_][a-z0-9_]*`, ≤ 63 bytes.
    static func isPlainIdentifier(_ name: String) -> Bool {
        guard name.utf8.count <= 63, let first = name.unicodeScalars.first, first == "_" || ("a"..."z").contains(first) else {
            return false
        }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("0"..."9").contains($0) }
    }
}
