// ClaimStoreLocations: opens the claim store a location names (`sqlite:PATH` or
// `postgres://…`), for the CLI's `validate names` and the HTTP service.
// Does not own: the stores themselves (SQLiteClaims, PostgresClaims) or the name rules
// (RulesKit's AppDisplayNamePolicy).
import Availability
import PostgresClaims
import RulesKit
import SQLiteClaims

/// Opening and closing a claim store by its location text.
public enum ClaimStoreLocation {
    /// Opens `sqlite:PATH` or `postgres://…` (also `postgresql://`) with the app's display-name
    /// policy; a PostgreSQL store is connected and its tables prepared before it is returned.
    ///
    /// - Parameters:
    ///   - spec: The location; PostgreSQL URLs may carry a password, which no error repeats.
    ///   - connectTimeout: PostgreSQL: how long to wait for the first connection.
    /// - Throws: ``ClaimStoreError`` (`AV3004` for a malformed location, else why it cannot open).
    public static func open(_ spec: String, connectTimeout: Duration) async throws(ClaimStoreError) -> any ClaimStore {
        let policy: AppDisplayNamePolicy
        do {
            policy = try AppDisplayNamePolicy()
        } catch {
            throw ClaimStoreError(.failed, "the shipped display-name rules do not load: \(error); please report it")
        }
        if spec.hasPrefix("sqlite:") {
            let path = String(spec.dropFirst("sqlite:".count))
            guard !path.isEmpty else { throw ClaimStoreError(.badLocation, "`sqlite:` needs a file path, e.g. sqlite:./names.sqlite") }
            return try SQLiteClaimStore(path: path, policy: policy)
        }
        if spec.hasPrefix("postgres://") || spec.hasPrefix("postgresql://") {
            let store = PostgresClaimStore(location: try PostgresLocation(url: spec), policy: policy, connectTimeout: connectTimeout)
            do {
                try await store.prepare()
            } catch {
                store.shutdown()
                throw error
            }
            return store
        }
        throw ClaimStoreError(.badLocation, "unknown store `\(spec.prefix(while: { $0 != ":" }))`; use sqlite:PATH or postgres://…")
    }

    /// Releases what an opened store holds (PostgreSQL connections); SQLite closes on release.
    public static func close(_ store: any ClaimStore) {
        (store as? PostgresClaimStore)?.shutdown()
    }
}
