// SQLiteClaims: the embedded ClaimStore on SQLite through GRDB (WAL, one file).
//
// Owns the SQLite schema, its migrations, its transactions and SQL. Does not own the claim
// rules: checks, decisions and wording come from Availability (`CheckedClaim`, `CheckedRelease`,
// `CheckedRename`, `PreparedBatch`, `PreparedName`), so every store answers alike.
