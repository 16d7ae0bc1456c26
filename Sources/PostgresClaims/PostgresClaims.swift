// PostgresClaims: the ClaimStore for deployments with many app servers, on PostgreSQL through
// postgres-nio (a connection pool, unique indexes, `INSERT … ON CONFLICT DO NOTHING`,
// transactions for renames).
//
// Owns the PostgreSQL schema and its migrations and the `postgres://` location format. Does not
// own the claim rules: decisions and wording come from Availability, so every store answers alike.
