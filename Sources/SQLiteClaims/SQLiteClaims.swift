// SQLiteClaims: the embedded ClaimStore on SQLite through GRDB (WAL, one file).
//
// Owns the SQLite schema and its migrations. Does not own the claim rules: wording and
// decisions come from Availability's `PreparedName` and `ClaimVerdict`, so every store answers
// alike.
